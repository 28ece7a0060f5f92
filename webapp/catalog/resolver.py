"""Catalog → explicit scenario: the only place catalog rows become engine inputs.

A :class:`Selection` names catalog rows by slug (a preset or a custom parts
list, a cloud offering, a tariff, a hosting option, a benchmark) plus the
workload, horizon, currency, discount rate and an "as of" date. :func:`resolve`
reads the catalog in effect on that date once (a
:class:`webapp.catalog.selectors.CatalogSnapshot`, which one request may share
between many resolutions), converts money into the selection's currency at the
FX rate in effect on that date, and returns the explicit
:class:`costmodel.Scenario` with a provenance record naming every row used and
the list of choices it made on the user's behalf (:class:`Defaulted`).

No cost is computed here: only inputs are assembled. First :func:`choose`
looks up the rows the selection names, filling in what it leaves out from
:data:`DEFAULTS` (the tariff, hosting and cloud offering of the currency's
region; the preset's own kind of hosting) as :func:`default_choices` picks
them. :func:`defaults_for` says the same for a plan made earlier (a results
page), with the reasons in the language of the moment. Then every rule of
``docs/catalog.md`` is one function of the same shape: it takes the choice and
the snapshot and returns a :class:`Ruling`, the scenario fields it sets with
their provenance. No rule reads or changes another's output, and no two rules
set the same field (:func:`resolve` refuses that):

- :func:`parts_rule` — parts → ``build.gpu_count``, ``capex`` and power draw;
- :func:`build_throughput_rule` / :func:`rent_throughput_rule` — per-GPU throughput with
  intra- and multi-node scaling (:func:`per_gpu_throughput`);
- :func:`running_costs_rule` — maintenance, resale retention, ops, useful life;
- :func:`electricity_rule` — tariff → ``build.electricity_price_per_kwh``;
- :func:`hosting_rule` — hosting option → ``build.hosting_monthly`` and ``build.pue``;
- :func:`cloud_rate_rule` — the offering's rate by pricing mode;
- :func:`overflow_rate_rule` — a commitment's rate for hours beyond it;
- :func:`rework_rule` — a spot offering's rework fraction.

One rule needs the others' scenario and comes after them:
:func:`commitment_rule` (how many instances a commitment reserves) reads the
draft scenario, never changing it.

Converted money keeps full decimal precision (no rounding) and is handed to the
engine as float; the FX rate used is recorded in the provenance.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Annotated, Any, Literal, Self

from django.utils.translation import gettext, gettext_noop, ngettext
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from costmodel import FieldError, Scenario, ScenarioError, Workload, field_errors, parse_scenario
from costmodel.operations import commitment_table
from costmodel.paths import with_path
from costmodel.scenario import MAX_HORIZON_MONTHS
from webapp.catalog import selectors
from webapp.catalog.models import (
    GPU_CARRYING_KINDS,
    RACK_KINDS,
    Benchmark,
    BuildPreset,
    CloudOffering,
    GpuModel,
    HostingKind,
    HostingOption,
    Part,
    PartKind,
    PricingMode,
    Tariff,
    TariffKind,
)
from webapp.catalog.selectors import CatalogSnapshot

# --- every default, in one table --------------------------------------------------------------


@dataclass(frozen=True)
class Default:
    """A value the resolver fills in when the selection does not say, and why (in English;
    translated when reported)."""

    value: Any
    reason: str


CUSTOM_BOX = "custom box"
"""The key of :data:`DEFAULTS` rows that apply to a custom parts list (presets carry their own)."""

DEFAULTS: dict[tuple[str, str], Default] = {
    # A custom parts list has no preset to carry its running costs.
    ("build.maintenance_rate_per_year", CUSTOM_BOX): Default(
        Decimal("0.05"),
        gettext_noop(
            "a custom box has no preset: 5 % of the purchase price a year for spares and "
            "repairs, the presets' most common figure (they range from 3 to 8 %)"
        ),
    ),
    ("build.residual_value_retention_per_year", CUSTOM_BOX): Default(
        Decimal("0.70"),
        gettext_noop(
            "a custom box has no preset: it keeps 70 % of its value each year, within the "
            "presets' 61–75 %"
        ),
    ),
    ("build.ops_monthly", CUSTOM_BOX): Default(
        Decimal(0),
        gettext_noop("a custom box has no preset: no administration cost, the team runs it"),
    ),
    ("build.useful_life_months", CUSTOM_BOX): Default(
        None,
        gettext_noop(
            "a custom box has no preset: no useful life is assumed, so it is not replaced "
            "within the horizon"
        ),
    ),
    # Where a custom box runs: a GPU server sold whole needs a rack; a box of cards does not.
    ("hosting kind", CUSTOM_BOX + " with a GPU server"): Default(
        HostingKind.COLOCATION,
        gettext_noop(
            "the parts list holds a GPU server, which needs rack power and cooling: colocation"
        ),
    ),
    ("hosting kind", CUSTOM_BOX): Default(
        HostingKind.OFFICE,
        gettext_noop("a parts list without a GPU server is a desk-side box: office, no fee"),
    ),
    # The currency's region: its tariff, its hosting of each kind, a cloud offering of its market.
    ("tariff", "CNY"): Default(
        "cn-business-average",
        gettext_noop("a CNY plan runs in China: the national average business tariff"),
    ),
    ("tariff", "USD"): Default(
        "us-va-commercial",
        gettext_noop(
            "a USD plan runs in the US: Virginia's commercial tariff (EIA), the largest US "
            "data-centre market"
        ),
    ),
    ("hosting office", "CNY"): Default(
        "office-deskside", gettext_noop("desk-side in an office: no fee, no cooling overhead")
    ),
    ("hosting office", "USD"): Default(
        "office-deskside", gettext_noop("desk-side in an office: no fee, no cooling overhead")
    ),
    ("hosting colocation", "CNY"): Default(
        "cn-colo-all-in",
        gettext_noop("colocation in China billed per kW (power included), PUE 1.5"),
    ),
    ("hosting colocation", "USD"): Default(
        "us-colo-wholesale",
        gettext_noop(
            "US wholesale colocation billed per kW (CBRE), with the Uptime Institute's average PUE"
        ),
    ),
    ("cloud_offering", "CNY"): Default(
        "aliyun-gn7e-c16g1-4xlarge",
        gettext_noop(
            "a CNY plan rents in China: Alibaba Cloud's on-demand instance of the reference "
            "GPU (one A100 80GB)"
        ),
    ),
    ("cloud_offering", "USD"): Default(
        "azure-nc24ads-a100-v4",
        gettext_noop(
            "a USD plan rents in the US market: Azure's on-demand instance of the reference "
            "GPU (one A100 80GB)"
        ),
    ),
}
"""Every value the resolver fills in on the user's behalf, keyed by (field, what it applies
to): a custom box, or a currency. Presets carry their own running costs and hosting kind
(with sources, in the catalog); the committed count is the cheapest one
(:func:`commitment_rule`)."""


def default(name: str, applies_to: str) -> Default:
    return DEFAULTS[(name, applies_to)]


# --- the selection --------------------------------------------------------------------------


class PartLine(BaseModel):
    """One line of a custom parts list."""

    model_config = ConfigDict(extra="forbid", strict=True)

    part: str
    quantity: Annotated[int, Field(ge=1, le=1000)] = 1


_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _iso_date_only(value: object) -> object:
    """JSON has no date type: take a date or a ``YYYY-MM-DD`` string, nothing else.

    (Lax date parsing would also read the number 0 or "1700000000" as a date.)
    """
    if value is None or isinstance(value, datetime.date):
        return value
    if isinstance(value, str) and _ISO_DATE.match(value):
        return value
    raise ValueError(gettext("must be a date written as YYYY-MM-DD"))


Efficiency = Annotated[float, Field(gt=0, le=1)]


class Selection(BaseModel):
    """What the user picked, by catalog slug; the resolver's input.

    ``cloud_offering``, ``tariff``, ``hosting`` and ``committed_instances`` may be left out:
    the resolver then picks them (see :data:`DEFAULTS` and :func:`commitment_rule`) and
    says so in :attr:`Resolution.defaulted`.
    """

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    preset: str | None = None
    parts: Annotated[list[PartLine], Field(min_length=1, max_length=100)] | None = None
    gpu_model: str | None = None
    gpu_count: Annotated[int, Field(ge=1, le=1000)] | None = None
    scaling_efficiency: Efficiency | None = None
    multi_node_scaling_efficiency: Efficiency | None = None
    cloud_offering: str | None = None
    committed_instances: Annotated[int, Field(ge=0, le=100_000)] | None = None
    tariff: str | None = None
    hosting: str | None = None
    benchmark: str
    workload: Workload
    horizon_months: Annotated[int, Field(ge=1, le=MAX_HORIZON_MONTHS)]
    currency: Literal["CNY", "USD"]
    discount_rate_per_year: Annotated[float, Field(ge=0, le=1)] = 0.0
    as_of: Annotated[datetime.date, Field(strict=False), BeforeValidator(_iso_date_only)] | None = (
        None
    )

    @model_validator(mode="after")
    def _preset_or_custom_box(self) -> Self:
        if self.preset is not None:
            if self.parts is not None or self.gpu_model is not None or self.gpu_count is not None:
                raise ValueError(
                    "preset: "
                    + gettext(
                        "give either a preset or a custom parts list "
                        "(parts, gpu_model, gpu_count), not both"
                    )
                )
        elif self.parts is None:
            raise ValueError("preset: " + gettext("is required (or a custom box in parts)"))
        return self

    @property
    def day(self) -> datetime.date:
        """The date of the prices: ``as_of``, or today."""
        return self.as_of or datetime.date.today()


def parse_selection(data: object) -> Selection:
    """Validate decoded JSON as a :class:`Selection` or raise :class:`ScenarioError`."""
    if not isinstance(data, dict):
        raise ScenarioError([FieldError("(selection)", gettext("must be a JSON object"))])
    try:
        return Selection.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(field_errors(exc)) from None


# --- provenance and what a rule returns -----------------------------------------------------


def _money(value: Decimal) -> str:
    """Exact decimal text, no exponent or trailing zeros: ``Decimal("26703.100")`` → ``26703.1``."""
    return format(value.normalize(), "f")


@dataclass(frozen=True)
class Provenance:
    """One catalog row used, and the scenario fields it feeds.

    ``amount`` and ``currency`` are as stored; ``converted_amount`` is in the
    selection's currency at ``fx_rate`` (``None`` when no conversion happened).
    """

    role: str
    label: str
    model: str
    natural_key: list[str]
    fields: list[str]
    quantity: int | None = None
    amount: Decimal | None = None
    currency: str | None = None
    effective_date: datetime.date | None = None
    source: str = ""
    estimate: bool = False
    fx_rate: str | None = None
    converted_amount: Decimal | None = None
    note: str = ""

    @classmethod
    def of_price(cls, role: str, label: str, row: Any, fields: list[str], **kw: Any) -> Provenance:
        """A dated, sourced row (price point, rate, tariff, hosting option)."""
        return cls(
            role=role,
            label=label,
            model=row._meta.label_lower,
            natural_key=list(row.natural_key()),
            fields=fields,
            effective_date=getattr(row, "effective_date", None),
            source=row.source,
            estimate=row.estimate,
            **kw,
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "label": self.label,
            "model": self.model,
            "natural_key": self.natural_key,
            "fields": self.fields,
            "quantity": self.quantity,
            "amount": None if self.amount is None else _money(self.amount),
            "currency": self.currency,
            "effective_date": None
            if self.effective_date is None
            else self.effective_date.isoformat(),
            "source": self.source,
            "estimate": self.estimate,
            "fx_rate": self.fx_rate,
            "converted_amount": (
                None if self.converted_amount is None else _money(self.converted_amount)
            ),
            "note": self.note,
        }


@dataclass(frozen=True)
class Defaulted:
    """A field the resolver filled in because the selection left it out, and why (in words,
    in the language active when it was resolved).

    ``field`` is a selection field (``tariff``, ``hosting``, ``cloud_offering``,
    ``committed_instances``) or, for a custom box's running costs, a scenario path
    (``build.maintenance_rate_per_year``); ``value`` is the slug or figure used.
    """

    field: str
    value: Any
    reason: str

    def as_dict(self) -> dict[str, Any]:
        value = _money(self.value) if isinstance(self.value, Decimal) else self.value
        return {"field": self.field, "value": value, "reason": self.reason}


@dataclass(frozen=True)
class Ruling:
    """What one rule decides: scenario fields (dotted paths) with the rows behind them."""

    values: dict[str, Any]
    provenance: tuple[Provenance, ...] = ()
    defaulted: tuple[Defaulted, ...] = ()


@dataclass
class Resolution:
    """An explicit scenario, the catalog rows every figure came from, and what was defaulted."""

    scenario: Scenario
    provenance: list[dict[str, Any]] = field(default_factory=list)
    defaulted: list[Defaulted] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario.model_dump(mode="json"),
            "provenance": self.provenance,
            "defaulted": [item.as_dict() for item in self.defaulted],
        }


class Unresolvable(Exception):
    """One lookup failed; collected into a :class:`ScenarioError`."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.error = FieldError(field, message)


