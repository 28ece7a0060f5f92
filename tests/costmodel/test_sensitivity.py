"""The sweeps agree with evaluating each derived scenario one by one with compare()."""

import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from costmodel import Scenario, compare, parse_scenario
from costmodel.projection import project
from costmodel.sensitivity import (
    average_utilization,
    default_horizons,
    result_and_sweep,
    steady_savings,
    summary_and_sweep,
    tidal_sweep,
    utilization_horizon_grid,
    utilization_sweep,
)

BASE = {
    "currency": "CNY",
    "horizon_months": 36,
    "discount_rate_per_year": 0.08,
    "workload": {"kind": "profile", "monthly_utilization": [0.9, 0.2, 0.5]},
    "build": {
        "gpu_count": 1,
        "gpu_throughput": 0.6,
        "capex": 25000.0,
        "power_load_watts": 650.0,
        "power_idle_watts": 110.0,
        "pue": 1.2,
        "electricity_price_per_kwh": 0.8,
        "hosting_monthly": 100.0,
        "maintenance_rate_per_year": 0.05,
        "ops_monthly": 50.0,
        "residual_value_retention_per_year": 0.7,
    },
    "rent": {
        "gpu_count": 1,
        "gpu_throughput": 1.0,
        "hourly_rate": 28.0,
        "fixed_monthly": 30.0,
        "annual_price_change": -0.1,
    },
}


@pytest.fixture
def scenario() -> Scenario:
    return parse_scenario(BASE)


def with_workload(s: Scenario, workload: dict, **more) -> Scenario:
    data = s.model_dump(mode="json")
    data["workload"] = workload
    data.update(more)
    return parse_scenario(data)


def test_utilization_sweep_matches_compare_point_by_point(scenario):
    sweep = utilization_sweep(scenario, steps=11)
    assert_allclose(sweep["utilization"], [i / 10 for i in range(11)], rtol=0, atol=1e-12)
    for u, savings, month in zip(
        sweep["utilization"], sweep["savings"], sweep["break_even_month"], strict=True
    ):
        one = compare(with_workload(scenario, {"kind": "steady", "utilization": u}))
        assert_allclose(savings, one["savings"], rtol=1e-12)
        if one["break_even_month"] is None:
            assert month is None
        else:
            assert_allclose(month, one["break_even_month"], rtol=1e-12)


def test_utilization_sweep_spans_zero_to_one_hundred_percent_by_default(scenario):
    sweep = utilization_sweep(scenario)
    assert len(sweep["utilization"]) == 51
    assert sweep["utilization"][0] == 0.0 and sweep["utilization"][-1] == 1.0
    assert sweep["break_even_month"][0] is None  # an idle box never pays back


def test_savings_cross_zero_at_the_engines_break_even_utilization(scenario):
    steady = with_workload(scenario, {"kind": "steady", "utilization": 0.5})
    u_star = compare(steady)["break_even_utilization"]
    assert u_star is not None
    sweep = utilization_sweep(scenario)
    below = [s for u, s in zip(sweep["utilization"], sweep["savings"], strict=True) if u < u_star]
    above = [s for u, s in zip(sweep["utilization"], sweep["savings"], strict=True) if u > u_star]
    assert max(below) < 0 < min(above)


def test_tidal_sweep_matches_compare_for_both_curves(scenario):
    sweep = tidal_sweep(scenario, days=[1, 10, 31], hours_per_active_day=20)
    assert sweep["monthly_hours"] == [20.0, 200.0, 620.0]
    for d, hours, tidal, steady in zip(
        sweep["active_days"],
        sweep["monthly_hours"],
        sweep["tidal_savings"],
        sweep["steady_savings"],
        strict=True,
    ):
        tidal_one = compare(
            with_workload(
                scenario,
                {"kind": "tidal", "active_days_per_month": d, "hours_per_active_day": 20},
            )
        )
        steady_one = compare(
            with_workload(scenario, {"kind": "steady", "utilization": hours / 730})
        )
        assert_allclose(tidal, tidal_one["savings"], rtol=1e-12)
        assert_allclose(steady, steady_one["savings"], rtol=1e-9)


def test_tidal_sweep_uses_the_scenarios_own_hours_per_day_and_caps_at_730(scenario):
    tidal = with_workload(
        scenario, {"kind": "tidal", "active_days_per_month": 3, "hours_per_active_day": 8}
    )
    assert tidal_sweep(tidal)["hours_per_active_day"] == 8
    sweep = tidal_sweep(scenario)
    assert sweep["active_days"] == list(range(1, 32))
    assert sweep["monthly_hours"][-1] == 730.0  # 31 × 24 = 744 h, capped


