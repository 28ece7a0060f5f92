"""Catalog → explicit scenario: the only place catalog rows become engine inputs.

A :class:`Selection` names catalog rows by slug (a preset or a custom parts
list, a cloud offering, a tariff, a hosting option, a benchmark) plus the
workload, horizon, currency, discount rate and an "as of" date. :func:`resolve`
looks up every figure in effect on that date (through
:mod:`webapp.catalog.selectors`), converts money into the selection's currency
at the FX rate in effect on that date, and returns the explicit
:class:`costmodel.Scenario` with a provenance record naming every row used.

No cost is computed here: only inputs are assembled. Each rule of
``docs/catalog.md`` is one function below:

- :func:`parts_rule` — parts → ``build.capex``, power draw and rack units;
- :func:`electricity_rule` — tariff → ``build.electricity_price_per_kwh``;
- :func:`hosting_rule` — hosting option → ``build.hosting_monthly`` and ``build.pue``;
- :func:`preset_defaults_rule` — maintenance, resale retention, ops, useful life;
- :func:`throughput_rule` / :func:`per_gpu_throughput` — per-GPU throughput with
  intra- and multi-node scaling, for the box and the instance;
- :func:`cloud_rate_rule` — the offering's rate and pricing mode (on-demand,
  spot with its rework fraction, commitments with their on-demand sibling);
- :func:`default_committed_instances` — how many instances a commitment reserves
  when the selection does not say.

Converted money keeps full decimal precision (no rounding) and is handed to the
engine as float; the FX rate used is recorded in the provenance.
"""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Annotated, Any, Literal, Self, TypeVar

from django.utils.translation import gettext, gettext_noop
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from costmodel import FieldError, Scenario, ScenarioError, Workload, field_errors, parse_scenario
from costmodel.scenario import HOURS_PER_MONTH, MAX_HORIZON_MONTHS
from webapp.catalog import selectors
from webapp.catalog.models import (
    GPU_CARRYING_KINDS,
    RACK_KINDS,
    Benchmark,
    BuildPreset,
    CloudOffering,
    GpuModel,
    HostingOption,
    Part,
    PartKind,
    PricingMode,
    Tariff,
    TariffKind,
)

CUSTOM_BOX_DEFAULTS = {
    "maintenance_rate_per_year": Decimal("0.05"),
    "residual_value_retention_per_year": Decimal("0.70"),
    "ops_monthly": Decimal(0),
}
"""Running-cost defaults for a custom parts list (presets carry their own)."""

