"""Speed of the engine on what users meet, against the methodology as a plain Python loop.

Three measurements, each timed against the pure-Python month loop of
``benchmarks/reference.py`` doing the same work in the same run:

1. **core** — ``project_columns`` on the columns of 10 000 varied 60-month
   scenarios (every version-2 feature in the mix), break-even utilization
   included; the loop runs ``reference.compare`` on each scenario.
2. **uncertainty** — ``POST /api/v1/uncertainty``'s work: validate the
   request, draw 10 000 × 3 inputs, project, reduce to percentiles, the
   probabilities and the per-month bands; the loop draws the same values and
   runs the month loop per draw, then the same statistics in plain Python.
3. **JSON batch** — ``POST /api/v1/compare/batch`` with 10 000 scenarios and
   ``"detail": "summary"`` through Django's test client: JSON text in,
   validation, one projection, summary JSON text out; the loop runs
   ``reference.compare`` over the already parsed scenarios (parsing is left
   outside its clock, which only favours the loop).

Engine and loop take turns in rounds (this shared VM's speed drifts over
minutes); each ratio is taken within a round, and the headline is the median
of the rounds. Every input is distinct and nothing is cached between runs.
Results of engine and loop are checked against each other.

    .venv/bin/python benchmarks/engine.py            # or: make bench
    .venv/bin/python benchmarks/engine.py --scenarios 2000 --rounds 1

Targets (issue "Engine v2"): uncertainty at least 30x faster than its loop;
the JSON batch end to end at least 5x faster than its loop.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only")
os.environ.setdefault("DJANGO_STATIC_MANIFEST", "false")
os.environ.setdefault("DATABASE_URL", "sqlite://:memory:")
os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver")
os.environ.setdefault("DJANGO_MAX_BODY_BYTES", str(64 * 1024 * 1024))

import django

django.setup()

from django.test import Client  # noqa: E402

from benchmarks import reference  # noqa: E402
from costmodel import Scenario, columns_from, project_columns  # noqa: E402
from costmodel.operations import draw, parse_uncertainty, uncertainty  # noqa: E402

HORIZON_MONTHS = 60


def random_scenario(rng: np.random.Generator, i: int) -> dict[str, Any]:
    """One valid scenario with catalog-like magnitudes; every fourth uses version-2 features."""
    kind = ("steady", "tidal", "profile")[i % 3]
    if kind == "steady":
        workload: dict[str, Any] = {"kind": "steady", "utilization": float(rng.uniform(0, 1.6))}
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
            "monthly_utilization": rng.uniform(0, 1.2, length).round(3).tolist(),
        }
    load = float(rng.uniform(200, 6000))
    build: dict[str, Any] = {
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
    }
    rent: dict[str, Any] = {
        "gpu_count": int(rng.integers(1, 9)),
        "gpu_throughput": float(rng.uniform(0.3, 2.5)),
        "hourly_rate": float(rng.uniform(1, 300)),
        "fixed_monthly": float(rng.uniform(0, 1_000)),
        "annual_price_change": float(rng.uniform(-0.3, 0.1)),
    }
    if i % 4 == 1:
        build["useful_life_months"] = int(rng.integers(12, 61))
        build["capex_annual_price_change"] = float(rng.uniform(-0.2, 0.05))
        build["running_cost_annual_change"] = float(rng.uniform(0, 0.06))
        build["financing"] = {
            "down_payment_fraction": float(rng.uniform(0, 0.5)),
            "annual_interest_rate": float(rng.uniform(0, 0.1)),
            "term_months": int(rng.integers(12, 73)),
        }
    if i % 4 == 3:
        rent["committed_instances"] = int(rng.integers(1, 4))
        rent["committed_hourly_rate"] = rent["hourly_rate"] * float(rng.uniform(0.4, 0.8))
        rent["commitment_term_months"] = int(rng.choice([12, 36]))
        rent["commitment_upfront_per_instance"] = float(rng.uniform(0, 20_000))
        rent["rework_fraction"] = float(rng.uniform(0, 0.2))
    return {
        "currency": str(rng.choice(["CNY", "USD"])),
        "horizon_months": HORIZON_MONTHS,
        "discount_rate_per_year": float(rng.uniform(0, 0.15)),
        "workload": workload,
        "build": build,
        "rent": rent,
    }


def timed(function: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = function()
    return time.perf_counter() - start, value


# --- plain-Python statistics for the uncertainty loop ------------------------------------------


def percentile(sorted_values: list[float], q: float) -> float:
    """numpy's default (linear) percentile of already sorted values."""
    position = (len(sorted_values) - 1) * q / 100
    below = int(position)
    above = min(below + 1, len(sorted_values) - 1)
    return sorted_values[below] + (sorted_values[above] - sorted_values[below]) * (position - below)


