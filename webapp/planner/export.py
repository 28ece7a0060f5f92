"""CSV exports for finance: one scenario's tables, and a summary of several.

Layout (documented in ``docs/planner.md``): each file is one tidy table with a
single header row whose labels carry their unit and currency (``Build: energy
[CNY]``, ``Average utilization [%]``; shares are written as percentages). The
machine-readable keys are the JSON API's business, not a second header row.
One scenario's monthly projection is a CSV of its own; with it, the headline,
the assumptions (every input with its source, date, estimate and override
flags), the decision, the uncertainty, the tornado, the fleet and the fiscal
years are files of their own, offered together as a zip (:func:`finance_files`,
:func:`zipped`). UTF-8 with a byte-order mark so spreadsheet programs read
Chinese labels correctly; amounts rounded to the currency's minor unit.

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
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from decimal import Context, Decimal
from typing import Any

from django.utils.functional import lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from costmodel import Scenario
from costmodel.accounting import Accounts
from costmodel.decision import CLOSE_CALL_SHARE
from costmodel.lines import LINES, SIDE_LABELS, Line
from costmodel.paths import get_path
from costmodel.tables import MONTHLY_COLUMNS, monthly_table
from webapp.formatting import round_money
from webapp.planner import verdict
from webapp.planner.analysis import SEED, Analyses, field_label
from webapp.planner.chosen import Chosen
from webapp.planner.fields import (
    ALL_FIELDS,
    BY_PATH,
    PERCENT_UNITS,
    WORKLOAD_KIND_LABELS,
    items_by_field,
)
from webapp.planner.figures import FIGURES, Figure
from webapp.planner.finance import fiscal_year_rows
from webapp.planner.sources import shown_items
from webapp.planner.verdict import confidence_label

BOM = "\ufeff"
FORMULA_STARTS = frozenset("=+-@\uff1d\uff0b\uff0d\uff20")
"""Characters that start a formula: ``= + - @`` and their full-width forms."""

Cell = str | int | float | Decimal | None

RATE_PLACES = 6
"""Decimals of a price per kWh or per hour: sub-cent, as catalog prices converted at a
four-decimal exchange rate come out."""
FRACTION_PLACES = 6
"""Decimals of a fraction or a ratio (utilization, maintenance rate, PUE, throughput)."""
QUANTITY_PLACES = 4
"""Decimals of watts, hours and days."""
HOURS_PLACES = 2
"""Decimals of GPU-hours and instance-hours."""
PROBABILITY_PLACES = 4
"""Decimals of a probability (a share of draws: 0.8289 of 10 000)."""
SIGNIFICANT_DIGITS = 12
"""Any other number: at most this many significant digits (float noise starts at 16)."""

UNIT_PLACES: dict[str, int] = {
    "money/kWh": RATE_PLACES,
    "money/h": RATE_PLACES,
    "fraction": FRACTION_PLACES,
    "signed_fraction": FRACTION_PLACES,
    "ratio": FRACTION_PLACES,
    "profile": FRACTION_PLACES,
    "W": QUANTITY_PLACES,
    "h": QUANTITY_PLACES,
    "days": QUANTITY_PLACES,
}
"""Decimals of an input by its unit (:mod:`webapp.planner.fields`); money has its currency's."""


WIDE = Context(prec=400)


def quantized(value: float, places: int) -> Decimal:
    """``value`` to ``places`` decimals, half to even, from the decimal it reads as
    (``0.1`` is ``Decimal("0.1")``, not its binary value)."""
    # Enough digits for any finite float (decimal's default context keeps 28).
    return Decimal(repr(float(value))).quantize(Decimal(1).scaleb(-places), context=WIDE)


def rounded(value: float, places: int) -> Decimal:
    """``value`` to ``places`` decimals, half to even, without trailing zeros (``0.8``, not
    ``0.800000``; ``28``, not ``28.000000``)."""
    exact = quantized(value, places)
    plain = exact.normalize(WIDE)
    return plain.quantize(Decimal(1), context=WIDE) if plain == plain.to_integral() else plain


def significant(value: float) -> Decimal:
    """``value`` to :data:`SIGNIFICANT_DIGITS` significant digits: no float noise."""
    return Decimal(format(float(value), f".{SIGNIFICANT_DIGITS}g")).normalize()


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
    if isinstance(value, float):  # every exporter rounds first: this only guards against noise
        if not math.isfinite(value):
            return ""
        return format(significant(value), "f")
    return neutralise(str(value))