# --- notes ---------------------------------------------------------------------------------

# Notes the resolver writes into the provenance. A permalink keeps them in English; a page
# shows them in its own language (webapp.planner.sources reads them back by these patterns),
# so every note is one of these templates filled in, never free text.
NOTE_GPU_POWER = gettext_noop("%(count)s × %(load)s W load, %(idle)s W idle")
NOTE_GPU_POWER_SERVERS = gettext_noop(
    "%(count)s × %(load)s W load, %(idle)s W idle, in %(servers)s servers"
)
NOTE_HOSTING_FEE = gettext_noop("%(per_u)s × %(units)s U + %(per_kw)s × %(kw)s kW; PUE %(pue)s")
NOTE_POWER_INCLUDED = gettext_noop("not used: the hosting fee includes power")
NOTE_SCALING = gettext_noop("× scaling efficiency %(efficiency)s for %(gpus)s GPUs")
NOTE_MULTI_NODE = gettext_noop(
    "× multi-node scaling efficiency %(efficiency)s for %(servers)s servers"
)
NOTE_NO_REWORK = gettext_noop("no rework fraction in the catalog: 0 used")
NOTE_OVERFLOW = gettext_noop(
    "on-demand rate of the same instance: pays the hours beyond the committed instances"
)
NOTE_OVERFLOW_NO_SIBLING = gettext_noop(
    "no on-demand sibling in the catalog: hours beyond the committed instances are billed at "
    "the committed rate"
)
NOTE_OVERFLOW_NO_SIBLING_RATE = gettext_noop(
    "the on-demand sibling %(sibling)s has no rate on %(day)s: hours beyond the committed "
    "instances are billed at the committed rate"
)
NOTE_SET_BY_SELECTION = gettext_noop("set by the selection")
NOTE_MONTHS = gettext_noop("%(months)s months")
NOTES = (
    NOTE_GPU_POWER_SERVERS,
    NOTE_GPU_POWER,
    NOTE_HOSTING_FEE,
    NOTE_POWER_INCLUDED,
    NOTE_SCALING,
    NOTE_MULTI_NODE,
    NOTE_NO_REWORK,
    NOTE_OVERFLOW,
    NOTE_OVERFLOW_NO_SIBLING,
    NOTE_OVERFLOW_NO_SIBLING_RATE,
    NOTE_SET_BY_SELECTION,
    NOTE_MONTHS,
)
"""Every note template, the longer of two that share a beginning first."""

