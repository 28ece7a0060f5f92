"""CSV exports for finance: one scenario's monthly projection, and a summary of several.

Layout (documented in ``docs/planner.md``): UTF-8 with a byte-order mark so
spreadsheet programs read Chinese labels correctly; amounts rounded to the
currency's minor unit; the assumptions (every scenario input with its source,
date, estimate and override flags) travel in the same file as the numbers.

Formula injection: a *text* cell that a spreadsheet could read as a formula is
prefixed with ``'`` so it shows as text: one that begins with ``=``, ``+``,
``-`` or ``@`` (or their full-width forms) after any run of characters a
spreadsheet may skip or trim first — whitespace of every kind (space, tab,
CR, LF, no-break and ideographic spaces), control characters and invisible
format characters (U+200B zero-width space, U+FEFF byte-order mark, U+2060
word joiner, bidirectional marks) — and one that begins with such a
character at all, since what a program skips differs between Excel,
LibreOffice Calc and Google Sheets and between their versions.
*Numeric* cells are written by this module from numbers (``-1234.50``), never
from user text, so they stay numeric — a negative saving must remain a
number finance can sum, and a bare signed decimal is not a formula.
"""

from __future__ import annotations

import csv
import io
import math
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from decimal import Decimal
from typing import Any, cast

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from costmodel import Scenario
from costmodel.paths import get_path
from costmodel.tables import MONTHLY_COLUMNS, monthly_table
from webapp.planner.fields import ALL_FIELDS, fed_fields
from webapp.planner.figures import FIGURES, Figure
from webapp.planner.formatting import round_money

BOM = "\ufeff"
FORMULA_STARTS = frozenset("=+-@\uff1d\uff0b\uff0d\uff20")
"""Characters that start a formula: ``= + - @`` and their full-width forms."""

Cell = str | int | float | Decimal | None


def _skippable(char: str) -> bool:
    """Whitespace, a control character or an invisible format character (Unicode Z*, Cc, Cf)."""
    return char.isspace() or unicodedata.category(char) in {"Zs", "Zl", "Zp", "Cc", "Cf"}


def neutralise(text: str) -> str:
    """Prefix with ``'`` a text cell that a spreadsheet might read as a formula.

    >>> neutralise("=1+2"), neutralise("\u200b=1+2"), neutralise("a=b")
    ("'=1+2", "'\u200b=1+2", 'a=b')
    """
    if text and (text[0] in FORMULA_STARTS or _skippable(text[0])):
        return "'" + text
    return text


def _cell(value: Cell) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return format(value.copy_abs() if value.is_zero() else value, "f")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return ""
        return format(Decimal(repr(value)), "f")
    return neutralise(str(value))


def _write(rows: Iterable[Sequence[Cell]]) -> str:
    buffer = io.StringIO()
    buffer.write(BOM)
    writer = csv.writer(buffer, lineterminator="\r\n")
    for row in rows:
        writer.writerow([_cell(v) for v in row])
    return buffer.getvalue()


MONTHLY_LABELS = {
    "month": gettext_lazy("Month"),
    "build_energy": gettext_lazy("Build: energy"),
    "build_hosting": gettext_lazy("Build: hosting"),
    "build_maintenance": gettext_lazy("Build: maintenance"),
    "build_ops": gettext_lazy("Build: operations"),
    "build_burst": gettext_lazy("Build: cloud burst"),
    "build_replacement": gettext_lazy("Build: replacement"),
    "build_financing": gettext_lazy("Build: loan payments"),
    "build_monthly": gettext_lazy("Build: total this month"),
    "build_cumulative": gettext_lazy("Build: cumulative"),
    "build_value_if_sold": gettext_lazy("Build: value if sold"),
    "rent_compute": gettext_lazy("Rent: cloud compute"),
    "rent_fixed": gettext_lazy("Rent: fixed fees"),
    "rent_committed": gettext_lazy("Rent: committed instances"),
    "rent_monthly": gettext_lazy("Rent: total this month"),
    "rent_cumulative": gettext_lazy("Rent: cumulative"),
    "cumulative_difference": gettext_lazy("Cumulative build minus rent"),
}


def _figure_cell(figure: Figure, result: Mapping[str, Any], currency: str) -> Cell:
    """A headline figure rounded for finance: money to the minor unit, months to 0.01,
    fractions to 0.0001; a quantity (GPU-hours) as the engine gives it."""
    value = figure.value(result)
    if value is None or figure.kind == "quantity":
        return cast(Cell, value)
    if figure.kind == "money":
        return round_money(value, currency)
    quantum = Decimal("0.01") if figure.kind == "months" else Decimal("0.0001")
    return Decimal(repr(value)).quantize(quantum)


