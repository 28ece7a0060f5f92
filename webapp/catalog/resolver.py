"""Catalog → explicit scenario: the only place catalog rows become engine inputs.

A :class:`Selection` names catalog rows by slug (a preset or a custom parts
list, a cloud offering, a tariff, a hosting option, a benchmark) plus the
workload, horizon, currency, discount rate and an "as of" date. :func:`resolve`
looks up every figure in effect on that date, converts money into the
selection's currency at the FX rate in effect on that date, and returns the
explicit :class:`costmodel.Scenario` with a provenance record naming every row
used. No cost is computed here: only inputs are assembled (sums of parts,
unit conversions, the hour-weighted mean of a time-of-use tariff).

Rules (see ``docs/catalog.md``)
-------------------------------
- ``build.capex`` = Σ quantity × unit price of each part (GPU cards included),
  each price the latest point effective on ``as_of``, converted to ``currency``.
- ``build.power_load_watts`` = GPU board power × GPU count + Σ quantity × part
  load draw (GPU cards excluded: their draw is the GPU model's); idle likewise.
- ``build.gpu_throughput`` = relative throughput of the GPU model on the
  benchmark × scaling efficiency (efficiency applies to boxes with ≥ 2 GPUs);
  ``rent.gpu_throughput`` likewise with the offering's own efficiency.
- ``rent.hourly_rate`` = the offering's rate effective on ``as_of``, converted.
- ``build.electricity_price_per_kwh`` = flat price, or for a time-of-use tariff
  Σ price × hours / Σ hours (a training box draws around the clock), converted;
  0 when the hosting option includes power in its per-kW fee.
- ``build.hosting_monthly`` = per-U fee × rack units of the chassis + per-kW fee
  × load power [kW], converted; ``build.pue`` = the hosting option's PUE.
- Converted money keeps full decimal precision (no rounding) and is handed to
  the engine as float; the FX rate used is recorded in the provenance.
  An amount in currency X becomes ``amount × rate`` with the rate of the pair
  X→Y (or ``amount / rate`` of Y→X) effective on ``as_of``.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Annotated, Any, Literal, Self

from django.db.models import Q
from django.utils.translation import gettext, gettext_noop
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from costmodel import FieldError, Scenario, ScenarioError, Workload, field_errors, parse_scenario
from costmodel.scenario import MAX_HORIZON_MONTHS
from webapp.catalog.models import (
    Benchmark,
    BuildPreset,
    CloudOffering,
    FxRate,
    GpuModel,
    GpuThroughput,
    HostingOption,
    Part,
    PartKind,
    PartPrice,
    Tariff,
    TariffKind,
)

CUSTOM_BOX_DEFAULTS = {
    "maintenance_rate_per_year": Decimal("0.05"),
    "residual_value_retention_per_year": Decimal("0.70"),
    "ops_monthly": Decimal(0),
}
"""Running-cost defaults for a custom parts list (presets carry their own)."""


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


class Selection(BaseModel):
    """What the user picked, by catalog slug; the resolver's input."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    preset: str | None = None
    parts: Annotated[list[PartLine], Field(min_length=1, max_length=100)] | None = None
    gpu_model: str | None = None
    gpu_count: Annotated[int, Field(ge=1, le=1000)] | None = None
    scaling_efficiency: Annotated[float, Field(gt=0, le=1)] | None = None
    cloud_offering: str
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


def _per_gpu_throughput(relative: Decimal, gpu_count: int, scaling_efficiency: Decimal) -> float:
    """Throughput of one GPU of a box or instance, reference = 1.0.

    The multi-GPU scaling efficiency applies only where there are 2 or more GPUs:
    a single GPU runs at its benchmark figure.
    """
    return float(relative * (scaling_efficiency if gpu_count > 1 else Decimal(1)))


def parse_selection(data: object) -> Selection:
    """Validate decoded JSON as a :class:`Selection` or raise :class:`ScenarioError`."""
    if not isinstance(data, dict):
        raise ScenarioError([FieldError("(selection)", gettext("must be a JSON object"))])
    try:
        return Selection.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(field_errors(exc)) from None


@dataclass
class Resolution:
    """An explicit scenario and the catalog rows every figure came from."""

    scenario: Scenario
    provenance: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"scenario": self.scenario.model_dump(mode="json"), "provenance": self.provenance}


