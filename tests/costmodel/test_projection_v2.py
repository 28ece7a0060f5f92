"""Version 2 by hand: commitments, hybrid burst, hardware life, financing, and their edges.

Every expected number is derived in the test from the methodology's formulas.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from strategies import v2_scenarios

from costmodel import compare, parse_scenario
from costmodel.lines import lines_of
from costmodel.paths import with_path

V2 = Path(__file__).resolve().parent / "examples" / "v2"
RTOL = 1e-12


def example(name: str) -> dict:
    return json.loads((V2 / f"{name}.json").read_text())


def changed(data: dict, **paths: object) -> dict:
    """A deep copy of ``data`` with each dotted path set (``costmodel.paths.with_path``)."""
    data = copy.deepcopy(data)
    for path, value in paths.items():
        data = with_path(data, path, value)
    return data


def run(data: dict) -> dict:
    return compare(parse_scenario(data))


BASE = example("commitment-unused-3y")
"""20 000 CNY box (0.6), one A100 committed for 36 months at 8 CNY/h, 30 % use, 24 months."""


class TestTheCommitmentWorkedExample:
    """The methodology's version-2 worked example, line by line."""

    result = run(BASE)

    def test_energy_is_160_6_cny_a_month(self):
        # busy 219 h: (500 × 219 + 100 × 511) / 1000 = 160.6 kWh at 1 CNY/kWh
        assert_allclose(self.result["build"]["energy"], [0] + [160.6] * 24, rtol=RTOL)

    def test_every_committed_hour_is_billed_and_none_on_demand(self):
        assert self.result["rent"]["compute"] == [0.0] * 25
        committed = self.result["rent"]["committed"]
        assert committed[0] == 0
        assert_allclose(committed[1:24], [5840.0] * 23, rtol=RTOL)
        # the rest of the 36-month term, 12 × 5 840, is owed at month 24
        assert committed[24] == pytest.approx(5840 + 12 * 5840, rel=RTOL)
        assert self.result["rent"]["total"] == pytest.approx(210_240, rel=RTOL)

    def test_break_even_and_savings(self):
        assert self.result["break_even_month"] == pytest.approx(3 + 2961.8 / 5679.4, rel=1e-12)
        assert self.result["build"]["resale_value"] == pytest.approx(5000, rel=RTOL)
        assert self.result["savings"] == pytest.approx(191_385.6, rel=RTOL)
        assert self.result["break_even_utilization"] is None


