"""The cost lines are declared once, and the result schema, the projection and the books follow."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.testing import assert_allclose

from costmodel import compare, parse_scenario
from costmodel.accounting import FISCAL_YEAR_FIELDS, OPEX_LINES, accounting
from costmodel.columns import FEE_INPUTS, columns_from
from costmodel.lines import BY_KEY, LINES, SIDES, Booking, Line, fees_of, lines_of
from costmodel.projection import side_lines
from costmodel.results import BUILD_SERIES, RENT_SERIES
from costmodel.scenario import Build, Rent

EXAMPLES = Path(__file__).parent / "examples"
TOTALS = ("monthly", "cumulative")


def example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / name).read_text())
    return data


def test_the_result_schema_has_a_series_for_each_cost_line_and_no_other() -> None:
    assert BUILD_SERIES == (*TOTALS, *(line.key for line in lines_of("build")), "value_if_sold")
    assert RENT_SERIES == (*TOTALS, *(line.key for line in lines_of("rent")))


def test_each_side_costs_the_sum_of_its_lines_every_month() -> None:
    result = compare(parse_scenario(example("v2/hybrid-burst-life-financing.json")))
    for side in SIDES:
        lines = [result[side][line.key] for line in lines_of(side)]
        months = [sum(values) for values in zip(*lines, strict=True)]
        assert_allclose(months[1:], result[side]["monthly"][1:], rtol=1e-12)


def test_every_fee_reads_a_field_of_its_side_that_defaults_so_old_scenarios_stay_valid() -> None:
    models = {"build": Build, "rent": Rent}
    for side in SIDES:
        for line in fees_of(side):
            assert line.fee is not None
            field = models[side].model_fields[line.fee.field]
            assert field.annotation is float, line.key
    assert FEE_INPUTS == tuple(f"{line.side}.{line.fee.field}" for line in LINES if line.fee)


def test_a_fee_is_its_input_every_month_escalated_like_the_running_costs() -> None:
    data = example("v2/spot-rework-escalation.json")
    result = compare(parse_scenario(data))
    change = data["build"].get("running_cost_annual_change", 0.0)
    assert change != 0
    for side in SIDES:
        for line in fees_of(side):
            assert line.fee is not None
            fee = data[side].get(line.fee.field, 0.0)
            expected = [0.0] + [
                fee * ((1 + change) ** ((m - 1) / 12) if line.fee.escalates else 1.0)
                for m in result["months"][1:]
            ]
            assert_allclose(result[side][line.key], expected, rtol=1e-12, err_msg=line.key)


def test_the_columns_carry_every_fee_by_its_path() -> None:
    scenario = parse_scenario(example("steady-4090-vs-a100.json"))
    columns = columns_from([scenario])
    assert set(columns.fees) == set(FEE_INPUTS)
    changed = columns.with_values("build.hosting_monthly", 123.0)
    assert changed.fees["build.hosting_monthly"].tolist() == [123.0]
    assert changed.take([0, 0]).fees["build.hosting_monthly"].tolist() == [123.0, 123.0]


def test_a_declared_line_without_a_formula_is_refused_by_name() -> None:
    with pytest.raises(KeyError, match="'hosting', 'maintenance'"):
        side_lines({"energy": np.zeros((1, 2))}, "build")


def test_the_books_expense_every_line_booked_as_opex() -> None:
    assert OPEX_LINES == tuple(
        line.key for line in lines_of("build") if line.booking is Booking.OPEX
    )
    assert set(OPEX_LINES) <= set(FISCAL_YEAR_FIELDS)
    scenario = parse_scenario(example("v2/spot-rework-escalation.json"))
    result = compare(scenario)
    accounts = accounting(scenario, result)
    for key in OPEX_LINES:
        booked = sum(row[key] for row in accounts.fiscal_years)
        assert_allclose(booked, sum(result["build"][key]), rtol=1e-12, err_msg=key)


def test_only_a_build_fee_may_follow_the_running_cost_change() -> None:
    assert len(BY_KEY) == len(LINES)
    with pytest.raises(ValueError, match="only a build-side fee follows the running-cost"):
        Line("x", "rent", "X", Booking.OPEX, "#000000", "x", fee=BY_KEY["hosting"].fee)