# --- currency -------------------------------------------------------------------------------


def convert(
    catalog: CatalogSnapshot, amount: Decimal, currency: str, target: str
) -> tuple[Decimal, str | None]:
    """``amount`` in ``target`` at the rate in effect on the snapshot's day, and the
    multiplier used (``None``: none needed).

    An amount in currency X becomes ``amount × rate`` with the rate of the pair
    X→Y, or ``amount / rate`` of the pair Y→X, whichever is newer.
    """
    if currency == target:
        return amount, None
    row = catalog.fx_rate(currency, target)
    if row is None:
        raise Unresolvable(
            "as_of",
            gettext("no FX rate %(base)s→%(quote)s on %(date)s")
            % {"base": currency, "quote": target, "date": catalog.day.isoformat()},
        )
    multiplier = row.multiplier(currency)
    return amount * multiplier, _money(multiplier)


def fx_provenance(
    catalog: CatalogSnapshot, items: Iterable[Provenance], target: str
) -> list[Provenance]:
    """The FX rows behind every converted amount of ``items``, each once, by pair."""
    rows = {
        (row.base_currency, row.quote_currency): row
        for item in items
        if item.fx_rate is not None and item.currency is not None
        for row in [catalog.fx_rate(item.currency, target)]
        if row is not None
    }
    return [
        Provenance.of_price(
            gettext_noop("fx"), str(row), row, [], amount=row.rate, currency=quote, note=row.note
        )
        for (_base, quote), row in sorted(rows.items())
    ]


# --- the box ---------------------------------------------------------------------------------


@dataclass
class Box:
    """The box or cluster to build: parts and the figures that are not prices."""

    label: str
    lines: list[tuple[Part, int]]
    gpu: GpuModel
    gpu_count: int
    node_count: int
    scaling_efficiency: Decimal
    multi_node_scaling_efficiency: Decimal
    preset: BuildPreset | None

    @property
    def gpus_per_node(self) -> int:
        return self.gpu_count // self.node_count

    @property
    def hosting_kind(self) -> tuple[str, str]:
        """Where the box runs by default, and why (:func:`hosting_kind`)."""
        return hosting_kind(self.preset, self.lines)


def hosting_kind(preset: BuildPreset | None, lines: Iterable[tuple[Part, int]]) -> tuple[str, str]:
    """Where a box runs by default, and why: the preset's kind of hosting with its rationale
    in the active language (catalog text), or a custom parts list's (:data:`DEFAULTS`,
    translated): colocation when it holds a GPU server, else the office."""
    if preset is not None:
        return preset.hosting_kind, preset.localized("hosting_rationale")
    has_server = any(part.kind == PartKind.NODE for part, _ in lines)
    row = default("hosting kind", CUSTOM_BOX + " with a GPU server" if has_server else CUSTOM_BOX)
    return row.value, gettext(row.reason)


def _decimal(value: float | None, default: Decimal) -> Decimal:
    return default if value is None else Decimal(str(value))


def box_from_preset(selection: Selection, catalog: CatalogSnapshot) -> Box:
    preset = catalog.presets.get(selection.preset or "")
    if preset is None:
        raise Unresolvable(
            "preset",
            gettext("no %(what)s with slug '%(slug)s'")
            % {"what": gettext("build preset"), "slug": selection.preset},
        )
    return Box(
        label=preset.name,
        lines=[(line.part, line.quantity) for line in preset.lines.all()],
        gpu=preset.gpu_model,
        gpu_count=preset.gpu_count,
        node_count=preset.node_count,
        scaling_efficiency=_decimal(selection.scaling_efficiency, preset.scaling_efficiency),
        multi_node_scaling_efficiency=_decimal(
            selection.multi_node_scaling_efficiency, preset.multi_node_scaling_efficiency
        ),
        preset=preset,
    )


