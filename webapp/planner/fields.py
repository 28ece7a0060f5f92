"""The planner's field registry: one declaration per input.

The engine names fields (``build.capex``); people read labels ("Purchase price
of the box") and type percentages where the engine reads fractions. Each
:class:`ScenarioField` below says, once, everything the web app needs about one
input: its dotted path in the explicit scenario, its label, unit and help
text, the name of its form field and the section of the form that shows it,
the workload kind it belongs to, and whether the catalog selection carries it
(its key there). The bounds are not written here: they are read from the
engine's own pydantic schema (:class:`costmodel.Scenario`, and the resolver's
:class:`~webapp.catalog.resolver.Selection` for what a selection carries).

From this one table come the planner form's fields and their "what to type"
messages, the form ↔ scenario mapping (:func:`scenario_values`,
:func:`selection_values`, :func:`form_values`), the permalink's initial
values, the field an engine error belongs beside (:func:`form_field_of`), the
results page's inputs table, the compare page and the CSV. Adding a numeric
input is: the engine's field, one entry here, and its translation.

Fractions (unit ``fraction`` or ``signed_fraction``) are what the engine reads
(0.03) and what the form shows as percentages (3): :func:`to_form` and
:func:`from_form` convert, and ``low``/``high`` are the field's bounds in the
form's unit (the engine's bounds × 100).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from types import MappingProxyType
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from costmodel.paths import get_path, with_path
from costmodel.scenario import Scenario
from webapp import formatting
from webapp.planner.jobs import JOB_ROWS

PERCENT_UNITS = frozenset({"fraction", "signed_fraction"})
"""Units the engine reads as a fraction and people type as a percentage (and ``profile``, a
list of fractions typed as one percentage a month)."""

NUMERIC_UNITS = frozenset(
    {"money", "money/kWh", "money/h", "money/month", "W", "ratio", "fraction", "signed_fraction"}
    | {"int", "months", "days", "h", "profile"}
)
"""Units of inputs typed as numbers (the form makes an Integer- or FloatField for them)."""

PROFILE_MONTHS = 12
"""Months of the planner's utilization profile (the engine repeats it over the horizon)."""

DEFAULT_COST_OF_CAPITAL = 0.08
"""The planner's discount rate until the user types another [1/year]: a round cost of capital
for a company of average risk, as Aswath Damodaran's yearly "Cost of Capital by Sector" data
(NYU Stern, updated each January) puts it. The engine's own default stays 0 (plain totals)."""