def test_grid_matches_compare_cell_by_cell(scenario):
    grid = utilization_horizon_grid(scenario, utilizations=[0.0, 0.35, 1.0], horizons=[1, 12, 60])
    assert len(grid["savings"]) == 3 and all(len(row) == 3 for row in grid["savings"])
    for i, u in enumerate(grid["utilization"]):
        for j, h in enumerate(grid["horizon_months"]):
            one = compare(
                with_workload(scenario, {"kind": "steady", "utilization": u}, horizon_months=h)
            )
            assert_allclose(grid["savings"][i][j], one["savings"], rtol=1e-12)


def test_default_horizons_include_the_scenarios_own_horizon(scenario):
    assert default_horizons(scenario) == [6, 12, 18, 24, 30, 36]
    odd = with_workload(scenario, {"kind": "steady", "utilization": 1}, horizon_months=40)
    assert 40 in default_horizons(odd)
    long = with_workload(scenario, {"kind": "steady", "utilization": 1}, horizon_months=240)
    assert default_horizons(long)[-1] == 240
    assert len(default_horizons(long)) == 20


def test_average_utilization_is_the_profile_mean_over_whole_cycles(scenario):
    result = compare(scenario)
    assert_allclose(
        average_utilization(scenario, result["work_reference_gpu_hours"]),
        (0.9 + 0.2 + 0.5) / 3,
        rtol=1e-12,
    )


@settings(max_examples=30, deadline=None)
@given(
    u=st.floats(0, 1),
    rate=st.floats(0.5, 100),
    capex=st.floats(0, 200_000),
)
def test_savings_move_one_way_only_as_utilization_rises(u, rate, capex):
    data = {**BASE, "rent": {**BASE["rent"], "hourly_rate": rate, "annual_price_change": 0.0}}
    data["build"] = {**BASE["build"], "capex": capex}
    s = parse_scenario(data)
    sweep = utilization_sweep(s, steps=6)
    steps = [b - a for a, b in zip(sweep["savings"], sweep["savings"][1:], strict=False)]
    # Savings are linear in u: their slope has one sign over the whole sweep.
    assert all(d >= -1e-6 for d in steps) or all(d <= 1e-6 for d in steps)
    assert not any(math.isnan(x) for x in sweep["savings"])


def test_steady_savings_of_many_scenarios_agree_with_compare_of_each():
    examples = Path(__file__).resolve().parent / "examples"
    committed = (examples / "v2" / "commitment-unused-3y.json").read_text()
    scenarios = [parse_scenario(BASE), Scenario.model_validate_json(committed)]
    assert scenarios[0].horizon_months != scenarios[1].horizon_months
    points = [0.0, 0.8, 1.0, 1.7]
    batch = steady_savings(scenarios, points)
    for scenario, swept in zip(scenarios, batch, strict=True):
        assert swept["utilization"] == points
        data = scenario.model_dump()
        one_by_one = [
            compare(parse_scenario(data | {"workload": {"kind": "steady", "utilization": u}}))
            for u in points
        ]
        assert_allclose(swept["savings"], [r["savings"] for r in one_by_one], rtol=1e-12)


EXPECTED_FIGURES = {"expected.json", "operations.json"}
"""Files beside the examples that hold expected figures, not a scenario."""


def example_scenarios() -> list[Path]:
    """Every example scenario file: all but the expected figures beside them.

    Chosen by name, never by whether it validates: an example the engine
    refuses must fail the test below, not drop out of it.
    """
    examples = Path(__file__).resolve().parent / "examples"
    return [
        p
        for p in sorted(examples.rglob("*.json"))
        if p.name not in EXPECTED_FIGURES and not p.name.startswith(OPTIONS_REQUEST)
    ]


OPTIONS_REQUEST = "options-"
"""Version 4's options examples are requests (boxes and offerings), not one scenario."""


def test_every_version_of_the_examples_is_checked():
    folders = {path.parent.name for path in example_scenarios()}

    assert folders == {"examples", "v2", "v3", "v4"}
    assert len(example_scenarios()) >= 8


@pytest.mark.parametrize("path", example_scenarios(), ids=lambda p: p.stem)
def test_summary_and_sweep_give_exactly_the_summary_and_the_sweep_of_their_own(path):
    scenario = Scenario.model_validate_json(path.read_text())
    summary, sweep = summary_and_sweep(scenario, 6)
    assert summary == project([scenario]).summary(0)
    assert sweep == utilization_sweep(scenario, 6)


@pytest.mark.parametrize("path", example_scenarios(), ids=lambda p: p.stem)
def test_result_and_sweep_give_exactly_what_compare_and_the_sweep_give(path):
    scenario = Scenario.model_validate_json(path.read_text())
    result, sweep = result_and_sweep(scenario, 6)
    assert result == compare(scenario)
    assert sweep == utilization_sweep(scenario, 6)


