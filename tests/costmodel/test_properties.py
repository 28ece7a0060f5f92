"""Properties the projection must have on any valid scenario (hypothesis).

Money tolerances are relative to the largest amount a scenario involves
(``closeness.money_scale``), because figures such as savings are differences of
large sums and may themselves be near zero.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from closeness import money_scale
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from strategies import fractions, scenarios, steady_workloads

from costmodel import compare, parse_scenario, project
from costmodel.projection import ProjectionOverflowError

EXAMPLES = settings(max_examples=150, deadline=None)
SERIES = {
    "build": ("monthly", "cumulative", "energy", "hosting", "maintenance", "ops"),
    "rent": ("monthly", "cumulative", "compute", "fixed"),
}
SCALARS = {
    "build": ("total", "resale_value", "total_net", "present_value", "cost_per_reference_gpu_hour"),
    "rent": ("total", "present_value", "cost_per_reference_gpu_hour"),
}


def run(data: dict) -> dict:
    try:
        return compare(parse_scenario(data))
    except ProjectionOverflowError:
        # Work so close to zero (a utilization root near 1e-308) that the cost per
        # reference GPU-hour leaves float64: the engine refuses it, nothing to compare.
        assume(False)
        raise


def changed(data: dict, section: str, field: str, value: float) -> dict:
    return {**data, section: {**data[section], field: value}}


def steady(data: dict, utilization: float) -> dict:
    return {**data, "workload": {"kind": "steady", "utilization": utilization}}


def assert_same_value(actual: float | None, expected: float | None, scale: float) -> None:
    if expected is None:
        assert actual is None
    else:
        assert actual is not None
        assert math.isclose(actual, expected, rel_tol=1e-12, abs_tol=1e-12 * scale)


@given(st.lists(scenarios(), min_size=1, max_size=6))
@EXAMPLES
def test_a_batch_gives_the_same_results_as_one_scenario_at_a_time(datas):
    parsed = [parse_scenario(d) for d in datas]
    refused = []
    for i, scenario in enumerate(parsed):
        try:
            compare(scenario)
        except ProjectionOverflowError:
            refused.append(i)
    if refused:
        # The batch refuses exactly the scenarios that overflow on their own.
        with pytest.raises(ProjectionOverflowError) as caught:
            project(parsed)
        assert caught.value.indices == refused
        parsed = [s for i, s in enumerate(parsed) if i not in refused]
        assume(parsed)
    batch = project(parsed)
    for i, scenario in enumerate(parsed):
        alone, together = compare(scenario), batch.result(i)
        scale = money_scale(alone)
        assert together["scenario"] == alone["scenario"]
        assert together["months"] == alone["months"]
        for side, names in SERIES.items():
            for name in names:
                assert_allclose(together[side][name], alone[side][name], rtol=1e-12, atol=0)
        for side, names in SCALARS.items():
            for name in names:
                assert_same_value(together[side][name], alone[side][name], scale)
        for name in ("savings", "work_reference_gpu_hours", "break_even_month"):
            assert_same_value(together[name], alone[name], scale)
        assert_same_value(together["break_even_utilization"], alone["break_even_utilization"], 1.0)


@given(scenarios(), st.floats(0, 1000, allow_subnormal=False))
@EXAMPLES
def test_a_higher_cloud_rate_never_lowers_savings_nor_delays_break_even(data, increase):
    base = run(data)
    dearer = run(changed(data, "rent", "hourly_rate", data["rent"]["hourly_rate"] + increase))
    assert dearer["savings"] >= base["savings"] - 1e-12 * money_scale(dearer)
    if base["break_even_month"] is not None:
        assert dearer["break_even_month"] is not None
        assert dearer["break_even_month"] <= base["break_even_month"] + 1e-9


@given(scenarios(), st.floats(0, 1_000_000, allow_subnormal=False))
@EXAMPLES
def test_a_higher_capex_never_brings_break_even_earlier(data, increase):
    base = run(data)
    dearer = run(changed(data, "build", "capex", data["build"]["capex"] + increase))
    if dearer["break_even_month"] is not None:
        assert base["break_even_month"] is not None
        assert dearer["break_even_month"] >= base["break_even_month"] - 1e-9
    assert dearer["savings"] <= base["savings"] + 1e-12 * money_scale(dearer)


@given(scenarios(workload=steady_workloads()), fractions())
@EXAMPLES
def test_savings_are_linear_in_steady_utilization(data, utilization):
    at_zero, at_one = run(steady(data, 0.0)), run(steady(data, 1.0))
    at_u = run(steady(data, utilization))
    scale = max(money_scale(r) for r in (at_zero, at_one, at_u))
    line = (1 - utilization) * at_zero["savings"] + utilization * at_one["savings"]
    assert math.isclose(at_u["savings"], line, rel_tol=1e-9, abs_tol=1e-9 * scale)


def with_capex_for_utilization_root(data: dict, target: float) -> dict:
    """The scenario with the capex that puts the savings root at steady ``target``, if any.

    Random scenarios mostly have no root in [0, 1]; this steers half the examples
    to one. Savings fall by ``k = 1 + H × maintenance / 12 − r^(H/12)`` per unit of
    capex, so capex ``(s(0) + target × (s(1) − s(0))) / k`` (at capex 0) moves the root to
    ``target``.
    """
    free = changed(data, "build", "capex", 0.0)
    s0, s1 = run(steady(free, 0.0))["savings"], run(steady(free, 1.0))["savings"]
    h, build = data["horizon_months"], data["build"]
    k = (
        1
        + h * build["maintenance_rate_per_year"] / 12
        - build["residual_value_retention_per_year"] ** (h / 12)
    )
    capex = (s0 + target * (s1 - s0)) / k if k > 0 else -1.0
    return changed(data, "build", "capex", capex) if capex >= 0 else data


@given(scenarios(), st.none() | fractions())
@EXAMPLES
def test_the_break_even_utilization_zeroes_savings(data, target):
    if target is not None:
        data = with_capex_for_utilization_root(data, target)
    result = run(data)
    at_zero, at_one = run(steady(data, 0.0)), run(steady(data, 1.0))
    scale = max(money_scale(at_zero), money_scale(at_one))
    tolerance = 1e-9 * scale
    u = result["break_even_utilization"]
    if u is None:
        # No root in [0, 1] (up to rounding): savings keep one sign, or never change.
        s0, s1 = at_zero["savings"], at_one["savings"]
        assert s0 * s1 > 0 or abs(s0) <= tolerance or abs(s1) <= tolerance or s0 == s1
    else:
        assert 0 <= u <= 1
        assert abs(run(steady(data, u))["savings"]) <= tolerance


def with_capex_paid_back_after(data: dict, share: float) -> dict:
    """The scenario with a capex that renting's extra cost repays within the horizon, if any.

    Random scenarios rarely cross inside the horizon; this steers half the examples
    to a crossing at about ``share`` of the horizon.
    """
    free = run(changed(data, "build", "capex", 0.0))
    advantage = free["rent"]["total"] - free["build"]["total"]
    # Each unit of capex also costs H × maintenance / 12 over the horizon.
    per_unit = 1 + data["horizon_months"] * data["build"]["maintenance_rate_per_year"] / 12
    return changed(data, "build", "capex", share * advantage / per_unit) if advantage > 0 else data


@given(scenarios(), st.none() | st.floats(0.01, 1))
@EXAMPLES
def test_the_cumulative_curves_cross_at_the_break_even_month(data, share):
    if share is not None:
        data = with_capex_paid_back_after(data, share)
    result = run(data)
    build = np.array(result["build"]["cumulative"])
    rent = np.array(result["rent"]["cumulative"])
    diff = build - rent
    month = result["break_even_month"]
    scale = money_scale(result)
    if month is None:
        assert (diff > 0).all()
        return
    if month == 0:
        assert diff[0] <= 0
        return
    assume(month > 0)
    crossing = math.ceil(month)
    assert (diff[:crossing] > 0).all()
    assert diff[crossing] <= 0
    # Interpolate both curves linearly inside the crossing month: they meet there.
    share = month - (crossing - 1)
    build_at = build[crossing - 1] + share * (build[crossing] - build[crossing - 1])
    rent_at = rent[crossing - 1] + share * (rent[crossing] - rent[crossing - 1])
    assert math.isclose(build_at, rent_at, rel_tol=1e-9, abs_tol=1e-9 * scale)