def box_from_parts(selection: Selection, catalog: CatalogSnapshot) -> Box:
    """A custom parts list; its GPUs are its GPU cards and the GPUs of its GPU servers."""
    assert selection.parts is not None
    found = catalog.parts
    errors = [
        FieldError(f"parts.{i}.part", gettext("no part with slug '%(slug)s'") % {"slug": line.part})
        for i, line in enumerate(selection.parts)
        if line.part not in found
    ]
    if errors:
        raise ScenarioError(errors)
    lines = [(found[line.part], line.quantity) for line in selection.parts]
    gpu_lines = [(p, q) for p, q in lines if p.kind in GPU_CARRYING_KINDS]
    if not gpu_lines:
        raise Unresolvable("parts", gettext("must include the GPU cards (a part of kind 'gpu')"))
    models = {p.gpu_model.slug for p, _ in gpu_lines if p.gpu_model is not None}
    if len(models) > 1:
        raise Unresolvable(
            "parts",
            gettext("GPU cards of one model only: %(models)s")
            % {"models": ", ".join(sorted(models))},
        )
    gpu = gpu_lines[0][0].gpu_model
    assert gpu is not None
    count = sum(p.gpu_count * q for p, q in gpu_lines)
    nodes = sum(q for p, q in lines if p.kind == PartKind.NODE) or 1
    if selection.gpu_model is not None and selection.gpu_model != gpu.slug:
        raise Unresolvable(
            "gpu_model",
            gettext("the parts list holds '%(found)s' cards, not '%(asked)s'")
            % {"found": gpu.slug, "asked": selection.gpu_model},
        )
    if selection.gpu_count is not None and selection.gpu_count != count:
        raise Unresolvable(
            "gpu_count", gettext("the parts list holds %(count)d GPU cards") % {"count": count}
        )
    if selection.scaling_efficiency is None and count // nodes > 1:
        raise Unresolvable(
            "scaling_efficiency", gettext("is required for a box with 2 or more GPUs")
        )
    if selection.multi_node_scaling_efficiency is None and nodes > 1:
        raise Unresolvable(
            "multi_node_scaling_efficiency", gettext("is required for 2 or more GPU servers")
        )
    return Box(
        label=gettext("Custom box, %(count)d × %(gpu)s") % {"count": count, "gpu": gpu.name},
        lines=lines,
        gpu=gpu,
        gpu_count=count,
        node_count=nodes,
        scaling_efficiency=_decimal(selection.scaling_efficiency, Decimal(1)),
        multi_node_scaling_efficiency=_decimal(selection.multi_node_scaling_efficiency, Decimal(1)),
        preset=None,
    )


@dataclass(frozen=True)
class BoxPower:
    """What the box draws [W] and the rack space it takes [U]."""

    load_watts: Decimal
    idle_watts: Decimal
    rack_units: int


def box_power(box: Box) -> BoxPower:
    """The box's wall draw and rack units, from its parts (no prices involved).

    Notes
    -----
    ``load = GPU board power × GPU count + Σ quantity × load draw`` of every part that
    is not a GPU card (a GPU server's own draw is what it uses besides its GPUs);
    ``idle`` likewise; ``rack_units = Σ quantity × height`` of chassis, GPU servers and
    network gear.
    """
    load = Decimal(box.gpu.board_power_watts * box.gpu_count)
    idle = Decimal(box.gpu.idle_power_watts * box.gpu_count)
    rack_units = 0
    for part, quantity in box.lines:
        if part.kind != PartKind.GPU:
            load += part.load_power_watts * quantity
            idle += part.idle_power_watts * quantity
        if part.kind in RACK_KINDS:
            rack_units += part.rack_units * quantity
    return BoxPower(load, idle, rack_units)


# --- choosing the rows: the selection's, or the defaults ------------------------------------


@dataclass(frozen=True)
class Choice:
    """The selection with the rows it names (or the resolver chose) looked up in the snapshot."""

    selection: Selection
    box: Box
    offering: CloudOffering
    tariff: Tariff
    hosting: HostingOption
    benchmark: Benchmark
    defaulted: tuple[Defaulted, ...] = ()
    problems: tuple[FieldError, ...] = ()
    """Rows found but not in effect on the day (reported with the rules' problems)."""

    @property
    def currency(self) -> str:
        return self.selection.currency


class _Attempts:
    """Runs lookups and rules, collecting every failure so that one answer names all problems."""

    def __init__(self) -> None:
        self.errors: list[FieldError] = []

    def __call__(self, function: Callable[..., Any], *args: Any) -> Any:
        try:
            return function(*args)
        except Unresolvable as exc:
            self.errors.append(exc.error)
        except ScenarioError as exc:
            self.errors.extend(exc.errors)
        return None

    def check(self) -> None:
        if self.errors:
            raise ScenarioError(list(dict.fromkeys(self.errors)))


TARIFF = (gettext_noop("electricity tariff"), gettext_noop("tariff"))
HOSTING = (gettext_noop("hosting option"), gettext_noop("hosting option"))
"""How a kind of dated row is named when it is unknown, and when it is not yet in effect."""


CUSTOM_BOX_RUNNING_COSTS = (
    "build.maintenance_rate_per_year",
    "build.residual_value_retention_per_year",
    "build.ops_monthly",
    "build.useful_life_months",
)
"""The running costs a preset carries and a custom parts list is given (:data:`DEFAULTS`)."""


def default_choices(
    selection: Selection, box_hosting: tuple[str, str] | None
) -> tuple[Defaulted, ...]:
    """The catalog rows picked for the choices ``selection`` leaves out, and why.

    The one definition of which default applies: the cloud offering and the tariff of the
    currency's region, and the hosting of the box's kind in that region (:data:`DEFAULTS`).
    ``box_hosting`` is the box's kind of hosting and why (:func:`hosting_kind`); ``None``
    when the box could not be looked up: then no hosting is picked. Reasons are translated
    into the language active at the call, so a page showing a plan made earlier
    (:func:`defaults_for`) gives them in its own language.
    """
    picked: list[Defaulted] = []
    for name in ("cloud_offering", "tariff"):
        if getattr(selection, name) is None:
            row = default(name, selection.currency)
            picked.append(Defaulted(name, row.value, gettext(row.reason)))
    if selection.hosting is None and box_hosting is not None:
        kind, why = box_hosting
        region = default(f"hosting {kind}", selection.currency)
        reason = gettext(region.reason)
        if why:
            reason = gettext("%(where)s — %(why)s") % {"where": reason, "why": why}
        picked.append(Defaulted("hosting", region.value, reason))
    return tuple(picked)


def custom_box_defaults(selection: Selection) -> tuple[Defaulted, ...]:
    """The running costs a custom parts list is given (:data:`DEFAULTS`), with why
    (translated at the call); none for a preset, which carries its own."""
    if selection.preset is not None:
        return ()
    rows = {path: default(path, CUSTOM_BOX) for path in CUSTOM_BOX_RUNNING_COSTS}
    return tuple(Defaulted(path, row.value, gettext(row.reason)) for path, row in rows.items())


