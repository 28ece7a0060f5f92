"""Default ranges: inside every bound, around the scenario's value, valid operation requests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from strategies import v2_scenarios

from costmodel import ScenarioError, parse_scenario
from costmodel.operations import parse_tornado, parse_uncertainty, tornado, uncertainty
from costmodel.ranges import (
    Range,
    check_ranges,
    customized,
    default_drivers,
    default_ranges,
    with_defaults,
)

EXAMPLES = Path(__file__).resolve().parent / "examples"


def example(name: str) -> dict:
    return json.loads((EXAMPLES / f"{name}.json").read_text())


def test_a_steady_scenario_gets_the_four_documented_ranges():
    scenario = parse_scenario(example("steady-4090-vs-a100"))  # u 0.8, 0.8 CNY/kWh, r 0.7
    ranges = {r.path: (r.low, r.mode, r.high) for r in default_ranges(scenario)}
    assert ranges == {
        "workload.utilization": (pytest.approx(0.4), 0.8, pytest.approx(1.0)),
        "rent.annual_price_change": (-0.30, 0.0, 0.10),
        "build.electricity_price_per_kwh": (pytest.approx(0.64), 0.8, pytest.approx(1.04)),
        "build.residual_value_retention_per_year": (
            pytest.approx(0.55),
            0.7,
            pytest.approx(0.8),
        ),
    }


def test_a_tidal_scenario_varies_its_active_days_and_a_profile_keeps_its_months():
    tidal = parse_scenario(example("tidal-4060ti"))  # 4 active days
    days = default_ranges(tidal)[0]
    assert (days.path, days.low, days.mode, days.high) == (
        "workload.active_days_per_month",
        2.0,
        4.0,
        5.0,
    )
    profile = example("v2/commitment-with-overflow")
    paths = [r.path for r in default_ranges(parse_scenario(profile))]
    assert not any(p.startswith("workload") for p in paths)


def test_a_value_outside_the_usual_range_stays_the_most_likely_point():
    data = example("steady-4090-vs-a100")
    data["rent"]["annual_price_change"] = -0.5
    data["build"]["residual_value_retention_per_year"] = 0.05
    ranges = {r.path: r for r in default_ranges(parse_scenario(data))}
    trend = ranges["rent.annual_price_change"]
    assert (trend.low, trend.mode, trend.high) == (-0.5, -0.5, 0.10)
    resale = ranges["build.residual_value_retention_per_year"]
    assert resale.low == 0.0 and resale.mode == 0.05


@given(v2_scenarios())
@settings(max_examples=60, deadline=None)
def test_the_defaults_of_any_scenario_make_valid_requests(data):
    scenario = parse_scenario(data)
    for r in default_drivers(scenario):
        assert r.low <= r.mode <= r.high
    parse_tornado(
        {"scenario": data, "drivers": {r.path: r.as_driver() for r in default_drivers(scenario)}}
    )
    parse_uncertainty(
        {
            "scenario": data,
            "distributions": {r.path: r.as_triangular() for r in default_ranges(scenario)},
            "draws": 10,
        }
    )


def test_the_defaults_run_as_a_tornado_and_a_monte_carlo():
    data = example("steady-4090-vs-a100")
    scenario = parse_scenario(data)
    answer = tornado(
        parse_tornado(
            {
                "scenario": data,
                "drivers": {r.path: r.as_driver() for r in default_drivers(scenario)},
            }
        )
    )
    assert len(answer["drivers"]) == 6
    spread = uncertainty(
        parse_uncertainty(
            {
                "scenario": data,
                "distributions": {r.path: r.as_triangular() for r in default_ranges(scenario)},
                "draws": 500,
            }
        )
    )
    assert spread["savings"]["p10"] <= spread["savings"]["p50"] <= spread["savings"]["p90"]


def test_chosen_ranges_replace_the_default_drivers_of_their_inputs_and_add_others():
    from costmodel.ranges import Range, drivers

    scenario = parse_scenario(example("steady-4090-vs-a100"))
    chosen = [
        Range("rent.annual_price_change", -0.5, 0.0, 0.2),
        Range("build.pue", 1.1, 1.2, 1.5),
    ]
    merged = drivers(scenario, chosen)
    defaults = default_drivers(scenario)
    assert [d.path for d in merged] == [d.path for d in defaults] + ["build.pue"]
    by_path = {d.path: d for d in merged}
    assert by_path["rent.annual_price_change"] == chosen[0]
    assert by_path["build.pue"] == chosen[1]
    untouched = [d for d in defaults if d.path != "rent.annual_price_change"]
    assert all(by_path[d.path] == d for d in untouched)
    assert drivers(scenario) == defaults == drivers(scenario, None)


@pytest.mark.parametrize(
    ("workload", "boxes"),
    [
        ({"kind": "steady", "utilization": 0.3}, 4),
        ({"kind": "steady", "utilization": 2.0}, 4),
        ({"kind": "steady", "utilization": 2.01}, 5),
        ({"kind": "profile", "monthly_utilization": [0.5, 6.5, 1.0]}, 9),
        ({"kind": "steady", "utilization": 8.0}, 10),
        ({"kind": "tidal", "active_days_per_month": 4}, None),
    ],
)
def test_the_fleet_tries_two_boxes_beyond_the_busiest_month_and_at_least_four(workload, boxes):
    from costmodel.ranges import fleet_size

    data = example("steady-4090-vs-a100")
    data["workload"] = workload
    assert fleet_size(parse_scenario(data)) == boxes


def test_ranges_equal_to_the_defaults_are_not_custom_and_complete_to_none():
    scenario = parse_scenario(example("steady-4090-vs-a100"))
    assert customized(scenario, default_ranges(scenario)) == []
    assert customized(scenario, default_drivers(scenario)) == []
    assert with_defaults(scenario, []) is None


def test_a_custom_range_replaces_its_default_and_keeps_the_others():
    scenario = parse_scenario(example("steady-4090-vs-a100"))
    mine = Range("workload.utilization", 0.2, 0.8, 0.9)
    custom = customized(scenario, [*default_ranges(scenario)[1:], mine])
    assert custom == [mine]
    full = with_defaults(scenario, custom)
    assert [r.path for r in full] == [r.path for r in default_ranges(scenario)]
    assert full[0] == mine and full[1:] == default_ranges(scenario)[1:]


def test_a_tornado_only_range_is_kept_after_the_monte_carlo_ones():
    scenario = parse_scenario(example("steady-4090-vs-a100"))
    rate = Range("rent.hourly_rate", 20.0, 28.0, 30.0)
    assert with_defaults(scenario, [rate]) == [*default_ranges(scenario), rate]


@pytest.mark.parametrize(
    ("ranges", "field", "message"),
    [
        (
            [("build.capex_annual_price_change", -0.1, 0.0, 0.1)],
            "ranges.build.capex_annual_price_change",
            "not an uncertain input",
        ),
        (
            [("workload.active_days_per_month", 1.0, 2.0, 3.0)],
            "ranges.workload.active_days_per_month",
            "not an uncertain input",
        ),
        (
            [("workload.utilization", 0.5, 0.8, 1.0)] * 2,
            "ranges.workload.utilization",
            "given twice",
        ),
        (
            [("workload.utilization", 0.9, 0.8, 1.0)],
            "distributions.workload.utilization.mode",
            "between low and high",
        ),
        (
            [("workload.utilization", 1.0, 0.8, 0.5)],
            "distributions.workload.utilization.low",
            "less than or equal to high",
        ),
        (
            [("workload.utilization", 0.5, 0.8, 9.0)],
            "distributions.workload.utilization.high",
            "less than or equal to 8",
        ),
        (
            [("build.residual_value_retention_per_year", -0.1, 0.7, 0.8)],
            "distributions.build.residual_value_retention_per_year.low",
            "greater than or equal to 0",
        ),
    ],
)
def test_check_ranges_names_the_range_and_the_problem(ranges, field, message):
    scenario = parse_scenario(example("steady-4090-vs-a100"))
    with pytest.raises(ScenarioError) as caught:
        check_ranges(scenario, [Range(*r) for r in ranges])
    errors = {e.field: e.message for e in caught.value.errors}
    assert field in errors, errors
    assert message in errors[field]


def test_check_ranges_accepts_the_defaults_and_every_default_driver():
    for name in ("steady-4090-vs-a100", "tidal-4060ti", "v2/commitment-with-overflow"):
        scenario = parse_scenario(example(name))
        check_ranges(scenario, default_drivers(scenario))


def test_a_commitment_adds_its_committed_rate_to_the_tornado_around_its_own_value():
    data = example("v2/commitment-unused-3y")  # one A100 committed at 8 CNY/h
    scenario = parse_scenario(data)

    drivers = {r.path: (r.low, r.mode, r.high) for r in default_drivers(scenario)}

    assert drivers["rent.committed_hourly_rate"] == (
        pytest.approx(6.4),
        8.0,
        pytest.approx(9.6),
    )
    data["rent"]["committed_instances"] = 0
    assert "rent.committed_hourly_rate" not in {
        r.path for r in default_drivers(parse_scenario(data))
    }


def test_ranges_follow_the_scenarios_own_values_not_fixed_amounts():
    # The same box priced in USD: every money range scales with the scenario's own figures.
    cny = parse_scenario(example("steady-4090-vs-a100"))
    data = example("steady-4090-vs-a100")
    data.update(currency="USD")
    data["build"]["electricity_price_per_kwh"] = 0.11
    data["rent"]["hourly_rate"] = 3.9
    data["build"]["capex"] = 3500
    data["workload"]["utilization"] = 0.3
    usd = {r.path: r for r in default_drivers(parse_scenario(data))}

    assert usd["build.electricity_price_per_kwh"].mode == 0.11
    assert usd["build.electricity_price_per_kwh"].high == pytest.approx(0.11 * 1.3)
    assert usd["rent.hourly_rate"].low == pytest.approx(3.9 * 0.8)
    assert usd["build.capex"].high == pytest.approx(3500 * 1.15)
    assert usd["workload.utilization"].mode == 0.3
    assert usd["workload.utilization"].high == pytest.approx(0.375)
    assert {r.path for r in default_drivers(cny)} == set(usd)


def test_a_jobs_workload_gets_a_fleet_up_to_its_busiest_month_and_two_spare():
    # The seasonal example: its busiest month asks for 2.89 boxes' work.
    from costmodel.ranges import fleet_size

    data = example("v3/jobs-seasonal-burst-commitment")

    assert fleet_size(parse_scenario(data)) == 3 + 2
    data["workload"]["jobs"] = [{"name": "small", "reference_gpu_hours": 10, "runs_per_month": 1}]
    assert fleet_size(parse_scenario(data)) == 4  # at least four
