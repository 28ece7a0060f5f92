"""The verdict rules of "the guide, checked", each threshold at its edge."""

import dataclasses
import json
from pathlib import Path

import pytest

from costmodel import parse_scenario
from costmodel.decision import Decision
from webapp.advisor.verdicts import (
    BuyingBeatsRentingBeyond,
    Evidence,
    HourlyBeatsReservation,
    PaysBackAfterAbout,
    PriceWithin,
    RentingCheaper,
    ThroughputWithin,
    combine,
    range_verdict,
)

EXAMPLE = (
    Path(__file__).resolve().parents[2] / "costmodel" / "examples" / "steady-4090-vs-a100.json"
)
SCENARIO = parse_scenario(json.loads(EXAMPLE.read_text()))

BUILD = Decision(
    recommendation="build",
    savings=1.0,
    horizon_months=36,
    close_call=False,
    cash_savings=1.0,
    resale_value=0.0,
    resale_decides=False,
    break_even_month=6.0,
    break_even_utilization=0.3,
    build_when_busier=True,
    useful_life_months=60,
    payback_limit_months=60,
    late_payback=False,
    reference_utilization=0.8,
    reference_savings=1.0,
    probability_recommendation_holds=None,
    confidence=None,
    average_utilization=0.5,
    box_hours=100.0,
    instance_hours=60.0,
)


def evidence(recommendation="build", break_even_month=6.0, **kwargs):
    decision = dataclasses.replace(
        BUILD,
        recommendation=recommendation,
        savings=1.0 if recommendation == "build" else -1.0,
        break_even_month=break_even_month,
    )
    return Evidence(
        scenario=SCENARIO, summary={"rent": {"total": 100.0}}, decision=decision, **kwargs
    )


@pytest.mark.parametrize(
    ("verdicts", "overall"),
    [
        (["holds", "holds"], "holds"),
        (["does_not_hold", "does_not_hold"], "does_not_hold"),
        (["holds", "does_not_hold"], "partly"),
        (["partly"], "partly"),
        (["holds", "not_checkable"], "holds"),
        (["not_checkable"], "not_checkable"),
        ([], "not_checkable"),
    ],
)
def test_it_combines_verdicts(verdicts, overall):
    assert combine(verdicts) == overall


@pytest.mark.parametrize(
    ("value", "verdict"),
    [
        (150_000, "holds"),
        (200_000, "holds"),
        (209_000, "holds"),  # "about": within 5 %
        (211_000, "partly"),
        (240_000, "partly"),
        (241_000, "does_not_hold"),
        (120_000, "partly"),
        (119_000, "does_not_hold"),
    ],
)
def test_a_price_range_holds_within_5_percent_and_partly_within_20(value, verdict):
    assert range_verdict(value, 150_000, 200_000, 0.20) == verdict


def test_the_price_rule_reads_the_scenarios_capex():
    capex = SCENARIO.build.capex
    assert PriceWithin(capex, capex).judge(evidence()) == "holds"
    assert PriceWithin(capex * 2, capex * 3).judge(evidence()) == "does_not_hold"


@pytest.mark.parametrize(
    ("recommendation", "break_even_month", "verdict"),
    [
        ("build", 0.0, "holds"),
        ("build", 12.0, "holds"),
        ("build", 12.01, "partly"),
        ("build", None, "partly"),  # building wins only once the box is resold
        ("rent", None, "does_not_hold"),
        ("rent", 2.0, "does_not_hold"),
    ],
)
def test_buying_beats_renting_beyond_a_year_needs_a_build_decision_and_payback_within_12_months(
    recommendation, break_even_month, verdict
):
    rule = BuyingBeatsRentingBeyond(12)
    assert rule.judge(evidence(recommendation, break_even_month)) == verdict


@pytest.mark.parametrize(
    ("break_even_month", "verdict"),
    [(3.99, "partly"), (4.0, "holds"), (9.0, "holds"), (9.01, "partly"), (None, "does_not_hold")],
)
def test_about_six_months_means_4_to_9(break_even_month, verdict):
    assert PaysBackAfterAbout(6).judge(evidence("build", break_even_month)) == verdict


@pytest.mark.parametrize(
    ("recommendation", "break_even_month", "verdict"),
    [
        ("rent", None, "holds"),
        ("rent", 37.0, "holds"),
        ("build", None, "partly"),  # renting cheaper in cash, building cheaper once resold
        ("build", 2.0, "does_not_hold"),
        ("rent", 2.0, "partly"),
    ],
)
def test_renting_is_cheaper_on_both_cash_and_net_of_resale(
    recommendation, break_even_month, verdict
):
    assert RentingCheaper().judge(evidence(recommendation, break_even_month)) == verdict


@pytest.mark.parametrize(
    ("hourly", "verdict"), [(99.0, "holds"), (100.0, "does_not_hold"), (150.0, "does_not_hold")]
)
def test_hourly_billing_beats_a_reservation_when_its_rent_total_is_lower(hourly, verdict):
    rule = HourlyBeatsReservation()
    assert rule.against_on_demand
    assert rule.judge(evidence(on_demand={"rent": {"total": hourly}})) == verdict
    assert rule.judge(evidence()) == "not_checkable"


def test_the_throughput_rule_judges_the_measured_figure():
    rule = ThroughputWithin("rtx-4090", 300, 500)
    assert rule.measured_gpu() == "rtx-4090"
    assert rule.judge_figure(520) == "holds"
    assert rule.judge_figure(1301) == "does_not_hold"
    assert rule.judge(evidence(measured_throughput=590)) == "partly"
    assert rule.judge(evidence()) == "not_checkable"