def defaults_for(selection: Selection, catalog: CatalogSnapshot) -> list[Defaulted]:
    """What :func:`resolve` fills in for ``selection`` on the snapshot's day, and why, without
    resolving it: the choices of :func:`default_choices` and a custom box's running costs
    (:func:`custom_box_defaults`). The committed count is not among them: it is the cheapest
    for the resolved scenario (:func:`commitment_rule`, :func:`commitment_reason`).

    For a page that shows a plan made earlier: reasons come in the language active now.
    A box the snapshot no longer has leaves the hosting out.
    """
    kind = None
    if selection.hosting is None:  # only the hosting's default depends on the box
        if selection.preset is not None:  # presets carry no date: the one row will do
            preset = selectors.by_slug(BuildPreset, selection.preset)
            kind = None if preset is None else hosting_kind(preset, ())
        else:
            try:
                kind = box_from_parts(selection, catalog).hosting_kind
            except (Unresolvable, ScenarioError):
                kind = None
    return [*default_choices(selection, kind), *custom_box_defaults(selection)]


def _offering(slug: str, catalog: CatalogSnapshot) -> CloudOffering:
    offering = catalog.offerings.get(slug)
    if offering is None:
        raise Unresolvable(
            "cloud_offering",
            gettext("no %(what)s with slug '%(slug)s'")
            % {"what": gettext("cloud offering"), "slug": slug},
        )
    return offering


def _tariff(slug: str, catalog: CatalogSnapshot) -> tuple[Tariff, FieldError | None]:
    return _in_effect(catalog.tariffs, Tariff, slug, "tariff", TARIFF, catalog.day)


def _hosting(slug: str, catalog: CatalogSnapshot) -> tuple[HostingOption, FieldError | None]:
    return _in_effect(catalog.hosting_options, HostingOption, slug, "hosting", HOSTING, catalog.day)


def _in_effect(
    rows: dict[str, Any],
    model: type[Any],
    slug: str,
    name: str,
    what: tuple[str, str],
    day: datetime.date,
) -> tuple[Any, FieldError | None]:
    """The row in effect on ``day`` from ``rows`` (and no problem), or why not.

    No such row raises :class:`Unresolvable` naming the field ``name``. A row effective
    only after ``day`` is returned with the problem (naming ``as_of``), so that the rules
    still run and one answer names every problem. ``what`` names the kind in each message.
    """
    row = rows.get(slug)
    if row is not None:
        return row, None
    later = selectors.not_yet_in_effect(model, slug)
    if later is None:
        raise Unresolvable(
            name,
            gettext("no %(what)s with slug '%(slug)s'") % {"what": gettext(what[0]), "slug": slug},
        )
    problem = FieldError(
        "as_of",
        gettext("%(what)s '%(slug)s' is effective from %(start)s, after %(date)s")
        % {
            "what": gettext(what[1]),
            "slug": slug,
            "start": later.effective_date.isoformat(),
            "date": day.isoformat(),
        },
    )
    return later, problem


def _benchmark(selection: Selection, catalog: CatalogSnapshot) -> Benchmark:
    row = catalog.benchmarks.get(selection.benchmark)
    if row is None:
        raise Unresolvable(
            "benchmark",
            gettext("no %(what)s with slug '%(slug)s'")
            % {"what": gettext("benchmark"), "slug": selection.benchmark},
        )
    return row


def choose(selection: Selection, catalog: CatalogSnapshot) -> Choice:
    """Look up every row the selection names; fill in what it leaves out (:data:`DEFAULTS`).

    Raises :class:`ScenarioError` naming every selection field that cannot be looked up. A
    tariff or hosting option not yet in effect is kept with its problem in
    :attr:`Choice.problems`, which :func:`resolve` reports with the rules' own.
    """
    attempt = _Attempts()
    builder = box_from_preset if selection.preset is not None else box_from_parts
    box = attempt(builder, selection, catalog)
    picked = default_choices(selection, None if box is None else box.hosting_kind)
    slugs = {item.field: item.value for item in picked}
    offering = attempt(_offering, selection.cloud_offering or slugs["cloud_offering"], catalog)
    tariff = attempt(_tariff, selection.tariff or slugs["tariff"], catalog)
    # the hosting's default needs the box: without one there is nothing to look up
    hosting_slug = selection.hosting or slugs.get("hosting")
    hosting = None if hosting_slug is None else attempt(_hosting, hosting_slug, catalog)
    benchmark = attempt(_benchmark, selection, catalog)
    attempt.check()
    assert offering is not None and tariff is not None and hosting is not None
    return Choice(
        selection=selection,
        box=box,
        offering=offering,
        tariff=tariff[0],
        hosting=hosting[0],
        benchmark=benchmark,
        defaulted=picked,
        problems=tuple(problem for problem in (tariff[1], hosting[1]) if problem is not None),
    )


# --- the rules: (choice, snapshot) → Ruling -------------------------------------------------


def parts_rule(choice: Choice, catalog: CatalogSnapshot) -> Ruling:
    """Parts → ``build.gpu_count``, ``build.capex`` and the box's power draw.

    ``capex`` = Σ quantity × unit price of each part in effect on the day, converted
    (GPU cards and GPU servers included); power as :func:`box_power`.
    """
    box = choice.box
    capex = Decimal(0)
    errors: list[FieldError] = []
    provenance: list[Provenance] = []
    for part, quantity in box.lines:
        price = catalog.part_price(part)
        if price is None:
            errors.append(
                FieldError(
                    "as_of",
                    gettext("no price for part '%(slug)s' on %(date)s")
                    % {"slug": part.slug, "date": catalog.day.isoformat()},
                )
            )
            continue
        try:
            unit, rate = convert(catalog, price.amount, price.currency, choice.currency)
        except Unresolvable as exc:
            errors.append(exc.error)
            continue
        capex += unit * quantity
        fields = ["build.capex"]
        if part.kind != PartKind.GPU:
            fields += ["build.power_load_watts", "build.power_idle_watts"]
        provenance.append(
            Provenance.of_price(
                gettext_noop("part"),
                part.name,
                price,
                fields,
                quantity=quantity,
                amount=price.amount,
                currency=price.currency,
                fx_rate=rate,
                converted_amount=unit,
                note=price.note,
            )
        )
    if errors:
        raise ScenarioError(errors)
    provenance.append(
        Provenance(
            role=gettext_noop("build GPU"),
            label=str(box.gpu),
            model="catalog.gpumodel",
            natural_key=[box.gpu.slug],
            fields=["build.gpu_count", "build.power_load_watts", "build.power_idle_watts"],
            quantity=box.gpu_count,
            source=box.gpu.source,
            note=(NOTE_GPU_POWER_SERVERS if box.node_count > 1 else NOTE_GPU_POWER)
            % {
                "count": box.gpu_count,
                "load": box.gpu.board_power_watts,
                "idle": box.gpu.idle_power_watts,
                "servers": box.node_count,
            },
        )
    )
    power = box_power(box)
    return Ruling(
        {
            "build.gpu_count": box.gpu_count,
            "build.capex": float(capex),
            "build.power_load_watts": float(power.load_watts),
            "build.power_idle_watts": float(power.idle_watts),
        },
        tuple(provenance),
    )


