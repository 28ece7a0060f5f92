"""Labels and units of the explicit scenario's fields, for forms, tables and exports.

The engine names fields (``build.capex``); people read labels ("Purchase price
of the box"). One table here serves the planner form, the inputs table under
the charts, the compare page and the CSV assumptions block.

Fractions (unit ``fraction`` or ``signed_fraction``) are what the engine reads
(0.03) and what the form shows as percentages (3): :func:`to_form` and
:func:`from_form` convert, and ``low``/``high`` are the field's bounds in the
form's unit, the engine's bounds × 100 (a test checks them against the engine).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

PERCENT_UNITS = frozenset({"fraction", "signed_fraction"})
"""Units the engine reads as a fraction and people type as a percentage."""


@dataclass(frozen=True)
class ScenarioField:
    path: str  # dotted path in the explicit scenario, e.g. "build.capex"
    label: Promise
    unit: str  # "money", "money/kWh", "money/h", "W", "fraction", "int", "months", "", ...
    help: Promise | str = ""
    low: float | None = None
    """Smallest value in the form's unit (percent for fractions); None: the engine checks."""
    high: float | None = None
    example: Promise | str = ""
    """What to type, for the error message: "3 for 3 %"."""

    @property
    def percent(self) -> bool:
        """Typed as a percentage (3), read by the engine as a fraction (0.03)."""
        return self.unit in PERCENT_UNITS

    @property
    def whole(self) -> bool:
        """A count or a number of months: whole numbers only."""
        return self.unit in ("int", "months")


SHOWN_DIGITS = 12
"""Significant digits a prefilled value is shown with: enough that a value sent back as shown
is the same figure (the planner compares within 1e-9), few enough to hide float noise
(0.7 − 0.15 is 0.5499999999999999; the form shows 55 %)."""


def tidy(value: float) -> float | int:
    """``value`` to :data:`SHOWN_DIGITS` significant digits; an integer when it is one."""
    shown = float(f"{value:.{SHOWN_DIGITS}g}")
    return int(shown) if shown.is_integer() and abs(shown) < 2**53 else shown


def to_form(field: ScenarioField | None, value: Any) -> Any:
    """A scenario value as the form shows it: fractions × 100 (0.07 → 7, not
    7.000000000000001), to :data:`SHOWN_DIGITS` significant digits."""
    if field is None or not field.percent or not isinstance(value, int | float):
        return value
    return tidy(float(value) * 100)


def from_form(field: ScenarioField | None, value: Any) -> Any:
    """A typed value as the scenario holds it: percentages ÷ 100."""
    if field is None or not field.percent or value is None:
        return value
    return float(Decimal(repr(float(value))) / 100)


BUILD_FIELDS: tuple[ScenarioField, ...] = (
    ScenarioField("build.gpu_count", _("GPUs in the box"), "int"),
    ScenarioField(
        "build.gpu_throughput",
        _("Throughput of one build GPU"),
        "ratio",
        _("Relative to the reference GPU (1.0)."),
    ),
    ScenarioField("build.capex", _("Purchase price of the box"), "money"),
    ScenarioField("build.power_load_watts", _("Power draw while busy"), "W"),
    ScenarioField("build.power_idle_watts", _("Power draw while idle"), "W"),
    ScenarioField("build.pue", _("PUE (cooling overhead)"), "ratio"),
    ScenarioField("build.electricity_price_per_kwh", _("Electricity price"), "money/kWh"),
    ScenarioField("build.hosting_monthly", _("Hosting per month"), "money/month"),
    ScenarioField(
        "build.maintenance_rate_per_year",
        _("Maintenance per year"),
        "fraction",
        _("Spares and repairs each year, as a percentage of the purchase price."),
        low=0,
        high=100,
        # xgettext:no-python-format (the % is literal, never formatted)
        example=_("3 for 3 %"),
    ),
    ScenarioField("build.ops_monthly", _("Administration per month"), "money/month"),
    ScenarioField(
        "build.residual_value_retention_per_year",
        _("Value kept per year"),
        "fraction",
        _("Share of its value the box keeps each year, for the resale."),
        low=0,
        high=100,
        # xgettext:no-python-format (the % is literal, never formatted)
        example=_("65 for 65 %"),
    ),
    ScenarioField(
        "build.capex_annual_price_change",
        _("Yearly price change of a replacement box"),
        "signed_fraction",
        _("Only with a useful life shorter than the horizon: what the next box costs."),
        low=-90,
        high=100,
        # xgettext:no-python-format (the % is literal, never formatted)
        example=_("−10 for 10 % cheaper each year"),
    ),
    ScenarioField(
        "build.running_cost_annual_change",
        _("Yearly change of running costs"),
        "signed_fraction",
        _("Electricity, hosting and administration."),
        low=-50,
        high=100,
        # xgettext:no-python-format (the % is literal, never formatted)
        example=_("3 for 3 % more each year"),
    ),
)