# --- the sweep in the verdict's measure: present-value savings -------------------------------

PV = "present_value_savings"


def test_present_value_sweep_matches_compare_point_by_point(scenario):
    sweep = utilization_sweep(scenario, steps=11, measure=PV)
    assert sweep["measure"] == PV
    for u, savings in zip(sweep["utilization"], sweep["savings"], strict=True):
        one = compare(with_workload(scenario, {"kind": "steady", "utilization": u}))
        assert_allclose(savings, one["present_value_savings"], rtol=1e-12)


@pytest.mark.parametrize("rate", [0.08, 0.2, 0.5])
def test_present_value_savings_are_zero_at_the_sweeps_break_even_utilization(scenario, rate):
    at_rate = with_workload(scenario, scenario.workload.model_dump(), discount_rate_per_year=rate)
    sweep = utilization_sweep(at_rate, measure=PV)
    u_star = sweep["break_even_utilization"]
    assert u_star is not None and 0 < u_star < 1
    steady = compare(with_workload(at_rate, {"kind": "steady", "utilization": u_star}))
    scale = max(steady["build"]["present_value"], steady["rent"]["present_value"])
    assert abs(steady["present_value_savings"]) <= 1e-9 * scale
    # discounting weighs the box's month-0 price fully and the cloud's later savings less:
    # the box must be busier to win in present value than in cash
    assert u_star > compare(at_rate)["break_even_utilization"]


def test_the_kink_of_a_commitment_is_solved_exactly_in_present_value_too():
    examples = Path(__file__).resolve().parent / "examples"
    committed = Scenario.model_validate_json(
        (examples / "v2" / "commitment-unused-3y.json").read_text()
    )
    data = committed.model_dump(mode="json") | {"discount_rate_per_year": 0.2}
    # four GPUs on the box: its work takes 2.4 instance-hours an hour, and the one committed
    # instance covers it up to 1 / 2.4 = 41.7 % busy; above that, on-demand hours are added
    data["build"] |= {"gpu_count": 4, "capex": 90000.0}
    data["rent"]["committed_hourly_rate"] = 2.0
    for hourly in (2.0, 3.0, 5.0):
        data["rent"]["hourly_rate"] = hourly
        at_rate = parse_scenario(data)
        u_star = utilization_sweep(at_rate, 6, measure=PV)["break_even_utilization"]
        assert u_star is not None and 1 / 2.4 < u_star < 1  # past the kink
        steady = compare(with_workload(at_rate, {"kind": "steady", "utilization": u_star}))
        scale = max(steady["build"]["present_value"], steady["rent"]["present_value"])
        assert abs(steady["present_value_savings"]) <= 1e-9 * scale


@pytest.mark.parametrize("path", example_scenarios(), ids=lambda p: p.stem)
def test_without_a_cost_of_capital_both_measures_sweep_the_same(path):
    data = Scenario.model_validate_json(path.read_text()).model_dump(mode="json")
    scenario = parse_scenario(data | {"discount_rate_per_year": 0.0})
    cash = utilization_sweep(scenario, 6)
    present = utilization_sweep(scenario, 6, measure=PV)
    assert "measure" not in cash and "break_even_utilization" not in cash  # as before
    assert_allclose(present["savings"], cash["savings"], rtol=1e-12, atol=1e-9)
    threshold = compare(scenario)["break_even_utilization"]
    if threshold is None:
        assert present["break_even_utilization"] is None
    else:
        assert_allclose(present["break_even_utilization"], threshold, rtol=1e-12)


def same_threshold(a: float | None, b: float | None) -> bool:
    """Both none, or equal to 1e-12 relative."""
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-12)


@pytest.mark.parametrize("path", example_scenarios(), ids=lambda p: p.stem)
def test_every_sweep_of_present_value_agrees(path):
    scenario = Scenario.model_validate_json(path.read_text())
    alone = utilization_sweep(scenario, 6, measure=PV)
    summary, with_summary = summary_and_sweep(scenario, 6, measure=PV)
    result, with_result = result_and_sweep(scenario, 6, measure=PV)
    assert with_summary == with_result
    assert_allclose(with_summary["savings"], alone["savings"], rtol=1e-12, atol=1e-9)
    assert same_threshold(with_summary["break_even_utilization"], alone["break_even_utilization"])
    assert summary == project([scenario]).summary(0) and result == compare(scenario)
    (batched,) = steady_savings([scenario], [0.0, 0.8, 1.0], measure=PV)
    assert same_threshold(batched["break_even_utilization"], alone["break_even_utilization"])
    assert_allclose(batched["savings"], [alone["savings"][i] for i in (0, 4, 5)], rtol=1e-12)
