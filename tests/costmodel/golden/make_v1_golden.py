"""Golden figures of version-1 scenarios from the engine as it was before version 2.

Run once, against the engine of commit 5383464 (the last before version 2)::

    git archive 5383464 costmodel | tar -x -C /tmp/oldcm
    .venv/bin/python tests/costmodel/golden/make_v1_golden.py \
        tests/costmodel/golden/v1_figures.json /tmp/oldcm

``test_version_1.py`` checks that today's engine gives the same figures.
"""

import importlib
import json
import sys

import numpy as np

sys.path.insert(0, sys.argv[2] if len(sys.argv) > 2 else "/tmp/oldcm")
costmodel = importlib.import_module("costmodel")  # the old engine, from the path above
compare, parse_scenario = costmodel.compare, costmodel.parse_scenario

NOTE = (
    "Figures of version-1 scenarios from the engine before version 2 (commit 5383464), "
    "made by tests/costmodel/golden/make_v1_golden.py from that commit."
)
rng = np.random.default_rng(20261203)


def scenario(i):
    kind = ("steady", "tidal", "profile")[i % 3]
    if kind == "steady":
        w = {"kind": "steady", "utilization": round(float(rng.uniform(0, 1)), 4)}
    elif kind == "tidal":
        w = {
            "kind": "tidal",
            "active_days_per_month": round(float(rng.uniform(0, 31)), 2),
            "hours_per_active_day": round(float(rng.uniform(1, 24)), 2),
        }
    else:
        w = {
            "kind": "profile",
            "monthly_utilization": [
                round(x, 3) for x in rng.uniform(0, 1, int(rng.integers(1, 13))).tolist()
            ],
        }
    load = round(float(rng.uniform(150, 6000)), 1)
    return {
        "currency": ["CNY", "USD"][i % 2],
        "horizon_months": int(rng.integers(1, 241)) if i % 5 else int(rng.integers(1, 37)),
        "discount_rate_per_year": round(float(rng.uniform(0, 0.15)), 4) * (i % 2),
        "workload": w,
        "build": {
            "gpu_count": int(rng.integers(1, 9)),
            "gpu_throughput": round(float(rng.uniform(0.1, 2)), 3),
            "capex": round(float(rng.uniform(0, 400000)), 2),
            "power_load_watts": load,
            "power_idle_watts": round(load * float(rng.uniform(0, 0.4)), 1),
            "pue": round(float(rng.uniform(1, 1.8)), 2),
            "electricity_price_per_kwh": round(float(rng.uniform(0, 1.5)), 4),
            "hosting_monthly": round(float(rng.uniform(0, 3000)), 2) * (i % 3 != 0),
            "maintenance_rate_per_year": round(float(rng.uniform(0, 0.1)), 3),
            "ops_monthly": round(float(rng.uniform(0, 2000)), 2) * (i % 4 == 0),
            "residual_value_retention_per_year": round(float(rng.uniform(0.3, 0.9)), 3),
        },
        "rent": {
            "gpu_count": int(rng.choice([1, 1, 2, 4, 8])),
            "gpu_throughput": round(float(rng.uniform(0.3, 2)), 3),
            "hourly_rate": round(float(rng.uniform(0.2, 300)), 4),
            "fixed_monthly": round(float(rng.uniform(0, 500)), 2) * (i % 2),
            "annual_price_change": round(float(rng.uniform(-0.3, 0.2)), 3) * (i % 3 != 1),
        },
    }


out = []
for i in range(250):
    data = scenario(i)
    r = compare(parse_scenario(data))
    entry = {
        "scenario": data,
        "figures": {
            "break_even_month": r["break_even_month"],
            "break_even_utilization": r["break_even_utilization"],
            "savings": r["savings"],
            "work_reference_gpu_hours": r["work_reference_gpu_hours"],
            "build": {
                k: r["build"][k]
                for k in (
                    "total",
                    "resale_value",
                    "total_net",
                    "present_value",
                    "cost_per_reference_gpu_hour",
                )
            },
            "rent": {
                k: r["rent"][k] for k in ("total", "present_value", "cost_per_reference_gpu_hour")
            },
        },
    }
    if data["horizon_months"] <= 36 and sum("series" in e for e in out) < 8:
        entry["series"] = {
            side: {
                k: r[side][k]
                for k in (
                    ["monthly", "cumulative", "energy", "hosting", "maintenance", "ops"]
                    if side == "build"
                    else ["monthly", "cumulative", "compute", "fixed"]
                )
            }
            for side in ("build", "rent")
        }
    out.append(entry)
json.dump(
    {
        "note": NOTE,
        "results": out,
    },
    open(sys.argv[1], "w"),
    separators=(",", ":"),
)
