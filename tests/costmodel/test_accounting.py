"""The depreciation schedule and the CapEx/OpEx split tie out to the engine's figures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from closeness import money_scale
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from pydantic import ValidationError
from strategies import nonzero_scenarios, v2_scenarios

from costmodel import compare, parse_scenario
from costmodel.accounting import (
    OPEX_LINES,
    AccountingOptions,
    accounting,
    fiscal_year_of_months,
)
from costmodel.projection import ProjectionOverflowError

EXAMPLES = Path(__file__).parent / "examples"


def example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / name).read_text())
    return data


def books(data: dict[str, Any], **options: Any) -> tuple[Any, dict[str, Any], Any]:
    scenario = parse_scenario(data)
    result = compare(scenario)
    return scenario, result, accounting(scenario, result, AccountingOptions(**options))


def column(accounts: Any, name: str) -> np.ndarray:
    return np.array([row[name] for row in accounts.fiscal_years])


def test_a_box_without_useful_life_is_written_down_over_60_months() -> None:
    _, _, accounts = books(example("steady-4090-vs-a100.json"))

    (box,) = accounts.purchases
    assert (box.month, box.cost, box.depreciation_months) == (0, 25000.0, 60)
    assert box.disposal_month is None
    # 36 months of 25 000 / 60 written off; the rest is still on the books.
    assert_allclose(accounts.book_value[0, 36], 25000 - 36 * 25000 / 60, rtol=1e-12)
    assert_allclose(accounts.depreciation[0, 1:].sum(), 36 * 25000 / 60, rtol=1e-12)
    assert accounts.depreciation[0, 0] == 0.0


def test_the_depreciation_period_defaults_to_the_useful_life() -> None:
    scenario, _, accounts = books(example("v2/hybrid-burst-life-financing.json"))

    life = scenario.build.useful_life_months
    assert accounts.depreciation_months == life
    first, second = accounts.purchases
    assert (first.month, second.month, first.disposal_month) == (0, life, life)
    # Written down exactly when replaced: nothing left to write off.
    assert first.written_off == 0.0
    assert accounts.book_value[0, life - 1] == pytest.approx(first.cost / life, rel=1e-12)


def test_purchases_are_the_capex_and_the_replacements_before_trade_in() -> None:
    scenario, result, accounts = books(example("v2/hybrid-burst-life-financing.json"))

    purchases = sum(p.cost for p in accounts.purchases)
    trade_ins = sum(p.trade_in for p in accounts.purchases)
    expected = scenario.build.capex + sum(result["build"]["replacement"]) + trade_ins
    assert_allclose(purchases, expected, rtol=1e-12)
    assert_allclose(column(accounts, "capex").sum(), purchases, rtol=1e-12)
    # The replaced box fetches what the methodology says: capex × r^(L/12).
    life = scenario.build.useful_life_months
    retention = scenario.build.residual_value_retention_per_year
    assert_allclose(accounts.purchases[0].trade_in, 165000 * retention ** (life / 12), rtol=1e-12)


def test_a_box_replaced_before_it_is_written_down_leaves_a_write_off() -> None:
    scenario, _, accounts = books(
        example("v2/hybrid-burst-life-financing.json"), depreciation_months=48
    )

    life = scenario.build.useful_life_months
    first = accounts.purchases[0]
    assert_allclose(first.written_off, first.cost * (48 - life) / 48, rtol=1e-12)
    assert accounts.book_value[0, life] == 0.0
    assert_allclose(column(accounts, "written_off").sum(), first.written_off, rtol=1e-12)


def test_a_short_depreciation_period_leaves_no_book_value() -> None:
    _, _, accounts = books(example("steady-4090-vs-a100.json"), depreciation_months=24)

    assert accounts.book_value[0, 24] == pytest.approx(0.0, abs=1e-9)
    assert accounts.depreciation[0, 25:].sum() == 0.0
    assert column(accounts, "book_value")[-1] == pytest.approx(0.0, abs=1e-9)


def test_loan_payments_split_into_interest_and_the_whole_principal() -> None:
    scenario, result, accounts = books(example("v2/hybrid-burst-life-financing.json"))

    loan = scenario.build.financing
    assert loan is not None
    borrowed = scenario.build.capex * (1 - loan.down_payment_fraction)
    assert_allclose(accounts.principal.sum(), borrowed, rtol=1e-12)
    assert_allclose(accounts.interest + accounts.principal, result["build"]["financing"], atol=1e-9)
    # The first month's interest is a month of the rate on everything borrowed.
    assert_allclose(accounts.interest[1], borrowed * loan.annual_interest_rate / 12, rtol=1e-12)
    assert (accounts.interest >= 0).all()


def test_a_loan_running_past_the_horizon_pays_its_balance_as_principal() -> None:
    data = example("v2/hybrid-burst-life-financing.json")
    data["build"]["financing"]["term_months"] = 120
    scenario, result, accounts = books(data)

    borrowed = scenario.build.capex * 0.7
    assert_allclose(accounts.principal.sum(), borrowed, rtol=1e-12)
    assert_allclose(
        accounts.interest.sum() + borrowed, sum(result["build"]["financing"]), rtol=1e-12
    )


def test_fiscal_years_start_in_the_chosen_month() -> None:
    # Bought in January; the fiscal year starts in April: Jan–Mar is the first, short year.
    years = fiscal_year_of_months(24, purchase_month=1, fiscal_year_start_month=4)
    assert years[:5].tolist() == [0, 0, 0, 0, 1]
    assert years[15:17].tolist() == [1, 2]

    _, _, accounts = books(
        example("steady-4090-vs-a100.json"), fiscal_year_start_month=4, purchase_month=1
    )
    first, second = accounts.fiscal_years[:2]
    assert (first["first_month"], first["last_month"], first["start_calendar_month"]) == (0, 3, 1)
    assert (second["first_month"], second["last_month"], second["start_calendar_month"]) == (
        4,
        15,
        4,
    )
    assert first["capex"] == 25000.0
    assert accounts.fiscal_years[-1]["last_month"] == 36


def test_by_default_fiscal_years_are_counted_from_the_purchase() -> None:
    _, _, accounts = books(example("steady-4090-vs-a100.json"), fiscal_year_start_month=7)

    assert [(y["first_month"], y["last_month"]) for y in accounts.fiscal_years] == [
        (0, 12),
        (13, 24),
        (25, 36),
    ]


def test_the_operating_costs_per_year_are_the_engines_series() -> None:
    _, result, accounts = books(
        example("v2/spot-rework-escalation.json"), fiscal_year_start_month=10
    )

    build = result["build"]
    # The build's cost lines booked as OpEx (costmodel.lines), each a column.
    assert {"energy", "hosting", "maintenance", "ops", "burst"} <= set(OPEX_LINES)
    assert not {"replacement", "financing"} & set(OPEX_LINES)
    for name in OPEX_LINES:
        assert_allclose(column(accounts, name).sum(), sum(build[name]), rtol=1e-12)
    parts = sum(column(accounts, n) for n in OPEX_LINES)
    assert_allclose(column(accounts, "opex"), parts, rtol=1e-12)
    assert_allclose(column(accounts, "rent").sum(), result["rent"]["total"], rtol=1e-12)


def test_the_box_kept_to_the_horizon_is_sold_at_a_gain_over_its_book_value() -> None:
    # 36 months, no useful life: written down over 60 months, so 24/60 of the price is
    # still on the books when it is sold for what it keeps after three years.
    scenario, result, accounts = books(example("steady-4090-vs-a100.json"))
    capex, horizon = scenario.build.capex, scenario.horizon_months
    book = capex - capex / 60 * horizon
    resale = result["build"]["resale_value"]
    assert accounts.disposal_book_value == pytest.approx(book, rel=1e-12)
    assert accounts.disposal_proceeds == resale
    assert accounts.disposal_gain == pytest.approx(resale - book, rel=1e-12)
    last = accounts.fiscal_years[-1]
    assert last["disposal_proceeds"] == resale
    assert last["disposal_gain"] == pytest.approx(resale - book, rel=1e-12)


def test_the_options_name_the_field_they_refuse() -> None:
    with pytest.raises(ValidationError, match="depreciation_months"):
        AccountingOptions(depreciation_months=0)
    with pytest.raises(ValidationError, match="fiscal_year_start_month"):
        AccountingOptions(fiscal_year_start_month=13)


@settings(max_examples=120, deadline=None)
@given(st.one_of(v2_scenarios(), nonzero_scenarios()), st.integers(1, 240))
def test_the_books_tie_out_to_the_engine_on_any_scenario(data: dict[str, Any], period: int) -> None:
    scenario = parse_scenario(data)
    try:
        result = compare(scenario)
    except ProjectionOverflowError:
        assume(False)
    scale = money_scale(result)
    for options in (
        AccountingOptions(),
        AccountingOptions(depreciation_months=period, fiscal_year_start_month=5, purchase_month=11),
    ):
        accounts = accounting(scenario, result, options)
        tolerance = 1e-9 * scale
        costs = np.array([p.cost for p in accounts.purchases])
        # Every box: book value + accumulated depreciation (+ any write-off) = its cost.
        held = accounts.book_value > 0
        assert_allclose(
            np.where(held, accounts.book_value + accounts.accumulated_depreciation, 0),
            np.where(held, costs[:, None], 0),
            atol=tolerance,
        )
        written = np.array([p.written_off for p in accounts.purchases])
        kept = accounts.book_value[:, -1]
        assert_allclose(accounts.depreciation.sum(axis=1) + written + kept, costs, atol=tolerance)
        # Purchases = capex + replacements (before the trade-in the engine nets off).
        trade_ins = sum(p.trade_in for p in accounts.purchases)
        assert_allclose(
            costs.sum(),
            scenario.build.capex + sum(result["build"]["replacement"]) + trade_ins,
            atol=tolerance,
        )
        # Cash paid for the build, year by year, is the engine's build total.
        rows = accounts.fiscal_years
        cash = sum(r["capex"] - r["trade_in"] + r["opex"] + r["interest"] for r in rows)
        assert_allclose(cash, result["build"]["total"], atol=tolerance)
        # The box held at the horizon is sold for the resale value: cash less the proceeds
        # is the build's net total, and the gain is the proceeds less its book value then.
        proceeds = sum(r["disposal_proceeds"] for r in rows)
        assert proceeds == rows[-1]["disposal_proceeds"] == result["build"]["resale_value"]
        assert_allclose(cash - proceeds, result["build"]["total_net"], atol=tolerance)
        gain = result["build"]["resale_value"] - accounts.book_value[:, -1].sum()
        assert_allclose(rows[-1]["disposal_gain"], gain, atol=tolerance)
        assert_allclose(accounts.disposal_gain, gain, atol=tolerance)
        assert all(r["disposal_gain"] == 0 for r in rows[:-1])
        assert_allclose(sum(r["rent"] for r in rows), result["rent"]["total"], atol=tolerance)
        assert rows[0]["first_month"] == 0 and rows[-1]["last_month"] == scenario.horizon_months
