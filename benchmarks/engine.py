"""Speed of the engine: one batch of 10 000 scenarios against 10 000 single-scenario calls.

Generates 10 000 random valid 60-month scenarios (steady, tidal and profile
workloads in equal shares, reproducible seed), evaluates them as one
``project()`` batch and as a loop of ``project([s])`` calls over all 10 000,
checks that both give the same figures, and prints scenarios per second for
both and their ratio. Validation (``Scenario.model_validate``) is done before
either clock starts; reading results out as JSON dicts is timed separately.

The two are measured in rounds that take turns (each round: the batch
``--repeat`` times, then the whole loop once), because this shared VM's
speed drifts by a third over minutes: a ratio taken within one round compares
like with like. Each round's ratio is its median batch against its loop; the
headline ratio is the median of the rounds' ratios, and every round is printed.

    .venv/bin/python benchmarks/engine.py            # or: make bench
    .venv/bin/python benchmarks/engine.py --scenarios 2000 --repeat 3 --rounds 1

Targets (issue 2): the batch at least 50x faster than the loop, and well under
a second.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from costmodel import Scenario, project

HORIZON_MONTHS = 60


def random_scenario(rng: np.random.Generator, kind: str) -> dict[str, Any]:
    """One valid explicit scenario with catalog-like magnitudes."""
    if kind == "steady":
        workload: dict[str, Any] = {"kind": "steady", "utilization": float(rng.uniform(0, 1))}
    elif kind == "tidal":
        workload = {
            "kind": "tidal",
            "active_days_per_month": float(rng.uniform(0, 31)),
            "hours_per_active_day": float(rng.uniform(1, 24)),
        }
    else:
        length = int(rng.integers(1, 25))
        workload = {
            "kind": "profile",
            "monthly_utilization": rng.uniform(0, 1, length).round(3).tolist(),
        }
    load = float(rng.uniform(200, 6000))
    return {
        "currency": str(rng.choice(["CNY", "USD"])),
        "horizon_months": HORIZON_MONTHS,
        "discount_rate_per_year": float(rng.uniform(0, 0.15)),
        "workload": workload,
        "build": {
            "gpu_count": int(rng.integers(1, 9)),
            "gpu_throughput": float(rng.uniform(0.1, 2.5)),
            "capex": float(rng.uniform(5_000, 2_000_000)),
            "power_load_watts": load,
            "power_idle_watts": float(rng.uniform(0, 0.3)) * load,
            "pue": float(rng.uniform(1, 2)),
            "electricity_price_per_kwh": float(rng.uniform(0.3, 1.5)),
            "hosting_monthly": float(rng.uniform(0, 5_000)),
            "maintenance_rate_per_year": float(rng.uniform(0, 0.1)),
            "ops_monthly": float(rng.uniform(0, 3_000)),
            "residual_value_retention_per_year": float(rng.uniform(0.4, 0.9)),
        },
        "rent": {
            "gpu_count": int(rng.integers(1, 9)),
            "gpu_throughput": float(rng.uniform(0.3, 2.5)),
            "hourly_rate": float(rng.uniform(1, 300)),
            "fixed_monthly": float(rng.uniform(0, 1_000)),
            "annual_price_change": float(rng.uniform(-0.3, 0.1)),
        },
    }


def timed(function: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    value = function()
    return time.perf_counter() - start, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenarios", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=11, help="batch runs per round (median)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of batch runs, then loop")
    parser.add_argument("--seed", type=int, default=20_240_601)
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    kinds = ("steady", "tidal", "profile")
    scenarios = [
        Scenario.model_validate(random_scenario(rng, kinds[i % 3])) for i in range(args.scenarios)
    ]
    n = len(scenarios)

    project(scenarios)  # warm-up at full size: imports, and the allocator growing its heap
    rounds: list[tuple[list[float], float]] = []
    for _ in range(args.rounds):
        batch_times = []
        for _ in range(args.repeat):
            seconds, batch = timed(lambda: project(scenarios))
            batch_times.append(seconds)
        loop_seconds, singles = timed(lambda: [project([s]) for s in scenarios])
        rounds.append((batch_times, loop_seconds))

    results_seconds, _ = timed(batch.results)

    for name in ("savings", "build_present_value", "rent_total", "break_even_utilization"):
        looped = np.array([getattr(p, name)[0] for p in singles])
        np.testing.assert_allclose(getattr(batch, name), looped, rtol=1e-12, equal_nan=True)
    looped_months = np.array([p.break_even_month[0] for p in singles])
    np.testing.assert_allclose(batch.break_even_month, looped_months, rtol=1e-12, equal_nan=True)

    batch_seconds = statistics.median(t for times, _ in rounds for t in times)
    loop_seconds = statistics.median(loop for _, loop in rounds)
    ratios = [loop / statistics.median(times) for times, loop in rounds]
    print(f"engine benchmark: {n} scenarios x {HORIZON_MONTHS} months, mixed workloads")
    print(f"  python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}")
    for number, ((times, loop), ratio) in enumerate(zip(rounds, ratios, strict=True), 1):
        print(
            f"  round {number}: batch median {statistics.median(times) * 1000:6.1f} ms "
            f"(best {min(times) * 1000:.1f}), loop {loop * 1000:7.1f} ms, ratio {ratio:5.1f}x"
        )
    print(
        f"  batch  project(all):     {batch_seconds * 1000:8.1f} ms  "
        f"(median of {len(rounds) * args.repeat} runs)  {n / batch_seconds:12,.0f} scenarios/s"
    )
    print(
        f"  loop   project([s]) x {n}: {loop_seconds * 1000:8.1f} ms  "
        f"(median of {len(rounds)} loops)  {n / loop_seconds:12,.0f} scenarios/s"
    )
    print(
        f"  ratio  batch / loop:      {statistics.median(ratios):8.1f}x  "
        f"(median of the rounds' ratios; lowest {min(ratios):.1f}x)"
    )
    print(f"  (reading all {n} results as JSON dicts from the batch: {results_seconds:.2f} s)")
    print("  batch and loop agree (savings, present values, totals, break-even) to rtol 1e-12")


if __name__ == "__main__":
    main()