T = TypeVar("T")


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
    """What the user picked, by catalog slug; the resolver's input."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    preset: str | None = None
    parts: Annotated[list[PartLine], Field(min_length=1, max_length=100)] | None = None
    gpu_model: str | None = None
    gpu_count: Annotated[int, Field(ge=1, le=1000)] | None = None
    scaling_efficiency: Efficiency | None = None
    multi_node_scaling_efficiency: Efficiency | None = None
    cloud_offering: str
    committed_instances: Annotated[int, Field(ge=0, le=100_000)] | None = None
    tariff: str
    hosting: str
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


def parse_selection(data: object) -> Selection:
    """Validate decoded JSON as a :class:`Selection` or raise :class:`ScenarioError`."""
    if not isinstance(data, dict):
        raise ScenarioError([FieldError("(selection)", gettext("must be a JSON object"))])
    try:
        return Selection.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(field_errors(exc)) from None


# --- provenance -----------------------------------------------------------------------------


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
        key = list(row.natural_key()) if hasattr(row, "natural_key") else [row.slug]
        return cls(
            role=role,
            label=label,
            model=row._meta.label_lower,
            natural_key=key,
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


@dataclass
class Resolution:
    """An explicit scenario and the catalog rows every figure came from."""

    scenario: Scenario
    provenance: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"scenario": self.scenario.model_dump(mode="json"), "provenance": self.provenance}


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
NOTE_SET_BY_SELECTION = gettext_noop("set by the selection")
NOTE_MONTHS = gettext_noop("%(months)s months")
NOTE_COMMITTED_DEFAULT = gettext_noop(
    "default: %(count)s, the fewest instances that cover the average need of %(need)s instances"
)
NOTES = (
    NOTE_GPU_POWER_SERVERS,
    NOTE_GPU_POWER,
    NOTE_HOSTING_FEE,
    NOTE_POWER_INCLUDED,
    NOTE_SCALING,
    NOTE_MULTI_NODE,
    NOTE_NO_REWORK,
    NOTE_OVERFLOW,
    NOTE_SET_BY_SELECTION,
    NOTE_COMMITTED_DEFAULT,
    NOTE_MONTHS,
)
"""Every note template, the longer of two that share a beginning first."""

# --- currency -------------------------------------------------------------------------------


class Converter:
    """Converts money into the target currency at the rates in effect on one date.

    An amount in currency X becomes ``amount × rate`` with the rate of the pair
    X→Y, or ``amount / rate`` of the pair Y→X, whichever is newer on ``as_of``.
    """

    def __init__(self, target: str, as_of: datetime.date) -> None:
        self.target = target
        self.as_of = as_of
        self.rates_used: dict[tuple[str, str], Any] = {}
        self._multipliers: dict[str, Decimal] = {}

    def multiplier(self, currency: str) -> Decimal:
        if currency == self.target:
            return Decimal(1)
        if currency not in self._multipliers:
            row = selectors.fx_rate_on(currency, self.target, self.as_of)
            if row is None:
                raise Unresolvable(
                    "as_of",
                    gettext("no FX rate %(base)s→%(quote)s on %(date)s")
                    % {"base": currency, "quote": self.target, "date": self.as_of.isoformat()},
                )
            self.rates_used[(row.base_currency, row.quote_currency)] = row
            self._multipliers[currency] = row.multiplier(currency)
        return self._multipliers[currency]

    def convert(self, amount: Decimal, currency: str) -> tuple[Decimal, str | None]:
        """``amount`` in the target currency, and the multiplier used (``None``: none needed)."""
        multiplier = self.multiplier(currency)
        return amount * multiplier, None if currency == self.target else _money(multiplier)

    def provenance(self) -> list[Provenance]:
        return [
            Provenance.of_price(
                gettext_noop("fx"),
                str(row),
                row,
                [],
                amount=row.rate,
                currency=quote,
                note=row.note,
            )
            for (_base, quote), row in sorted(self.rates_used.items())
        ]


# --- looking rows up ------------------------------------------------------------------------


def _get(model: type[T], slug: str, field_name: str, what: str) -> T:
    row = selectors.by_slug(model, slug)  # type: ignore[type-var]
    if row is None:
        raise Unresolvable(
            field_name,
            gettext("no %(what)s with slug '%(slug)s'") % {"what": gettext(what), "slug": slug},
        )
    return row


def _in_effect(row: Any, as_of: datetime.date, what: str) -> None:
    if row.effective_date > as_of:
        raise Unresolvable(
            "as_of",
            gettext("%(what)s '%(slug)s' is effective from %(start)s, after %(date)s")
            % {
                "what": gettext(what),
                "slug": row.slug,
                "start": row.effective_date.isoformat(),
                "date": as_of.isoformat(),
            },
        )


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
    maintenance: Decimal
    retention: Decimal
    ops_monthly: Decimal
    ops_currency: str
    useful_life_months: int | None
    preset: BuildPreset | None

    @property
    def gpus_per_node(self) -> int:
        return self.gpu_count // self.node_count


def _decimal(value: float | None, default: Decimal) -> Decimal:
    return default if value is None else Decimal(str(value))


def box_from_preset(selection: Selection) -> Box:
    preset = selectors.preset_for_resolution(selection.preset or "")
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
        maintenance=preset.maintenance_rate_per_year,
        retention=preset.residual_value_retention_per_year,
        ops_monthly=preset.ops_monthly,
        ops_currency=preset.ops_currency,
        useful_life_months=preset.useful_life_months,
        preset=preset,
    )


def box_from_parts(selection: Selection) -> Box:
    """A custom parts list; its GPUs are its GPU cards and the GPUs of its GPU servers."""
    assert selection.parts is not None
    found = selectors.parts_by_slug(line.part for line in selection.parts)
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
        maintenance=CUSTOM_BOX_DEFAULTS["maintenance_rate_per_year"],
        retention=CUSTOM_BOX_DEFAULTS["residual_value_retention_per_year"],
        ops_monthly=CUSTOM_BOX_DEFAULTS["ops_monthly"],
        ops_currency=selection.currency,
        useful_life_months=None,
        preset=None,
    )


# --- the rules ------------------------------------------------------------------------------


@dataclass(frozen=True)
class BoxPower:
    """What the parts add up to (in the selection's currency, watts and rack units)."""

    capex: Decimal
    load_watts: Decimal
    idle_watts: Decimal
    rack_units: int


def parts_rule(box: Box, as_of: datetime.date, fx: Converter) -> tuple[BoxPower, list[Provenance]]:
    """Parts → capex, power draw and rack units.

    - ``capex`` = Σ quantity × unit price of each part in effect on ``as_of``, converted
      (GPU cards and GPU servers included);
    - ``load`` = GPU board power × GPU count + Σ quantity × load draw of every part that
      is not a GPU card (a GPU server's own draw is what it uses besides its GPUs);
      ``idle`` likewise;
    - ``rack_units`` = Σ quantity × height of chassis, GPU servers and network gear.
    """
    prices = selectors.part_prices_on([part for part, _ in box.lines], as_of)
    capex = Decimal(0)
    load = Decimal(box.gpu.board_power_watts * box.gpu_count)
    idle = Decimal(box.gpu.idle_power_watts * box.gpu_count)
    rack_units = 0
    errors: list[FieldError] = []
    provenance: list[Provenance] = []
    for part, quantity in box.lines:
        price = prices.get(part.pk)
        if price is None:
            errors.append(
                FieldError(
                    "as_of",
                    gettext("no price for part '%(slug)s' on %(date)s")
                    % {"slug": part.slug, "date": as_of.isoformat()},
                )
            )
            continue
        try:
            unit, rate = fx.convert(price.amount, price.currency)
        except Unresolvable as exc:
            errors.append(exc.error)
            continue
        capex += unit * quantity
        fields = ["build.capex"]
        if part.kind != PartKind.GPU:
            load += part.load_power_watts * quantity
            idle += part.idle_power_watts * quantity
            fields += ["build.power_load_watts", "build.power_idle_watts"]
        if part.kind in RACK_KINDS:
            rack_units += part.rack_units * quantity
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
    return BoxPower(capex, load, idle, rack_units), provenance


def tariff_price(tariff: Tariff) -> tuple[Decimal, str]:
    """Price per kWh [tariff currency]: flat, or the hour-weighted mean of time-of-use periods.

    A training box draws around the clock, so the hour-weighted mean is what it pays:
    ``Σ price × hours / Σ hours``.
    """
    if tariff.kind == TariffKind.FLAT:
        assert tariff.price_per_kwh is not None
        return tariff.price_per_kwh, ""
    periods = selectors.tariff_periods(tariff)
    hours = sum((p.hours_per_day for p in periods), Decimal(0))
    if not periods or hours == 0:
        raise Unresolvable(
            "tariff",
            gettext("time-of-use tariff '%(slug)s' has no periods") % {"slug": tariff.slug},
        )
    mean = sum((p.price_per_kwh * p.hours_per_day for p in periods), Decimal(0)) / hours
    detail = ", ".join(f"{p.name} {p.hours_per_day} h × {p.price_per_kwh}" for p in periods)
    return mean, f"hour-weighted mean of {detail} over {hours} h"


def electricity_rule(
    tariff: Tariff, hosting: HostingOption, fx: Converter
) -> tuple[dict[str, float], Provenance]:
    """Tariff → ``build.electricity_price_per_kwh``; 0 when the hosting fee includes power."""
    price_kwh, how = tariff_price(tariff)
    converted, rate = fx.convert(price_kwh, tariff.currency)
    included = not hosting.power_metered_separately
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
    return {"electricity_price_per_kwh": 0.0 if included else float(converted)}, item


def hosting_rule(
    hosting: HostingOption, power: BoxPower, fx: Converter
) -> tuple[dict[str, float], Provenance]:
    """Hosting option → ``build.hosting_monthly`` and ``build.pue``.

    The fee is per-U fee × rack units + per-kW fee × load power [kW].
    """
    load_kw = power.load_watts / 1000
    fee = hosting.per_u_monthly * power.rack_units + hosting.per_kw_monthly * load_kw
    converted, rate = fx.convert(fee, hosting.currency)
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
    return {"hosting_monthly": float(converted), "pue": float(hosting.pue)}, item


def preset_defaults_rule(box: Box, fx: Converter) -> tuple[dict[str, Any], list[Provenance]]:
    """Maintenance, resale retention, ops (converted) and useful life: the preset's defaults."""
    ops, _rate = fx.convert(box.ops_monthly, box.ops_currency)
    values: dict[str, Any] = {
        "maintenance_rate_per_year": float(box.maintenance),
        "residual_value_retention_per_year": float(box.retention),
        "ops_monthly": float(ops),
        "useful_life_months": box.useful_life_months,
    }
    preset = box.preset
    if preset is None:
        return values, []
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
            amount=box.ops_monthly,
            currency=box.ops_currency,
            note=preset.defaults_rationale,
        ),
        Provenance(
            role=gettext_noop("resale retention"),
            label=preset.name,
            model="catalog.buildpreset",
            natural_key=[preset.slug],
            fields=["build.residual_value_retention_per_year"],
            amount=box.retention,
            source=preset.retention_source,
            estimate=preset.retention_estimate,
        ),
    ]
    if box.useful_life_months is not None:
        items.append(
            Provenance(
                role=gettext_noop("useful life"),
                label=preset.name,
                model="catalog.buildpreset",
                natural_key=[preset.slug],
                fields=["build.useful_life_months"],
                quantity=box.useful_life_months,
                source=preset.useful_life_source,
                estimate=preset.useful_life_estimate,
                note=NOTE_MONTHS % {"months": box.useful_life_months},
            )
        )
    return values, items


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