def _write(rows: Iterable[Sequence[Cell]]) -> str:
    buffer = io.StringIO()
    buffer.write(BOM)
    writer = csv.writer(buffer, lineterminator="\r\n")
    for row in rows:
        writer.writerow([_cell(v) for v in row])
    return buffer.getvalue()


def with_unit(label: object, unit: str) -> str:
    """A column or row label with its unit in brackets: ``Build: energy [CNY]``."""
    return f"{label} [{unit}]" if unit else str(label)


def unit_of(path: str, currency: str) -> str:
    """The unit an input is written in by :func:`input_cell`, as a reader sees it:
    ``CNY/kWh``, ``%``, ``W``, ``months``; empty for counts, ratios and text."""
    field = BY_PATH.get(path)
    unit = field.unit if field is not None else ""
    if unit.startswith("money"):
        rest = unit[len("money") :]
        return currency + ("/" + _("month") if rest == "/month" else rest)
    return {
        "fraction": "%",
        "signed_fraction": _("% per year"),
        "profile": "%",
        "W": "W",
        "h": "h",
        "days": _("days"),
        "months": _("months"),
    }.get(unit, "")


def percent_cell(fraction: float | None, places: int) -> Cell:
    """A fraction written as a percentage (0.4 → ``40.00`` with ``places=2``), computed in
    decimal from the figure's shortest repr, so 0.07 is 7, not 7.000000000000001."""
    if fraction is None:
        return None
    return (Decimal(repr(float(fraction))) * 100).quantize(Decimal(1).scaleb(-places))


def input_cell(path: str, value: Any, currency: str) -> Cell:
    """A scenario input rounded for finance by its unit: money to the minor unit, rates to
    six decimals, fractions as percentages to four decimals, watts, hours and days to four;
    counts as they are; a workload kind in words."""
    field = BY_PATH.get(path)
    unit = field.unit if field is not None else ""
    if path == "workload.kind":
        return str(WORKLOAD_KIND_LABELS.get(value, value))
    if isinstance(value, bool) or value is None or isinstance(value, str | int):
        return value
    if isinstance(value, list):
        return " ".join(str(input_cell(path, v, currency)) for v in value)
    if unit in ("money", "money/month"):
        return round_money(value, currency)
    if unit in PERCENT_UNITS or unit == "profile":
        return rounded(float(percent_cell(value, FRACTION_PLACES - 2) or 0), FRACTION_PLACES - 2)
    if unit in UNIT_PLACES:
        return rounded(value, UNIT_PLACES[unit])
    return significant(value)


def line_label(line: Line) -> str:
    """A cost line's label where both sides share a table: ``Build: Energy``."""
    return _("%(side)s: %(line)s") % {"side": _(SIDE_LABELS[line.side]), "line": _(line.label)}


MONTHLY_LABELS: dict[str, Any] = {
    "month": gettext_lazy("Month"),
    **{f"{line.side}_{line.key}": lazy(line_label, str)(line) for line in LINES},
    "build_monthly": gettext_lazy("Build: total this month"),
    "build_cumulative": gettext_lazy("Build: cumulative"),
    "build_value_if_sold": gettext_lazy("Build: value if sold"),
    "rent_monthly": gettext_lazy("Rent: total this month"),
    "rent_cumulative": gettext_lazy("Rent: cumulative"),
    "cumulative_difference": gettext_lazy("Cumulative build minus rent"),
}
"""Labels of :data:`costmodel.tables.MONTHLY_COLUMNS`, each cost line's from :mod:`costmodel.lines`;
every column but the month is money."""

BAND_LABELS = {
    "p10": gettext_lazy("Rent minus build so far, P10"),
    "p50": gettext_lazy("Rent minus build so far, P50"),
    "p90": gettext_lazy("Rent minus build so far, P90"),
}
"""Labels of the uncertainty's monthly bands, the monthly table's last columns."""

PRESENT_VALUE_BAND_LABELS = {
    "p10": gettext_lazy("Rent minus build so far in present value, P10"),
    "p50": gettext_lazy("Rent minus build so far in present value, P50"),
    "p90": gettext_lazy("Rent minus build so far in present value, P90"),
}
"""The same bands when the verdict is decided on present value (a cost of capital above 0):
the uncertainty is then asked for present-value savings, and each month's band is of the
difference discounted to the start (methodology version 4)."""