@dataclass(frozen=True)
class Bounds:
    """An input's bounds in the engine's unit, as its pydantic schema declares them."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    """``gt`` rather than ``ge``: the low bound itself is refused."""


@dataclass(frozen=True)
class ScenarioField:
    """One input: where the scenario holds it, how people read and type it, how it travels."""

    path: str
    """Dotted path in the explicit scenario, e.g. ``build.capex`` ("" for an input only the
    catalog selection holds, such as the custom box's scaling efficiency)."""
    label: Promise
    unit: str  # "money", "money/kWh", "money/h", "W", "fraction", "int", "months", "bool", ...
    help: Promise | str = ""
    example: Promise | str = ""
    """What to type, for the error message: "3 for 3 %"."""
    form: str = ""
    """Name of its planner form field; ``""``: the dotted path with ``__`` (``build__capex``)
    for a field in a form section, none otherwise."""
    section: str = ""
    """The part of the form that shows it: ``general``, ``workload``, ``box``, ``offering``,
    ``build``, ``rent``, ``life``, ``financing``; ``""``: the form does not ask for it."""
    workload: str = ""
    """The workload kind it belongs to (``steady`` …; ``""`` for every kind)."""
    selection: str = ""
    """Its key in the catalog selection (and so in a permalink's and a saved scenario's
    selection) when the selection carries it; otherwise it travels in the scenario."""
    initial: Any = None
    """What the form shows before anything is chosen (in the form's unit)."""
    hint: Promise | str = ""
    """The "what to type" message, when the one made from the bounds does not fit."""
    catalog: bool = False
    """The catalog prefills it: a value typed over the catalog's is an override."""
    required: bool = False
    """The form refuses to go on without it (whatever the workload or the box)."""
    rows: int = 0
    """For an input asked once per job (``job_name_1`` …): the rows of jobs the form holds."""
    job: str = ""
    """Its key in a described job (:class:`webapp.planner.jobs.DescribedJob`), whose schema
    bounds it; the form turns the jobs into the engine's jobs workload."""

    @property
    def percent(self) -> bool:
        """Typed as a percentage (3), read by the engine as a fraction (0.03)."""
        return self.unit in PERCENT_UNITS or self.unit == "profile"

    @property
    def whole(self) -> bool:
        """A count or a number of months: whole numbers only."""
        return self.unit in ("int", "months")

    @property
    def name(self) -> str:
        """The form field's name (``""``: not in the form)."""
        if self.form or not self.section:
            return self.form
        return self.path.replace(".", "__")

    @property
    def bounds(self) -> Bounds:
        """The engine's bounds (the selection's too, when the selection carries the input; a
        described job's, for an input of a job)."""
        if self.job:
            return job_bounds(self.job)
        return engine_bounds(self.path, self.selection)

    @property
    def low(self) -> float | None:
        """Smallest value in the form's unit (percent for fractions); None: no lower bound."""
        low = self.bounds.low
        return None if low is None else _scaled(self, low)

    @property
    def high(self) -> float | None:
        """Largest value in the form's unit; None: no upper bound."""
        high = self.bounds.high
        return None if high is None else _scaled(self, high)

    def form_names(self) -> list[str]:
        """Its form fields' names: one, or one per month of a profile (``profile_percent_1``…)."""
        if self.unit == "profile":
            return [f"{self.name}_{i}" for i in range(1, PROFILE_MONTHS + 1)]
        if self.rows:
            return [f"{self.name}_{i}" for i in range(1, self.rows + 1)]
        return [self.name] if self.name else []


def _scaled(field: ScenarioField, value: float) -> float:
    return tidy(value * 100) if field.percent else value


def _schema_node(root: dict[str, Any], node: dict[str, Any], key: str) -> dict[str, Any] | None:
    """The schema of property ``key`` of ``node`` (following ``$ref``, unions and arrays)."""
    ref = node.get("$ref")
    if ref:
        node = root["$defs"][ref.rsplit("/", 1)[-1]]
    if node.get("type") == "array" and "items" in node:
        return dict(node["items"]) if key.isdigit() else _schema_node(root, node["items"], key)
    properties = node.get("properties", {})
    if key in properties:
        return dict(properties[key])
    for member in node.get("anyOf", []) + node.get("oneOf", []):
        found = _schema_node(root, member, key)
        if found is not None:
            return found
    return None


def _leaf_bounds(root: dict[str, Any], node: dict[str, Any]) -> Bounds:
    """The numeric bounds of a leaf schema (of its items, for a list; of its non-null member)."""
    ref = node.get("$ref")
    if ref:
        node = root["$defs"][ref.rsplit("/", 1)[-1]]
    if node.get("type") == "array" and "items" in node:
        return _leaf_bounds(root, node["items"])
    for member in node.get("anyOf", []):
        if member.get("type") != "null":
            return _leaf_bounds(root, member)
    low, low_open = node.get("minimum"), False
    if "exclusiveMinimum" in node:
        low, low_open = node["exclusiveMinimum"], True
    high = node.get("maximum", node.get("exclusiveMaximum"))
    return Bounds(low, high, low_open)


def schema_bounds(schema: dict[str, Any], path: str) -> Bounds:
    """The bounds a JSON schema declares for the dotted ``path`` (no bounds if it has none)."""
    node: dict[str, Any] | None = schema
    for key in path.split("."):
        node = _schema_node(schema, node, key) if node is not None else None
    return Bounds() if node is None else _leaf_bounds(schema, node)


def _tighter(a: Bounds, b: Bounds) -> Bounds:
    lows = [x for x in (a.low, b.low) if x is not None]
    highs = [x for x in (a.high, b.high) if x is not None]
    low = max(lows) if lows else None
    open_ = (a.low_open and a.low == low) or (b.low_open and b.low == low)
    return Bounds(low, min(highs) if highs else None, open_)


@functools.cache
def engine_bounds(path: str, selection: str = "") -> Bounds:
    """An input's bounds from the engine's schema (scenario ``path``) and, for an input the
    catalog selection carries, the selection's schema (key ``selection``): the tighter."""
    from webapp.catalog.resolver import Selection  # the catalog app imports this module's users

    bounds = schema_bounds(Scenario.model_json_schema(), path) if path else Bounds()
    if selection:
        bounds = _tighter(bounds, schema_bounds(Selection.model_json_schema(), selection))
    return bounds


@functools.cache
def job_bounds(key: str) -> Bounds:
    """The bounds of an input of a described job (its pydantic schema)."""
    from webapp.planner.jobs import DescribedJob

    return schema_bounds(DescribedJob.model_json_schema(), key)


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


def _build(path: str, label: Promise, unit: str, **kw: Any) -> ScenarioField:
    """An input of the box, typed under Advanced and prefilled from the catalog."""
    return ScenarioField(path, label, unit, section="build", catalog=True, **kw)


def _rent(path: str, label: Promise, unit: str, **kw: Any) -> ScenarioField:
    """An input of the cloud offering, typed under Advanced and prefilled from the catalog."""
    return ScenarioField(path, label, unit, section="rent", catalog=True, **kw)


BUILD_FIELDS: tuple[ScenarioField, ...] = (
    _build("build.gpu_count", _("GPUs in the box"), "int"),
    _build(
        "build.gpu_throughput",
        _("Throughput of one build GPU"),
        "ratio",
        help=_("Relative to the reference GPU (1.0)."),
    ),
    _build("build.capex", _("Purchase price of the box"), "money"),
    _build("build.power_load_watts", _("Power draw while busy"), "W"),
    _build("build.power_idle_watts", _("Power draw while idle"), "W"),
    _build("build.pue", _("PUE (cooling overhead)"), "ratio"),
    _build("build.electricity_price_per_kwh", _("Electricity price"), "money/kWh"),
    _build("build.hosting_monthly", _("Hosting per month"), "money/month"),
    _build(
        "build.maintenance_rate_per_year",
        _("Maintenance per year"),
        "fraction",
        help=_("Spares and repairs each year, as a percentage of the purchase price."),
        # xgettext:no-python-format (the % is literal, never formatted)
        example=_("3 for 3 %"),
    ),
    _build("build.ops_monthly", _("Administration per month"), "money/month"),
    _build(
        "build.egress_monthly",
        _("Network egress per month"),
        "money/month",
        help=_("What the provider charges for data sent out of the box's network each month."),
    ),
    _build(
        "build.residual_value_retention_per_year",
        _("Value kept per year"),
        "fraction",
        help=_("Share of its value the box keeps each year, for the resale."),
        # xgettext:no-python-format (the % is literal, never formatted)
        example=_("65 for 65 %"),
    ),
    _build(
        "build.capex_annual_price_change",
        _("Yearly price change of a replacement box"),
        "signed_fraction",
        help=_("Only with a useful life shorter than the horizon: what the next box costs."),
        # xgettext:no-python-format (the % is literal, never formatted)
        example=_("−10 for 10 % cheaper each year"),
    ),
    _build(
        "build.running_cost_annual_change",
        _("Yearly change of running costs"),
        "signed_fraction",
        help=_("Electricity, hosting and administration."),
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
        section="life",
        catalog=True,
    ),
)

FINANCING_FIELDS: tuple[ScenarioField, ...] = (
    ScenarioField(
        "build.financing.down_payment_fraction",
        _("Down payment"),
        "fraction",
        _("Paid on the day of purchase; the rest is the loan."),
        # xgettext:no-python-format (the % is literal, never formatted)
        example=_("20 for 20 %"),
        section="financing",
    ),
    ScenarioField(
        "build.financing.annual_interest_rate",
        _("Interest rate per year"),
        "fraction",
        # xgettext:no-python-format (the % is literal, never formatted)
        example=_("6 for 6 % a year"),
        section="financing",
    ),
    ScenarioField(
        "build.financing.term_months",
        _("Loan term"),
        "months",
        _("Equal monthly payments over this many months."),
        section="financing",
    ),
)

RENT_FIELDS: tuple[ScenarioField, ...] = (
    _rent("rent.gpu_count", _("GPUs per cloud instance"), "int"),
    _rent(
        "rent.gpu_throughput",
        _("Throughput of one cloud GPU"),
        "ratio",
        help=_("Relative to the reference GPU (1.0)."),
    ),
    _rent("rent.hourly_rate", _("Cloud price per instance-hour"), "money/h"),
    _rent("rent.fixed_monthly", _("Cloud fixed fees per month"), "money/month"),
    _rent(
        "rent.annual_price_change",
        _("Yearly cloud price change"),
        "signed_fraction",
        # xgettext:no-python-format (the % is literal, never formatted)
        help=_("−15 means 15 % cheaper each year."),
        # xgettext:no-python-format (the % is literal, never formatted)
        example=_("−15 for 15 % cheaper each year"),
    ),
    _rent(
        "rent.rework_fraction",
        _("Work redone after spot interruptions"),
        "fraction",
        help=_("Extra instance-hours, as a percentage of the work; from the catalog for spot."),
        # xgettext:no-python-format (the % is literal, never formatted)
        example=_("15 for 15 % more hours"),
    ),
    _rent(
        "rent.committed_hourly_rate",
        _("Committed price per instance-hour"),
        "money/h",
        help=_("1- or 3-year commitments: paid for every hour of the term, used or not."),
    ),
    _rent("rent.commitment_term_months", _("Commitment term"), "months"),
    _rent(
        "rent.commitment_upfront_per_instance",
        _("Upfront per committed instance"),
        "money",
        help=_("Paid when each term starts."),
    ),
)

COMMITMENT_FIELDS: tuple[ScenarioField, ...] = (
    ScenarioField(
        "rent.committed_instances",
        _("Committed instances"),
        "int",
        _(
            "Only for a 1- or 3-year commitment: how many instances you reserve, paid for every "
            "hour of the term. Leave empty for the fewest whose hours cover the work."
        ),
        form="committed_instances",
        section="offering",
        selection="committed_instances",
        hint=_(
            "Enter a whole number of instances, 0 or more (leave it empty for the fewest "
            "that cover the work)."
        ),
    ),
)

GENERAL_FIELDS: tuple[ScenarioField, ...] = (
    ScenarioField("currency", _("Currency"), "text", form="currency", section="general"),
    ScenarioField(
        "horizon_months",
        _("Horizon"),
        "months",
        form="horizon_months",
        section="general",
        initial=36,
        required=True,
    ),
    ScenarioField(
        "discount_rate_per_year",
        _("Discount rate per year"),
        "fraction",
        _(
            # xgettext:no-python-format (the % is literal, never formatted)
            "Your cost of capital, for the present values: what the money would earn elsewhere. "
            "Prefilled with 8 % a year, a round figure for a company of average risk (Aswath "
            "Damodaran's yearly “Cost of Capital by Sector” data, NYU Stern); type 0 to compare "
            "plain totals."
        ),
        # xgettext:no-python-format (the % is literal, never formatted)
        example=_("8 for 8 % a year"),
        form="discount_rate_percent",
        section="general",
        initial=tidy(DEFAULT_COST_OF_CAPITAL * 100),
    ),
)

WORKLOAD_EXAMPLE = _(
    # xgettext:no-python-format (the % is literal, never formatted)
    "80 for a box busy 80 % of the time, 150 for one box busy all the time and half a box "
    "more rented"
)

WORKLOAD_FIELDS: tuple[ScenarioField, ...] = (
    ScenarioField("workload.kind", _("Workload"), "text", form="workload_kind"),
    ScenarioField(
        "workload.utilization",
        _("Utilization"),
        "fraction",
        _(
            "Share of the month the box is busy. Above 100 % the work is more than one box "
            "does: the box runs all month and the rest is rented by the hour (a hybrid plan); "
            "200 % is twice one box's work."
        ),
        example=WORKLOAD_EXAMPLE,
        form="utilization_percent",
        section="workload",
        workload="steady",
        initial=80,
    ),
    ScenarioField(
        "workload.active_days_per_month",
        _("Active days per month"),
        "days",
        example=_("8 for eight days"),
        form="active_days_per_month",
        section="workload",
        workload="tidal",
        initial=8,
    ),
    ScenarioField(
        "workload.hours_per_active_day",
        _("Busy hours per active day"),
        "h",
        example=_("10 for ten hours"),
        form="hours_per_active_day",
        section="workload",
        workload="tidal",
        initial=24,
    ),
    ScenarioField(
        "workload.monthly_utilization",
        _("Monthly utilization profile"),
        "profile",
        example=WORKLOAD_EXAMPLE,
        form="profile_percent",
        section="workload",
        workload="profile",
        initial=80,
    ),
)


def _job(form: str, label: Promise, unit: str, **kw: Any) -> ScenarioField:
    """An input asked once per job row of a training jobs workload."""
    return ScenarioField(
        "", label, unit, form=form, section="jobs", workload="jobs", rows=JOB_ROWS, **kw
    )


JOB_FIELDS: tuple[ScenarioField, ...] = (
    _job("job_name", _("Name of the job"), "text", example=_("7B adapter fine-tune")),
    _job("job_kind", _("Described as"), "choice"),
    _job(
        "job_parameters_billion",
        _("Model size [billion parameters]"),
        "number",
        job="parameters_billion",
        example=_("7 for a 7B model"),
    ),
    _job(
        "job_tokens_billion",
        _("Tokens per run [billions]"),
        "number",
        help=_("Tokens in the training set × epochs."),
        job="tokens_billion",
        example=_("2 for 2 billion tokens"),
    ),
    _job("job_method", _("Training"), "choice"),
    _job("job_precision", _("Precision"), "choice"),
    _job(
        "job_samples",
        _("Samples in the dataset"),
        "number",
        job="samples",
        example=_("1281167 for ImageNet-1k"),
    ),
    _job("job_epochs", _("Epochs per run"), "number", job="epochs", example="90"),
    _job(
        "job_reference_gpu_hours",
        _("Reference GPU-hours per run"),
        "number",
        help=_("Hours one reference GPU needs for one run."),
        job="reference_gpu_hours",
        example="120",
    ),
    _job(
        "job_runs",
        _("Runs per month"),
        "runs",
        help=_("One number for every month, or twelve separated by commas (they repeat)."),
        example=_("2, or 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0"),
    ),
)
"""The inputs of one job (form names ``job_name_1`` … ``job_runs_8``): each job becomes a job
of the engine's jobs workload through :mod:`webapp.planner.jobs`."""

SELECTION_FIELDS: tuple[ScenarioField, ...] = (
    ScenarioField("", _("Preset"), "choice", form="preset", selection="preset"),
    ScenarioField(
        "", _("Cloud offering"), "choice", form="cloud_offering", selection="cloud_offering"
    ),
    ScenarioField(
        "",
        _("Every market, at the dated exchange rate"),
        "bool",
        _(
            "Weigh the cloud offerings of every market, not only those of your currency's "
            "(mainland China for CNY), their prices converted at the catalog's exchange rate in "
            "effect on the plan's date."
        ),
        form="all_markets",
        selection="all_markets",
        initial=False,
    ),
    ScenarioField("", _("Electricity tariff"), "choice", form="tariff", selection="tariff"),
    ScenarioField("", _("Hosting"), "choice", form="hosting", selection="hosting"),
    ScenarioField(
        "", _("Benchmark for throughput"), "choice", form="benchmark", selection="benchmark"
    ),
    ScenarioField(
        "",
        _("Multi-GPU scaling efficiency"),
        "fraction",
        _("Speed-up of all GPUs ÷ number of GPUs, in percent; needed for two or more GPUs."),
        # xgettext:no-python-format (the % is literal, never formatted)
        example=_("90 for 90 %"),
        form="scaling_efficiency",
        section="box",
        selection="scaling_efficiency",
    ),
)
"""Inputs only the catalog selection holds (the resolver turns them into scenario fields, the
ranking reads ``all_markets``); the catalog's rows are the choices of the ``choice`` ones, a
``bool`` one is a tick box."""

ALL_FIELDS: tuple[ScenarioField, ...] = (
    GENERAL_FIELDS
    + WORKLOAD_FIELDS
    + BUILD_FIELDS
    + LIFE_FIELDS
    + FINANCING_FIELDS
    + RENT_FIELDS
    + COMMITMENT_FIELDS
)
"""Every field of the explicit scenario people read: the inputs table, the compare page, the
CSV."""
BY_PATH: dict[str, ScenarioField] = {f.path: f for f in ALL_FIELDS}

REGISTRY: tuple[ScenarioField, ...] = ALL_FIELDS + SELECTION_FIELDS + JOB_FIELDS
"""Every input of the planner."""

TYPED_FIELDS: tuple[ScenarioField, ...] = tuple(
    f for f in REGISTRY if f.name and f.unit in NUMERIC_UNITS
)
"""The inputs typed as numbers into a form field the registry makes."""

BY_FORM_NAME: dict[str, ScenarioField] = {f.name: f for f in REGISTRY if f.name}


def labels() -> Mapping[str, str]:
    """Every field's label in the active language, by path (made once per language: a page
    names a field once per catalog row and input)."""
    return _labels(get_language())


@functools.lru_cache(maxsize=8)
def _labels(language: str | None) -> Mapping[str, str]:
    return MappingProxyType({f.path: str(f.label) for f in ALL_FIELDS})


EXPLICIT_FIELDS: tuple[ScenarioField, ...] = tuple(
    f for f in REGISTRY if f.section in ("build", "rent", "life", "financing")
)
"""The scenario fields typed under Advanced and "Owning the box" (``build__capex``)."""

CATALOG_FIELDS: tuple[ScenarioField, ...] = tuple(f for f in REGISTRY if f.catalog)
"""Those the catalog prefills: a value typed over the catalog's is an override."""


def _applies(field: ScenarioField, kind: str | None) -> bool:
    return not field.workload or field.workload == kind


def typed_value(field: ScenarioField, data: Mapping[str, Any]) -> Any:
    """The value a form's cleaned ``data`` holds for ``field``, in the scenario's unit (a
    profile: the list of months; ``None`` when left empty)."""
    if field.unit == "profile":
        months = [data.get(name) for name in field.form_names()]
        return None if None in months else [from_form(field, v) for v in months]
    return from_form(field, data.get(field.name))


def scenario_values(data: Mapping[str, Any], *, selection: bool) -> dict[str, Any]:
    """``path → value`` (scenario units) of every input of the form's cleaned ``data`` that
    travels in the scenario: the general ones, the chosen workload's, the Advanced ones the user
    filled in, and (``selection=False``: typed without the catalog) those the catalog selection
    would carry otherwise."""
    kind = data.get("workload_kind")
    values: dict[str, Any] = {}
    for f in REGISTRY:
        if not f.path or not f.name or not _applies(f, kind) or (selection and f.selection):
            continue
        value = data.get(f.name) if f.unit == "text" else typed_value(f, data)
        if value is not None:
            values[f.path] = value
    return values


def selection_values(data: Mapping[str, Any]) -> dict[str, Any]:
    """``key → value`` of the inputs of the form's cleaned ``data`` that the catalog selection
    carries (the catalog choices, the scaling efficiency, the committed count), when filled in
    (a choice left empty is left to the resolver)."""
    values = {f.selection: typed_value(f, data) for f in REGISTRY if f.selection}
    return {key: value for key, value in values.items() if value not in (None, "")}


def nested(values: Mapping[str, Any]) -> dict[str, Any]:
    """``path → value`` as the nested JSON the engine reads."""
    data: dict[str, Any] = {}
    for path, value in values.items():
        data = with_path(data, path, value)
    return data


def form_values(scenario: Mapping[str, Any], selection: Mapping[str, Any] | None) -> dict[str, Any]:
    """The form's values (form units) of every input a scenario (as JSON) and its catalog
    selection hold: what reopens the planner on a permalink's or a saved scenario's inputs."""
    values: dict[str, Any] = {}
    kind = get_path(scenario, "workload.kind")
    for f in REGISTRY:
        if not f.name or not _applies(f, kind):
            continue
        value = None
        if selection is not None and f.selection:
            value = selection.get(f.selection)
        elif f.path:
            value = get_path(scenario, f.path)
        if value is None:
            continue
        if f.unit == "profile":
            months = f.form_names()
            values.update({n: to_form(f, value[i % len(value)]) for i, n in enumerate(months)})
        else:
            values[f.name] = to_form(f, value)
    return values


def form_field_of(path: str) -> str | None:
    """The form field of an input named by its scenario path or selection key (an error's
    field): ``build.capex`` → ``build__capex``, ``workload.monthly_utilization.2`` →
    ``profile_percent_3``; ``None`` when no one input is named."""
    for f in REGISTRY:
        if not f.name:
            continue
        if path in (f.path, f.selection):
            return f.form_names()[0]
        if f.unit == "profile" and f.path and path.startswith(f.path + "."):
            index = path.rsplit(".", 1)[-1]
            if index.isdigit() and int(index) < PROFILE_MONTHS:
                return f.form_names()[int(index)]
    return None


@dataclass(frozen=True)
class RangeRow:
    """One uncertain input of the planner form: low, most likely and high values, bounded as
    its scenario field is."""

    key: str  # form names range_<key>_low, range_<key>_likely, range_<key>_high
    path: str  # the scenario field, as costmodel.ranges names it
    label: Promise
    example: Promise | str
    workload: str = ""  # the workload kind it belongs to ("" for every kind)

    @property
    def field(self) -> ScenarioField:
        return BY_PATH[self.path]

    @property
    def low(self) -> float | None:
        return self.field.low

    @property
    def high(self) -> float | None:
        return self.field.high


RANGE_ROWS: tuple[RangeRow, ...] = (
    RangeRow(
        "utilization",
        "workload.utilization",
        _("Steady use: share of the time [%]"),
        # xgettext:no-python-format (the % is literal, never formatted)
        _("80 for a box busy 80 % of the time"),
        workload="steady",
    ),
    RangeRow(
        "active_days",
        "workload.active_days_per_month",
        _("Tidal: active days a month"),
        _("8 for eight days"),
        workload="tidal",
    ),
    RangeRow(
        "price_trend",
        "rent.annual_price_change",
        _("Cloud price trend per year [%]"),
        # xgettext:no-python-format (the % is literal, never formatted)
        _("−15 for 15 % cheaper each year"),
    ),
    RangeRow(
        "electricity",
        "build.electricity_price_per_kwh",
        _("Electricity price per kWh"),
        _("0.8 for 0.80 per kWh"),
    ),
    RangeRow(
        "retention",
        "build.residual_value_retention_per_year",
        _("Resale: value kept per year [%]"),
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


def field_value(field: ScenarioField, value: Any, currency: str) -> str:
    """A scenario field's value for people, by the field's unit: money in the scenario's
    currency, fractions in percent (the inputs table, the ranges, the compare page)."""
    if value is None:
        return "—"
    unit = field.unit
    if unit == "money":
        return formatting.money(value, currency)
    if unit.startswith("money/"):
        per = {"kWh": _("per kWh"), "h": _("per hour"), "month": _("per month")}[unit[6:]]
        decimals = 4 if unit == "money/kWh" else None
        return f"{formatting.money(value, currency, decimals)} {per}"
    if unit in PERCENT_UNITS:
        return formatting.percent(value, 1)
    if unit == "profile":
        return ", ".join(formatting.percent(v) for v in value)
    if unit == "months":
        return formatting.months(value, 0)
    if unit == "W":
        return f"{formatting.number(value)} W"
    if unit == "h":
        return f"{formatting.number(value, 1)} h"
    if unit == "days":
        return formatting.number(value, 1)
    if unit == "ratio":
        return formatting.number(value, 2)
    if unit == "int":
        return formatting.number(value)
    if field.path == "workload.kind":
        return str(WORKLOAD_KIND_LABELS.get(value, value))
    return str(value)


def same_value(a: Any, b: Any) -> bool:
    """Equal, or equal up to float rounding (a catalog's ``Decimal`` against the float a
    scenario holds, too); never raises for numbers of any size.

    Two integers compare exactly: converting one beyond float64's range (a
    typed ``2**1100``, or one in the hidden ``basis`` field) would raise
    OverflowError.
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    if isinstance(a, int | float | Decimal) and isinstance(b, int | float | Decimal):
        try:
            return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
        except OverflowError:  # an int beyond float64 is not close to any float
            return False
    return bool(a == b)