class TestCommitments:
    def test_a_term_that_does_not_divide_the_horizon_owes_the_rest_of_the_last_term(self):
        # H = 30, T = 12: terms start at months 0, 12, 24; months 31..36 are owed at 30.
        data = changed(
            BASE,
            horizon_months=30,
            **{
                "rent.commitment_term_months": 12,
                "rent.commitment_upfront_per_instance": 1000,
                "rent.annual_price_change": 0.1,
            },
        )
        committed = run(data)["rent"]["committed"]
        price = [1.0, 1.1, 1.1**2]  # term j costs (1 + g)^(j·12/12)
        expected = [1000.0]
        for m in range(1, 31):
            j = (m - 1) // 12
            cost = 5840 * price[j]
            if m in (12, 24):
                cost += 1000 * price[m // 12]
            if m == 30:
                cost += 6 * 5840 * price[2]
            expected.append(cost)
        assert_allclose(committed, expected, rtol=RTOL)

    def test_overflow_beyond_the_committed_hours_is_billed_on_demand(self):
        # u = 1.0: 730 × 0.6 = 438 instance-hours against 730 committed: none on demand;
        # with a second box's worth of demand, u = 2: 876 h, 146 h at the on-demand rate
        data = changed(BASE, **{"workload.utilization": 2.0})
        result = run(data)
        assert_allclose(result["rent"]["compute"][1:], [146 * 20.0] * 24, rtol=RTOL)
        # the build bursts the box's second 730 h to the cloud on demand: 730 × 0.6 × 20
        assert_allclose(result["build"]["burst"][1:], [730 * 0.6 * 20] * 24, rtol=RTOL)

    def test_an_upfront_larger_than_the_capex_is_paid_at_month_0(self):
        data = changed(BASE, **{"rent.commitment_upfront_per_instance": 50_000})
        result = run(data)
        assert result["rent"]["monthly"][0] == 50_000
        # the rent side starts above the build side: break-even at once
        assert result["break_even_month"] == 0.0


class TestHybridBurst:
    def test_demand_of_8_boxes_bursts_7_boxes_worth_of_work(self):
        data = changed(
            example("spot-rework-escalation"),
            workload={"kind": "steady", "utilization": 8.0},
        )
        result = run(data)
        ratio = 0.3  # 1 × 0.3 / (1 × 1.0)
        burst = [7 * 730 * ratio * 1.15 * 0.9] * 36
        assert_allclose(result["build"]["burst"][1:], burst, rtol=RTOL)
        assert_allclose(
            result["rent"]["compute"][1:], [8 * 730 * ratio * 1.15 * 0.9] * 36, rtol=RTOL
        )
        # the box is busy every hour: full load power all month, escalated 5 % a year
        energy = [330 * 730 / 1000 * 0.14 * 1.05 ** ((m - 1) / 12) for m in range(1, 37)]
        assert_allclose(result["build"]["energy"][1:], energy, rtol=RTOL)
        assert result["work_reference_gpu_hours"] == pytest.approx(8 * 730 * 36 * 0.3, rel=RTOL)


class TestUsefulLife:
    base = example("spot-rework-escalation")  # 1 100 USD box, retention 0.7, 36 months

    def test_a_life_equal_to_the_horizon_changes_nothing(self):
        without = run(changed(self.base, **{"build.useful_life_months": 240}))
        equal = run(changed(self.base, **{"build.useful_life_months": 36}))
        assert equal["build"]["replacement"] == [0.0] * 37
        for key in ("savings", "break_even_month"):
            assert equal[key] == pytest.approx(without[key], rel=RTOL)
        assert equal["build"]["resale_value"] == pytest.approx(1100 * 0.7**3, rel=RTOL)

    def test_a_one_month_life_replaces_the_box_every_month_but_the_last(self):
        data = changed(
            self.base,
            **{
                "build.useful_life_months": 1,
                "build.capex_annual_price_change": -0.12,
                "build.maintenance_rate_per_year": 0.06,
            },
        )
        result = run(data)
        capex = [1100 * 0.88 ** (j / 12) for j in range(37)]
        kept = 0.7 ** (1 / 12)
        expected = [0.0] + [capex[m] - capex[m - 1] * kept for m in range(1, 36)] + [0.0]
        assert_allclose(result["build"]["replacement"], expected, rtol=RTOL)
        # maintenance follows the box in service: box m − 1 in month m
        maintenance = [0.0] + [capex[m - 1] * 0.06 / 12 for m in range(1, 37)]
        assert_allclose(result["build"]["maintenance"], maintenance, rtol=RTOL)
        # at month 36 the box bought at month 35 is sold, one month old
        assert result["build"]["resale_value"] == pytest.approx(capex[35] * kept, rel=RTOL)
        assert result["build"]["value_if_sold"][0] == 1100


class TestFinancing:
    base = example("spot-rework-escalation")

    def test_a_zero_interest_loan_is_repaid_in_equal_parts(self):
        data = changed(
            self.base,
            **{
                "build.financing": {
                    "down_payment_fraction": 0.2,
                    "annual_interest_rate": 0,
                    "term_months": 10,
                }
            },
        )
        result = run(data)
        assert result["build"]["monthly"][0] == pytest.approx(220, rel=RTOL)
        assert_allclose(result["build"]["financing"], [0] + [88.0] * 10 + [0.0] * 26, rtol=RTOL)

    def test_a_loan_longer_than_the_horizon_leaves_its_balance_at_month_h(self):
        data = changed(
            self.base,
            horizon_months=12,
            **{
                "build.financing": {
                    "down_payment_fraction": 0.0,
                    "annual_interest_rate": 0.12,
                    "term_months": 48,
                }
            },
        )
        result = run(data)
        i, n, principal = 0.01, 48, 1100.0
        payment = principal * i / (1 - (1 + i) ** -n)
        balance = principal * (1 + i) ** 12 - payment * ((1 + i) ** 12 - 1) / i
        expected = [0.0] + [payment] * 11 + [payment + balance]
        assert_allclose(result["build"]["financing"], expected, rtol=1e-12)
        # what was borrowed is repaid with interest within the horizon
        assert sum(expected) > principal
        assert result["build"]["monthly"][0] == 0.0

    def test_a_zero_interest_loan_longer_than_the_horizon_owes_the_unpaid_principal(self):
        data = changed(
            self.base,
            horizon_months=6,
            **{"build.financing": {"annual_interest_rate": 0.0, "term_months": 11}},
        )
        financing = run(data)["build"]["financing"]
        assert_allclose(financing, [0, 100, 100, 100, 100, 100, 100 + 500], rtol=RTOL)


@given(
    v2_scenarios(workload=st.just({"kind": "steady", "utilization": 0.0})),
    st.integers(0, 10),
    st.integers(1, 5),
)
@settings(max_examples=80, deadline=None)
def test_more_committed_instances_never_lower_rent_cost_at_zero_use(data, committed, more):
    low = changed(data, **{"rent.committed_instances": committed})
    high = changed(data, **{"rent.committed_instances": committed + more})
    try:
        a, b = run(low), run(high)
    except ArithmeticError:
        return
    assert b["rent"]["total"] >= a["rent"]["total"]
    assert b["rent"]["present_value"] >= a["rent"]["present_value"] - 1e-9 * abs(
        a["rent"]["present_value"]
    )


@given(v2_scenarios(), st.integers(1, 20), st.floats(0.01, 100))
@settings(max_examples=80, deadline=None)
def test_a_commitment_never_bills_fewer_hours_than_it_commits(data, instances, rate):
    data = changed(
        data,
        **{
            "rent.committed_instances": instances,
            "rent.committed_hourly_rate": rate,
            "rent.commitment_upfront_per_instance": 0.0,
            "rent.annual_price_change": 0.0,
        },
    )
    try:
        result = run(data)
    except ArithmeticError:
        return
    horizon = data["horizon_months"]
    term = data["rent"].get("commitment_term_months", 12)
    billed_hours = sum(result["rent"]["committed"]) / rate
    every_hour_of_every_started_term = instances * 730 * math.ceil(horizon / term) * term
    assert billed_hours == pytest.approx(every_hour_of_every_started_term, rel=1e-9)
    assert billed_hours >= instances * 730 * horizon * (1 - 1e-12)


@given(v2_scenarios())
@settings(max_examples=80, deadline=None)
def test_monthly_totals_are_the_sum_of_their_components(data):
    try:
        result = run(data)
    except ArithmeticError:
        return
    build, rent = result["build"], result["rent"]
    assume(all(math.isfinite(v) for v in build["monthly"] + rent["monthly"]))
    scale = max(max(map(abs, build["cumulative"])), max(map(abs, rent["cumulative"])), 1.0)
    # Each side's cost lines, as declared (costmodel.lines).
    parts = [line.key for line in lines_of("build")]
    rent_parts = [line.key for line in lines_of("rent")]
    assert {"energy", "hosting", "replacement", "financing"} <= set(parts)
    for m in range(1, data["horizon_months"] + 1):
        assert build["monthly"][m] == pytest.approx(
            sum(build[p][m] for p in parts), rel=1e-12, abs=1e-12 * scale
        )
        assert rent["monthly"][m] == pytest.approx(
            sum(rent[p][m] for p in rent_parts),
            rel=1e-12,
            abs=1e-12 * scale,
        )
    assert rent["monthly"][0] == rent["committed"][0]


def test_summaries_of_a_batch_are_each_scenarios_summary():
    datas = [
        example("commitment-unused-3y"),
        changed(example("commitment-unused-3y"), **{"rent.committed_hourly_rate": 0.0}),
        example("hybrid-burst-life-financing"),
    ]
    from costmodel import project

    batch = project([parse_scenario(d) for d in datas])
    summaries = batch.summaries()
    assert summaries == [batch.summary(i) for i in range(3)]
    assert summaries[1]["break_even_month"] is None  # null stays null
    for i, data in enumerate(datas):
        full = run(data)
        assert summaries[i]["savings"] == pytest.approx(full["savings"], rel=1e-12)
        assert summaries[i]["build"]["total"] == pytest.approx(full["build"]["total"], rel=1e-12)