def monthly_header(currency: str, bands: bool = False, present_value: bool = False) -> list[Cell]:
    """The monthly table's one header row: ``Month``, then each amount with its currency (the
    bands' in present value when ``present_value``)."""
    labels: list[Cell] = [str(MONTHLY_LABELS["month"])]
    labels += [with_unit(MONTHLY_LABELS[c], currency) for c in MONTHLY_COLUMNS[1:]]
    if bands:
        names = PRESENT_VALUE_BAND_LABELS if present_value else BAND_LABELS
        labels += [with_unit(names[p], currency) for p in names]
    return labels


def monthly_rows(
    scenario: Scenario, result: Mapping[str, Any], analyses: Analyses | None = None
) -> list[list[Cell]]:
    """The monthly projection as one tidy table: a header row, then one row per month
    ``0..H``; with ``analyses`` whose uncertainty ran, its P10/P50/P90 bands as last columns."""
    currency = scenario.currency
    header, rows = monthly_table(dict(result))
    assert tuple(header) == MONTHLY_COLUMNS
    bands = analyses.uncertainty["bands"] if analyses and analyses.uncertainty else None
    present_value = analyses is not None and verdict.discounted(analyses.decision)
    out: list[list[Cell]] = [monthly_header(currency, bands is not None, present_value)]
    for row in rows:
        cells: list[Cell] = [row[0], *(round_money(float(v), currency) for v in row[1:])]
        if bands is not None:
            cells += [round_money(bands[p][row[0]], currency) for p in BAND_LABELS]
        out.append(cells)
    return out


def figure_unit(figure: Figure, currency: str) -> str:
    return {
        "money": currency,
        "months": _("months"),
        "fraction": "%",
        "quantity": "",  # the label names it: "Work done [reference GPU-hours]"
    }[figure.kind]


def _figure_cell(figure: Figure, result: Mapping[str, Any], currency: str) -> Cell:
    """A headline figure rounded for finance: money to the minor unit, months to 0.01,
    fractions as percentages to 0.01, a quantity (GPU-hours) to 0.01."""
    value = figure.value(result)
    if value is None:
        return None
    if figure.kind == "money":
        return round_money(value, currency)
    if figure.kind == "fraction":
        return percent_cell(value, 2)
    return quantized(value, 2)


VALUE_HEADER = (gettext_lazy("Figure"), gettext_lazy("Value"), gettext_lazy("Unit"))


def headline_rows(result: Mapping[str, Any], currency: str) -> list[list[Cell]]:
    """The headline figures: Figure, Value, Unit."""
    header: list[Cell] = [str(h) for h in VALUE_HEADER]
    return [
        header,
        *(
            [str(f.label), _figure_cell(f, result, currency), figure_unit(f, currency)]
            for f in FIGURES.values()
        ),
    ]


def assumption_rows(
    scenario: Scenario, provenance: list[dict[str, Any]], overrides: list[str]
) -> list[list[Cell]]:
    """One row per scenario input: input, value, unit, source, as-of date, estimate,
    overridden."""
    data = scenario.model_dump(mode="json")
    by_field = items_by_field(shown_items(provenance))  # sources in the reader's language
    rows: list[list[Cell]] = [
        [
            _("Input"),
            _("Value"),
            _("Unit"),
            _("Source"),
            _("As of"),
            _("Estimate"),
            _("Override"),
        ]
    ]
    currency = scenario.currency
    for field in ALL_FIELDS:
        value = get_path(data, field.path)
        if value is None:
            continue
        overridden = field.path in overrides
        items = [] if overridden else by_field.get(field.path, [])
        source = "; ".join(str(i["source"]) for i in items if i.get("source"))
        as_of = "; ".join(
            str(i.get("effective_date", "")) for i in items if i.get("effective_date")
        )
        estimate = any(bool(i.get("estimate")) for i in items)
        rows.append(
            [
                str(field.label),
                input_cell(field.path, value, currency),
                unit_of(field.path, currency),
                source,
                as_of,
                estimate,
                overridden,
            ]
        )
    return rows


def chosen_rows(chosen: Sequence[Chosen]) -> list[list[Cell]]:
    """One row per choice the catalog made for the user: input, what was used, why (the
    results page's "Chosen for you")."""
    rows: list[list[Cell]] = [[_("Input"), _("Used"), _("Why")]]
    rows += [[item.label, item.value, item.reason] for item in chosen]
    return rows


