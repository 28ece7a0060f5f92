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
from decimal import Context, Decimal
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from costmodel import Scenario
from costmodel.accounting import Accounts
from costmodel.decision import CLOSE_CALL_SHARE
from costmodel.paths import get_path
from costmodel.tables import MONTHLY_COLUMNS, monthly_table
from webapp.planner import verdict
from webapp.planner.analysis import SEED, Analyses, field_label
from webapp.planner.fields import ALL_FIELDS, BY_PATH, items_by_field
from webapp.planner.figures import FIGURES, Figure
from webapp.planner.finance import fiscal_year_rows
from webapp.planner.formatting import round_money

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


def input_cell(path: str, value: Any, currency: str) -> Cell:
    """A scenario input rounded for finance by its unit: money to the minor unit, rates to
    six decimals, fractions to six, watts, hours and days to four; counts as they are."""
    field = BY_PATH.get(path)
    unit = field.unit if field is not None else ""
    if isinstance(value, bool) or value is None or isinstance(value, str | int):
        return value
    if isinstance(value, list):
        return " ".join(str(input_cell(path, v, currency)) for v in value)
    if unit in ("money", "money/month"):
        return round_money(value, currency)
    if unit in UNIT_PLACES:
        return rounded(value, UNIT_PLACES[unit])
    return significant(value)


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
    fractions to 0.0001, a quantity (GPU-hours) to 0.01."""
    value = figure.value(result)
    if value is None:
        return None
    if figure.kind == "money":
        return round_money(value, currency)
    return quantized(value, 4 if figure.kind == "fraction" else 2)


def _headline_rows(result: Mapping[str, Any], currency: str) -> list[list[Cell]]:
    return [[f.column, str(f.label), _figure_cell(f, result, currency)] for f in FIGURES.values()]


def assumption_rows(
    scenario: Scenario, provenance: list[dict[str, Any]], overrides: list[str]
) -> list[list[Cell]]:
    """One row per scenario input: field, label, value, source, as-of date, estimate, override."""
    data = scenario.model_dump(mode="json")
    by_field = items_by_field(provenance)
    rows: list[list[Cell]] = []
    for field in ALL_FIELDS:
        value = get_path(data, field.path)
        if value is None:
            continue
        value = input_cell(field.path, value, scenario.currency)
        overridden = field.path in overrides
        items = [] if overridden else by_field.get(field.path, [])
        source = "; ".join(str(i.get("source", "")) for i in items if i.get("source"))
        as_of = "; ".join(
            str(i.get("effective_date", "")) for i in items if i.get("effective_date")
        )
        estimate = any(bool(i.get("estimate")) for i in items)
        rows.append([field.path, str(field.label), value, source, as_of, estimate, overridden])
    return rows


def _money(value: float | None, currency: str) -> Cell:
    return None if value is None else round_money(value, currency)


def _places(value: float | None, places: int) -> Cell:
    return None if value is None else quantized(value, places)


def decision_rows(a: Analyses, currency: str) -> list[list[Cell]]:
    """The decision behind the verdict (:class:`costmodel.decision.Decision`), key by key."""
    d = a.decision
    rows: list[tuple[str, Any, Cell]] = [
        ("verdict", _("Verdict"), d.verdict),
        ("verdict_sentence", _("Verdict in words"), verdict.headline(d, currency)),
        ("warning", _("Warning"), verdict.warning(d)),
        ("recommendation", _("Recommendation (build or rent)"), d.recommendation),
        (
            "close_call",
            _("Close call: savings within the next row's share of the larger total"),
            d.close_call,
        ),
        (
            "close_call_share",
            _("Share of the larger total that makes a close call"),
            rounded(CLOSE_CALL_SHARE, 4),
        ),
        (
            "cash_savings",
            _("Savings in cash alone, resale not counted"),
            _money(d.cash_savings, currency),
        ),
        (
            "resale_decides",
            _("Cash alone favours renting, the resale value tips it to building"),
            d.resale_decides,
        ),
        (
            "build_when_busier",
            _("Building wins above the break-even utilization (false: below it)"),
            d.build_when_busier,
        ),
        (
            "average_utilization",
            _("Average utilization of this plan"),
            _places(d.average_utilization, 4),
        ),
        (
            "payback_limit_months",
            _("Pay-back limit [months]: the useful life, or 36"),
            d.payback_limit_months,
        ),
        ("late_payback", _("Cash break-even later than the pay-back limit"), d.late_payback),
        ("reference_utilization", _("Reference utilization"), _places(d.reference_utilization, 4)),
        (
            "reference_savings",
            _("Savings at the reference utilization"),
            _money(d.reference_savings, currency),
        ),
        ("box_hours", _("Work over the horizon [box-hours]"), _places(d.box_hours, HOURS_PLACES)),
        (
            "instance_hours",
            _("Instance-hours rented for the same work"),
            _places(d.instance_hours, HOURS_PLACES),
        ),
        (
            "probability_recommendation_holds",
            _("Share of draws in which the recommendation holds"),
            _places(d.probability_recommendation_holds, PROBABILITY_PLACES),
        ),
        ("confidence", _("Confidence"), d.confidence),
    ]
    return [[key, str(label), value] for key, label, value in rows]


def uncertainty_rows(a: Analyses, currency: str) -> list[list[Cell]]:
    """The Monte Carlo's summary, key by key (or why it could not run)."""
    rows: list[list[Cell]] = [
        ["draws", _("Draws"), a.draws],
        ["seed", _("Seed of the random generator"), SEED],
    ]
    if a.uncertainty is None:
        return [*rows, ["error", _("Not computed"), a.uncertainty_error]]
    u = a.uncertainty
    savings, months = u["savings"], u["break_even_month"]
    return [
        *rows,
        ["savings_p10", _("Savings, P10"), _money(savings["p10"], currency)],
        ["savings_p50", _("Savings, P50 (median)"), _money(savings["p50"], currency)],
        ["savings_p90", _("Savings, P90"), _money(savings["p90"], currency)],
        ["savings_mean", _("Savings, mean"), _money(savings["mean"], currency)],
        [
            "probability_build_cheaper",
            _("Share of draws in which building is cheaper"),
            _places(u["probability_build_cheaper"], PROBABILITY_PLACES),
        ],
        [
            "probability_pays_back",
            _("Share of draws that break even in cash within the horizon"),
            _places(u["probability_pays_back"], PROBABILITY_PLACES),
        ],
        [
            "break_even_month_p10",
            _("Break-even month, P10 of the draws that break even"),
            _places(months["p10"], 2),
        ],
        [
            "break_even_month_p50",
            _("Break-even month, P50 of the draws that break even"),
            _places(months["p50"], 2),
        ],
        [
            "break_even_month_p90",
            _("Break-even month, P90 of the draws that break even"),
            _places(months["p90"], 2),
        ],
    ]


