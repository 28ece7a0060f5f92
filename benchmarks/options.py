"""Speed of the options operation at its bounds: 20 boxes × 60 offerings over 120 months.

What a ranking of every way to do the work costs the engine: validating the
request, 1 200 build plans (each box with each offering that may rent its
burst and its jobs) and 60 rent plans projected, ranked and answered. Three
requests, each median of ``--repeat`` runs (distinct prices in every run, so
nothing is reused), in wall-clock time and in the process's CPU time (the machine
may be shared: the CPU figure leaves the neighbours out), with the load average:

1. **jobs** — two fine-tuning jobs, the full fine-tune rented by the smaller
   boxes (memory on both sides);
2. **steady** — a steady workload, turned into reference GPU-hours and
   shared out to each box as a profile;
3. **commitments** — the jobs request with every offering pricing a
   commitment without a count: each rent plan also runs the commitment
   analysis for its best count.

    .venv/bin/python benchmarks/options.py            # --repeat 5
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from costmodel.options import MAX_BUILDS, MAX_RENTS, options, parse_options

EXAMPLE = (
    Path(__file__).resolve().parents[1]
    / "tests"
    / "costmodel"
    / "examples"
    / "v4"
    / "options-lora-boxes-and-offerings.json"
)
HORIZON_MONTHS = 120


def request(kind: str, run: int) -> dict[str, Any]:
    """The published options example grown to the bounds, prices moved by ``run``."""
    example = json.loads(EXAMPLE.read_text())
    rng = np.random.default_rng(run)
    scenario = {**example["scenario"], "horizon_months": HORIZON_MONTHS}
    if kind == "steady":
        scenario["workload"] = {"kind": "steady", "utilization": 1.6}
    builds = [
        {
            "name": f"box {i}",
            "build": {
                **example["builds"][i % 3]["build"],
                "capex": float(example["builds"][i % 3]["build"]["capex"] * rng.uniform(0.8, 1.2)),
                "useful_life_months": 48,
            },
        }
        for i in range(MAX_BUILDS)
    ]
    rents = []
    for j in range(MAX_RENTS):
        rent = {**example["rents"][j % 4]["rent"]}
        rent["hourly_rate"] = float(rent["hourly_rate"] * rng.uniform(0.8, 1.2))
        if kind == "commitments":
            rent["committed_hourly_rate"] = 0.6 * rent["hourly_rate"]
            rent.pop("committed_instances", None)
        rents.append({"name": f"offering {j}", "rent": rent})
    return {"scenario": scenario, "builds": builds, "rents": rents}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(
        f"options benchmark: {MAX_BUILDS} boxes x {MAX_RENTS} offerings x {HORIZON_MONTHS} "
        f"months, median of {args.repeat}"
    )
    print(f"  python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}")
    print("  load average (1, 5, 15 min): {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    options(parse_options(request("jobs", 1000)))  # imports, first allocations
    for kind in ("jobs", "steady", "commitments"):
        seconds, cpu = [], []
        for run in range(args.repeat):
            data = request(kind, run)
            start, start_cpu = time.perf_counter(), time.process_time()
            answer = options(parse_options(data))
            cpu.append(time.process_time() - start_cpu)
            seconds.append(time.perf_counter() - start)
            assert answer["best"] is not None
        plans = len(answer["plans"])
        print(
            f"  {kind:12s} {statistics.median(seconds) * 1000:7.1f} ms wall "
            f"(min {min(seconds) * 1000:.1f}, max {max(seconds) * 1000:.1f}), "
            f"{statistics.median(cpu) * 1000:7.1f} ms CPU; {plans} plans ranked, "
            f"{len(answer['infeasible'])} infeasible"
        )


if __name__ == "__main__":
    main()