def _money(value: float | None, currency: str) -> Cell:
    return None if value is None else round_money(value, currency)


def _places(value: float | None, places: int) -> Cell:
    return None if value is None else quantized(value, places)


RECOMMENDATION_LABELS = {"build": gettext_lazy("Build"), "rent": gettext_lazy("Rent")}


def decision_rows(a: Analyses, currency: str) -> list[list[Cell]]:
    """The decision behind the verdict (:class:`costmodel.decision.Decision`): Figure, Value,
    Unit; shares as percentages, codes in words."""
    d = a.decision
    months = _("months")
    rows: list[tuple[Any, Cell, str]] = [
        (_("Verdict"), verdict.headline(d, currency), ""),
        (_("Verdict code"), d.verdict, ""),
        (_("Warning"), verdict.warning(d), ""),
        (
            _("Recommendation (build or rent)"),
            str(RECOMMENDATION_LABELS[d.recommendation]),
            "",
        ),
        (
            _("Close call: savings within the next row's share of the larger total"),
            d.close_call,
            "",
        ),
        (
            _("Share of the larger total that makes a close call"),
            percent_cell(CLOSE_CALL_SHARE, 2),
            "%",
        ),
        (
            _("Savings in cash alone, resale not counted"),
            _money(d.cash_savings, currency),
            currency,
        ),
        (
            _("Cash alone favours renting, the resale value tips it to building"),
            d.resale_decides,
            "",
        ),
        (
            _("Building wins above the break-even utilization (false: below it)"),
            d.build_when_busier,
            "",
        ),
        (_("Average utilization of this plan"), percent_cell(d.average_utilization, 2), "%"),
        (_("Pay-back limit [months]: the useful life, or 36"), d.payback_limit_months, months),
        (_("Cash break-even later than the pay-back limit"), d.late_payback, ""),
        (_("Reference utilization"), percent_cell(d.reference_utilization, 2), "%"),
        (
            (
                _("Present-value savings at the reference utilization")
                if d.conditions_in_present_value
                else _("Savings at the reference utilization")
            ),
            _money(d.reference_savings, currency),
            currency,
        ),
        (
            _("Work over the horizon [box-hours]"),
            _places(d.box_hours, HOURS_PLACES),
            _("box-hours"),
        ),
        (
            _("Instance-hours rented for the same work"),
            _places(d.instance_hours, HOURS_PLACES),
            _("instance-hours"),
        ),
        (
            _("Share of draws in which the recommendation holds"),
            percent_cell(d.probability_recommendation_holds, PROBABILITY_PLACES - 2),
            "%",
        ),
        (
            _("Confidence"),
            confidence_label(d.confidence) if d.confidence else None,
            "",
        ),
    ]
    header: list[Cell] = [str(h) for h in VALUE_HEADER]
    return [header, *([str(label), value, unit] for label, value, unit in rows)]


def uncertainty_rows(a: Analyses, currency: str) -> list[list[Cell]]:
    """The Monte Carlo's summary: Figure, Value, Unit (or why it could not run)."""
    rows: list[list[Cell]] = [
        [str(h) for h in VALUE_HEADER],
        [_("Draws"), a.draws, ""],
        [_("Seed of the random generator"), SEED, ""],
    ]
    if a.uncertainty is None:
        return [*rows, [_("Not computed"), a.uncertainty_error, ""]]
    u = a.uncertainty
    savings, months = u["savings"], u["break_even_month"]
    share = PROBABILITY_PLACES - 2
    if verdict.discounted(a.decision):  # the draws are of the verdict's measure
        labels = (
            _("Present-value savings, P10"),
            _("Present-value savings, P50 (median)"),
            _("Present-value savings, P90"),
            _("Present-value savings, mean"),
        )
    else:
        labels = (
            _("Savings, P10"),
            _("Savings, P50 (median)"),
            _("Savings, P90"),
            _("Savings, mean"),
        )
    return [
        *rows,
        *(
            [label, _money(savings[p], currency), currency]
            for label, p in zip(labels, ("p10", "p50", "p90", "mean"), strict=True)
        ),
        [
            _("Share of draws in which building is cheaper"),
            percent_cell(u["probability_build_cheaper"], share),
            "%",
        ],
        [
            _("Share of draws that break even in cash within the horizon"),
            percent_cell(u["probability_pays_back"], share),
            "%",
        ],
        [
            _("Break-even month, P10 of the draws that break even"),
            _places(months["p10"], 2),
            _("months"),
        ],
        [
            _("Break-even month, P50 of the draws that break even"),
            _places(months["p50"], 2),
            _("months"),
        ],
        [
            _("Break-even month, P90 of the draws that break even"),
            _places(months["p90"], 2),
            _("months"),
        ],
    ]


