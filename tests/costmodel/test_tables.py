"""The monthly table: one row per month, every component a column, raw numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from costmodel import compare, parse_scenario
from costmodel.lines import lines_of
from costmodel.tables import MONTHLY_COLUMNS, monthly_table

EXAMPLES = Path(__file__).resolve().parent / "examples"


@pytest.fixture(scope="module")
def result() -> dict:
    data = json.loads((EXAMPLES / "tidal-4060ti.json").read_text())
    return compare(parse_scenario(data))


def test_the_header_names_every_component_and_both_cumulative_series(result):
    header, _ = monthly_table(result)
    assert header == list(MONTHLY_COLUMNS)
    # Each side's cost lines in their declared order (costmodel.lines), then its totals.
    assert header == [
        "month",
        *(f"build_{line.key}" for line in lines_of("build")),
        "build_monthly",
        "build_cumulative",
        "build_value_if_sold",
        *(f"rent_{line.key}" for line in lines_of("rent")),
        "rent_monthly",
        "rent_cumulative",
        "cumulative_difference",
    ]
    assert header[1:3] == ["build_energy", "build_hosting"]


def test_it_has_one_row_per_month_including_month_zero(result):
    header, rows = monthly_table(result)
    assert len(rows) == 24 + 1
    assert [row[0] for row in rows] == list(range(25))
    assert all(len(row) == len(header) for row in rows)


def test_each_column_is_the_result_series_unrounded(result):
    header, rows = monthly_table(result)
    for column, name in enumerate(header[1:-1], start=1):
        side, series = name.split("_", 1)
        assert [row[column] for row in rows] == result[side][series], name
    # e.g. rent compute in month 2 is 591.36 × 0.9^(1/12), not a rounded figure
    assert rows[2][header.index("rent_compute")] == result["rent"]["compute"][2]
    assert rows[2][header.index("rent_compute")] != round(rows[2][header.index("rent_compute")], 2)


def test_the_last_column_is_build_cumulative_minus_rent_cumulative(result):
    header, rows = monthly_table(result)
    build, rent, diff = (
        header.index(c) for c in ("build_cumulative", "rent_cumulative", "cumulative_difference")
    )
    assert [row[diff] for row in rows] == [row[build] - row[rent] for row in rows]
    assert rows[0][diff] == 7000
    # the difference changes sign between months 13 and 14: the break-even month 13.9955
    assert rows[13][diff] > 0 >= rows[14][diff]


def test_month_zero_holds_only_the_capital_cost(result):
    header, rows = monthly_table(result)
    month_zero = dict(zip(header, rows[0], strict=True))
    assert month_zero["build_monthly"] == month_zero["build_cumulative"] == 7000
    for name in ("build_energy", "build_hosting", "build_maintenance", "build_ops"):
        assert month_zero[name] == 0
    for name in ("rent_compute", "rent_fixed", "rent_monthly", "rent_cumulative"):
        assert month_zero[name] == 0


def test_it_refuses_a_series_that_does_not_cover_every_month(result):
    broken = json.loads(json.dumps(result))
    broken["rent"]["fixed"] = broken["rent"]["fixed"][:-1]
    with pytest.raises(ValueError, match=r"rent\.fixed has 24 entries for 25 months"):
        monthly_table(broken)