def range_rows(a: Analyses, currency: str) -> list[list[Cell]]:
    return [
        [
            r.path,
            field_label(r.path),
            *(input_cell(r.path, v, currency) for v in (r.low, r.mode, r.high)),
        ]
        for r in a.ranges
    ]


BAND_COLUMNS = ("month", "advantage_p10", "advantage_p50", "advantage_p90")
TORNADO_COLUMNS = (
    "field",
    "low",
    "high",
    "savings_low",
    "savings_high",
    "break_even_month_low",
    "break_even_month_high",
)
FLEET_COLUMNS = (
    "boxes",
    "build_total_net",
    "build_present_value",
    "savings",
    "break_even_month",
    "cheapest",
)


def analysis_blocks(a: Analyses, currency: str) -> list[list[Cell]]:
    """The blocks after the monthly projection: decision, uncertainty, its ranges and bands,
    tornado and fleet."""
    out: list[list[Cell]] = [
        [],
        [_("Decision")],
        ["key", _("Label"), _("Value")],
        *decision_rows(a, currency),
        [],
        [_("Uncertainty")],
        ["key", _("Label"), _("Value")],
        *uncertainty_rows(a, currency),
        [],
        [_("Uncertainty ranges")],
        ["field", _("Input"), _("Low"), _("Likely"), _("High")],
        *range_rows(a, currency),
    ]
    if a.uncertainty is not None:
        bands = a.uncertainty["bands"]
        out += [
            [],
            [_("Advantage of building by month over the draws")],
            list(BAND_COLUMNS),
            [
                _("Month"),
                _("Rent minus build so far, P10"),
                _("Rent minus build so far, P50"),
                _("Rent minus build so far, P90"),
            ],
            *(
                [month, *(round_money(bands[p][month], currency) for p in ("p10", "p50", "p90"))]
                for month in bands["months"]
            ),
        ]
    if a.tornado is not None:
        out += [
            [],
            [_("Tornado: each input at its low and high value")],
            list(TORNADO_COLUMNS),
            [
                _("Input"),
                _("Low"),
                _("High"),
                _("Savings, input low"),
                _("Savings, input high"),
                _("Break-even month, input low"),
                _("Break-even month, input high"),
            ],
            *(
                [
                    row["path"],
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
    if a.fleet is not None:
        best = a.fleet["best_boxes"]
        out += [
            [],
            [_("Fleet: boxes owned, the rest rented")],
            list(FLEET_COLUMNS),
            [
                _("Boxes owned"),
                _("Build: total net of resale"),
                _("Build: present value"),
                _("Savings of building over the horizon"),
                _("Break-even month"),
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
    return out


def monthly_csv(
    scenario: Scenario,
    result: dict[str, Any],
    provenance: list[dict[str, Any]] | None = None,
    overrides: list[str] | None = None,
    link: str = "",
    analyses: Analyses | None = None,
    accounts: Accounts | None = None,
) -> str:
    """The finance CSV of one scenario: title block, headline, assumptions, monthly table, and
    with ``analyses`` the decision, the uncertainty, the tornado and the fleet; with
    ``accounts`` the CapEx/OpEx per fiscal year."""
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
    if analyses is not None:
        out += analysis_blocks(analyses, currency)
    if accounts is not None:
        out += fiscal_year_rows(accounts, currency)
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
                quantized(e["average_utilization"], 4),
                input_cell("build.capex", s.build.capex, cur),
                input_cell("rent.hourly_rate", s.rent.hourly_rate, cur),
                *(_figure_cell(f, e["result"], cur) for f in SUMMARY_FIGURES),
                dates[-1] if dates else "",
                e["saved_at"].isoformat() if e.get("saved_at") else "",
                " ".join(e["overrides"]),
                e["link"],
            ]
        )
    return _write(rows)