def tariff_price(tariff: Tariff) -> tuple[Decimal, str]:
    """Price per kWh [tariff currency]: flat, or the hour-weighted mean of time-of-use periods.

    A training box draws around the clock, so the hour-weighted mean is what it pays:
    ``Σ price × hours / Σ hours``.
    """
    if tariff.kind == TariffKind.FLAT:
        assert tariff.price_per_kwh is not None
        return tariff.price_per_kwh, ""
    periods = list(tariff.periods.all())
    hours = sum((p.hours_per_day for p in periods), Decimal(0))
    if not periods or hours == 0:
        raise Unresolvable(
            "tariff",
            gettext("time-of-use tariff '%(slug)s' has no periods") % {"slug": tariff.slug},
        )
    mean = sum((p.price_per_kwh * p.hours_per_day for p in periods), Decimal(0)) / hours
    detail = ", ".join(f"{p.name} {p.hours_per_day} h × {p.price_per_kwh}" for p in periods)
    return mean, f"hour-weighted mean of {detail} over {hours} h"


def electricity_rule(choice: Choice, catalog: CatalogSnapshot) -> Ruling:
    """Tariff → ``build.electricity_price_per_kwh``; 0 when the hosting fee includes power."""
    tariff = choice.tariff
    price_kwh, how = tariff_price(tariff)
    converted, rate = convert(catalog, price_kwh, tariff.currency, choice.currency)
    included = not choice.hosting.power_metered_separately
    item = Provenance.of_price(
        gettext_noop("electricity"),
        tariff.name,
        tariff,
        [] if included else ["build.electricity_price_per_kwh"],
        amount=price_kwh,
        currency=tariff.currency,
        fx_rate=rate,
        converted_amount=converted,
        note=NOTE_POWER_INCLUDED if included else how,
    )
    return Ruling(
        {"build.electricity_price_per_kwh": 0.0 if included else float(converted)}, (item,)
    )


def hosting_rule(choice: Choice, catalog: CatalogSnapshot) -> Ruling:
    """Hosting option → ``build.hosting_monthly`` and ``build.pue``.

    Notes
    -----
    ``fee = per-U fee × rack units + per-kW fee × load power [kW]`` (:func:`box_power`).
    """
    hosting = choice.hosting
    power = box_power(choice.box)
    load_kw = power.load_watts / 1000
    fee = hosting.per_u_monthly * power.rack_units + hosting.per_kw_monthly * load_kw
    converted, rate = convert(catalog, fee, hosting.currency, choice.currency)
    item = Provenance.of_price(
        gettext_noop("hosting"),
        hosting.name,
        hosting,
        ["build.hosting_monthly", "build.pue"],
        amount=fee,
        currency=hosting.currency,
        fx_rate=rate,
        converted_amount=converted,
        note=NOTE_HOSTING_FEE
        % {
            "per_u": hosting.per_u_monthly,
            "units": power.rack_units,
            "per_kw": hosting.per_kw_monthly,
            "kw": _money(load_kw),
            "pue": hosting.pue,
        },
    )
    return Ruling(
        {"build.hosting_monthly": float(converted), "build.pue": float(hosting.pue)}, (item,)
    )


def running_costs_rule(choice: Choice, catalog: CatalogSnapshot) -> Ruling:
    """Maintenance, resale retention, ops (converted) and useful life: the preset's figures,
    or for a custom box the :data:`DEFAULTS` (each reported as defaulted)."""
    preset = choice.box.preset
    if preset is None:
        defaulted = custom_box_defaults(choice.selection)
        values = {
            item.field: None if item.value is None else float(item.value) for item in defaulted
        }
        return Ruling(values, (), defaulted)
    ops, rate = convert(catalog, preset.ops_monthly, preset.ops_currency, choice.currency)
    items = [
        Provenance(
            role=gettext_noop("preset"),
            label=preset.name,
            model="catalog.buildpreset",
            natural_key=[preset.slug],
            fields=[
                "build.gpu_count",
                "build.gpu_throughput",
                "build.maintenance_rate_per_year",
                "build.ops_monthly",
            ],
            amount=preset.ops_monthly,
            currency=preset.ops_currency,
            fx_rate=rate,
            converted_amount=ops if rate is not None else None,
            note=preset.defaults_rationale,
        ),
        Provenance(
            role=gettext_noop("resale retention"),
            label=preset.name,
            model="catalog.buildpreset",
            natural_key=[preset.slug],
            fields=["build.residual_value_retention_per_year"],
            amount=preset.residual_value_retention_per_year,
            source=preset.retention_source,
            estimate=preset.retention_estimate,
        ),
    ]
    if preset.useful_life_months is not None:
        items.append(
            Provenance(
                role=gettext_noop("useful life"),
                label=preset.name,
                model="catalog.buildpreset",
                natural_key=[preset.slug],
                fields=["build.useful_life_months"],
                quantity=preset.useful_life_months,
                source=preset.useful_life_source,
                estimate=preset.useful_life_estimate,
                note=NOTE_MONTHS % {"months": preset.useful_life_months},
            )
        )
    values = {
        "build.maintenance_rate_per_year": float(preset.maintenance_rate_per_year),
        "build.residual_value_retention_per_year": float(preset.residual_value_retention_per_year),
        "build.ops_monthly": float(ops),
        "build.useful_life_months": preset.useful_life_months,
    }
    return Ruling(values, tuple(items))


def per_gpu_throughput(
    relative: Decimal,
    gpus_per_node: int,
    node_count: int = 1,
    scaling_efficiency: Decimal = Decimal(1),
    multi_node_scaling_efficiency: Decimal = Decimal(1),
) -> float:
    """Throughput of one GPU of a box, cluster or instance, reference = 1.0.

    Notes
    -----
    ``relative × e_node × e_cluster``, where ``e_node`` is the intra-node scaling
    efficiency (applied when a server has 2 or more GPUs) and ``e_cluster`` the
    multi-node one (applied when there are 2 or more servers). A single GPU runs
    at its benchmark figure.

    >>> per_gpu_throughput(Decimal("1.71"), 8, 4, Decimal("0.9"), Decimal("0.9"))
    1.38510...
    """
    intra = scaling_efficiency if gpus_per_node > 1 else Decimal(1)
    multi = multi_node_scaling_efficiency if node_count > 1 else Decimal(1)
    return float(relative * intra * multi)


