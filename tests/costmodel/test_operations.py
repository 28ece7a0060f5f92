"""Tornado, uncertainty and fleet: the published answers, the statistics, and every refusal."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import v2_scenarios

from costmodel import ScenarioError, compare, parse_scenario
from costmodel.operations import (
    draw,
    fleet,
    parse_fleet,
    parse_tornado,
    parse_uncertainty,
    tornado,
    uncertainty,
)

V2 = Path(__file__).resolve().parent / "examples" / "v2"
OPERATIONS = json.loads((V2 / "operations.json").read_text())


def example(name: str) -> dict:
    return json.loads((V2 / name).read_text())


def errors_of(parse, data) -> list[str]:
    with pytest.raises(ScenarioError) as caught:
        parse(data)
    return [str(e) for e in caught.value.errors]


def with_value(data: dict, path: str, value: object) -> dict:
    data = copy.deepcopy(data)
    *parents, leaf = path.split(".")
    node = data
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    if isinstance(node, list):
        node[int(leaf)] = value
    else:
        node[leaf] = value
    return data


def assert_close(actual, expected, rel=1e-9):
    if expected is None:
        assert actual is None
    else:
        assert actual == pytest.approx(expected, rel=rel)


# --- tornado ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tornado_answer():
    case = OPERATIONS["tornado"]
    return tornado(
        parse_tornado({"scenario": example(case["scenario"]), "drivers": case["drivers"]})
    )


@pytest.fixture(scope="module")
def uncertainty_answer():
    case = OPERATIONS["monte_carlo"]
    request = {
        "scenario": example(case["scenario"]),
        "distributions": case["distributions"],
        "draws": case["draws"],
        "seed": 2026,
    }
    return uncertainty(parse_uncertainty(request))


class TestTornado:
    case = OPERATIONS["tornado"]

    @pytest.fixture
    def answer(self, tornado_answer):
        return tornado_answer

    def test_it_gives_the_published_base_savings(self, answer):
        assert_close(answer["base_savings"], self.case["expected"]["base_savings"])

    def test_it_gives_the_published_rows_largest_swing_first(self, answer):
        expected = self.case["expected"]["drivers"]
        assert [row["path"] for row in answer["drivers"]] == [row["path"] for row in expected]
        for got, want in zip(answer["drivers"], expected, strict=True):
            assert set(got) == set(want)
            for key, value in want.items():
                if key == "path":
                    continue
                assert_close(got[key], value)

    def test_each_row_is_the_scenario_with_that_one_field_changed(self, answer):
        base = example(self.case["scenario"])
        for row in answer["drivers"]:
            for side in ("low", "high"):
                one = compare(parse_scenario(with_value(base, row["path"], row[side])))
                assert_close(row[f"savings_{side}"], one["savings"])
                assert_close(row[f"break_even_month_{side}"], one["break_even_month"])

    def test_a_whole_number_field_takes_whole_numbers(self):
        base = example(self.case["scenario"])
        answer = tornado(
            parse_tornado(
                {"scenario": base, "drivers": {"horizon_months": {"low": 24, "high": 84}}}
            )
        )
        row = answer["drivers"][0]
        assert_close(
            row["savings_low"], compare(parse_scenario({**base, "horizon_months": 24}))["savings"]
        )
        assert_close(
            row["savings_high"], compare(parse_scenario({**base, "horizon_months": 84}))["savings"]
        )
        assert errors_of(
            parse_tornado,
            {"scenario": base, "drivers": {"build.gpu_count": {"low": 1.5, "high": 2}}},
        ) == ["drivers.build.gpu_count.low: must be a whole number (build.gpu_count counts)"]

    def test_it_names_every_bad_driver(self):
        base = example(self.case["scenario"])
        request = {
            "scenario": base,
            "drivers": {
                "rent.hourly_rate": {"low": -1, "high": 200},
                "rent.nonsense": {"low": 0, "high": 1},
                "currency": {"low": 0, "high": 1},
                "build.pue": {"low": 2, "high": 1},
                "build.power_load_watts": {"low": 100, "high": 3000},
            },
        }
        assert errors_of(parse_tornado, request) == [
            "drivers.build.pue.low: must be less than or equal to high",
        ]
        del request["drivers"]["build.pue"]
        assert errors_of(parse_tornado, request) == [
            "drivers.rent.hourly_rate.low: must be greater than or equal to 0",
            "drivers.rent.nonsense: must name a numeric field of the scenario "
            "(e.g. rent.hourly_rate, workload.utilization)",
            "drivers.currency: must name a numeric field of the scenario "
            "(e.g. rent.hourly_rate, workload.utilization)",
            "drivers.build.power_load_watts.low: "
            "build.power_idle_watts: must be less than or equal to power_load_watts",
        ]

    def test_it_refuses_a_request_without_drivers(self):
        base = example(self.case["scenario"])
        assert errors_of(parse_tornado, {"scenario": base, "drivers": {}}) == [
            "drivers: must have at least 1 item after validation, not 0"
        ]


@given(
    v2_scenarios(),
    st.sampled_from(["rent.hourly_rate", "build.capex", "workload", "horizon_months"]),
)
@settings(max_examples=60, deadline=None)
def test_tornado_rows_at_the_base_values_reproduce_the_base_savings(data, path):
    scenario = parse_scenario(data)
    if path == "workload":
        path = {
            "steady": "workload.utilization",
            "tidal": "workload.active_days_per_month",
            "profile": "workload.monthly_utilization.0",
        }[scenario.workload.kind]
    value = parse_scenario(data).model_dump()
    for part in path.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    try:
        base = compare(scenario)
    except ArithmeticError:
        return
    answer = tornado(
        parse_tornado({"scenario": data, "drivers": {path: {"low": value, "high": value}}})
    )
    row = answer["drivers"][0]
    assert answer["base_savings"] == base["savings"]
    assert row["savings_low"] == row["savings_high"] == base["savings"]
    assert row["break_even_month_low"] == row["break_even_month_high"] == base["break_even_month"]


# --- uncertainty -----------------------------------------------------------------------------


class TestUncertainty:
    case = OPERATIONS["monte_carlo"]

    def request(self, **more):
        return {
            "scenario": example(self.case["scenario"]),
            "distributions": self.case["distributions"],
            "draws": self.case["draws"],
            **more,
        }

    @pytest.fixture
    def answer(self, uncertainty_answer):
        return uncertainty_answer

    def test_it_agrees_with_the_published_run_within_sampling_tolerance(self, answer):
        expected = self.case["expected_one_run"]
        for key in ("probability_build_cheaper", "probability_pays_back"):
            assert abs(answer[key] - expected[key]) <= 0.02, key
        for group in ("savings", "break_even_month"):
            spread = expected[group]["p90"] - expected[group]["p10"]
            for key, value in expected[group].items():
                assert abs(answer[group][key] - value) <= 0.03 * spread, (group, key)

    def test_the_same_seed_gives_the_same_answer_and_another_seed_another(self, answer):
        assert uncertainty(parse_uncertainty(self.request(seed=2026))) == answer
        other = uncertainty(parse_uncertainty(self.request(seed=7)))
        assert other["savings"]["p50"] != answer["savings"]["p50"]

    @pytest.mark.parametrize("measure", ["savings", "present_value_savings"])
    def test_without_bands_every_other_figure_is_the_same_to_the_last_bit(self, measure):
        # a scenario with a cost of capital, so that the two measures differ
        scenario = with_value(example(self.case["scenario"]), "discount_rate_per_year", 0.08)
        request = parse_uncertainty(self.request(scenario=scenario, seed=9, measure=measure))
        full = uncertainty(request)
        alone = uncertainty(request, with_bands=False)
        assert alone["bands"] is None
        assert len(full["bands"]["p50"]) == scenario["horizon_months"] + 1
        assert {**alone, "bands": full["bands"]} == full

    def test_every_figure_is_the_statistic_of_the_draws_evaluated_one_by_one(self):
        request = parse_uncertainty(self.request(draws=150, seed=3))
        answer = uncertainty(request)
        drawn = draw(request)
        base = example(self.case["scenario"])
        results = []
        for i in range(request.draws):
            data = base
            for path, values in drawn.items():
                data = with_value(data, path, float(values[i]))
            results.append(compare(parse_scenario(data)))
        savings = np.array([r["savings"] for r in results])
        months = np.array(
            [r["break_even_month"] for r in results if r["break_even_month"] is not None]
        )
        advantage = np.array(
            [np.subtract(r["rent"]["cumulative"], r["build"]["cumulative"]) for r in results]
        )
        np.testing.assert_allclose(
            [answer["savings"][k] for k in ("p10", "p50", "p90")],
            np.percentile(savings, [10, 50, 90]),
            rtol=1e-9,
        )
        assert answer["savings"]["mean"] == pytest.approx(savings.mean(), rel=1e-9)
        assert answer["probability_build_cheaper"] == np.mean(savings > 0)
        assert answer["probability_pays_back"] == len(months) / request.draws
        np.testing.assert_allclose(
            [answer["break_even_month"][k] for k in ("p10", "p50", "p90")],
            np.percentile(months, [10, 50, 90]),
            rtol=1e-9,
        )
        for k, q in (("p10", 10), ("p50", 50), ("p90", 90)):
            np.testing.assert_allclose(
                answer["bands"][k], np.percentile(advantage, q, axis=0), rtol=1e-9, atol=1e-9
            )
        assert answer["bands"]["months"] == list(range(37))

    def test_savings_follow_a_uniform_rate_through_the_linear_model(self):
        # Savings are linear in the cloud rate: their percentiles are those of the
        # uniform draw, mapped through the line.
        base = example("commitment-with-overflow.json")
        low, high = 1.0, 5.0
        s_low = compare(parse_scenario(with_value(base, "rent.hourly_rate", low)))["savings"]
        s_high = compare(parse_scenario(with_value(base, "rent.hourly_rate", high)))["savings"]
        answer = uncertainty(
            parse_uncertainty(
                {
                    "scenario": base,
                    "distributions": {
                        "rent.hourly_rate": {"kind": "uniform", "low": low, "high": high}
                    },
                    "draws": 100_000,
                    "seed": 11,
                }
            )
        )
        slope = (s_high - s_low) / (high - low)
        tolerance = 0.01 * abs(s_high - s_low)
        for key, q in (("p10", 0.1), ("p50", 0.5), ("p90", 0.9), ("mean", 0.5)):
            expected = s_low + slope * (low + q * (high - low) - low)
            assert abs(answer["savings"][key] - expected) <= tolerance, key

    def test_a_triangular_mean_is_a_third_of_low_mode_and_high(self):
        base = example("commitment-with-overflow.json")
        low, mode, high = 0.05, 0.1, 0.4
        answer = uncertainty(
            parse_uncertainty(
                {
                    "scenario": base,
                    "distributions": {
                        "build.electricity_price_per_kwh": {
                            "kind": "triangular",
                            "low": low,
                            "mode": mode,
                            "high": high,
                        }
                    },
                    "draws": 100_000,
                    "seed": 5,
                }
            )
        )
        at_mean = compare(
            parse_scenario(
                with_value(base, "build.electricity_price_per_kwh", (low + mode + high) / 3)
            )
        )["savings"]
        at_low = compare(parse_scenario(with_value(base, "build.electricity_price_per_kwh", low)))
        at_high = compare(parse_scenario(with_value(base, "build.electricity_price_per_kwh", high)))
        assert abs(answer["savings"]["mean"] - at_mean) <= 0.01 * abs(
            at_high["savings"] - at_low["savings"]
        )

    def test_a_scenario_that_never_pays_back_has_null_break_even_percentiles(self):
        base = with_value(example("spot-rework-escalation.json"), "rent.hourly_rate", 0.0)
        answer = uncertainty(
            parse_uncertainty(
                {
                    "scenario": base,
                    "distributions": {
                        "build.capex": {"kind": "uniform", "low": 1000, "high": 2000}
                    },
                    "draws": 50,
                }
            )
        )
        assert answer["probability_pays_back"] == 0.0
        assert answer["break_even_month"] == {"p10": None, "p50": None, "p90": None}

    def test_it_names_every_bad_distribution(self):
        request = self.request(
            distributions={
                "rent.hourly_rate": {"kind": "uniform", "low": 1.4, "high": 0.6},
                "build.pue": {"kind": "triangular", "low": 1.0, "mode": 3.5, "high": 4.0},
                "workload.active_days_per_month": {"kind": "normal", "low": 1, "high": 2},
            },
            draws=100_001,
        )
        assert errors_of(parse_uncertainty, request) == [
            "distributions.rent.hourly_rate.low: must be less than or equal to high",
            "distributions.workload.active_days_per_month.kind: "
            "must be one of 'triangular', 'uniform'",
            "draws: must be less than or equal to 100000",
        ]
        request = self.request(
            distributions={
                "build.pue": {"kind": "triangular", "low": 1.0, "mode": 3.5, "high": 4.0},
                "rent.gpu_count": {"kind": "uniform", "low": 1, "high": 2},
                "rent.hourly_rate": {"kind": "triangular", "low": 0.5, "mode": 0.4, "high": 0.6},
            }
        )
        assert errors_of(parse_uncertainty, request) == [
            "distributions.rent.hourly_rate.mode: must lie between low and high",
        ]
        del request["distributions"]["rent.hourly_rate"]
        assert errors_of(parse_uncertainty, request) == [
            "distributions.build.pue.high: must be less than or equal to 3",
            "distributions.rent.gpu_count: counts whole units; draws need a field that takes "
            "any number",
        ]

    def test_the_committed_count_is_never_drawn_and_the_answer_says_which_was_held(self):
        data = example("commitment-with-overflow.json")
        request = {
            "scenario": data,
            "distributions": {
                "rent.committed_instances": {"kind": "uniform", "low": 0, "high": 2},
            },
        }
        assert errors_of(parse_uncertainty, request) == [
            "distributions.rent.committed_instances: counts whole units; draws need a field "
            "that takes any number",
        ]
        request["distributions"] = {
            "rent.hourly_rate": {"kind": "uniform", "low": 10.0, "high": 10.0},
        }
        answer = uncertainty(parse_uncertainty({**request, "draws": 5}))
        assert answer["committed_instances"] == data["rent"]["committed_instances"] > 0
        held = with_value(data, "rent.hourly_rate", 10.0)
        assert answer["savings"]["p50"] == pytest.approx(
            compare(parse_scenario(held))["savings"], rel=1e-12
        )

    def test_idle_power_may_not_be_drawn_above_load_power(self):
        request = self.request(
            distributions={
                "build.power_idle_watts": {"kind": "uniform", "low": 50, "high": 300},
                "build.power_load_watts": {"kind": "uniform", "low": 250, "high": 400},
            }
        )
        assert errors_of(parse_uncertainty, request) == [
            "distributions.build.power_idle_watts: idle power could be drawn above load power: "
            "keep idle's high at or below load's low"
        ]


# --- fleet -----------------------------------------------------------------------------------


class TestFleet:
    case = OPERATIONS["fleet"]

    def test_it_gives_the_published_rows_and_best_count(self):
        answer = fleet(
            parse_fleet(
                {"scenario": example(self.case["scenario"]), "max_boxes": self.case["max_boxes"]}
            )
        )
        expected = self.case["expected"]
        assert answer["best_boxes"] == expected["best_boxes"]
        assert_close(answer["rent_present_value"], expected["rent_present_value"])
        assert len(answer["rows"]) == len(expected["rows"])
        for got, want in zip(answer["rows"], expected["rows"], strict=True):
            assert set(got) == set(want)
            for key, value in want.items():
                assert_close(got[key], value)

    def test_renting_everything_wins_when_its_present_value_is_lowest(self):
        base = with_value(example(self.case["scenario"]), "rent.hourly_rate", 1.0)
        answer = fleet(parse_fleet({"scenario": base, "max_boxes": 3}))
        assert answer["best_boxes"] == 0
        assert answer["rent_present_value"] < min(r["build_present_value"] for r in answer["rows"])

    def test_it_shares_a_profile_among_the_boxes(self):
        base = example("commitment-with-overflow.json")
        answer = fleet(parse_fleet({"scenario": base, "max_boxes": 2}))
        two = copy.deepcopy(base)
        for key in (
            "gpu_count",
            "capex",
            "power_load_watts",
            "power_idle_watts",
            "hosting_monthly",
        ):
            two["build"][key] *= 2
        two["workload"]["monthly_utilization"] = [
            u / 2 for u in two["workload"]["monthly_utilization"]
        ]
        assert_close(answer["rows"][1]["savings"], compare(parse_scenario(two))["savings"])

    def test_it_refuses_a_tidal_workload_and_more_than_16_boxes(self):
        tidal = example("spot-rework-escalation.json")
        assert errors_of(parse_fleet, {"scenario": tidal, "max_boxes": 17}) == [
            "max_boxes: must be less than or equal to 16"
        ]
        assert errors_of(parse_fleet, {"scenario": tidal, "max_boxes": 2}) == [
            "scenario: the workload must be steady, a profile or jobs to share it among boxes"
        ]


@given(
    v2_scenarios(
        workload=st.builds(lambda u: {"kind": "steady", "utilization": u}, st.floats(0, 8))
    )
)
@settings(max_examples=60, deadline=None)
def test_fleet_with_one_box_equals_the_scenario_itself(data):
    scenario = parse_scenario(data)
    try:
        alone = compare(scenario)
    except ArithmeticError:
        return
    row = fleet(parse_fleet({"scenario": data, "max_boxes": 1}))["rows"][0]
    assert row["boxes"] == 1
    assert row["build_total_net"] == alone["build"]["total_net"]
    assert row["build_present_value"] == alone["build"]["present_value"]
    assert row["savings"] == alone["savings"]
    assert row["break_even_month"] == alone["break_even_month"]
