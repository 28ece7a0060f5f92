"""Labels and units of the explicit scenario's fields, for forms, tables and exports.

The engine names fields (``build.capex``); people read labels ("Purchase price
of the box"). One table here serves the Advanced form, the inputs table under
the charts and the CSV assumptions block.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True)
class ScenarioField:
    path: str  # dotted path in the explicit scenario, e.g. "build.capex"
    label: Promise
    unit: str  # "money", "money/kWh", "money/h", "W", "fraction", "int", "months", "", ...
    help: Promise | str = ""


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
        _("Spares and repairs, as a fraction of the purchase price per year."),
    ),
    ScenarioField("build.ops_monthly", _("Administration per month"), "money/month"),
    ScenarioField(
        "build.residual_value_retention_per_year",
        _("Value kept per year"),
        "fraction",
        _("Fraction of the box's value it keeps each year (resale)."),
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
        _("−0.15 means 15 % cheaper each year."),
    ),
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
    GENERAL_FIELDS + WORKLOAD_FIELDS + BUILD_FIELDS + RENT_FIELDS
)
BY_PATH: dict[str, ScenarioField] = {f.path: f for f in ALL_FIELDS}

WORKLOAD_KIND_LABELS: dict[str, Promise] = {
    "steady": _("steady"),
    "tidal": _("tidal"),
    "profile": _("12-month profile"),
}


def fed_fields(item: dict[str, Any]) -> list[str]:
    """The dotted scenario fields a provenance item feeds."""
    fields = item.get("fields") or item.get("scenario_fields") or item.get("field") or []
    return [fields] if isinstance(fields, str) else [str(f) for f in fields]