def _throughput(
    catalog: CatalogSnapshot,
    role: str,
    gpu: GpuModel,
    benchmark: Benchmark,
    fields: list[str],
    *,
    gpus_per_node: int,
    node_count: int = 1,
    scaling_efficiency: Decimal = Decimal(1),
    multi_node_scaling_efficiency: Decimal = Decimal(1),
) -> tuple[float, Provenance]:
    """The GPU model's throughput on the benchmark, scaled (see :func:`per_gpu_throughput`)."""
    row = catalog.throughput(gpu, benchmark)
    if row is None:
        raise Unresolvable(
            "benchmark",
            gettext("no throughput for GPU model '%(gpu)s' on benchmark '%(benchmark)s'")
            % {"gpu": gpu.slug, "benchmark": benchmark.slug},
        )
    value = per_gpu_throughput(
        row.relative_throughput,
        gpus_per_node,
        node_count,
        scaling_efficiency,
        multi_node_scaling_efficiency,
    )
    notes = []
    if gpus_per_node > 1:
        notes.append(NOTE_SCALING % {"efficiency": scaling_efficiency, "gpus": gpus_per_node})
    if node_count > 1:
        notes.append(
            NOTE_MULTI_NODE % {"efficiency": multi_node_scaling_efficiency, "servers": node_count}
        )
    item = Provenance.of_price(
        role,
        str(row),
        row,
        fields,
        quantity=gpus_per_node * node_count,
        amount=row.relative_throughput,
        note="; ".join(notes) or row.note,
    )
    return value, item


def build_throughput_rule(choice: Choice, catalog: CatalogSnapshot) -> Ruling:
    """``build.gpu_throughput``: the box's GPU on the benchmark, with its scaling."""
    box = choice.box
    value, item = _throughput(
        catalog,
        gettext_noop("build throughput"),
        box.gpu,
        choice.benchmark,
        ["build.gpu_throughput"],
        gpus_per_node=box.gpus_per_node,
        node_count=box.node_count,
        scaling_efficiency=box.scaling_efficiency,
        multi_node_scaling_efficiency=box.multi_node_scaling_efficiency,
    )
    return Ruling({"build.gpu_throughput": value}, (item,))


def rent_throughput_rule(choice: Choice, catalog: CatalogSnapshot) -> Ruling:
    """``rent.gpu_count`` and ``rent.gpu_throughput``: the instance's GPUs on the benchmark."""
    offering = choice.offering
    value, item = _throughput(
        catalog,
        gettext_noop("rent throughput"),
        offering.gpu_model,
        choice.benchmark,
        ["rent.gpu_count", "rent.gpu_throughput"],
        gpus_per_node=offering.gpu_count,
        scaling_efficiency=offering.scaling_efficiency,
    )
    return Ruling({"rent.gpu_count": offering.gpu_count, "rent.gpu_throughput": value}, (item,))


def _rate_of(catalog: CatalogSnapshot, offering: CloudOffering) -> Any:
    row = catalog.rate(offering)
    if row is None:
        raise Unresolvable(
            "as_of",
            gettext("no rate for cloud offering '%(slug)s' on %(date)s")
            % {"slug": offering.slug, "date": catalog.day.isoformat()},
        )
    return row


def cloud_rate_rule(choice: Choice, catalog: CatalogSnapshot) -> Ruling:
    """The offering's rate on the day, converted, by pricing mode.

    - on-demand and spot: ``rent.hourly_rate``;
    - 1- or 3-year commitment: ``rent.committed_hourly_rate``, ``rent.commitment_term_months``
      and ``rent.commitment_upfront_per_instance`` (converted). The rate of the hours beyond
      the commitment is :func:`overflow_rate_rule`'s; the count, :func:`commitment_rule`'s.
    """
    offering = choice.offering
    row = _rate_of(catalog, offering)
    converted, rate = convert(catalog, row.hourly_rate, row.currency, choice.currency)
    items: list[Provenance] = []
    values: dict[str, Any]
    if offering.is_commitment:
        values = {
            "rent.committed_hourly_rate": float(converted),
            "rent.commitment_term_months": offering.commitment_term_months,
        }
        upfront = offering.commitment_upfront_per_instance
        if upfront:
            upfront_converted, upfront_rate = convert(
                catalog, upfront, offering.commitment_upfront_currency, choice.currency
            )
            values["rent.commitment_upfront_per_instance"] = float(upfront_converted)
            items.append(
                Provenance(
                    role=gettext_noop("commitment upfront"),
                    label=str(offering),
                    model="catalog.cloudoffering",
                    natural_key=[offering.slug],
                    fields=["rent.commitment_upfront_per_instance"],
                    amount=upfront,
                    currency=offering.commitment_upfront_currency,
                    fx_rate=upfront_rate,
                    converted_amount=upfront_converted,
                )
            )
    else:
        values = {"rent.hourly_rate": float(converted)}
    fields = [path for path in values if path != "rent.commitment_upfront_per_instance"]
    items.insert(
        0,
        Provenance.of_price(
            gettext_noop("cloud rate"),
            str(offering),
            row,
            fields,
            amount=row.hourly_rate,
            currency=row.currency,
            fx_rate=rate,
            converted_amount=converted,
            note=row.note,
        ),
    )
    return Ruling(values, tuple(items))


def overflow_rate_rule(choice: Choice, catalog: CatalogSnapshot) -> Ruling:
    """A commitment's ``rent.hourly_rate``: the hours beyond the committed instances at the
    rate of the offering's on-demand sibling; without a sibling (or without a sibling rate on
    the day) at the committed rate, said so in the provenance. Nothing for other modes."""
    offering = choice.offering
    if not offering.is_commitment:
        return Ruling({})
    sibling = offering.on_demand_sibling
    sibling_rate = catalog.rate(sibling) if sibling is not None else None
    if sibling is None or sibling_rate is None:
        own = _rate_of(catalog, offering)
        converted, _rate = convert(catalog, own.hourly_rate, own.currency, choice.currency)
        note = (
            NOTE_OVERFLOW_NO_SIBLING
            if sibling is None
            else NOTE_OVERFLOW_NO_SIBLING_RATE
            % {"sibling": sibling.slug, "day": catalog.day.isoformat()}
        )
        item = Provenance(
            role=gettext_noop("overflow rate"),
            label=str(offering),
            model="catalog.cloudoffering",
            natural_key=[offering.slug],
            fields=["rent.hourly_rate"],
            note=note,
        )
        return Ruling({"rent.hourly_rate": float(converted)}, (item,))
    converted, rate = convert(
        catalog, sibling_rate.hourly_rate, sibling_rate.currency, choice.currency
    )
    item = Provenance.of_price(
        gettext_noop("overflow rate"),
        str(sibling),
        sibling_rate,
        ["rent.hourly_rate"],
        amount=sibling_rate.hourly_rate,
        currency=sibling_rate.currency,
        fx_rate=rate,
        converted_amount=converted,
        note=NOTE_OVERFLOW,
    )
    return Ruling({"rent.hourly_rate": float(converted)}, (item,))


