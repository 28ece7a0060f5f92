"""The methodology as a plain month loop: the independent reference for tests and benchmarks.

Written from the methodology text (``docs/methodology.md``, versions 1 and 2)
with scalar Python arithmetic and no numpy, so that it shares no code (and no
cleverness) with ``costmodel``. It reads one declaration from it: which fixed
monthly fees there are (:func:`costmodel.lines.fees_of`: each fee's input and
whether it escalates), so a new fee is declared once; their arithmetic is here.
The engine must agree with it to a relative error of 1e-9 on any valid
scenario (``tests/costmodel/test_reference.py``), and ``benchmarks/engine.py``
times the engine against it.

Input is a validated scenario as a plain dict (``Scenario.model_dump()``);
output has the shape of the methodology's "Required JSON output", plus
``diff`` (``build_cum − rent_cum`` per month).
"""

from __future__ import annotations

import copy
import math
from typing import Any

from costmodel.lines import fees_of

HOURS = 730.0


def demand_hours(workload: dict[str, Any], month: int) -> float:
    """Box-hours of work wanted in month ``month`` (1 ≤ month ≤ H)."""
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
    retention = b["residual_value_retention_per_year"]
    life = b.get("useful_life_months") or horizon
    capex_change = b.get("capex_annual_price_change", 0.0)
    running_change = b.get("running_cost_annual_change", 0.0)
    rework = r.get("rework_fraction", 0.0)
    capacity_ratio = (b["gpu_count"] * b["gpu_throughput"]) / (r["gpu_count"] * r["gpu_throughput"])

    def capex_of_box(j: int) -> float:
        return b["capex"] * (1 + capex_change) ** (j * life / 12)

    def rate(m: int) -> float:
        return r["hourly_rate"] * (1 + r["annual_price_change"]) ** ((m - 1) / 12)

    # Financing: the down payment at month 0, level payments after, any balance at H.
    loan = b.get("financing")
    if loan:
        principal = b["capex"] * (1 - loan["down_payment_fraction"])
        i = loan["annual_interest_rate"] / 12
        n = loan["term_months"]
        # 1 − (1 + i)^(−n), written so that a rate near 0 does not cancel to 0.
        payment = principal / n if i == 0 else principal * i / -math.expm1(-n * math.log1p(i))
        first_month_cost = b["capex"] * loan["down_payment_fraction"]
    else:
        principal, i, n, payment, first_month_cost = 0.0, 0.0, 0, 0.0, b["capex"]

    # Commitments.
    committed_hours = r.get("committed_instances", 0) * HOURS
    term = r.get("commitment_term_months", 12)
    terms = math.ceil(horizon / term)

    def commitment_price(j: int) -> float:
        return (1 + r["annual_price_change"]) ** (j * term / 12)

    demand = [0.0] + [demand_hours(s["workload"], m) for m in months[1:]]
    busy = [min(d, HOURS) for d in demand]

    energy, maintenance = [0.0], [0.0]
    # Each fixed monthly fee (hosting, administration, the cloud's fixed fees, …):
    # fee × e[m] when it escalates, the fee otherwise; 0 at month 0.
    fees: dict[str, dict[str, list[float]]] = {
        side: {line.key: [0.0] for line in fees_of(side)} for side in ("build", "rent")
    }
    burst, replacement, financing = [0.0], [0.0], [0.0]
    build_monthly = [first_month_cost]
    compute = [0.0]
    committed = [r.get("committed_instances", 0) * r.get("commitment_upfront_per_instance", 0.0)]
    for m in months[1:]:
        escalation = (1 + running_change) ** ((m - 1) / 12)
        kwh = (
            (b["power_load_watts"] * busy[m] + b["power_idle_watts"] * (HOURS - busy[m]))
            / 1000
            * b["pue"]
        )
        energy.append(kwh * b["electricity_price_per_kwh"] * escalation)
        for side, inputs in (("build", b), ("rent", r)):
            for line in fees_of(side):
                assert line.fee is not None
                fee = inputs[line.fee.field]
                fees[side][line.key].append(fee * escalation if line.fee.escalates else fee)
        box = (m - 1) // life
        maintenance.append(capex_of_box(box) * b["maintenance_rate_per_year"] / 12)
        burst.append((demand[m] - busy[m]) * capacity_ratio * (1 + rework) * rate(m))
        if m % life == 0 and m < horizon:
            j = m // life
            replacement.append(capex_of_box(j) - capex_of_box(j - 1) * retention ** (life / 12))
        else:
            replacement.append(0.0)
        pay = payment if m <= n else 0.0
        if m == horizon and n > horizon:
            if i == 0:
                pay += principal - payment * horizon
            else:
                grown = (1 + i) ** horizon
                pay += principal * grown - payment * math.expm1(horizon * math.log1p(i)) / i
        financing.append(pay)
        build_monthly.append(
            energy[m]
            + maintenance[m]
            + sum(series[m] for series in fees["build"].values())
            + burst[m]
            + replacement[m]
            + pay
        )

        rent_hours = demand[m] * capacity_ratio * (1 + rework)
        compute.append(max(rent_hours - committed_hours, 0.0) * rate(m))
        j = (m - 1) // term
        month_committed = (
            committed_hours * r.get("committed_hourly_rate", 0.0) * commitment_price(j)
        )
        if m % term == 0 and m < horizon:  # the next term starts: its upfront
            month_committed += (
                r.get("committed_instances", 0)
                * r.get("commitment_upfront_per_instance", 0.0)
                * commitment_price(m // term)
            )
        if m == horizon:  # the rest of a started term is owed
            month_committed += (
                (terms * term - horizon)
                * committed_hours
                * r.get("committed_hourly_rate", 0.0)
                * commitment_price(terms - 1)
            )
        committed.append(month_committed)
    rent_monthly = [committed[0]] + [
        compute[m] + committed[m] + sum(series[m] for series in fees["rent"].values())
        for m in months[1:]
    ]

    value_if_sold = []
    for m in months:
        k = min(m, horizon - 1) // life
        value_if_sold.append(capex_of_box(k) * retention ** ((m - k * life) / 12))

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

    resale = value_if_sold[horizon]
    build_total = build_cum[horizon]
    build_total_net = build_total - resale
    rent_total = rent_cum[horizon]

    d = s["discount_rate_per_year"]
    factor = [(1 + d) ** (-m / 12) for m in months]
    build_pv = sum(build_monthly[m] * factor[m] for m in months) - resale * factor[horizon]
    rent_pv = sum(rent_monthly[m] * factor[m] for m in months)

    work = sum(demand[m] * b["gpu_count"] * b["gpu_throughput"] for m in months)
    return {
        "months": months,
        "build": {
            "monthly": build_monthly,
            "cumulative": build_cum,
            "energy": energy,
            "maintenance": maintenance,
            **fees["build"],
            "burst": burst,
            "offload": [0.0] * len(months),  # version 4: no job is rented in versions 1-2
            "replacement": replacement,
            "financing": financing,
            "value_if_sold": value_if_sold,
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
            **fees["rent"],
            "committed": committed,
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


def break_even_utilization(s: dict[str, Any]) -> float | None:
    """The first steady utilization in [0, 1] with zero savings, walking the segments from 0.

    Savings are linear in ``u`` except for one kink where the rent side's
    instance-hours reach the committed hours, at
    ``u_k = committed_instances / (capacity_ratio × (1 + rework_fraction))``.
    """
    b, r = s["build"], s["rent"]
    capacity_ratio = (b["gpu_count"] * b["gpu_throughput"]) / (r["gpu_count"] * r["gpu_throughput"])
    kink = r.get("committed_instances", 0) / (capacity_ratio * (1 + r.get("rework_fraction", 0.0)))
    points = [0.0, kink, 1.0] if 0 < kink < 1 else [0.0, 1.0]
    values = [savings_at_steady_utilization(s, u) for u in points]
    for a, b_, sa, sb in zip(points, points[1:], values, values[1:], strict=False):
        if sa == sb:
            continue
        if sa == 0:
            return a
        if sb == 0 or (sa > 0) != (sb > 0):
            return a + (b_ - a) * sa / (sa - sb)
    return None


def compare(s: dict[str, Any]) -> dict[str, Any]:
    """The methodology's result for one scenario dict, plus ``diff`` (build_cum − rent_cum)."""
    result = _projection(s)
    result["scenario"] = s
    result["break_even_utilization"] = break_even_utilization(s)
    return result
