"""An independent, deliberately naive re-implementation of METHODOLOGY.md.

Written from the methodology text alone, with scalar Python loops and no numpy,
so that it shares no code (and no cleverness) with ``costmodel.projection``.
The engine must agree with it to a relative error of 1e-9 on any valid scenario
(``test_reference.py``). Input is a validated scenario as a plain dict
(``Scenario.model_dump()``); output has the shape of the methodology's
"Required JSON output".
"""

from __future__ import annotations

import copy
from typing import Any

HOURS = 730.0


def busy_hours(workload: dict[str, Any], month: int) -> float:
    """Hours the build is busy in month ``month`` (1 ≤ month ≤ H)."""
    kind = workload["kind"]
    if kind == "steady":
        return workload["utilization"] * HOURS
    if kind == "tidal":
        return min(workload["active_days_per_month"] * workload["hours_per_active_day"], HOURS)
    profile = workload["monthly_utilization"]
    return profile[(month - 1) % len(profile)] * HOURS


def _projection(s: dict[str, Any]) -> dict[str, Any]:
    horizon = s["horizon_months"]
    b, r = s["build"], s["rent"]
    months = list(range(horizon + 1))

    busy = [0.0] + [busy_hours(s["workload"], m) for m in months[1:]]

    energy, hosting, maintenance, ops, build_monthly = [0.0], [0.0], [0.0], [0.0], [b["capex"]]
    compute, fixed, rent_monthly = [0.0], [0.0], [0.0]
    capacity_ratio = (b["gpu_count"] * b["gpu_throughput"]) / (r["gpu_count"] * r["gpu_throughput"])
    for m in months[1:]:
        kwh = (
            (b["power_load_watts"] * busy[m] + b["power_idle_watts"] * (HOURS - busy[m]))
            / 1000
            * b["pue"]
        )
        energy.append(kwh * b["electricity_price_per_kwh"])
        hosting.append(b["hosting_monthly"])
        maintenance.append(b["capex"] * b["maintenance_rate_per_year"] / 12)
        ops.append(b["ops_monthly"])
        build_monthly.append(energy[m] + hosting[m] + maintenance[m] + ops[m])

        rate = r["hourly_rate"] * (1 + r["annual_price_change"]) ** ((m - 1) / 12)
        compute.append(busy[m] * capacity_ratio * rate)
        fixed.append(r["fixed_monthly"])
        rent_monthly.append(compute[m] + fixed[m])

    build_cum, rent_cum = [], []
    build_sum = rent_sum = 0.0
    for m in months:
        build_sum += build_monthly[m]
        rent_sum += rent_monthly[m]
        build_cum.append(build_sum)
        rent_cum.append(rent_sum)

    diff = [build_cum[m] - rent_cum[m] for m in months]
    if diff[0] <= 0:
        break_even: float | None = 0.0
    else:
        break_even = None
        for m in months[1:]:
            if diff[m] <= 0:
                break_even = (m - 1) + diff[m - 1] / (diff[m - 1] - diff[m])
                break

    resale = b["capex"] * b["residual_value_retention_per_year"] ** (horizon / 12)
    build_total = build_cum[horizon]
    build_total_net = build_total - resale
    rent_total = rent_cum[horizon]

    d = s["discount_rate_per_year"]
    factor = [(1 + d) ** (-m / 12) for m in months]
    build_pv = sum(build_monthly[m] * factor[m] for m in months) - resale * factor[horizon]
    rent_pv = sum(rent_monthly[m] * factor[m] for m in months)

    work = sum(busy[m] * b["gpu_count"] * b["gpu_throughput"] for m in months)
    return {
        "months": months,
        "build": {
            "monthly": build_monthly,
            "cumulative": build_cum,
            "energy": energy,
            "hosting": hosting,
            "maintenance": maintenance,
            "ops": ops,
            "total": build_total,
            "resale_value": resale,
            "total_net": build_total_net,
            "present_value": build_pv,
            "cost_per_reference_gpu_hour": build_total_net / work if work != 0 else None,
        },
        "rent": {
            "monthly": rent_monthly,
            "cumulative": rent_cum,
            "compute": compute,
            "fixed": fixed,
            "total": rent_total,
            "present_value": rent_pv,
            "cost_per_reference_gpu_hour": rent_total / work if work != 0 else None,
        },
        "break_even_month": break_even,
        "savings": rent_total - build_total_net,
        "work_reference_gpu_hours": work,
        "diff": diff,
    }


def savings_at_steady_utilization(s: dict[str, Any], utilization: float) -> float:
    """Savings of the same scenario with its workload replaced by a steady ``utilization``."""
    steady = copy.deepcopy(s)
    steady["workload"] = {"kind": "steady", "utilization": utilization}
    return float(_projection(steady)["savings"])


def break_even_utilization(s: dict[str, Any]) -> tuple[float | None, float, float]:
    """Steady utilization with zero savings, by evaluating savings at u = 0 and u = 1.

    Savings are linear in ``u`` (an affine function ``s(u) = s(0) + (s(1) − s(0)) u``),
    so two evaluations determine the line. Returns ``(u or None, s(0), s(1))``.
    """
    s0 = savings_at_steady_utilization(s, 0.0)
    s1 = savings_at_steady_utilization(s, 1.0)
    slope = s1 - s0
    if slope == 0:
        return None, s0, s1
    u = -s0 / slope
    return (u if 0 <= u <= 1 else None), s0, s1


def compare(s: dict[str, Any]) -> dict[str, Any]:
    """The methodology's result for one scenario dict, plus ``diff`` (build_cum − rent_cum)."""
    result = _projection(s)
    result["scenario"] = s
    result["break_even_utilization"] = break_even_utilization(s)[0]
    return result