def _headline_rows(result: Mapping[str, Any], currency: str) -> list[list[Cell]]:
    return [[f.column, str(f.label), _figure_cell(f, result, currency)] for f in FIGURES.values()]


def assumption_rows(
    scenario: Scenario, provenance: list[dict[str, Any]], overrides: list[str]
) -> list[list[Cell]]:
    """One row per scenario input: field, label, value, source, as-of date, estimate, override."""
    data = scenario.model_dump(mode="json")
    by_field: dict[str, list[dict[str, Any]]] = {}
    for item in provenance:
        for path in fed_fields(item):
            by_field.setdefault(path, []).append(item)
    rows: list[list[Cell]] = []
    for field in ALL_FIELDS:
        value = get_path(data, field.path)
        if value is None:
            continue
        if isinstance(value, list):
            value = " ".join(repr(v) for v in value)
        elif field.unit == "money" and isinstance(value, int | float):
            value = round_money(value, scenario.currency)
        overridden = field.path in overrides
        items = [] if overridden else by_field.get(field.path, [])
        source = "; ".join(str(i.get("source", "")) for i in items if i.get("source"))
        as_of = "; ".join(
            str(i.get("effective_date", "")) for i in items if i.get("effective_date")
        )
        estimate = any(bool(i.get("estimate")) for i in items)
        rows.append([field.path, str(field.label), value, source, as_of, estimate, overridden])
    return rows


def monthly_csv(
    scenario: Scenario,
    result: dict[str, Any],
    provenance: list[dict[str, Any]] | None = None,
    overrides: list[str] | None = None,
    link: str = "",
) -> str:
    """The finance CSV of one scenario: title block, headline, assumptions, monthly table."""
    currency = scenario.currency
    header, rows = monthly_table(result)
    assert tuple(header) == MONTHLY_COLUMNS
    rounded: list[list[Cell]] = [
        [row[0], *(round_money(float(v), currency) for v in row[1:])] for row in rows
    ]
    out: list[list[Cell]] = [
        [_("Build or rent GPUs: monthly projection")],
        ["name", _("Scenario"), scenario.name or ""],
        ["currency", _("Currency"), currency],
        ["horizon_months", _("Horizon [months]"), scenario.horizon_months],
        ["generated_on", _("Generated on"), date.today().isoformat()],
        ["link", _("Results page"), link],
        [],
        [_("Headline")],
        ["key", _("Label"), _("Value")],
        *_headline_rows(result, currency),
        [],
        [_("Assumptions")],
        [
            "field",
            _("Input"),
            _("Value"),
            _("Source"),
            _("As of"),
            _("Estimate"),
            _("Override"),
        ],
        *assumption_rows(scenario, provenance or [], overrides or []),
        [],
        [_("Monthly projection")],
        list(header),
        [str(MONTHLY_LABELS[c]) for c in header],
        *rounded,
    ]
    return _write(out)


SUMMARY_FIGURES: tuple[Figure, ...] = tuple(
    FIGURES[path]
    for path in (
        "break_even_month",
        "savings",
        "build.total_net",
        "rent.total",
        "build.cost_per_reference_gpu_hour",
        "rent.cost_per_reference_gpu_hour",
        "break_even_utilization",
        "build.resale_value",
    )
)

SUMMARY_COLUMNS = (
    "name",
    "currency",
    "horizon_months",
    "workload",
    "average_utilization",
    "build_capex",
    "rent_hourly_rate",
    *(f.column for f in SUMMARY_FIGURES),
    "prices_as_of",
    "saved_at",
    "overrides",
    "link",
)


def summary_csv(entries: Sequence[dict[str, Any]]) -> str:
    """One row per scenario; each entry has ``scenario``, ``result``, ``average_utilization``,
    ``provenance``, ``overrides``, ``saved_at`` (date or None) and ``link``."""
    rows: list[list[Cell]] = [list(SUMMARY_COLUMNS)]
    for e in entries:
        s: Scenario = e["scenario"]
        cur = s.currency
        dates = sorted(str(p["effective_date"]) for p in e["provenance"] if p.get("effective_date"))
        rows.append(
            [
                s.name or "",
                cur,
                s.horizon_months,
                s.workload.kind,
                Decimal(repr(e["average_utilization"])).quantize(Decimal("0.0001")),
                round_money(s.build.capex, cur),
                s.rent.hourly_rate,
                *(_figure_cell(f, e["result"], cur) for f in SUMMARY_FIGURES),
                dates[-1] if dates else "",
                e["saved_at"].isoformat() if e.get("saved_at") else "",
                " ".join(e["overrides"]),
                e["link"],
            ]
        )
    return _write(rows)
