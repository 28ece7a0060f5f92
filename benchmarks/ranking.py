"""Speed of "Every way to do this work": the options operation behind a results page's ranking.

The largest ranking a page may show: 20 boxes × 60 offerings over 120 months, for a
steady workload (the work turned into a profile per box) and for a jobs workload (a
LoRA every month and a quarterly full fine-tune that most boxes cannot hold, so
placement and offload are at work). Each is timed ROUNDS times (default 5) from the
request's JSON to the ranked answer (validation, every pair projected, the commitment
table of every commitment offering); the medians are printed. Target (issue 41): at
most 150 ms.

    .venv/bin/python benchmarks/ranking.py            # ROUNDS=9 ...
"""

from __future__ import annotations

import copy
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from costmodel.options import options, parse_options

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "tests" / "costmodel" / "examples" / "steady-4090-vs-a100.json"
ROUNDS = int(os.environ.get("ROUNDS", "5"))
TARGET_SECONDS = 0.150
BOXES, OFFERINGS, MONTHS = 20, 60, 120


def request(workload: dict[str, Any]) -> dict[str, Any]:
    """20 boxes of 1 to 8 GPUs and 60 offerings of 1 or 8 GPUs, on-demand, spot and
    1-year commitments, each priced differently."""
    scenario = json.loads(EXAMPLE.read_text())
    scenario.update(horizon_months=MONTHS, discount_rate_per_year=0.08, workload=workload)
    scenario["build"]["gpu_memory_gb"] = 24.0
    scenario["rent"]["gpu_memory_gb"] = 80.0
    builds = []
    for i in range(BOXES):
        build = copy.deepcopy(scenario["build"])
        gpus = 1 + i % 8
        build.update(
            gpu_count=gpus,
            gpu_memory_gb=[24.0, 48.0, 80.0][i % 3],
            capex=12_000.0 * gpus * (1 + i / 40),
            gpu_throughput=0.2 + 0.05 * (i % 5),
        )
        builds.append({"name": f"box-{i:02d}", "build": build})
    rents = []
    for j in range(OFFERINGS):
        rent = copy.deepcopy(scenario["rent"])
        gpus = 8 if j % 4 == 0 else 1
        rent.update(
            gpu_count=gpus,
            gpu_memory_gb=[24.0, 40.0, 80.0][j % 3],
            hourly_rate=(8.0 + j) * gpus,
            gpu_throughput=0.3 + 0.02 * (j % 10),
        )
        if j % 6 == 5:  # a 1-year commitment: its count is the commitment table's best
            rent.update(committed_hourly_rate=rent["hourly_rate"] * 0.6, commitment_term_months=12)
        rents.append({"name": f"offering-{j:02d}", "rent": rent})
    return {"scenario": scenario, "builds": builds, "rents": rents}


WORKLOADS = {
    "steady 60 %": {"kind": "steady", "utilization": 0.6},
    "jobs: LoRA monthly + quarterly full fine-tune": {
        "kind": "jobs",
        "jobs": [
            {"name": "7B LoRA", "reference_gpu_hours": 124.64, "runs_per_month": 2,
             "memory_gb": 17.1},
            {"name": "7B full fine-tune", "reference_gpu_hours": 186.96,
             "runs_per_month": [1, 0, 0] * 4, "memory_gb": 159.5},
        ],
    },
}  # fmt: skip


def main() -> int:
    worst = 0.0
    for label, workload in WORKLOADS.items():
        text = json.dumps(request(workload))
        times = []
        answer: dict[str, Any] = {}
        for _ in range(ROUNDS):
            start = time.perf_counter()
            answer = options(parse_options(json.loads(text)))
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        worst = max(worst, median)
        print(
            f"{label}: {len(answer['plans'])} plans, {len(answer['infeasible'])} infeasible; "
            f"median of {ROUNDS}: {median * 1000:.0f} ms (target ≤ {TARGET_SECONDS * 1000:.0f} ms)"
        )
    return 0 if worst <= TARGET_SECONDS else 1


if __name__ == "__main__":
    raise SystemExit(main())