LIFE_FIELDS: tuple[ScenarioField, ...] = (
    ScenarioField(
        "build.useful_life_months",
        _("Useful life of the box"),
        "months",
        _(
            "After this many months the box is sold and a new one bought. Prefilled with the "
            "preset's figure."
        ),
        low=1,
        high=240,
    ),
)

FINANCING_FIELDS: tuple[ScenarioField, ...] = (
    ScenarioField(
        "build.financing.down_payment_fraction",
        _("Down payment"),
        "fraction",
        _("Paid on the day of purchase; the rest is the loan."),
        low=0,
        high=100,
        # xgettext:no-python-format (the % is literal, never formatted)
        example=_("20 for 20 %"),
    ),
    ScenarioField(
        "build.financing.annual_interest_rate",
        _("Interest rate per year"),
        "fraction",
        low=0,
        high=100,
        # xgettext:no-python-format (the % is literal, never formatted)
        example=_("6 for 6 % a year"),
    ),
    ScenarioField(
        "build.financing.term_months",
        _("Loan term"),
        "months",
        _("Equal monthly payments over this many months."),
        low=1,
        high=120,
    ),
)

RENT_FIELDS: tuple[ScenarioField, ...] = (
    ScenarioField("rent.gpu_count", _("GPUs per cloud instance"), "int"),
    ScenarioField(
        "rent.gpu_throughput",
        _("Throughput of one cloud GPU"),
        "ratio",
        _("Relative to the reference GPU (1.0)."),
    ),
    ScenarioField("rent.hourly_rate", _("Cloud price per instance-hour"), "money/h"),
    ScenarioField("rent.fixed_monthly", _("Cloud fixed fees per month"), "money/month"),
    ScenarioField(
        "rent.annual_price_change",
        _("Yearly cloud price change"),
        "signed_fraction",
        # xgettext:no-python-format (the % is literal, never formatted)
        _("−15 means 15 % cheaper each year."),
        low=-90,
        high=100,
        # xgettext:no-python-format (the % is literal, never formatted)
        example=_("−15 for 15 % cheaper each year"),
    ),
    ScenarioField(
        "rent.rework_fraction",
        _("Work redone after spot interruptions"),
        "fraction",
        _("Extra instance-hours, as a percentage of the work; from the catalog for spot."),
        low=0,
        high=100,
        # xgettext:no-python-format (the % is literal, never formatted)
        example=_("15 for 15 % more hours"),
    ),
    ScenarioField(
        "rent.committed_hourly_rate",
        _("Committed price per instance-hour"),
        "money/h",
        _("1- or 3-year commitments: paid for every hour of the term, used or not."),
    ),
    ScenarioField(
        "rent.commitment_term_months",
        _("Commitment term"),
        "months",
        low=1,
        high=120,
    ),
    ScenarioField(
        "rent.commitment_upfront_per_instance",
        _("Upfront per committed instance"),
        "money",
        _("Paid when each term starts."),
    ),
)

COMMITMENT_FIELDS: tuple[ScenarioField, ...] = (
    ScenarioField("rent.committed_instances", _("Committed instances"), "int"),
)

GENERAL_FIELDS: tuple[ScenarioField, ...] = (
    ScenarioField("currency", _("Currency"), "text"),
    ScenarioField("horizon_months", _("Horizon"), "months"),
    ScenarioField("discount_rate_per_year", _("Discount rate per year"), "fraction"),
)

WORKLOAD_FIELDS: tuple[ScenarioField, ...] = (
    ScenarioField("workload.kind", _("Workload"), "text"),
    ScenarioField("workload.utilization", _("Utilization"), "fraction"),
    ScenarioField("workload.active_days_per_month", _("Active days per month"), "days"),
    ScenarioField("workload.hours_per_active_day", _("Hours per active day"), "h"),
    ScenarioField("workload.monthly_utilization", _("Monthly utilization profile"), "profile"),
)

