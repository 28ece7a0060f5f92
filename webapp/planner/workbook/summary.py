"""The Summary and Sources sheets: the headline figures as formulas beside the engine's, and
where the inputs came from."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from django.utils.translation import gettext as _
from openpyxl import Workbook

from costmodel import Scenario
from webapp.planner.chosen import Chosen
from webapp.planner.sources import shown_items
from webapp.planner.workbook.base import BOLD, MONTH_ROW, Sheets, header, text


def summary_sheet(
    wb: Workbook,
    s: Sheets,
    scenario: Scenario,
    result: Mapping[str, Any],
    values: list[tuple[str, str, Any]],
) -> None:
    ws = wb.create_sheet(s.name("Summary"))
    i = s.inputs
    monthly = s.name("Monthly")
    last = MONTH_ROW + scenario.horizon_months

    def at_h(name: str) -> str:
        return f"'{monthly}'!{s.monthly[name]}{last}"

    def rng(name: str) -> str:
        letter = s.monthly[name]
        return f"'{monthly}'!{letter}{MONTH_ROW}:{letter}{last}"

    header(ws, 1, [_("Figure"), _("Label"), _("Workbook (formula)"), _("Engine")])
    work = (
        f"SUM({rng('demand_hours')})*{i['build.gpu_count']}*{i['build.gpu_throughput']}"
        f"+SUM({rng('rented_work')})"
    )
    build, rent = result["build"], result["rent"]
    never = _("does not pay back")
    be = rng("break_even_here")
    rows: list[tuple[str, str, str, Any]] = [
        ("build.total", _("Build: everything paid"), f"={at_h('build_cumulative')}",
         build["total"]),
        ("build.resale_value", _("Build: resale value at the horizon"),
         f"={at_h('build_value_if_sold')}", build["resale_value"]),
        ("build.total_net", _("Build: net of resale"), "=C2-C3", result["build"]["total_net"]),
        ("rent.total", _("Rent: everything paid"), f"={at_h('rent_cumulative')}", rent["total"]),
        ("savings", _("Savings of building over renting"), "=C5-C4", result["savings"]),
        (
            "break_even_month",
            _("Break-even month"),
            f'=IF(COUNT({be})=0,"{never}",MIN({be}))',
            result["break_even_month"],
        ),
        (
            "build.present_value",
            _("Build: present value"),
            f"=SUMPRODUCT({rng('build_monthly')},{rng('discount_factor')})-C3*{at_h('discount_factor')}",
            result["build"]["present_value"],
        ),
        (
            "rent.present_value",
            _("Rent: present value"),
            f"=SUMPRODUCT({rng('rent_monthly')},{rng('discount_factor')})",
            result["rent"]["present_value"],
        ),
        ("work_reference_gpu_hours", _("Work done [reference GPU-hours]"), f"={work}",
         result["work_reference_gpu_hours"]),
        ("build.cost_per_reference_gpu_hour", _("Build: cost per reference GPU-hour"),
         '=IF(C10>0,C4/C10,"")', build["cost_per_reference_gpu_hour"]),
        ("rent.cost_per_reference_gpu_hour", _("Rent: cost per reference GPU-hour"),
         '=IF(C10>0,C5/C10,"")', rent["cost_per_reference_gpu_hour"]),
    ]  # fmt: skip
    formats = {
        "break_even_month": "0.00",
        "work_reference_gpu_hours": "#,##0.00",
        "build.cost_per_reference_gpu_hour": "#,##0.0000",
        "rent.cost_per_reference_gpu_hour": "#,##0.0000",
    }
    for row, (name, label, formula, engine) in enumerate(rows, start=2):
        text(ws, row, 1, name)
        text(ws, row, 2, str(label))
        shown = formats.get(name, s.money)
        ws.cell(row=row, column=3, value=formula).number_format = shown
        ws.cell(row=row, column=4, value=engine).number_format = shown
    row = len(rows) + 3
    ws.cell(row=row, column=1, value=_("Values, not formulas")).font = BOLD
    ws.cell(
        row=row,
        column=2,
        value=_(
            "Computed by the engine for the inputs as written; they do not change when an "
            "input here is changed."
        ),
    )
    for name, label, value in values:
        row += 1
        text(ws, row, 1, name)
        text(ws, row, 2, label)
        ws.cell(row=row, column=4, value=value)
    ws.column_dimensions["A"].width = 34
    ws.column_dimensions["B"].width = 40
    ws.column_dimensions["C"].width = 20
    ws.column_dimensions["D"].width = 20


def sources_sheet(
    wb: Workbook,
    s: Sheets,
    provenance: list[dict[str, Any]],
    link: str,
    chosen: Sequence[Chosen] = (),
) -> None:
    ws = wb.create_sheet(s.name("Sources"))
    header(
        ws,
        1,
        [_("Role"), _("Item"), _("Price"), _("As of"), _("Source"), _("Notes"), _("Used for")],
    )
    row = 2
    for item in shown_items(provenance):  # names, notes and fields in the reader's language
        amount = item.get("amount")
        price = "" if amount is None else f"{amount} {item.get('currency', '')}".strip()
        for column, value in enumerate(
            (
                _(item["role"]) if item.get("role") else "",
                item.get("label") or "",
                price,
                item.get("effective_date") or "",
                item.get("source") or "",
                item.get("note") or "",
                "; ".join(item["feeds"]),
            ),
            start=1,
        ):
            text(ws, row, column, str(value))
        row += 1
    row += 1
    if chosen:  # what the catalog chose for the user, as the results page lists it
        text(ws, row, 1, _("Chosen for you")).font = BOLD
        header(ws, row + 1, [_("Input"), _("Used"), _("Why")])
        row += 2
        for choice in chosen:
            for column, value in enumerate((choice.label, choice.value, choice.reason), start=1):
                text(ws, row, column, value)
            row += 1
        row += 1
    for label, value in (
        (_("Results page"), link),
        (_("Generated on"), date.today().isoformat()),
        (
            _("Methodology"),
            _("docs/methodology.md in this product's source: every formula of the Monthly sheet"),
        ),
        (
            _("Straight-line depreciation"),
            _("IAS 16 Property, Plant and Equipment (IFRS Foundation); ASC 360 (FASB)"),
        ),
    ):
        text(ws, row, 1, str(label)).font = BOLD
        text(ws, row, 2, value)
        row += 1