def range_rows(a: Analyses, currency: str) -> list[list[Cell]]:
    """The uncertain inputs' ranges: Input, Unit, Low, Likely, High."""
    return [
        [_("Input"), _("Unit"), _("Low"), _("Likely"), _("High")],
        *(
            [
                field_label(r.path),
                unit_of(r.path, currency),
                *(input_cell(r.path, v, currency) for v in (r.low, r.mode, r.high)),
            ]
            for r in a.ranges
        ),
    ]


def tornado_rows(a: Analyses, currency: str) -> list[list[Cell]]:
    """Each input at its low and high value, largest swing first (empty without a tornado)."""
    if a.tornado is None:
        return []
    months = _("months")
    if verdict.discounted(a.decision):  # the tornado of the verdict's measure
        low, high = _("Present-value savings, input low"), _("Present-value savings, input high")
    else:
        low, high = _("Savings, input low"), _("Savings, input high")
    return [
        [
            _("Input"),
            _("Unit"),
            _("Low"),
            _("High"),
            with_unit(low, currency),
            with_unit(high, currency),
            with_unit(_("Break-even month, input low"), months),
            with_unit(_("Break-even month, input high"), months),
        ],
        *(
            [
                field_label(row["path"]),
                unit_of(row["path"], currency),
                input_cell(row["path"], row["low"], currency),
                input_cell(row["path"], row["high"], currency),
                round_money(row["savings_low"], currency),
                round_money(row["savings_high"], currency),
                _places(row["break_even_month_low"], 2),
                _places(row["break_even_month_high"], 2),
            ]
            for row in a.tornado["drivers"]
        ),
    ]


def fleet_rows(a: Analyses, currency: str) -> list[list[Cell]]:
    """Boxes owned, the rest rented: one row per fleet size (empty without a fleet)."""
    if a.fleet is None:
        return []
    best = a.fleet["best_boxes"]
    return [
        [
            _("Boxes owned"),
            with_unit(_("Build: total net of resale"), currency),
            with_unit(_("Build: present value"), currency),
            with_unit(_("Savings of building over the horizon"), currency),
            with_unit(_("Break-even month"), _("months")),
            _("Cheapest"),
        ],
        *(
            [
                row["boxes"],
                round_money(row["build_total_net"], currency),
                round_money(row["build_present_value"], currency),
                round_money(row["savings"], currency),
                _places(row["break_even_month"], 2),
                row["boxes"] == best,
            ]
            for row in a.fleet["rows"]
        ),
    ]


def scenario_rows(
    scenario: Scenario, link: str, name: str = "", accounts: Accounts | None = None
) -> list[list[Cell]]:
    """What the files describe, as one row: scenario (its saved name when saved), currency,
    horizon, date, results page, and with ``accounts`` how finance books the box."""
    header: list[Cell] = [
        _("Scenario"),
        _("Currency"),
        _("Horizon [months]"),
        _("Generated on"),
        _("Results page"),
    ]
    row: list[Cell] = [
        name or scenario.name or "",
        scenario.currency,
        scenario.horizon_months,
        date.today().isoformat(),
        link,
    ]
    if accounts is not None:
        header += [
            _("Depreciation period [months]"),
            _("Fiscal year starts in month"),
            _("Box bought in month"),
        ]
        row += [
            accounts.depreciation_months,
            accounts.options.fiscal_year_start_month,
            accounts.purchase_month,
        ]
    return [header, row]


def monthly_csv(
    scenario: Scenario, result: Mapping[str, Any], analyses: Analyses | None = None
) -> str:
    """The finance CSV of one scenario's months: one header row whose labels carry the
    currency, one row per month (with the uncertainty's bands when ``analyses`` has them)."""
    return _write(monthly_rows(scenario, result, analyses))