def uncertainty_loop(request: dict[str, Any]) -> dict[str, Any]:
    """The uncertainty answer by the month loop, one draw at a time."""
    parsed = parse_uncertainty(request)
    drawn = {path: values.tolist() for path, values in draw(parsed).items()}
    base = parsed.scenario.model_dump()
    savings, months, rows = [], [], []
    for i in range(parsed.draws):
        scenario = copy.deepcopy(base)
        for path, values in drawn.items():
            node = scenario
            *parents, leaf = path.split(".")
            for part in parents:
                node = node[part]
            node[leaf] = values[i]
        result = reference._projection(scenario)
        savings.append(result["savings"])
        if result["break_even_month"] is not None:
            months.append(result["break_even_month"])
        rows.append([-d for d in result["diff"]])
    savings_sorted, months_sorted = sorted(savings), sorted(months)
    bands = [sorted(column) for column in zip(*rows, strict=True)]
    return {
        "savings": {
            "p10": percentile(savings_sorted, 10),
            "p50": percentile(savings_sorted, 50),
            "p90": percentile(savings_sorted, 90),
            "mean": sum(savings) / len(savings),
        },
        "probability_build_cheaper": sum(s > 0 for s in savings) / len(savings),
        "probability_pays_back": len(months) / len(savings),
        "break_even_month": {
            f"p{q}": percentile(months_sorted, q) if months else None for q in (10, 50, 90)
        },
        "bands": {f"p{q}": [percentile(c, q) for c in bands] for q in (10, 50, 90)},
    }


