"""Version 4: present-value savings in every result, and as tornado's and uncertainty's measure."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose

from costmodel import ScenarioError, compare, parse_scenario
from costmodel.operations import parse_tornado, parse_uncertainty, tornado, uncertainty

EXAMPLES = Path(__file__).resolve().parent / "examples"
SCENARIOS = [
    "steady-4090-vs-a100.json",
    "tidal-4060ti.json",
    "v2/commitment-unused-3y.json",
    "v2/commitment-with-overflow.json",
    "v2/hybrid-burst-life-financing.json",
    "v2/spot-rework-escalation.json",
    "v3/jobs-lora-4090-vs-a100.json",
    "v3/jobs-seasonal-burst-commitment.json",
]
RTOL = 1e-12


def example(name: str) -> dict:
    return json.loads((EXAMPLES / name).read_text())


def discounted(data: dict, rate: float) -> dict:
    changed = copy.deepcopy(data)
    changed["discount_rate_per_year"] = rate
    return changed


@pytest.mark.parametrize("name", SCENARIOS)
def test_present_value_savings_are_rent_less_build_present_value(name):
    result = compare(parse_scenario(discounted(example(name), 0.08)))
    expected = result["rent"]["present_value"] - result["build"]["present_value"]
    assert result["present_value_savings"] == pytest.approx(expected, rel=RTOL)
    # Discounting at 8 % a year weighs later months less: not the cash savings.
    assert result["present_value_savings"] != pytest.approx(result["savings"], rel=1e-6)


@pytest.mark.parametrize("name", SCENARIOS)
def test_without_a_discount_rate_present_value_savings_are_the_savings(name):
    result = compare(parse_scenario(discounted(example(name), 0.0)))
    scale = max(abs(result["rent"]["total"]), abs(result["build"]["total"]), 1.0)
    assert result["present_value_savings"] == pytest.approx(result["savings"], abs=1e-9 * scale)


def test_a_tornado_measures_savings_unless_asked_for_present_value():
    data = discounted(example("v2/hybrid-burst-life-financing.json"), 0.1)
    drivers = {
        "rent.hourly_rate": {"low": 120, "high": 240},
        "build.capex": {"low": 1e6, "high": 2e6},
    }
    plain = tornado(parse_tornado({"scenario": data, "drivers": drivers}))
    cash = tornado(parse_tornado({"scenario": data, "drivers": drivers, "measure": "savings"}))
    present = tornado(
        parse_tornado({"scenario": data, "drivers": drivers, "measure": "present_value_savings"})
    )
    assert plain == cash
    assert present["base_savings"] == pytest.approx(
        compare(parse_scenario(data))["present_value_savings"], rel=RTOL
    )
    for row in present["drivers"]:
        path = row["path"].split(".")
        for end in ("low", "high"):
            changed = copy.deepcopy(data)
            changed[path[0]][path[1]] = row[end]
            result = compare(parse_scenario(changed))
            assert row[f"savings_{end}"] == pytest.approx(result["present_value_savings"], rel=RTOL)
            # Break-even months stay on cash.
            assert row[f"break_even_month_{end}"] == pytest.approx(result["break_even_month"])
    swings = [abs(r["savings_high"] - r["savings_low"]) for r in present["drivers"]]
    assert swings == sorted(swings, reverse=True)


def test_uncertainty_bands_of_present_value_are_the_discounted_running_advantage():
    data = discounted(example("v2/spot-rework-escalation.json"), 0.08)
    request = {
        "scenario": data,
        "distributions": {"rent.hourly_rate": {"kind": "uniform", "low": 3.0, "high": 3.0}},
        "draws": 7,
        "measure": "present_value_savings",
    }
    fixed = parse_scenario(
        {**data, "rent": {**data["rent"], "hourly_rate": 3.0}}  # every draw is this scenario
    )
    answer = uncertainty(parse_uncertainty(request))
    result = compare(fixed)
    months = np.arange(fixed.horizon_months + 1)
    factor = (1.08) ** (-months / 12)
    running = np.cumsum(
        (np.array(result["rent"]["monthly"]) - np.array(result["build"]["monthly"])) * factor
    )
    for band in ("p10", "p50", "p90"):
        assert_allclose(answer["bands"][band], running, rtol=1e-9, atol=1e-6)
    for figure in ("p10", "p50", "p90", "mean"):
        assert answer["savings"][figure] == pytest.approx(result["present_value_savings"], rel=1e-9)
    assert answer["probability_build_cheaper"] == float(result["present_value_savings"] > 0)
    # Pay-back stays on cash.
    assert answer["probability_pays_back"] == float(result["break_even_month"] is not None)


def test_uncertainty_of_present_value_draws_the_same_futures_as_of_savings():
    data = discounted(example("v2/hybrid-burst-life-financing.json"), 0.08)
    request = {
        "scenario": data,
        "distributions": {
            "rent.hourly_rate": {"kind": "triangular", "low": 100, "mode": 180, "high": 260},
            "discount_rate_per_year": {"kind": "uniform", "low": 0.0, "high": 0.2},
        },
        "draws": 400,
        "seed": 3,
    }
    cash = uncertainty(parse_uncertainty(request))
    present = uncertainty(parse_uncertainty({**request, "measure": "present_value_savings"}))
    assert present["break_even_month"] == cash["break_even_month"]
    assert present["probability_pays_back"] == cash["probability_pays_back"]
    assert present["savings"]["mean"] != pytest.approx(cash["savings"]["mean"], rel=1e-6)
    # The last band month of present value is the present-value savings without the
    # discounted resale; the first is the same for both measures (month 0 is not discounted).
    for band in ("p10", "p50", "p90"):
        assert present["bands"][band][0] == pytest.approx(cash["bands"][band][0], rel=1e-12)


@pytest.mark.parametrize("operation", ["tornado", "uncertainty"])
def test_an_unknown_measure_is_refused_naming_the_field(operation):
    data = example("steady-4090-vs-a100.json")
    if operation == "tornado":
        request = {"scenario": data, "drivers": {"rent.hourly_rate": {"low": 1, "high": 2}}}
        parse = parse_tornado
    else:
        request = {
            "scenario": data,
            "distributions": {"rent.hourly_rate": {"kind": "uniform", "low": 1, "high": 2}},
        }
        parse = parse_uncertainty
    with pytest.raises(ScenarioError) as caught:
        parse({**request, "measure": "cash"})
    assert [e.field for e in caught.value.errors] == ["measure"]
