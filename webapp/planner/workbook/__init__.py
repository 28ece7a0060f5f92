"""A spreadsheet finance can recalculate: the methodology written as formulas over the inputs.

:func:`scenario_workbook` writes one scenario as an ``.xlsx`` (openpyxl) with
these sheets:

* **Inputs** — every scenario input (column A the engine's field name, C its
  value, D its unit, E its source), then a few derived cells as formulas.
* **Monthly** — one row per month 0..H; every build and rent series is a
  formula over Inputs (row 1 the engine's series name, row 2 a label).
* **Depreciation** — each box bought within the horizon, written down
  straight-line (formulas over Inputs and Monthly).
* **Fiscal years** — CapEx, OpEx, depreciation, interest and principal per
  fiscal year (SUMIF over Monthly), and the sale of the box at the horizon:
  proceeds and the gain or loss against its book value.
* **Summary** — totals, savings, break-even month and present values as
  formulas, beside the engine's own figures; what is not a formula (the
  break-even utilization, the Monte Carlo) is a value and says so.
* **Sources** — the catalog rows the inputs came from, what the catalog chose for the user
  and why ("Chosen for you"), and the methodology.

The workbook is a second statement of :mod:`costmodel.projection`'s arithmetic
in spreadsheet form, which is its purpose: a reviewer changes an input and
sees the totals move. Tests recalculate it in LibreOffice and compare it with
the engine cell by cell. Its shape (number of months, of boxes, of fiscal
years, the workload's kind) is that of the scenario it was written for.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _
from openpyxl import Workbook

from costmodel import Scenario
from costmodel.accounting import Accounts
from webapp.formatting import minor_unit
from webapp.planner.chosen import Chosen
from webapp.planner.workbook.base import Sheets, header, text
from webapp.planner.workbook.books import depreciation_sheet, fiscal_sheet
from webapp.planner.workbook.inputs import inputs_sheet
from webapp.planner.workbook.monthly import monthly_sheet
from webapp.planner.workbook.summary import sources_sheet, summary_sheet

__all__ = [
    "Entry",
    "add_scenario",
    "comparison_workbook",
    "engine_values",
    "scenario_workbook",
    "to_bytes",
]


def add_scenario(
    wb: Workbook,
    scenario: Scenario,
    result: Mapping[str, Any],
    accounts: Accounts,
    *,
    provenance: list[dict[str, Any]] | None = None,
    link: str = "",
    values: list[tuple[str, str, Any]] | None = None,
    prefix: str = "",
    overrides: Sequence[str] = (),
    chosen: Sequence[Chosen] = (),
) -> Sheets:
    """Add one scenario's sheets to ``wb``, their names starting with ``prefix`` (``chosen``:
    what the catalog chose for the user, listed on the Sources sheet)."""
    places = minor_unit(scenario.currency)
    s = Sheets(prefix=prefix, money="#,##0." + "0" * places if places else "#,##0")
    inputs_sheet(wb, s, scenario, accounts, provenance or [], overrides)
    monthly_sheet(wb, s, scenario, len(accounts.purchases))
    depreciation_sheet(wb, s, scenario, accounts)
    fiscal_sheet(wb, s, scenario, accounts)
    summary_sheet(wb, s, scenario, result, values or [])
    sources_sheet(wb, s, provenance or [], link, chosen)
    return s


def engine_values(analyses: Any) -> list[tuple[str, str, Any]]:
    """The figures a workbook shows as values: the break-even utilization and the Monte Carlo."""
    out: list[tuple[str, str, Any]] = [
        # the one decision's code (webapp.decided), as every page and file states it
        ("verdict", _("Verdict code"), analyses.decision.verdict),
        (
            "break_even_utilization",
            _("Break-even utilization (engine)"),
            analyses.result["break_even_utilization"],
        ),
    ]
    uncertainty = analyses.uncertainty
    if uncertainty:
        for key in ("p10", "p50", "p90", "mean"):
            out.append(
                (
                    f"uncertainty.savings.{key}",
                    _("Savings, %(stat)s of %(draws)s Monte Carlo draws")
                    % {"stat": key.upper(), "draws": analyses.draws},
                    uncertainty["savings"][key],
                )
            )
        out.append(
            (
                "uncertainty.probability_build_cheaper",
                _("Share of draws in which building is cheaper"),
                uncertainty["probability_build_cheaper"],
            )
        )
    return out


def to_bytes(wb: Workbook) -> bytes:
    buffer = io.BytesIO()
    wb.save(buffer)
    return buffer.getvalue()


def scenario_workbook(
    scenario: Scenario,
    result: Mapping[str, Any],
    accounts: Accounts,
    *,
    provenance: list[dict[str, Any]] | None = None,
    link: str = "",
    values: list[tuple[str, str, Any]] | None = None,
    overrides: Sequence[str] = (),
    chosen: Sequence[Chosen] = (),
) -> bytes:
    """One scenario's workbook as ``.xlsx`` bytes (see the module's docstring)."""
    wb = Workbook()
    wb.remove(wb.worksheets[0])  # the empty default sheet
    add_scenario(
        wb,
        scenario,
        result,
        accounts,
        provenance=provenance,
        link=link,
        values=values,
        overrides=overrides,
        chosen=chosen,
    )
    return to_bytes(wb)


@dataclass(frozen=True)
class Entry:
    """One scenario of a comparison workbook."""

    name: str
    scenario: Scenario
    result: Mapping[str, Any]
    accounts: Accounts
    link: str = ""
    provenance: list[dict[str, Any]] = field(default_factory=list)
    overrides: Sequence[str] = ()


SUMMARY_ROWS = {"build.total_net": 4, "rent.total": 5, "savings": 6, "break_even_month": 7}
"""Rows of the Summary sheet's figures that the Compare sheet shows."""


def comparison_workbook(entries: Sequence[Entry]) -> bytes:
    """Several scenarios in one workbook: a Compare sheet, then each scenario's sheets
    prefixed with its number (``1 Inputs``, ``1 Monthly``, …)."""
    wb = Workbook()
    wb.remove(wb.worksheets[0])  # the empty default sheet
    compare = wb.create_sheet(_("Compare"))
    header(compare, 1, [_("Scenario"), *SUMMARY_ROWS])
    for n, entry in enumerate(entries, start=1):
        s = add_scenario(
            wb,
            entry.scenario,
            entry.result,
            entry.accounts,
            provenance=entry.provenance,
            link=entry.link,
            prefix=f"{n} ",
            overrides=entry.overrides,
        )
        text(compare, 1 + n, 1, entry.name)
        for column, (figure, row) in enumerate(SUMMARY_ROWS.items(), start=2):
            cell = compare.cell(row=1 + n, column=column, value=f"={s.ref('Summary', f'C{row}')}")
            cell.number_format = "0.00" if figure == "break_even_month" else s.money
    return to_bytes(wb)