FINANCE_FILES = (
    "monthly.csv",
    "scenario.csv",
    "headline.csv",
    "assumptions.csv",
    "chosen_for_you.csv",
    "decision.csv",
    "uncertainty.csv",
    "uncertainty_ranges.csv",
    "tornado.csv",
    "fleet.csv",
    "fiscal_years.csv",
)
"""The files of :func:`finance_files`, in this order; a block that does not apply is left out
(a tidal workload has no fleet)."""


def finance_files(
    scenario: Scenario,
    result: Mapping[str, Any],
    *,
    provenance: list[dict[str, Any]] | None = None,
    overrides: list[str] | None = None,
    link: str = "",
    name: str = "",
    analyses: Analyses | None = None,
    accounts: Accounts | None = None,
    chosen: Sequence[Chosen] = (),
) -> dict[str, str]:
    """Every finance table of one scenario, each a CSV of its own: file name → text.

    ``chosen``: what the catalog chose for the user (:func:`webapp.planner.chosen.chosen_for_you`),
    a file of its own when there is any."""
    currency = scenario.currency
    tables: dict[str, list[list[Cell]]] = {
        "monthly.csv": monthly_rows(scenario, result, analyses),
        "scenario.csv": scenario_rows(scenario, link, name, accounts),
        "headline.csv": headline_rows(result, currency),
        "assumptions.csv": assumption_rows(scenario, provenance or [], overrides or []),
    }
    if chosen:
        tables["chosen_for_you.csv"] = chosen_rows(chosen)
    if analyses is not None:
        tables["decision.csv"] = decision_rows(analyses, currency)
        tables["uncertainty.csv"] = uncertainty_rows(analyses, currency)
        tables["uncertainty_ranges.csv"] = range_rows(analyses, currency)
        tables["tornado.csv"] = tornado_rows(analyses, currency)
        tables["fleet.csv"] = fleet_rows(analyses, currency)
    if accounts is not None:
        tables["fiscal_years.csv"] = fiscal_year_rows(accounts, currency)
    return {name: _write(rows) for name, rows in tables.items() if rows}


def zipped(files: Mapping[str, str]) -> bytes:
    """The files as one zip archive (UTF-8 text, deflated)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(name, text.encode("utf-8"))
    return buffer.getvalue()


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


def summary_header(currencies: set[str]) -> list[Cell]:
    """The summary's header row; amounts name the currency when every row shares one,
    otherwise "the row's currency" (the Currency column)."""
    money = next(iter(currencies)) if len(currencies) == 1 else _("the row's currency")
    return [
        _("Scenario"),
        _("Currency"),
        _("Horizon [months]"),
        _("Workload"),
        with_unit(_("Average utilization"), "%"),
        with_unit(BY_PATH["build.capex"].label, money),
        with_unit(BY_PATH["rent.hourly_rate"].label, money + "/h"),
        *(
            with_unit(f.label, money if f.kind == "money" else figure_unit(f, money))
            for f in SUMMARY_FIGURES
        ),
        _("Prices as of"),
        _("Saved on"),
        _("Inputs typed over the catalog's"),
        _("Results page"),
        _("Verdict code"),
    ]


def summary_csv(entries: Sequence[dict[str, Any]]) -> str:
    """One row per scenario; each entry has ``scenario``, ``result``, ``average_utilization``,
    ``provenance``, ``overrides``, ``saved_at`` (date or None), ``link`` and, for a saved
    scenario, ``saved`` (whose name the row carries)."""
    rows: list[list[Cell]] = [summary_header({e["scenario"].currency for e in entries})]
    for e in entries:
        s: Scenario = e["scenario"]
        cur = s.currency
        saved = e.get("saved")
        dates = sorted(str(p["effective_date"]) for p in e["provenance"] if p.get("effective_date"))
        rows.append(
            [
                saved.name if saved is not None else (s.name or ""),
                cur,
                s.horizon_months,
                input_cell("workload.kind", s.workload.kind, cur),
                percent_cell(e["average_utilization"], 2),
                input_cell("build.capex", s.build.capex, cur),
                input_cell("rent.hourly_rate", s.rent.hourly_rate, cur),
                *(_figure_cell(f, e["result"], cur) for f in SUMMARY_FIGURES),
                dates[-1] if dates else "",
                e["saved_at"].isoformat() if e.get("saved_at") else "",
                " ".join(field_label(p) for p in e["overrides"]),
                e["link"],
                e["decision"].verdict if e.get("decision") is not None else "",
            ]
        )
    return _write(rows)