def rework_rule(choice: Choice, catalog: CatalogSnapshot) -> Ruling:
    """A spot offering's ``rent.rework_fraction`` (0 when the catalog has none, said so)."""
    offering = choice.offering
    if offering.pricing_mode != PricingMode.SPOT:
        return Ruling({})
    rework = offering.rework_fraction
    item = Provenance(
        role=gettext_noop("spot rework"),
        label=str(offering),
        model="catalog.cloudoffering",
        natural_key=[offering.slug],
        fields=["rent.rework_fraction"],
        amount=rework,
        source=offering.rework_source,
        estimate=offering.rework_estimate,
        note="" if rework is not None else NOTE_NO_REWORK,
    )
    return Ruling({"rent.rework_fraction": float(rework or 0)}, (item,))


RULES: tuple[Callable[[Choice, CatalogSnapshot], Ruling], ...] = (
    parts_rule,
    build_throughput_rule,
    running_costs_rule,
    electricity_rule,
    hosting_rule,
    cloud_rate_rule,
    overflow_rate_rule,
    rework_rule,
    rent_throughput_rule,
)
"""The rules that read only the choice and the snapshot, in the order their provenance is
listed."""


def commitment_reason(table: dict[str, Any], currency: str, horizon_months: int) -> str:
    """Why the engine's cheapest count was chosen, in words (translated), from its
    :func:`costmodel.operations.commitment_table`."""
    rows = table["rows"]
    best = table["best_committed_instances"]
    cheapest = rows[best]["rent_present_value"]
    params = {
        "count": best,
        "months": horizon_months,
        "cost": f"{cheapest:,.0f} {currency}",
        "top": table["max_instances"],
    }
    if best == 0:
        if len(rows) < 2:
            return gettext("nothing committed: the workload asks for no work in any month")
        params["other"] = f"{rows[1]['rent_present_value']:,.0f} {currency}"
        return (
            gettext(
                "nothing committed is the cheapest: renting every hour on demand costs "
                "%(cost)s over %(months)d months in present value, against %(other)s with "
                "one committed instance (0 to %(top)d weighed)"
            )
            % params
        )
    params["none"] = f"{rows[0]['rent_present_value']:,.0f} {currency}"
    return (
        ngettext(
            "%(count)d committed instance is the cheapest: the rent side costs %(cost)s over "
            "%(months)d months in present value, against %(none)s with none (0 to %(top)d "
            "weighed, the most the busiest month needs)",
            "%(count)d committed instances are the cheapest: the rent side costs %(cost)s "
            "over %(months)d months in present value, against %(none)s with none (0 to "
            "%(top)d weighed, the most the busiest month needs)",
            best,
        )
        % params
    )


def commitment_rule(choice: Choice, catalog: CatalogSnapshot, draft: Scenario) -> Ruling:
    """``rent.committed_instances`` of a commitment: the count the selection gives, or by
    default the engine's cheapest (``best_committed_instances`` of
    :func:`costmodel.operations.commitment_table`: the lowest rent present value over
    0..K instances). Reads the draft scenario (every other field resolved, nothing
    committed) and changes nothing. Nothing for other pricing modes."""
    offering = choice.offering
    if not offering.is_commitment:
        return Ruling({})
    selection = choice.selection
    defaulted: tuple[Defaulted, ...] = ()
    if selection.committed_instances is not None:
        count = selection.committed_instances
        note = gettext("the count given in the selection")
    else:
        table = commitment_table(draft)
        count = table["best_committed_instances"]
        note = commitment_reason(table, draft.currency, draft.horizon_months)
        defaulted = (Defaulted("committed_instances", count, note),)
    item = Provenance(
        role=gettext_noop("committed instances"),
        label=str(offering),
        model="catalog.cloudoffering",
        natural_key=[offering.slug],
        fields=["rent.committed_instances"],
        quantity=count,
        note=note,
    )
    return Ruling({"rent.committed_instances": count}, (item,), defaulted)


# --- resolve --------------------------------------------------------------------------------


def _scenario_data(selection: Selection, choice: Choice, values: dict[str, Any]) -> dict[str, Any]:
    # the name a person sees (and may change): in the language of the one who planned it
    box = choice.box
    build_name = box.preset.localized_name() if box.preset is not None else box.label
    name = gettext("%(build)s vs %(rent)s") % {
        "build": build_name,
        "rent": choice.offering.localized_name(),
    }
    data: dict[str, Any] = {
        "name": name[:200],
        "currency": selection.currency,
        "horizon_months": selection.horizon_months,
        "discount_rate_per_year": selection.discount_rate_per_year,
        "workload": selection.workload.model_dump(mode="json"),
        "build": {},
        "rent": {},
    }
    for path, value in values.items():
        data = with_path(data, path, value)
    return data


def _merge(rulings: Iterable[Ruling]) -> dict[str, Any]:
    """Every ruling's fields in one mapping; a field two rules set is a programming error."""
    values: dict[str, Any] = {}
    for ruling in rulings:
        twice = values.keys() & ruling.values.keys()
        if twice:
            raise AssertionError(f"fields set by two rules: {sorted(twice)}")
        values.update(ruling.values)
    return values


def resolve(selection: Selection, catalog: CatalogSnapshot | None = None) -> Resolution:
    """Turn a :class:`Selection` into an explicit scenario, its provenance and its defaults.

    ``catalog`` is the snapshot of the selection's day to read (shared by the resolutions
    of one request); without one, or for another day, the catalog of that day is read.

    Raises :class:`costmodel.ScenarioError` naming the selection's field for
    anything that cannot be resolved (unknown slug, no price on the date, …).
    """
    if catalog is None or catalog.day != selection.day:
        catalog = CatalogSnapshot(selection.day)
    choice = choose(selection, catalog)
    attempt = _Attempts()
    attempt.errors.extend(choice.problems)
    rulings = [attempt(rule, choice, catalog) for rule in RULES]
    attempt.check()
    values = _merge(rulings)
    draft = parse_scenario(_scenario_data(selection, choice, values))
    rulings.append(attempt(commitment_rule, choice, catalog, draft))
    attempt.check()
    scenario = parse_scenario(_scenario_data(selection, choice, _merge(rulings)))
    provenance = [item for ruling in rulings for item in ruling.provenance]
    provenance += fx_provenance(catalog, provenance, selection.currency)
    return Resolution(
        scenario=scenario,
        provenance=[item.as_dict() for item in provenance],
        defaulted=[*choice.defaulted, *(item for ruling in rulings for item in ruling.defaulted)],
    )


def resolve_data(data: object, catalog: CatalogSnapshot | None = None) -> Resolution:
    """Parse decoded JSON as a :class:`Selection` and resolve it (one call for the edges)."""
    return resolve(parse_selection(data), catalog)