class _Unresolvable(Exception):
    """One lookup failed; collected into a :class:`ScenarioError`."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.error = FieldError(field, message)


def _money(value: Decimal) -> str:
    """Exact decimal text, no exponent or trailing zeros: ``Decimal("26703.100")`` → ``26703.1``."""
    return format(value.normalize(), "f")


class _Converter:
    """Converts money into the target currency at the rates in effect on one date."""

    def __init__(self, target: str, as_of: datetime.date) -> None:
        self.target = target
        self.as_of = as_of
        self.rates_used: dict[tuple[str, str], FxRate] = {}
        self._cache: dict[str, tuple[Decimal, FxRate | None]] = {}

    def rate(self, currency: str) -> tuple[Decimal, FxRate | None]:
        """Multiplier from ``currency`` to the target currency, and the row it came from."""
        if currency == self.target:
            return Decimal(1), None
        if currency in self._cache:
            return self._cache[currency]
        row = (
            FxRate.objects.filter(
                Q(base_currency=currency, quote_currency=self.target)
                | Q(base_currency=self.target, quote_currency=currency),
                effective_date__lte=self.as_of,
            )
            .order_by("-effective_date", "base_currency")
            .first()
        )
        if row is None:
            raise _Unresolvable(
                "as_of",
                gettext("no FX rate %(base)s→%(quote)s on %(date)s")
                % {"base": currency, "quote": self.target, "date": self.as_of.isoformat()},
            )
        self.rates_used[(row.base_currency, row.quote_currency)] = row
        multiplier = row.rate if row.base_currency == currency else Decimal(1) / row.rate
        self._cache[currency] = (multiplier, row)
        return multiplier, row

    def convert(self, amount: Decimal, currency: str) -> tuple[Decimal, str | None]:
        multiplier, row = self.rate(currency)
        return amount * multiplier, None if row is None else _money(multiplier)


def _get(model: type, slug: str, field_name: str, what: str) -> Any:
    try:
        return model._default_manager.get(slug=slug)
    except model.DoesNotExist:
        raise _Unresolvable(
            field_name,
            gettext("no %(what)s with slug '%(slug)s'") % {"what": gettext(what), "slug": slug},
        ) from None


def _item(
    role: str,
    label: str,
    model: str,
    natural_key: list[str],
    fields: list[str],
    *,
    amount: Decimal | None = None,
    currency: str | None = None,
    effective_date: datetime.date | None = None,
    source: str = "",
    estimate: bool = False,
    fx_rate: str | None = None,
    converted: Decimal | None = None,
    quantity: int | None = None,
    note: str = "",
) -> dict[str, Any]:
    return {
        "role": role,
        "label": label,
        "model": model,
        "natural_key": natural_key,
        "fields": fields,
        "quantity": quantity,
        "amount": None if amount is None else _money(amount),
        "currency": currency,
        "effective_date": None if effective_date is None else effective_date.isoformat(),
        "source": source,
        "estimate": estimate,
        "fx_rate": fx_rate,
        "converted_amount": None if converted is None else _money(converted),
        "note": note,
    }


def _throughput(gpu: GpuModel, benchmark: Benchmark, field_name: str) -> GpuThroughput:
    row = GpuThroughput.objects.filter(gpu_model=gpu, benchmark=benchmark).first()
    if row is None:
        raise _Unresolvable(
            field_name,
            gettext("no throughput for GPU model '%(gpu)s' on benchmark '%(benchmark)s'")
            % {"gpu": gpu.slug, "benchmark": benchmark.slug},
        )
    return row


@dataclass
class _Box:
    label: str
    lines: list[tuple[Part, int]]
    gpu: GpuModel
    gpu_count: int
    scaling_efficiency: Decimal
    maintenance: Decimal
    retention: Decimal
    ops_monthly: Decimal
    ops_currency: str
    preset: BuildPreset | None


def _box_from_preset(selection: Selection) -> _Box:
    preset = _get(BuildPreset, selection.preset or "", "preset", "build preset")
    lines = [(line.part, line.quantity) for line in preset.lines.select_related("part")]
    efficiency = (
        Decimal(str(selection.scaling_efficiency))
        if selection.scaling_efficiency is not None
        else preset.scaling_efficiency
    )
    return _Box(
        label=preset.name,
        lines=lines,
        gpu=preset.gpu_model,
        gpu_count=preset.gpu_count,
        scaling_efficiency=efficiency,
        maintenance=preset.maintenance_rate_per_year,
        retention=preset.residual_value_retention_per_year,
        ops_monthly=preset.ops_monthly,
        ops_currency=preset.ops_currency,
        preset=preset,
    )


def _box_from_parts(selection: Selection) -> _Box:
    assert selection.parts is not None
    slugs = [line.part for line in selection.parts]
    found = {p.slug: p for p in Part.objects.filter(slug__in=slugs).select_related("gpu_model")}
    errors = [
        FieldError(f"parts.{i}.part", gettext("no part with slug '%(slug)s'") % {"slug": slug})
        for i, slug in enumerate(slugs)
        if slug not in found
    ]
    if errors:
        raise ScenarioError(errors)
    lines = [(found[line.part], line.quantity) for line in selection.parts]
    gpu_lines = [(p, q) for p, q in lines if p.kind == PartKind.GPU]
    if not gpu_lines:
        raise _Unresolvable("parts", gettext("must include the GPU cards (a part of kind 'gpu')"))
    models = {p.gpu_model.slug for p, _ in gpu_lines}
    if len(models) > 1:
        raise _Unresolvable(
            "parts",
            gettext("GPU cards of one model only: %(models)s")
            % {"models": ", ".join(sorted(models))},
        )
    gpu = gpu_lines[0][0].gpu_model
    count = sum(q for _, q in gpu_lines)
    if selection.gpu_model is not None and selection.gpu_model != gpu.slug:
        raise _Unresolvable(
            "gpu_model",
            gettext("the parts list holds '%(found)s' cards, not '%(asked)s'")
            % {"found": gpu.slug, "asked": selection.gpu_model},
        )
    if selection.gpu_count is not None and selection.gpu_count != count:
        raise _Unresolvable(
            "gpu_count", gettext("the parts list holds %(count)d GPU cards") % {"count": count}
        )
    if selection.scaling_efficiency is None and count > 1:
        raise _Unresolvable(
            "scaling_efficiency", gettext("is required for a box with 2 or more GPUs")
        )
    efficiency = Decimal(str(selection.scaling_efficiency or 1))
    return _Box(
        label=gettext("Custom box, %(count)d × %(gpu)s") % {"count": count, "gpu": gpu.name},
        lines=lines,
        gpu=gpu,
        gpu_count=count,
        scaling_efficiency=efficiency,
        maintenance=CUSTOM_BOX_DEFAULTS["maintenance_rate_per_year"],
        retention=CUSTOM_BOX_DEFAULTS["residual_value_retention_per_year"],
        ops_monthly=CUSTOM_BOX_DEFAULTS["ops_monthly"],
        ops_currency=selection.currency,
        preset=None,
    )


def _tariff_price(tariff: Tariff) -> tuple[Decimal, str]:
    """Price per kWh [tariff currency]: flat, or the hour-weighted mean of time-of-use periods."""
    if tariff.kind == TariffKind.FLAT:
        assert tariff.price_per_kwh is not None
        return tariff.price_per_kwh, ""
    periods = list(tariff.periods.all())
    hours = sum((p.hours_per_day for p in periods), Decimal(0))
    if not periods or hours == 0:
        raise _Unresolvable(
            "tariff",
            gettext("time-of-use tariff '%(slug)s' has no periods") % {"slug": tariff.slug},
        )
    mean = sum((p.price_per_kwh * p.hours_per_day for p in periods), Decimal(0)) / hours
    detail = ", ".join(f"{p.name} {p.hours_per_day} h × {p.price_per_kwh}" for p in periods)
    return mean, f"hour-weighted mean of {detail} over {hours} h"


def _in_effect(row: Any, as_of: datetime.date, what: str) -> None:
    if row.effective_date > as_of:
        raise _Unresolvable(
            "as_of",
            gettext("%(what)s '%(slug)s' is effective from %(start)s, after %(date)s")
            % {
                "what": gettext(what),
                "slug": row.slug,
                "start": row.effective_date.isoformat(),
                "date": as_of.isoformat(),
            },
        )


def resolve(selection: Selection) -> Resolution:
    """Turn a :class:`Selection` into an explicit scenario plus provenance.

    Raises :class:`costmodel.ScenarioError` naming the selection's field for
    anything that cannot be resolved (unknown slug, no price on the date, …).
    """
    as_of = selection.as_of or datetime.date.today()
    fx = _Converter(selection.currency, as_of)
    errors: list[FieldError] = []
    provenance: list[dict[str, Any]] = []

    def attempt(fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except _Unresolvable as exc:
            errors.append(exc.error)
        except ScenarioError as exc:
            errors.extend(exc.errors)
        return None

    box = attempt(_box_from_preset if selection.preset is not None else _box_from_parts, selection)
    offering = attempt(
        _get, CloudOffering, selection.cloud_offering, "cloud_offering", "cloud offering"
    )
    tariff = attempt(_get, Tariff, selection.tariff, "tariff", "electricity tariff")
    hosting = attempt(_get, HostingOption, selection.hosting, "hosting", "hosting option")
    benchmark = attempt(_get, Benchmark, selection.benchmark, "benchmark", "benchmark")
    if errors:
        raise ScenarioError(errors)

    build: dict[str, Any] = {}
    rent: dict[str, Any] = {}

    # --- the box: capex, power, throughput ---
    capex = Decimal(0)
    load = Decimal(box.gpu.board_power_watts * box.gpu_count)
    idle = Decimal(box.gpu.idle_power_watts * box.gpu_count)
    rack_units = 0
    prices: dict[int, PartPrice] = {}
    for point in PartPrice.objects.filter(part__in=[p for p, _ in box.lines]).effective_on(as_of):
        prices.setdefault(point.part_id, point)  # newest first: keep the first seen
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
        converted = attempt(fx.convert, price.amount, price.currency)
        if converted is None:
            continue
        unit, rate = converted
        capex += unit * quantity
        fields = ["build.capex"]
        if part.kind != PartKind.GPU:
            load += part.load_power_watts * quantity
            idle += part.idle_power_watts * quantity
            fields += ["build.power_load_watts", "build.power_idle_watts"]
        if part.kind == PartKind.CHASSIS:
            rack_units += part.rack_units * quantity
        provenance.append(
            _item(
                gettext_noop("part"),
                part.name,
                "catalog.partprice",
                list(price.natural_key()),
                fields,
                quantity=quantity,
                amount=price.amount,
                currency=price.currency,
                effective_date=price.effective_date,
                source=price.source,
                estimate=price.estimate,
                fx_rate=rate,
                converted=unit,
                note=price.note,
            )
        )
    provenance.append(
        _item(
            gettext_noop("build GPU"),
            str(box.gpu),
            "catalog.gpumodel",
            [box.gpu.slug],
            ["build.gpu_count", "build.power_load_watts", "build.power_idle_watts"],
            quantity=box.gpu_count,
            source=box.gpu.source,
            note=(
                f"{box.gpu_count} × {box.gpu.board_power_watts} W load, "
                f"{box.gpu.idle_power_watts} W idle"
            ),
        )
    )
    build_tp = attempt(_throughput, box.gpu, benchmark, "benchmark")
    if build_tp is not None:
        build["gpu_throughput"] = _per_gpu_throughput(
            build_tp.relative_throughput, box.gpu_count, box.scaling_efficiency
        )
        provenance.append(
            _item(
                gettext_noop("build throughput"),
                str(build_tp),
                "catalog.gputhroughput",
                list(build_tp.natural_key()),
                ["build.gpu_throughput"],
                amount=build_tp.relative_throughput,
                source=build_tp.source,
                estimate=build_tp.estimate,
                note=f"× scaling efficiency {box.scaling_efficiency} for {box.gpu_count} GPUs"
                if box.gpu_count > 1
                else build_tp.note,
            )
        )
    if box.preset is not None:
        provenance.append(
            _item(
                gettext_noop("preset"),
                box.preset.name,
                "catalog.buildpreset",
                [box.preset.slug],
                [
                    "build.gpu_count",
                    "build.gpu_throughput",
                    "build.maintenance_rate_per_year",
                    "build.residual_value_retention_per_year",
                    "build.ops_monthly",
                ],
                amount=box.ops_monthly,
                currency=box.ops_currency,
                note=box.preset.defaults_rationale,
            )
        )
    ops = attempt(fx.convert, box.ops_monthly, box.ops_currency)

    # --- where it runs: electricity, hosting ---
    attempt(_in_effect, tariff, as_of, "tariff")
    attempt(_in_effect, hosting, as_of, "hosting option")
    tariff_price = attempt(_tariff_price, tariff)
    if tariff_price is not None:
        price_kwh, how = tariff_price
        converted = attempt(fx.convert, price_kwh, tariff.currency)
        if converted is not None:
            included = not hosting.power_metered_separately
            build["electricity_price_per_kwh"] = 0.0 if included else float(converted[0])
            provenance.append(
                _item(
                    gettext_noop("electricity"),
                    tariff.name,
                    "catalog.tariff",
                    [tariff.slug],
                    [] if included else ["build.electricity_price_per_kwh"],
                    amount=price_kwh,
                    currency=tariff.currency,
                    effective_date=tariff.effective_date,
                    source=tariff.source,
                    estimate=tariff.estimate,
                    fx_rate=converted[1],
                    converted=converted[0],
                    note="not used: the hosting fee includes power" if included else how,
                )
            )
    load_kw = load / 1000
    fee_per_month = hosting.per_u_monthly * rack_units + hosting.per_kw_monthly * load_kw
    hosting_fee = attempt(fx.convert, fee_per_month, hosting.currency)
    if hosting_fee is not None:
        build["hosting_monthly"] = float(hosting_fee[0])
        provenance.append(
            _item(
                gettext_noop("hosting"),
                hosting.name,
                "catalog.hostingoption",
                [hosting.slug],
                ["build.hosting_monthly", "build.pue"],
                amount=fee_per_month,
                currency=hosting.currency,
                effective_date=hosting.effective_date,
                source=hosting.source,
                estimate=hosting.estimate,
                fx_rate=hosting_fee[1],
                converted=hosting_fee[0],
                note=(
                    f"{hosting.per_u_monthly} × {rack_units} U + {hosting.per_kw_monthly} × "
                    f"{_money(load_kw)} kW; PUE {hosting.pue}"
                ),
            )
        )

    # --- the cloud side ---
    rate_row = offering.rates.effective_on(as_of).first()
    if rate_row is None:
        errors.append(
            FieldError(
                "as_of",
                gettext("no rate for cloud offering '%(slug)s' on %(date)s")
                % {"slug": offering.slug, "date": as_of.isoformat()},
            )
        )
    else:
        converted = attempt(fx.convert, rate_row.hourly_rate, rate_row.currency)
        if converted is not None:
            rent["hourly_rate"] = float(converted[0])
            provenance.append(
                _item(
                    gettext_noop("cloud rate"),
                    str(offering),
                    "catalog.cloudrate",
                    list(rate_row.natural_key()),
                    ["rent.hourly_rate"],
                    amount=rate_row.hourly_rate,
                    currency=rate_row.currency,
                    effective_date=rate_row.effective_date,
                    source=rate_row.source,
                    estimate=rate_row.estimate,
                    fx_rate=converted[1],
                    converted=converted[0],
                    note=rate_row.note,
                )
            )
    rent_tp = attempt(_throughput, offering.gpu_model, benchmark, "benchmark")
    if rent_tp is not None:
        rent["gpu_throughput"] = _per_gpu_throughput(
            rent_tp.relative_throughput, offering.gpu_count, offering.scaling_efficiency
        )
        provenance.append(
            _item(
                gettext_noop("rent throughput"),
                str(rent_tp),
                "catalog.gputhroughput",
                list(rent_tp.natural_key()),
                ["rent.gpu_count", "rent.gpu_throughput"],
                quantity=offering.gpu_count,
                amount=rent_tp.relative_throughput,
                source=rent_tp.source,
                estimate=rent_tp.estimate,
                note=(
                    f"× scaling efficiency {offering.scaling_efficiency} "
                    f"for {offering.gpu_count} GPUs"
                )
                if offering.gpu_count > 1
                else rent_tp.note,
            )
        )

    for (_base, quote), row in sorted(fx.rates_used.items()):
        provenance.append(
            _item(
                gettext_noop("fx"),
                str(row),
                "catalog.fxrate",
                list(row.natural_key()),
                [],
                amount=row.rate,
                currency=quote,
                effective_date=row.effective_date,
                source=row.source,
                estimate=row.estimate,
                note=row.note,
            )
        )
    if errors:
        raise ScenarioError(_unique(errors))

    build.update(
        gpu_count=box.gpu_count,
        capex=float(capex),
        power_load_watts=float(load),
        power_idle_watts=float(idle),
        pue=float(hosting.pue),
        maintenance_rate_per_year=float(box.maintenance),
        ops_monthly=float(ops[0]),
        residual_value_retention_per_year=float(box.retention),
    )
    rent.update(gpu_count=offering.gpu_count, fixed_monthly=0.0, annual_price_change=0.0)
    name = f"{box.label} vs {offering}"
    data = {
        "name": name[:200],
        "currency": selection.currency,
        "horizon_months": selection.horizon_months,
        "discount_rate_per_year": selection.discount_rate_per_year,
        "workload": selection.workload.model_dump(mode="json"),
        "build": build,
        "rent": rent,
    }
    return Resolution(scenario=parse_scenario(data), provenance=provenance)


def _unique(errors: list[FieldError]) -> list[FieldError]:
    return list(dict.fromkeys(errors))


def resolve_data(data: object) -> Resolution:
    """Parse decoded JSON as a :class:`Selection` and resolve it (one call for the edges)."""
    return resolve(parse_selection(data))
