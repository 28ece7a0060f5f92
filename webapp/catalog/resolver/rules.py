"""The rules: each one function of the choice and the snapshot that returns a :class:`Ruling`."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext, gettext_noop

from costmodel import FieldError, Scenario, ScenarioError
from costmodel.commitment import commitment_table
from webapp.catalog.models import (
    Benchmark,
    BuildPreset,
    CloudOffering,
    GpuModel,
    PartKind,
    PricingMode,
    Tariff,
    TariffKind,
)
from webapp.catalog.resale import RetentionFit, retention_fit
from webapp.catalog.resolver.box import box_power
from webapp.catalog.resolver.choose import Choice, custom_box_defaults
from webapp.catalog.resolver.currency import convert
from webapp.catalog.resolver.notes import Note, note, note_text
from webapp.catalog.resolver.provenance import (
    Defaulted,
    Provenance,
    Ruling,
    Unresolvable,
    decimal_text,
)
from webapp.catalog.selectors import CatalogSnapshot


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
            notes=(
                note(
                    "gpu_power_servers",
                    count=box.gpu_count,
                    load=box.gpu.board_power_watts,
                    idle=box.gpu.idle_power_watts,
                    servers=box.node_count,
                )
                if box.node_count > 1
                else note(
                    "gpu_power",
                    count=box.gpu_count,
                    load=box.gpu.board_power_watts,
                    idle=box.gpu.idle_power_watts,
                ),
            ),
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


def tariff_price(tariff: Tariff) -> tuple[Decimal, tuple[Note, ...]]:
    """Price per kWh [tariff currency]: flat, or the hour-weighted mean of time-of-use periods
    (noted with each period's hours and price).

    A training box draws around the clock, so the hour-weighted mean is what it pays:
    ``Σ price × hours / Σ hours``.
    """
    if tariff.kind == TariffKind.FLAT:
        assert tariff.price_per_kwh is not None
        return tariff.price_per_kwh, ()
    periods = list(tariff.periods.all())
    hours = sum((p.hours_per_day for p in periods), Decimal(0))
    if not periods or hours == 0:
        raise Unresolvable(
            "tariff",
            gettext("time-of-use tariff '%(slug)s' has no periods") % {"slug": tariff.slug},
        )
    mean = sum((p.price_per_kwh * p.hours_per_day for p in periods), Decimal(0)) / hours
    each = tuple(
        note(
            "time_of_use_period",
            period=p.name,
            hours=decimal_text(p.hours_per_day),
            price=decimal_text(p.price_per_kwh),
        )
        for p in periods
    )
    return mean, (note("time_of_use", periods=len(periods), hours=decimal_text(hours)), *each)


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
        notes=(note("power_included"),) if included else how,
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
        notes=(
            note(
                "hosting_fee",
                per_u=hosting.per_u_monthly,
                units=power.rack_units,
                per_kw=hosting.per_kw_monthly,
                kw=decimal_text(load_kw),
                pue=hosting.pue,
            ),
        ),
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
    fit = retention_fit(
        preset.gpu_model, catalog.day, catalog.used_prices.get(preset.gpu_model_id, [])
    )
    retention = fit.retention_decimal if fit.usable else preset.residual_value_retention_per_year
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
        retention_provenance(preset, fit),
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
                notes=(note("months", months=preset.useful_life_months),),
            )
        )
    values = {
        "build.maintenance_rate_per_year": float(preset.maintenance_rate_per_year),
        "build.residual_value_retention_per_year": float(retention or 0),
        "build.ops_monthly": float(ops),
        "build.useful_life_months": preset.useful_life_months,
    }
    return Ruling(values, tuple(items))


def retention_provenance(preset: BuildPreset, fit: RetentionFit) -> Provenance:
    """Where the resale retention comes from: the fit over the preset GPU's observed used
    prices when it stands (:mod:`webapp.catalog.resale`), else the preset's stated figure,
    marked as an estimate, with the reason there is no fit."""
    role = gettext_noop("resale retention")
    fields = ["build.residual_value_retention_per_year"]
    if fit.usable:
        return Provenance(
            role=role,
            fields=fields,
            label=preset.gpu_model.name,
            model="catalog.gpumodel",
            natural_key=[preset.gpu_model.slug],
            amount=fit.retention_decimal,
            effective_date=fit.as_of,
            estimate=fit.estimate,
            source="; ".join(dict.fromkeys(o.source for o in fit.fitted if o.source)),
            notes=(
                note(
                    "resale_fit",
                    count=len(fit.fitted),
                    gpu=preset.gpu_model.slug,
                    currency=fit.currency,
                    newest=fit.as_of.isoformat() if fit.as_of else "",
                    retention=f"{fit.retention:.3f}",
                ),
            ),
        )
    return Provenance(
        role=role,
        fields=fields,
        label=preset.name,
        model="catalog.buildpreset",
        natural_key=[preset.slug],
        amount=preset.residual_value_retention_per_year,
        source=preset.retention_source,
        estimate=True,
        notes=(
            note("resale_stated", gpu=preset.gpu_model.slug),
            note(f"fit_{fit.refused_code}", **fit.refused_params),
        ),
    )


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
        notes.append(note("scaling", efficiency=scaling_efficiency, gpus=gpus_per_node))
    if node_count > 1:
        notes.append(
            note("multi_node", efficiency=multi_node_scaling_efficiency, servers=node_count)
        )
    item = Provenance.of_price(
        role,
        str(row),
        row,
        fields,
        quantity=gpus_per_node * node_count,
        amount=row.relative_throughput,
        note="" if notes else row.note,
        notes=tuple(notes),
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
        ["build.gpu_throughput", "build.gpu_memory_gb"],
        gpus_per_node=box.gpus_per_node,
        node_count=box.node_count,
        scaling_efficiency=box.scaling_efficiency,
        multi_node_scaling_efficiency=box.multi_node_scaling_efficiency,
    )
    # the GPU model's memory: what a job's run may use, sharded across the box's GPUs (v4)
    memory = float(box.gpu.vram_gb)
    return Ruling({"build.gpu_throughput": value, "build.gpu_memory_gb": memory}, (item,))


def rent_throughput_rule(choice: Choice, catalog: CatalogSnapshot) -> Ruling:
    """``rent.gpu_count`` and ``rent.gpu_throughput``: the instance's GPUs on the benchmark."""
    offering = choice.offering
    value, item = _throughput(
        catalog,
        gettext_noop("rent throughput"),
        offering.gpu_model,
        choice.benchmark,
        ["rent.gpu_count", "rent.gpu_throughput", "rent.gpu_memory_gb"],
        gpus_per_node=offering.gpu_count,
        scaling_efficiency=offering.scaling_efficiency,
    )
    values = {
        "rent.gpu_count": offering.gpu_count,
        "rent.gpu_throughput": value,
        "rent.gpu_memory_gb": float(offering.gpu_model.vram_gb),  # offerings carry it (v4)
    }
    return Ruling(values, (item,))


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
        overflow = (
            note("overflow_no_sibling")
            if sibling is None
            else note("overflow_no_sibling_rate", sibling=sibling.slug, day=catalog.day.isoformat())
        )
        item = Provenance(
            role=gettext_noop("overflow rate"),
            label=str(offering),
            model="catalog.cloudoffering",
            natural_key=[offering.slug],
            fields=["rent.hourly_rate"],
            notes=(overflow,),
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
        notes=(note("overflow"),),
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
        notes=() if rework is not None else (note("no_rework"),),
    )
    return Ruling({"rent.rework_fraction": float(rework or 0)}, (item,))


Rule = Callable[[Choice, CatalogSnapshot], Ruling]

BUILD_RULES: tuple[Rule, ...] = (
    parts_rule,
    build_throughput_rule,
    running_costs_rule,
    electricity_rule,
    hosting_rule,
)
"""The rules that set the box's fields (``build.*``)."""

RENT_RULES: tuple[Rule, ...] = (
    cloud_rate_rule,
    overflow_rate_rule,
    rework_rule,
    rent_throughput_rule,
)
"""The rules that set the instance's fields (``rent.*``), but for the committed count
(:func:`commitment_rule`, which needs the whole plan)."""

RULES: tuple[Rule, ...] = BUILD_RULES + RENT_RULES
"""The rules that read only the choice and the snapshot, in the order their provenance is
listed."""


def commitment_note(table: dict[str, Any], currency: str, horizon_months: int) -> Note:
    """Why the engine's cheapest count was chosen, as a note, from its
    :func:`costmodel.commitment.commitment_table`."""
    rows = table["rows"]
    best = table["best_committed_instances"]
    cheapest = rows[best]["rent_present_value"]
    figures = {
        "months": horizon_months,
        "cost": f"{cheapest:,.0f} {currency}",
        "top": table["max_instances"],
    }
    if best == 0:
        if len(rows) < 2:
            return note("commit_no_work")
        other = f"{rows[1]['rent_present_value']:,.0f} {currency}"
        return note("commit_none_cheapest", other=other, **figures)
    none = f"{rows[0]['rent_present_value']:,.0f} {currency}"
    return note("commit_cheapest", count=best, none=none, **figures)


def commitment_reason(table: dict[str, Any], currency: str, horizon_months: int) -> str:
    """Why the engine's cheapest count was chosen, in words (translated), from its
    :func:`costmodel.commitment.commitment_table`."""
    return note_text([commitment_note(table, currency, horizon_months)])


def commitment_rule(choice: Choice, catalog: CatalogSnapshot, draft: Scenario) -> Ruling:
    """``rent.committed_instances`` of a commitment: the count the selection gives, or by
    default the engine's cheapest (``best_committed_instances`` of
    :func:`costmodel.commitment.commitment_table`: the lowest rent present value over
    0..K instances). Reads the draft scenario (every other field resolved, nothing
    committed) and changes nothing. Nothing for other pricing modes."""
    offering = choice.offering
    if not offering.is_commitment:
        return Ruling({})
    selection = choice.selection
    defaulted: tuple[Defaulted, ...] = ()
    if selection.committed_instances is not None:
        count = selection.committed_instances
        notes: tuple[Note, ...] = (note("count_given"),)
    else:
        table = commitment_table(draft)
        count = table["best_committed_instances"]
        notes = (commitment_note(table, draft.currency, draft.horizon_months),)
        defaulted = (Defaulted("committed_instances", count, note_text(notes)),)
    item = Provenance(
        role=gettext_noop("committed instances"),
        label=str(offering),
        model="catalog.cloudoffering",
        natural_key=[offering.slug],
        fields=["rent.committed_instances"],
        quantity=count,
        notes=notes,
    )
    return Ruling({"rent.committed_instances": count}, (item,), defaulted)