ALL_FIELDS: tuple[ScenarioField, ...] = (
    GENERAL_FIELDS
    + WORKLOAD_FIELDS
    + BUILD_FIELDS
    + LIFE_FIELDS
    + FINANCING_FIELDS
    + RENT_FIELDS
    + COMMITMENT_FIELDS
)
BY_PATH: dict[str, ScenarioField] = {f.path: f for f in ALL_FIELDS}


def labels() -> Mapping[str, str]:
    """Every field's label in the active language, by path.

    A label is lazy: each use translates it anew. The inputs and ranges tables of a
    results page show some fifty of them; reading them from here translates each
    once per language and process."""
    return _labels(get_language())


@functools.lru_cache(maxsize=8)
def _labels(language: str | None) -> Mapping[str, str]:
    return {f.path: str(f.label) for f in ALL_FIELDS}  # translated in `language`, the active one


EXPLICIT_FIELDS: tuple[ScenarioField, ...] = (
    BUILD_FIELDS + RENT_FIELDS + LIFE_FIELDS + FINANCING_FIELDS
)
"""The scenario fields the planner form has a field of its own for (``build__capex``)."""

CATALOG_FIELDS: tuple[ScenarioField, ...] = BUILD_FIELDS + RENT_FIELDS + LIFE_FIELDS
"""Those the catalog prefills: a value typed over the catalog's is an override."""


@dataclass(frozen=True)
class RangeRow:
    """One uncertain input of the planner form: low, most likely and high values."""

    key: str  # form names range_<key>_low, range_<key>_likely, range_<key>_high
    path: str  # the scenario field, as costmodel.ranges names it
    label: Promise
    unit: str  # as ScenarioField.unit
    low: float | None
    high: float | None
    example: Promise | str
    workload: str = ""  # the workload kind it belongs to ("" for every kind)

    @property
    def field(self) -> ScenarioField:
        return ScenarioField(self.path, self.label, self.unit, low=self.low, high=self.high)


RANGE_ROWS: tuple[RangeRow, ...] = (
    RangeRow(
        "utilization",
        "workload.utilization",
        _("Steady use: share of the time [%]"),
        "fraction",
        0,
        800,
        # xgettext:no-python-format (the % is literal, never formatted)
        _("80 for a box busy 80 % of the time"),
        workload="steady",
    ),
    RangeRow(
        "active_days",
        "workload.active_days_per_month",
        _("Tidal: active days a month"),
        "days",
        0,
        31,
        _("8 for eight days"),
        workload="tidal",
    ),
    RangeRow(
        "price_trend",
        "rent.annual_price_change",
        _("Cloud price trend per year [%]"),
        "signed_fraction",
        -90,
        100,
        # xgettext:no-python-format (the % is literal, never formatted)
        _("−15 for 15 % cheaper each year"),
    ),
    RangeRow(
        "electricity",
        "build.electricity_price_per_kwh",
        _("Electricity price per kWh"),
        "money/kWh",
        0,
        None,
        _("0.8 for 0.80 per kWh"),
    ),
    RangeRow(
        "retention",
        "build.residual_value_retention_per_year",
        _("Resale: value kept per year [%]"),
        "fraction",
        0,
        100,
        # xgettext:no-python-format (the % is literal, never formatted)
        _("65 for 65 %"),
    ),
)
RANGE_ENDS: tuple[tuple[str, str], ...] = (("low", "low"), ("likely", "mode"), ("high", "high"))
"""Form name suffix → :class:`costmodel.ranges.Range` attribute."""

WORKLOAD_KIND_LABELS: dict[str, Promise] = {
    "steady": _("steady use all month"),
    "tidal": _("busy days only (tidal)"),
    "profile": _("12-month profile"),
    "jobs": _("training jobs"),
}


def fed_fields(item: dict[str, Any]) -> list[str]:
    """The dotted scenario fields a provenance item feeds."""
    fields = item.get("fields") or item.get("scenario_fields") or item.get("field") or []
    return [fields] if isinstance(fields, str) else [str(f) for f in fields]


def items_by_field(provenance: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The provenance items feeding each dotted scenario field, in provenance order."""
    by_field: dict[str, list[dict[str, Any]]] = {}
    for item in provenance:
        for path in fed_fields(item):
            by_field.setdefault(path, []).append(item)
    return by_field
