"""What every sheet of the workbook shares: formats, the cell of each input, text cells."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _
from openpyxl.cell.cell import Cell
from openpyxl.styles import Font
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

MONEY = "#,##0.00"
BOLD = Font(bold=True)
MONTH_ROW = 3
"""Row of month 0 in Monthly and Depreciation: row 1 holds names, row 2 labels."""

BOX_TABLE = (
    "box",
    "bought_in_month",
    "cost",
    "end_month",
    "traded_in",
    "monthly_depreciation",
    "written_off",
    "trade_in",
)
"""Columns of the Depreciation sheet's table of boxes, right of the monthly columns."""


def box_table_columns(boxes: int) -> dict[str, str]:
    """Column letter of each :data:`BOX_TABLE` column when ``boxes`` boxes fill B, C, D, …"""
    first = 2 * boxes + 3  # one empty column after the boxes' depreciation and book value
    return {name: get_column_letter(first + k) for k, name in enumerate(BOX_TABLE)}


def unit_text(unit: str, currency: str) -> str:
    """A field's unit as a reader sees it: ``money/kWh`` → ``CNY/kWh``."""
    if unit.startswith("money"):
        return currency + unit[len("money") :]
    return {
        "fraction": _("fraction (0.05 = 5 %)"),
        "signed_fraction": _("fraction per year (−0.1: ten percent cheaper each year)"),
        "ratio": _("ratio"),
        "int": _("count"),
        "months": _("months"),
        "profile": _("fraction of the box's 730 hours"),
        "h": _("hours"),
        "days": _("days"),
        "W": "W",
    }.get(unit, unit)


@dataclass
class Sheets:
    """The sheets of one scenario and the cell of each input, by field name."""

    prefix: str
    money: str = MONEY
    """Number format of an amount: the currency's minor unit (``#,##0`` for JPY)."""
    inputs: dict[str, str] = field(default_factory=dict)
    """``build.capex`` → ``'Inputs'!$C$7``."""
    monthly: dict[str, str] = field(default_factory=dict)
    """Series name → column letter in Monthly."""

    def name(self, sheet: str) -> str:
        return f"{self.prefix}{sheet}"

    def ref(self, sheet: str, cell: str) -> str:
        return f"'{self.name(sheet)}'!{cell}"


def text(ws: Worksheet, row: int, column: int, value: Any) -> Cell:
    """Write ``value``; a string is always text, never a formula, whatever it starts with
    (names and sources come from users and the catalog)."""
    cell: Cell = ws.cell(row=row, column=column, value=value)
    if isinstance(value, str):
        cell.data_type = "s"
    return cell


def header(ws: Worksheet, row: int, values: Sequence[Any]) -> None:
    for column, value in enumerate(values, start=1):
        text(ws, row, column, value).font = BOLD