def throughput_rule(
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
    row = selectors.throughput(gpu, benchmark)
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


def average_demand(workload: Any, horizon_months: int) -> float:
    """Mean work wanted per month over the horizon, as a multiple of the box's 730 h [-].

    steady: ``u``; tidal: ``min(d × h, 730) / 730``; profile: the mean of
    ``u[(m − 1) mod n]`` over months ``1..H`` (the profile applied cyclically).
    """
    if workload.kind == "steady":
        return float(workload.utilization)
    if workload.kind == "tidal":
        hours = workload.active_days_per_month * workload.hours_per_active_day
        return float(min(hours, HOURS_PER_MONTH) / HOURS_PER_MONTH)
    values = workload.monthly_utilization
    return float(sum(values[m % len(values)] for m in range(horizon_months)) / horizon_months)


def average_instance_need(
    demand: float, capacity_ratio: float, rework_fraction: float = 0.0
) -> float:
    """Instances the average month keeps busy [instances]: ``demand × capacity_ratio ×
    (1 + rework_fraction)`` (``demand`` in boxes' worth of work, 1.0 = one box all month)."""
    return demand * capacity_ratio * (1 + rework_fraction)


def default_committed_instances(
    demand: float, capacity_ratio: float, rework_fraction: float = 0.0
) -> int:
    """The smallest count of instances whose hours cover the average instance-hours.

    Notes
    -----
    ``ceil(demand × capacity_ratio × (1 + rework_fraction))``: ``demand × 730`` box-hours
    a month need ``demand × 730 × capacity_ratio × (1 + rework)`` instance-hours, and
    one committed instance gives 730 of them. (A hair of tolerance keeps an exact
    whole number from rounding up through float error.)

    >>> default_committed_instances(0.5, 4.0), default_committed_instances(0.9, 1.1)
    (2, 1)
    """
    needed = average_instance_need(demand, capacity_ratio, rework_fraction)
    return max(math.ceil(needed - 1e-9), 0)


@dataclass(frozen=True)
class CloudTerms:
    """The offering's figures in the selection's currency, before the commitment count."""

    rent: dict[str, Any]
    provenance: list[Provenance]
    is_commitment: bool


def _rate_of(
    offering: CloudOffering, as_of: datetime.date, fx: Converter
) -> tuple[Any, Decimal, str | None]:
    row = selectors.rate_on(offering, as_of)
    if row is None:
        raise Unresolvable(
            "as_of",
            gettext("no rate for cloud offering '%(slug)s' on %(date)s")
            % {"slug": offering.slug, "date": as_of.isoformat()},
        )
    converted, rate = fx.convert(row.hourly_rate, row.currency)
    return row, converted, rate


def cloud_rate_rule(offering: CloudOffering, as_of: datetime.date, fx: Converter) -> CloudTerms:
    """The offering's rate and pricing mode → the rent side's price fields.

    - on-demand: ``hourly_rate``;
    - spot: ``hourly_rate`` and ``rework_fraction`` (the offering's; 0 if not set);
    - 1- or 3-year commitment: ``committed_hourly_rate``, ``commitment_term_months``,
      ``commitment_upfront_per_instance`` (converted), and as ``hourly_rate`` for the hours
      beyond the committed instances the rate of the offering's on-demand sibling; without
      a sibling (or without a sibling rate on ``as_of``) the committed rate, said so in the
      provenance. The committed count is set by :func:`resolve`.
    """
    row, converted, rate = _rate_of(offering, as_of, fx)
    fields = ["rent.hourly_rate"]
    rent: dict[str, Any] = {}
    items: list[Provenance] = []
    if offering.is_commitment:
        fields = ["rent.committed_hourly_rate", "rent.commitment_term_months"]
        rent["committed_hourly_rate"] = float(converted)
        rent["commitment_term_months"] = offering.commitment_term_months
        upfront = offering.commitment_upfront_per_instance
        if upfront:
            upfront_converted, upfront_rate = fx.convert(
                upfront, offering.commitment_upfront_currency
            )
            rent["commitment_upfront_per_instance"] = float(upfront_converted)
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
        items.append(_overflow_rate(offering, as_of, fx, converted, rent))
    else:
        rent["hourly_rate"] = float(converted)
    if offering.pricing_mode == PricingMode.SPOT:
        rework = offering.rework_fraction
        rent["rework_fraction"] = float(rework or 0)
        items.append(
            Provenance(
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
        )
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
    return CloudTerms(rent, items, offering.is_commitment)


def _overflow_rate(
    offering: CloudOffering,
    as_of: datetime.date,
    fx: Converter,
    committed_rate: Decimal,
    rent: dict[str, Any],
) -> Provenance:
    """The on-demand sibling's rate for hours beyond the commitment (or the committed rate)."""
    sibling = offering.on_demand_sibling
    sibling_rate = selectors.rate_on(sibling, as_of) if sibling is not None else None
    if sibling is None or sibling_rate is None:
        rent["hourly_rate"] = float(committed_rate)
        why = (
            "no on-demand sibling in the catalog"
            if sibling is None
            else f"the on-demand sibling {sibling.slug} has no rate on {as_of.isoformat()}"
        )
        return Provenance(
            role=gettext_noop("overflow rate"),
            label=str(offering),
            model="catalog.cloudoffering",
            natural_key=[offering.slug],
            fields=["rent.hourly_rate"],
            note=f"{why}: hours beyond the committed instances are billed at the committed rate",
        )
    converted, rate = fx.convert(sibling_rate.hourly_rate, sibling_rate.currency)
    rent["hourly_rate"] = float(converted)
    return Provenance.of_price(
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


def commitment_rule(
    selection: Selection, build: dict[str, Any], rent: dict[str, Any], offering: CloudOffering
) -> tuple[int, Provenance]:
    """``rent.committed_instances``: the selection's count, or :func:`default_committed_instances`.

    The default reads the workload's average demand over the horizon (an input
    choice, not a cost) and the capacity ratio of the two sides.
    """
    capacity_ratio = (build["gpu_count"] * build["gpu_throughput"]) / (
        rent["gpu_count"] * rent["gpu_throughput"]
    )
    demand = average_demand(selection.workload, selection.horizon_months)
    if selection.committed_instances is not None:
        count = selection.committed_instances
        note = NOTE_SET_BY_SELECTION
    else:
        count = default_committed_instances(demand, capacity_ratio, rent.get("rework_fraction", 0))
        need = average_instance_need(demand, capacity_ratio, rent.get("rework_fraction", 0))
        note = NOTE_COMMITTED_DEFAULT % {"count": count, "need": f"{need:.3g}"}
    item = Provenance(
        role=gettext_noop("committed instances"),
        label=str(offering),
        model="catalog.cloudoffering",
        natural_key=[offering.slug],
        fields=["rent.committed_instances"],
        quantity=count,
        note=note,
    )
    return count, item


# --- resolve --------------------------------------------------------------------------------


class _Attempts:
    """Runs rules, collecting every failure so that one answer names all problems."""

    def __init__(self) -> None:
        self.errors: list[FieldError] = []
        self.provenance: list[Provenance] = []

    def __call__(self, rule: Callable[..., T], *args: Any) -> T | None:
        try:
            return rule(*args)
        except Unresolvable as exc:
            self.errors.append(exc.error)
        except ScenarioError as exc:
            self.errors.extend(exc.errors)
        return None

    def check(self) -> None:
        if self.errors:
            raise ScenarioError(list(dict.fromkeys(self.errors)))


def _offering(slug: str) -> CloudOffering:
    offering = selectors.offering_for_resolution(slug)
    if offering is None:
        raise Unresolvable(
            "cloud_offering",
            gettext("no %(what)s with slug '%(slug)s'")
            % {"what": gettext("cloud offering"), "slug": slug},
        )
    return offering


def _lookups(selection: Selection, attempt: _Attempts, as_of: datetime.date) -> tuple[Any, ...]:
    box = attempt(box_from_preset if selection.preset is not None else box_from_parts, selection)
    offering = attempt(_offering, selection.cloud_offering)
    tariff = attempt(_get, Tariff, selection.tariff, "tariff", "electricity tariff")
    hosting = attempt(_get, HostingOption, selection.hosting, "hosting", "hosting option")
    benchmark = attempt(_get, Benchmark, selection.benchmark, "benchmark", "benchmark")
    attempt.check()
    attempt(_in_effect, tariff, as_of, "tariff")
    attempt(_in_effect, hosting, as_of, "hosting option")
    return box, offering, tariff, hosting, benchmark


def _collect(attempt: _Attempts, target: dict[str, Any], result: Any) -> None:
    """Merge a rule's ``(values, provenance)`` into ``target`` (nothing if the rule failed)."""
    if result is None:
        return
    values, items = result
    target.update(values)
    attempt.provenance.extend(items if isinstance(items, list) else [items])


def resolve(selection: Selection) -> Resolution:
    """Turn a :class:`Selection` into an explicit scenario plus provenance.

    Raises :class:`costmodel.ScenarioError` naming the selection's field for
    anything that cannot be resolved (unknown slug, no price on the date, …).
    """
    as_of = selection.as_of or datetime.date.today()
    fx = Converter(selection.currency, as_of)
    attempt = _Attempts()
    box, offering, tariff, hosting, benchmark = _lookups(selection, attempt, as_of)
    build: dict[str, Any] = {"gpu_count": box.gpu_count}
    rent: dict[str, Any] = {"gpu_count": offering.gpu_count, "fixed_monthly": 0.0}

    parts = attempt(parts_rule, box, as_of, fx)
    if parts is not None:
        power, items = parts
        build.update(
            capex=float(power.capex),
            power_load_watts=float(power.load_watts),
            power_idle_watts=float(power.idle_watts),
        )
        attempt.provenance.extend(items)
    _collect(attempt, build, _throughput(attempt, box, benchmark))
    _collect(attempt, build, attempt(preset_defaults_rule, box, fx))
    _collect(attempt, build, attempt(electricity_rule, tariff, hosting, fx))
    if parts is not None:
        _collect(attempt, build, attempt(hosting_rule, hosting, parts[0], fx))
    terms = attempt(cloud_rate_rule, offering, as_of, fx)
    if terms is not None:
        rent.update(terms.rent)
        attempt.provenance.extend(terms.provenance)
    _collect(attempt, rent, _rent_throughput(attempt, offering, benchmark))
    attempt.check()
    if terms is not None and terms.is_commitment:
        count, item = commitment_rule(selection, build, rent, offering)
        rent["committed_instances"] = count
        attempt.provenance.append(item)
    attempt.provenance.extend(fx.provenance())
    return Resolution(
        scenario=parse_scenario(_scenario_data(selection, box, offering, build, rent)),
        provenance=[item.as_dict() for item in attempt.provenance],
    )


def _throughput(attempt: _Attempts, box: Box, benchmark: Benchmark) -> Any:
    result = attempt(
        lambda: throughput_rule(
            gettext_noop("build throughput"),
            box.gpu,
            benchmark,
            ["build.gpu_throughput"],
            gpus_per_node=box.gpus_per_node,
            node_count=box.node_count,
            scaling_efficiency=box.scaling_efficiency,
            multi_node_scaling_efficiency=box.multi_node_scaling_efficiency,
        )
    )
    return None if result is None else ({"gpu_throughput": result[0]}, result[1])


def _rent_throughput(attempt: _Attempts, offering: CloudOffering, benchmark: Benchmark) -> Any:
    result = attempt(
        lambda: throughput_rule(
            gettext_noop("rent throughput"),
            offering.gpu_model,
            benchmark,
            ["rent.gpu_count", "rent.gpu_throughput"],
            gpus_per_node=offering.gpu_count,
            scaling_efficiency=offering.scaling_efficiency,
        )
    )
    return None if result is None else ({"gpu_throughput": result[0]}, result[1])


def _scenario_data(
    selection: Selection,
    box: Box,
    offering: CloudOffering,
    build: dict[str, Any],
    rent: dict[str, Any],
) -> dict[str, Any]:
    if build.get("useful_life_months") is None:
        build.pop("useful_life_months", None)
    # the name a person sees (and may change): in the language of the one who planned it
    build_name = box.preset.localized_name() if box.preset is not None else box.label
    name = gettext("%(build)s vs %(rent)s") % {
        "build": build_name,
        "rent": offering.localized_name(),
    }
    return {
        "name": name[:200],
        "currency": selection.currency,
        "horizon_months": selection.horizon_months,
        "discount_rate_per_year": selection.discount_rate_per_year,
        "workload": selection.workload.model_dump(mode="json"),
        "build": build,
        "rent": rent,
    }


def resolve_data(data: object) -> Resolution:
    """Parse decoded JSON as a :class:`Selection` and resolve it (one call for the edges)."""
    return resolve(parse_selection(data))