def summaries_loop(scenarios: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Headline figures of each parsed scenario by the month loop (what /compare/batch returns)."""
    out = []
    for s in scenarios:
        r = reference.compare(s)
        out.append(
            {
                "break_even_month": r["break_even_month"],
                "break_even_utilization": r["break_even_utilization"],
                "savings": r["savings"],
                "work_reference_gpu_hours": r["work_reference_gpu_hours"],
                "build": {k: r["build"][k] for k in ("total", "resale_value", "total_net")},
                "rent": {k: r["rent"][k] for k in ("total", "present_value")},
            }
        )
    return out


def uncertainty_request(seed: int, draws: int) -> dict[str, Any]:
    scenario = json.loads(
        (Path(__file__).resolve().parent.parent / "tests/costmodel/examples/v2")
        .joinpath("spot-rework-escalation.json")
        .read_text()
    )
    scenario["horizon_months"] = HORIZON_MONTHS
    return {
        "scenario": scenario,
        "distributions": {
            "workload.active_days_per_month": {
                "kind": "triangular",
                "low": 4,
                "mode": 10,
                "high": 20,
            },
            "rent.hourly_rate": {"kind": "uniform", "low": 0.6, "high": 1.4},
            "build.electricity_price_per_kwh": {
                "kind": "triangular",
                "low": 0.1,
                "mode": 0.14,
                "high": 0.3,
            },
        },
        "draws": draws,
        "seed": seed,
    }


def warm_up(client: Client, seed: int) -> None:
    """One small run of each path: imports, URL resolving, the allocator's first growth."""
    rng = np.random.default_rng(seed - 1)
    datas = [random_scenario(rng, i) for i in range(200)]
    body = json.dumps({"scenarios": datas, "detail": "summary"})
    client.post("/api/v1/compare/batch", body, content_type="application/json")
    project_columns(columns_from([Scenario.model_validate(d) for d in datas]))
    uncertainty(parse_uncertainty(uncertainty_request(seed - 1, 200)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenarios", type=int, default=10_000, help="scenarios and draws")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=20_261_203)
    args = parser.parse_args()
    n = args.scenarios
    client = Client()

    print(
        f"engine benchmark: {n} scenarios / draws x {HORIZON_MONTHS} months, {args.rounds} rounds"
    )
    print(f"  python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}")
    warm_up(client, args.seed)
    names = ("core", "uncertainty", "json batch")
    engine_times: dict[str, list[float]] = {k: [] for k in names}
    loop_times: dict[str, list[float]] = {k: [] for k in names}
    for number in range(args.rounds):
        # Distinct inputs in every round: new scenarios, new seeds.
        rng = np.random.default_rng(args.seed + number)
        datas = [random_scenario(rng, i) for i in range(n)]
        body = json.dumps({"scenarios": datas, "detail": "summary"})
        parsed = [Scenario.model_validate(d) for d in datas]
        dicts = [s.model_dump() for s in parsed]
        columns = columns_from(parsed)
        request = uncertainty_request(args.seed + number, n)

        seconds, projection = timed(lambda: project_columns(columns))  # noqa: B023
        engine_times["core"].append(seconds)
        seconds, answer = timed(lambda: uncertainty(parse_uncertainty(request)))  # noqa: B023
        engine_times["uncertainty"].append(seconds)

        def post(body: str = body) -> Any:
            return client.post("/api/v1/compare/batch", body, content_type="application/json")

        seconds, response = timed(post)
        assert response.status_code == 200, response.content[:300]
        engine_times["json batch"].append(seconds)

        seconds, looped = timed(lambda: summaries_loop(dicts))  # noqa: B023
        loop_times["core"].append(seconds)
        loop_times["json batch"].append(seconds)  # the same loop over the same scenarios
        seconds, looped_answer = timed(lambda: uncertainty_loop(request))  # noqa: B023
        loop_times["uncertainty"].append(seconds)

        check(projection, looped, response.json(), answer, looped_answer)
        print(
            f"  round {number + 1}: "
            + ", ".join(
                f"{k} {engine_times[k][-1] * 1000:.0f} ms vs loop {loop_times[k][-1]:.1f} s "
                f"({loop_times[k][-1] / engine_times[k][-1]:.0f}x)"
                for k in names
            )
        )
    print()
    for k in names:
        ratios = [
            loop / engine for loop, engine in zip(loop_times[k], engine_times[k], strict=True)
        ]
        print(
            f"  {k:12s} engine {statistics.median(engine_times[k]) * 1000:7.1f} ms   "
            f"loop {statistics.median(loop_times[k]):6.2f} s   "
            f"ratio {statistics.median(ratios):5.1f}x (rounds: "
            + ", ".join(f"{r:.1f}" for r in ratios)
            + ")"
        )
    print("  engine and loop agree (savings, break-even, totals, percentiles) to rtol 1e-9")


def check(
    projection: Any,
    looped: list[dict[str, Any]],
    batch: dict[str, Any],
    answer: dict[str, Any],
    looped_answer: dict[str, Any],
) -> None:
    """The engine's figures are the loop's: every scenario's savings, the answer's statistics."""
    savings = np.array([r["savings"] for r in looped])
    np.testing.assert_allclose(projection.savings, savings, rtol=1e-9, atol=1e-6)
    from_api = np.array([item["result"]["savings"] for item in batch["results"]])
    np.testing.assert_allclose(from_api, savings, rtol=1e-9, atol=1e-6)
    months = np.array(
        [np.nan if r["break_even_month"] is None else r["break_even_month"] for r in looped]
    )
    np.testing.assert_allclose(projection.break_even_month, months, rtol=1e-9, equal_nan=True)
    for key in ("p10", "p50", "p90", "mean"):
        assert abs(answer["savings"][key] - looped_answer["savings"][key]) <= 1e-6 * max(
            1, abs(looped_answer["savings"][key])
        )
    assert answer["probability_build_cheaper"] == looped_answer["probability_build_cheaper"]
    assert answer["probability_pays_back"] == looped_answer["probability_pays_back"]
    for key in ("p10", "p50", "p90"):
        np.testing.assert_allclose(
            answer["bands"][key], looped_answer["bands"][key], rtol=1e-9, atol=1e-6
        )


if __name__ == "__main__":
    main()
