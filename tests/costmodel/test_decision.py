"""The decision: build or rent, its conditions, cash against resale, late pay-back, how sure."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from costmodel import compare, parse_scenario
from costmodel.decision import (
    CLOSE_CALL_SHARE,
    CONFIDENCE_BANDS,
    VERDICT_CODES,
    confidence_of,
    decide,
    verdict_of,
)
from costmodel.operations import parse_uncertainty, uncertainty
from costmodel.paths import with_path
from costmodel.sensitivity import utilization_sweep

EXAMPLES = Path(__file__).resolve().parent / "examples"


def example(name: str) -> dict:
    return json.loads((EXAMPLES / f"{name}.json").read_text())


def changed(data: dict, **paths: object) -> dict:
    """A deep copy of ``data`` with each dotted path set (``costmodel.paths.with_path``)."""
    data = copy.deepcopy(data)
    for path, value in paths.items():
        data = with_path(data, path, value)
    return data


def decision_of(data: dict, with_uncertainty: dict | None = None):
    scenario = parse_scenario(data)
    answer = None
    if with_uncertainty is not None:
        answer = uncertainty(parse_uncertainty({"scenario": data, **with_uncertainty}))
    return decide(scenario, compare(scenario), utilization_sweep(scenario), answer), scenario


def test_a_box_that_pays_back_in_months_is_a_build_above_its_break_even_utilization():
    decision, scenario = decision_of(example("steady-4090-vs-a100"))
    result = compare(scenario)
    assert decision.recommendation == "build"
    assert decision.savings == result["savings"]
    assert decision.break_even_month == result["break_even_month"]
    assert decision.break_even_utilization == result["break_even_utilization"]
    assert decision.build_when_busier is True
    assert decision.late_payback is False
    assert decision.resale_decides is False
    assert decision.payback_limit_months == 36  # no useful life given
    # savings at 80 % steady use: this scenario's own utilization
    assert decision.reference_savings == pytest.approx(result["savings"], rel=1e-12)
    assert decision.confidence is None and decision.probability_recommendation_holds is None


def test_cash_that_never_catches_up_with_a_resale_that_tips_the_total_is_reconciled():
    # The tidal 4060 Ti against a cheap A100: cash never catches up within the
    # horizon, but the box's resale value makes building cheaper overall.
    data = changed(
        example("tidal-4060ti"),
        **{"rent.hourly_rate": 12.0, "build.residual_value_retention_per_year": 0.8},
    )
    decision, scenario = decision_of(data)
    result = compare(scenario)
    assert result["break_even_month"] is None
    assert result["savings"] > 0
    assert decision.recommendation == "build"
    assert decision.resale_decides is True
    assert decision.cash_savings == pytest.approx(
        result["rent"]["total"] - result["build"]["total"]
    )
    assert decision.cash_savings < 0 < decision.cash_savings + decision.resale_value


def test_a_pay_back_later_than_36_months_without_a_useful_life_is_a_warning():
    # 350.4 instance-hours at 2.7 CNY + 30 against 484 a month: 25 000 back in ~51 months
    data = changed(
        example("steady-4090-vs-a100"), **{"rent.hourly_rate": 2.7, "horizon_months": 120}
    )
    decision, _ = decision_of(data)
    assert decision.break_even_month is not None and decision.break_even_month > 36
    assert decision.late_payback is True
    assert decision.payback_limit_months == 36


def test_the_useful_life_sets_the_limit_of_a_sound_pay_back():
    base = changed(
        example("steady-4090-vs-a100"), **{"rent.hourly_rate": 2.7, "horizon_months": 120}
    )
    long_life, _ = decision_of(changed(base, **{"build.useful_life_months": 120}))
    short_life, _ = decision_of(changed(base, **{"build.useful_life_months": 24}))
    assert long_life.payback_limit_months == 120
    assert long_life.break_even_month is not None and long_life.late_payback is False
    assert short_life.payback_limit_months == 24
    # a box replaced every 24 months never pays back in cash: no warning to give,
    # the decision is that building does not pay back
    assert short_life.late_payback is (short_life.break_even_month is not None)


def test_savings_within_one_percent_of_the_larger_total_are_a_close_call():
    # Without a discount rate the measure is the cash savings (version 3's rule exactly).
    base = changed(example("steady-4090-vs-a100"), **{"discount_rate_per_year": 0.0})
    far, scenario = decision_of(base)
    assert far.close_call is False and CLOSE_CALL_SHARE == 0.01
    threshold = compare(scenario)["break_even_utilization"]
    at_threshold, _ = decision_of(changed(base, **{"workload.utilization": threshold}))
    assert at_threshold.close_call is True
    # either side of the threshold: close while |savings| ≤ 1 % of the larger total
    seen = set()
    for step in range(-40, 41):
        utilization = min(1.0, max(0.0, threshold + step * 0.002))
        decision, s = decision_of(changed(base, **{"workload.utilization": utilization}))
        result = compare(s)
        larger = max(result["build"]["total_net"], result["rent"]["total"])
        assert decision.close_call is (abs(result["savings"]) <= 0.01 * larger), utilization
        seen.add(decision.close_call)
    assert seen == {True, False}


def test_an_expensive_box_against_cheap_cloud_is_a_rent():
    decision, _ = decision_of(changed(example("steady-4090-vs-a100"), **{"rent.hourly_rate": 0.3}))
    assert decision.recommendation == "rent"
    assert decision.savings <= 0


def test_how_sure_is_the_share_of_draws_in_which_the_recommendation_holds():
    draws = {
        "distributions": {"rent.hourly_rate": {"kind": "uniform", "low": 1.0, "high": 60.0}},
        "draws": 2000,
        "seed": 1,
    }
    decision, _ = decision_of(example("steady-4090-vs-a100"), draws)
    answer = uncertainty(parse_uncertainty({"scenario": example("steady-4090-vs-a100"), **draws}))
    assert decision.recommendation == "build"
    assert decision.probability_recommendation_holds == answer["probability_build_cheaper"]
    assert decision.confidence == confidence_of(answer["probability_build_cheaper"])


@pytest.mark.parametrize(
    ("probability", "code"),
    [(1.0, "very_likely"), (0.9, "very_likely"), (0.89, "likely"), (0.7, "likely"),
     (0.69, "uncertain"), (0.5, "uncertain"), (0.49, "unlikely"), (0.0, "unlikely")],
)  # fmt: skip
def test_confidence_bands(probability, code):
    assert confidence_of(probability) == code
    assert code in {c for _, c in CONFIDENCE_BANDS}


def test_the_same_work_is_counted_in_box_hours_and_in_instance_hours_rented():
    # 4 days × 24 h a month for 24 months on one GPU at 0.22 of the reference, against
    # one reference GPU: 2 304 box-hours, 2 304 × 0.22 = 506.88 instance-hours.
    decision, _ = decision_of(example("tidal-4060ti"))
    assert decision.box_hours == pytest.approx(2304.0, rel=1e-12)
    assert decision.instance_hours == pytest.approx(506.88, rel=1e-12)
    assert decision.average_utilization == pytest.approx(96 / 730, rel=1e-12)


def test_spot_rework_and_bigger_instances_change_the_instance_hours_of_the_same_work():
    # two reference GPUs per instance halve the hours; a quarter of the work redone adds 25 %
    data = changed(example("tidal-4060ti"), **{"rent.gpu_count": 2, "rent.rework_fraction": 0.25})
    decision, _ = decision_of(data)
    assert decision.box_hours == pytest.approx(2304.0, rel=1e-12)
    assert decision.instance_hours == pytest.approx(2304 * 0.22 / 2 * 1.25, rel=1e-12)


def test_work_beyond_one_box_counts_in_full():
    # steady 150 %: the box is busy all month and half a box more is rented as burst
    data = changed(
        example("steady-4090-vs-a100"),
        **{"workload": {"kind": "steady", "utilization": 1.5}, "horizon_months": 12},
    )
    decision, _ = decision_of(data)
    assert decision.average_utilization == pytest.approx(1.5, rel=1e-12)
    assert decision.box_hours == pytest.approx(1.5 * 730 * 12, rel=1e-12)
    # the box's GPU is 0.6 of the cloud instance's: 0.6 instance-hours per box-hour
    assert decision.instance_hours == pytest.approx(1.5 * 730 * 12 * 0.6, rel=1e-12)


# --- one verdict ---------------------------------------------------------------------------------

STEADY_DRAWS = {"draws": 2000, "seed": 3}


def test_a_clear_build_is_the_verdict_build_with_the_median_of_the_draws_beside_it():
    draws = {
        "distributions": {"rent.hourly_rate": {"kind": "uniform", "low": 20.0, "high": 36.0}},
        **STEADY_DRAWS,
    }
    decision, _ = decision_of(example("steady-4090-vs-a100"), draws)
    answer = uncertainty(parse_uncertainty({"scenario": example("steady-4090-vs-a100"), **draws}))

    assert decision.verdict == "build"
    assert decision.savings_p50 == answer["savings"]["p50"]
    assert decision.savings_p50 != decision.savings  # the median, not the point figure


def test_without_an_uncertainty_analysis_there_is_no_median():
    decision, _ = decision_of(example("steady-4090-vs-a100"))

    assert decision.verdict == "build"
    assert decision.savings_p50 is None


def test_an_expensive_box_is_the_verdict_rent():
    decision, _ = decision_of(changed(example("steady-4090-vs-a100"), **{"rent.hourly_rate": 0.3}))

    assert decision.verdict == "rent"


def test_a_close_call_comes_before_every_other_verdict():
    base = changed(example("steady-4090-vs-a100"), **{"discount_rate_per_year": 0.0})
    threshold = compare(parse_scenario(base))["break_even_utilization"]
    draws = {
        "distributions": {"rent.hourly_rate": {"kind": "uniform", "low": 1.0, "high": 60.0}},
        **STEADY_DRAWS,
    }

    decision, _ = decision_of(changed(base, **{"workload.utilization": threshold}), draws)

    assert decision.close_call is True
    assert decision.verdict == "close_call"


def test_a_build_that_most_draws_contradict_is_uncertain():
    # The point figure says build; most draws of a cheaper cloud (savings are zero at
    # about 2.6 CNY/h) say rent.
    data = changed(example("steady-4090-vs-a100"), **{"rent.hourly_rate": 6.0})
    draws = {
        "distributions": {"rent.hourly_rate": {"kind": "uniform", "low": 0.5, "high": 4.0}},
        **STEADY_DRAWS,
    }

    decision, _ = decision_of(data, draws)

    assert decision.recommendation == "build" and not decision.close_call
    assert decision.probability_recommendation_holds < 0.5
    assert decision.verdict == "uncertain"


def test_a_build_that_half_the_draws_or_more_hold_is_not_uncertain():
    data = changed(example("steady-4090-vs-a100"), **{"rent.hourly_rate": 6.0})
    draws = {
        "distributions": {"rent.hourly_rate": {"kind": "uniform", "low": 3.0, "high": 30.0}},
        **STEADY_DRAWS,
    }

    decision, _ = decision_of(data, draws)

    assert decision.probability_recommendation_holds >= 0.5
    assert decision.verdict == "build"


def test_a_build_won_only_through_resale_is_resale_decides():
    data = changed(
        example("tidal-4060ti"),
        **{"rent.hourly_rate": 12.0, "build.residual_value_retention_per_year": 0.8},
    )

    decision, _ = decision_of(data)

    assert decision.resale_decides is True
    assert decision.verdict == "resale_decides"


def test_a_build_that_pays_back_after_36_months_without_a_life_is_late_payback():
    data = changed(
        example("steady-4090-vs-a100"), **{"rent.hourly_rate": 2.7, "horizon_months": 120}
    )

    decision, _ = decision_of(data)

    assert decision.recommendation == "build" and decision.late_payback
    assert decision.verdict == "late_payback"


@pytest.mark.parametrize(
    ("recommendation", "flags", "verdict"),
    [
        ("build", {"close_call": True, "probability_recommendation_holds": 0.1}, "close_call"),
        ("build", {"probability_recommendation_holds": 0.49, "resale_decides": True}, "uncertain"),
        ("rent", {"probability_recommendation_holds": 0.2}, "uncertain"),
        ("build", {"probability_recommendation_holds": 0.5, "resale_decides": True},
         "resale_decides"),
        ("build", {"resale_decides": True, "late_payback": True}, "resale_decides"),
        ("build", {"late_payback": True}, "late_payback"),
        ("rent", {"late_payback": True, "resale_decides": True}, "rent"),
        ("build", {}, "build"),
        ("rent", {"probability_recommendation_holds": 0.95}, "rent"),
    ],
)  # fmt: skip
def test_the_first_rule_that_applies_is_the_verdict(recommendation, flags, verdict):
    arguments = {
        "close_call": False,
        "probability_recommendation_holds": None,
        "resale_decides": False,
        "late_payback": False,
        **flags,
    }

    assert verdict_of(recommendation, **arguments) == verdict
    assert verdict in VERDICT_CODES


# --- version 4: the verdict is decided on present-value savings -----------------------------


def at_cash_break_even(rate: float, nudge: float) -> dict:
    """The steady example just above its cash break-even utilization, discounted at ``rate``:
    building saves a little cash, which is worth less than the box bought at month 0."""
    base = changed(example("steady-4090-vs-a100"), **{"discount_rate_per_year": rate})
    threshold = compare(parse_scenario(base))["break_even_utilization"]
    return changed(base, **{"workload.utilization": threshold + nudge})


def test_the_recommendation_follows_present_value_savings_and_keeps_the_cash_figures():
    decision, scenario = decision_of(at_cash_break_even(0.2, 0.01))
    result = compare(scenario)
    assert result["savings"] > 0 > result["present_value_savings"]
    assert decision.recommendation == "rent" and decision.verdict == "rent"
    assert decision.present_value_savings == result["present_value_savings"]
    # Cash figures stay cash.
    assert decision.savings == result["savings"]
    assert decision.break_even_month == result["break_even_month"]
    assert decision.cash_savings == result["rent"]["total"] - result["build"]["total"]


def test_a_close_call_is_judged_on_present_values():
    decision, scenario = decision_of(at_cash_break_even(0.2, 0.01))
    result = compare(scenario)
    larger = max(result["build"]["present_value"], result["rent"]["present_value"])
    assert decision.close_call is (abs(result["present_value_savings"]) <= 0.01 * larger)
    assert decision.close_call is False


def test_without_a_discount_rate_the_decision_is_version_3s():
    for nudge in (-0.05, -0.0001, 0.0, 0.0001, 0.05):
        data = at_cash_break_even(0.0, nudge)
        decision, scenario = decision_of(data)
        result = compare(scenario)
        larger = max(abs(result["build"]["total_net"]), abs(result["rent"]["total"]))
        assert decision.recommendation == ("build" if result["savings"] > 0 else "rent")
        assert decision.close_call is (abs(result["savings"]) <= CLOSE_CALL_SHARE * larger)
        assert decision.present_value_savings == pytest.approx(result["savings"], abs=1e-6)


def test_how_sure_is_the_share_of_draws_agreeing_on_present_value():
    draws = {
        "distributions": {"rent.hourly_rate": {"kind": "uniform", "low": 1.0, "high": 60.0}},
        "measure": "present_value_savings",
        **STEADY_DRAWS,
    }
    data = at_cash_break_even(0.2, 0.01)
    decision, _ = decision_of(data, draws)
    answer = uncertainty(parse_uncertainty({"scenario": data, **draws}))
    assert decision.recommendation == "rent"
    assert decision.probability_recommendation_holds == 1 - answer["probability_build_cheaper"]
    assert decision.savings_p50 == answer["savings"]["p50"]


def test_as_stored_is_the_code_both_savings_and_the_share_agreeing_as_plain_json():
    draws = {
        "distributions": {"rent.hourly_rate": {"kind": "uniform", "low": 20.0, "high": 36.0}},
        "measure": "present_value_savings",
        **STEADY_DRAWS,
    }
    decision, scenario = decision_of(example("steady-4090-vs-a100"), draws)
    result = compare(scenario)
    stored = decision.as_stored()
    assert stored == {
        "code": decision.verdict,
        "present_value_savings": result["present_value_savings"],
        "savings": result["savings"],
        "probability_agreeing": decision.probability_recommendation_holds,
    }
    assert json.loads(json.dumps(stored)) == stored
    without, _ = decision_of(example("steady-4090-vs-a100"))
    assert without.as_stored()["probability_agreeing"] is None
