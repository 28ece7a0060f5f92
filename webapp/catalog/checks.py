"""Catalog health: what ``manage.py catalog_check`` reports.

A problem is one line of text naming the row (model and natural key) and what
is wrong with it. An empty list means the catalog is fit to ship.

Warnings (:func:`catalog_warnings`) are what an admin should look at without
the catalog being unusable: prices older than 12 months, commitments without
an on-demand sibling, commitments whose rate is not below their sibling's or
was recorded before their sibling's rate moved, spot offerings without a
rework fraction, presets without a useful life, rows without a Chinese name or
without the Chinese of a note, description or rationale they show in English,
offerings whose Chinese name reads machine-made (an instance type's
underscores, English words), and region defaults of the resolver that name no
row.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping
from decimal import Decimal

from django.db.models import Model

from costmodel import ScenarioError
from costmodel.sizing import check_psu
from webapp.catalog import check_queries, selectors
from webapp.catalog.models import (
    GPU_CARRYING_KINDS,
    Benchmark,
    BuildPreset,
    CloudOffering,
    CloudRate,
    FxRate,
    GpuModel,
    GpuThroughput,
    HostingOption,
    PartKind,
    PartPrice,
    Tariff,
    months_between,
)
from webapp.catalog.pricing_modes import ON_DEMAND_MODES
from webapp.catalog.resolver import DEFAULTS, Selection, resolve
from webapp.catalog.selectors import CatalogSnapshot

STALE_AFTER_MONTHS = 12
"""A price whose newest point is older than this is warned about."""

MACHINE_MADE_NAME = re.compile(
    r"_|[()]|secure cloud|community cloud|marketplace|on-demand|\bspot\b", re.IGNORECASE
)
"""What marks a Chinese offering name as copied from identifiers or English: an underscore,
ASCII parentheses (Chinese text uses （）), or the English words of a pricing tier."""

SIBLING_MOVE_SHARE = Decimal("0.01")
"""A sibling's on-demand rate that moved by more than this share since a commitment's rate
was recorded (a list price change, not a rate recorded again with more decimals)."""

CHECK_WORKLOAD = {"kind": "steady", "utilization": 1.0}
CHECK_HORIZON_MONTHS = 36


def _key(row: Model) -> str:
    return f"{row._meta.label_lower} {'/'.join(str(k) for k in _natural_key(row))}"


def unsourced_rows() -> list[str]:
    """Dated figures with neither a source nor the estimate flag."""
    problems = []
    for model in (PartPrice, CloudRate, FxRate, Tariff, HostingOption, GpuThroughput):
        for row in check_queries.unsourced_rows(model):
            problems.append(f"{_key(row)}: no source (give one, or mark the figure an estimate)")
    return problems


def orphan_rows() -> list[str]:
    """Rows nothing can use: unpriced parts and offerings, tariffs without usable periods, …"""
    problems = []
    for part in check_queries.parts_without_price():
        problems.append(f"{_key(part)}: has no price")
    for offering in check_queries.offerings_without_rate():
        problems.append(f"{_key(offering)}: has no hourly rate")
    for tariff in check_queries.time_of_use_tariffs():
        hours = sum((p.hours_per_day for p in tariff.periods.all()), Decimal(0))
        if hours != 24:
            problems.append(f"{_key(tariff)}: time-of-use periods cover {hours} h, not 24 h")
    for period in check_queries.periods_of_flat_tariffs():
        problems.append(f"{_key(period)}: a period of a flat tariff is never used")
    for gpu in check_queries.gpus_without_throughput():
        problems.append(f"{_key(gpu)}: has no throughput on any benchmark")
    benchmarks = check_queries.all_benchmarks()
    for gpu in check_queries.gpus_in_use():
        have = check_queries.benchmark_ids_measured(gpu)
        for benchmark in benchmarks:
            if benchmark.pk not in have:
                problems.append(f"{_key(gpu)}: no throughput on benchmark '{benchmark.slug}'")
    return problems


def preset_power(preset: BuildPreset, lines: list) -> tuple[float, float, str | None]:
    """Peak DC draw [W], rated supply output [W] and worst 80 Plus grade of a preset.

    The supplies are the power-supply parts and the built-in supplies of GPU
    servers; the draw is the GPUs at board power plus every other part's load
    (a supply's own conversion loss is drawn from the wall, not from its output).
    """
    suppliers = [
        line
        for line in lines
        if line.part.kind in (PartKind.PSU, PartKind.NODE) and line.part.rated_watts
    ]
    rated = sum(line.part.rated_watts * line.quantity for line in suppliers)
    grades = [line.part.efficiency_grade for line in suppliers]
    order = ["bronze", "silver", "gold", "platinum", "titanium"]
    worst = min(grades, key=lambda g: order.index(g) if g in order else -1) if grades else None
    peak = preset.gpu_model.board_power_watts * preset.gpu_count + sum(
        line.part.load_power_watts * line.quantity
        for line in lines
        if line.part.kind not in (PartKind.GPU, PartKind.PSU)
    )
    return float(peak), float(rated), worst


def preset_problems() -> list[str]:
    """Presets whose parts list does not match their GPU count, or whose PSU is too small.

    The supply rule is the advisor's (:func:`costmodel.sizing.check_psu`): rated
    output at least 30 % above the peak draw, 80 Plus Gold or better.
    """
    problems = []
    for preset in selectors.presets_with_parts():
        lines = list(preset.lines.all())
        if not lines:
            problems.append(f"{_key(preset)}: has no parts")
            continue
        gpu_lines = [line for line in lines if line.part.kind in GPU_CARRYING_KINDS]
        cards = sum(line.quantity * line.part.gpu_count for line in gpu_lines)
        if cards != preset.gpu_count:
            problems.append(
                f"{_key(preset)}: lists {cards} GPU cards but gpu_count is {preset.gpu_count}"
            )
        wrong = sorted({line.part.slug for line in gpu_lines} - _cards_of(preset.gpu_model))
        if wrong:
            problems.append(
                f"{_key(preset)}: GPU cards {', '.join(wrong)} are not {preset.gpu_model.slug}"
            )
        nodes = sum(line.quantity for line in lines if line.part.kind == PartKind.NODE)
        if nodes and nodes != preset.node_count:
            problems.append(
                f"{_key(preset)}: lists {nodes} GPU servers but node_count is {preset.node_count}"
            )
        peak, rated, grade = preset_power(preset, lines)
        if peak > 0 and (rated <= 0 or not check_psu(rated, peak, grade).ok):
            problems.append(
                f"{_key(preset)}: power supplies give {rated:g} W ({grade or 'no grade'}), "
                f"less than 1.3 × the {peak:g} W peak draw or below 80 Plus Gold"
            )
    return problems


def _cards_of(gpu: GpuModel) -> set[str]:
    return check_queries.card_slugs(gpu)


def _first(model: type[Model]) -> str | None:
    found = selectors.slugs(model)
    return found[0] if found else None


def resolution_problems(as_of: datetime.date | None = None) -> list[str]:
    """Presets, offerings, tariffs and hosting options that do not resolve into a valid scenario.

    Every preset is resolved against the first offering, tariff and hosting
    option (by slug), and every offering, tariff and hosting option against the
    first preset, in CNY on the first benchmark; presets also in USD. (Every
    benchmark is covered by :func:`orphan_rows`' throughput check.)
    """
    first = {
        "preset": _first(BuildPreset),
        "cloud_offering": _first(CloudOffering),
        "tariff": _first(Tariff),
        "hosting": _first(HostingOption),
        "benchmark": _first(Benchmark),
    }
    missing = [name for name, slug in first.items() if slug is None]
    if missing:
        return [f"catalog: no {name} to resolve" for name in missing]
    first_of = {name: str(slug) for name, slug in first.items()}
    combos: list[tuple[dict[str, str], str]] = []
    for preset in selectors.slugs(BuildPreset):
        combos += [({**first_of, "preset": preset}, "CNY"), ({**first_of, "preset": preset}, "USD")]
    for field_name, model in (
        ("cloud_offering", CloudOffering),
        ("tariff", Tariff),
        ("hosting", HostingOption),
    ):
        for slug in selectors.slugs(model):
            combos.append(({**first_of, field_name: slug}, "CNY"))
    problems: list[str] = []
    catalog = CatalogSnapshot(as_of or datetime.date.today())
    for combo, currency in combos:
        selection = Selection.model_validate(
            {
                **combo,
                "currency": currency,
                "workload": CHECK_WORKLOAD,
                "horizon_months": CHECK_HORIZON_MONTHS,
                "as_of": as_of,
            }
        )
        try:
            resolve(selection, catalog)
        except ScenarioError as exc:
            label = ", ".join(f"{k}={v}" for k, v in combo.items())
            for error in exc.errors:
                problems.append(f"resolve {label}, {currency}: {error}")
    return list(dict.fromkeys(problems))


def sibling_problems() -> list[str]:
    """Commitments whose on-demand sibling is not an on-demand offering of the same kind."""
    problems = []
    for offering in check_queries.commitments_with_sibling():
        sibling = offering.on_demand_sibling
        if sibling is None:
            continue
        if (
            sibling.pricing_mode not in ON_DEMAND_MODES
            or sibling.provider != offering.provider
            or sibling.gpu_model_id != offering.gpu_model_id
            or sibling.gpu_count != offering.gpu_count
        ):
            problems.append(
                f"{_key(offering)}: on-demand sibling {sibling.slug} is not an on-demand "
                "offering of the same provider, GPU model and count"
            )
    return problems


def check_catalog(as_of: datetime.date | None = None) -> list[str]:
    """Every problem found in the catalog, one line each (empty: the catalog is fine)."""
    return (
        unsourced_rows()
        + orphan_rows()
        + preset_problems()
        + sibling_problems()
        + resolution_problems(as_of)
    )


def stale_prices(as_of: datetime.date | None = None) -> list[str]:
    """Parts and offerings whose newest price is older than 12 months; tariffs and hosting too."""
    today = as_of or datetime.date.today()
    warnings = []
    rows: list[Model] = [*check_queries.latest_prices(), *check_queries.dated_rows_in_effect()]
    for row in rows:
        date = row.effective_date  # type: ignore[attr-defined]
        if months_between(date, today) >= STALE_AFTER_MONTHS:
            warnings.append(
                f"{_key(row)}: newest price is from {date.isoformat()}, "
                f"more than {STALE_AFTER_MONTHS} months ago"
            )
    return warnings


def catalog_warnings(as_of: datetime.date | None = None) -> list[str]:
    """What an admin should look at: stale prices, missing pricing-mode data, names."""
    warnings = stale_prices(as_of)
    for offering in check_queries.commitments_without_sibling():
        warnings.append(
            f"{_key(offering)}: commitment without an on-demand sibling "
            "(hours beyond the commitment are billed at the committed rate)"
        )
    warnings += commitment_rate_warnings(as_of)
    for offering in check_queries.spot_offerings_without_rework():
        warnings.append(f"{_key(offering)}: spot offering without a rework fraction (0 is used)")
    for preset in check_queries.presets_without_useful_life():
        warnings.append(f"{_key(preset)}: preset without a useful life")
    for row in check_queries.rows_without_chinese_name():
        warnings.append(f"{_key(row)}: no Chinese name (the English name is shown)")
    for text_row, fields in check_queries.rows_without_chinese_text():
        untranslated = ", ".join(fields)
        warnings.append(f"{_key(text_row)}: no Chinese for {untranslated} (the English is shown)")
    warnings += machine_made_chinese_names()
    for row in check_queries.pending_rows():
        warnings.append(f"{_key(row)}: pending review (not used until a staff user approves it)")
    return warnings + missing_defaults(as_of)


def commitment_rate_warnings(as_of: datetime.date | None = None) -> list[str]:
    """Commitments whose rate in effect is suspect against their on-demand sibling's.

    A commitment is a discount on the on-demand rate, so two things point at a
    stale or mistyped committed rate: it is not below the sibling's rate in
    effect (same currency), or the sibling's rate has moved by more than
    :data:`SIBLING_MOVE_SHARE` since the day the committed rate took effect
    (providers reprice commitments with their on-demand list, as AWS did in
    June 2025).
    """
    day = as_of or datetime.date.today()
    now = selectors.cloud_rates_on(day)
    rated = [
        (offering, now[offering.pk], now[offering.on_demand_sibling_id])
        for offering in check_queries.commitments_with_sibling()
        if offering.pk in now and offering.on_demand_sibling_id in now
    ]
    then = {
        date: selectors.cloud_rates_on(date)
        for date in {committed.effective_date for _, committed, _ in rated}
    }
    warnings = []
    for offering, committed, sibling in rated:
        slug = sibling.offering.slug
        if committed.currency == sibling.currency and committed.hourly_rate >= sibling.hourly_rate:
            warnings.append(
                f"{_key(offering)}: committed rate {committed.hourly_rate} {committed.currency} "
                f"is not below the on-demand rate {sibling.hourly_rate} {sibling.currency} "
                f"of its sibling {slug}"
            )
        before = then[committed.effective_date].get(sibling.offering_id)
        if before is None or before.currency != sibling.currency:
            continue
        if abs(sibling.hourly_rate - before.hourly_rate) > SIBLING_MOVE_SHARE * before.hourly_rate:
            warnings.append(
                f"{_key(offering)}: rate of {committed.effective_date.isoformat()}, but its "
                f"sibling {slug} has moved from {before.hourly_rate} to {sibling.hourly_rate} "
                f"{sibling.currency} since (from {sibling.effective_date.isoformat()}); "
                "record the commitment's current rate"
            )
    return warnings


def missing_defaults(as_of: datetime.date | None = None) -> list[str]:
    """The resolver's region defaults (tariff, hosting, cloud offering of each currency) that
    name no row in effect: a plan that leaves that choice out cannot be resolved."""
    catalog = CatalogSnapshot(as_of or datetime.date.today())
    rows_of: dict[str, Mapping[str, object]] = {
        "tariff": catalog.tariffs,
        "hosting office": catalog.hosting_options,
        "hosting colocation": catalog.hosting_options,
        "cloud_offering": catalog.offerings,
    }
    return [
        f"resolver default {name} for {currency}: no row '{row.value}' in effect "
        "(a plan in this currency that leaves it out cannot be resolved)"
        for (name, currency), row in DEFAULTS.items()
        if name in rows_of and row.value not in rows_of[name]
    ]


def machine_made_chinese_names() -> list[str]:
    """Offerings whose Chinese name reads machine-made (see :data:`MACHINE_MADE_NAME`)."""
    return [
        f"{_key(offering)}: the Chinese name '{offering.name_zh}' reads machine-made; "
        "name the provider, GPUs and pricing mode in Chinese"
        for offering in selectors.rows_in_order(CloudOffering, ["slug"])
        if offering.name_zh and MACHINE_MADE_NAME.search(offering.name_zh)
    ]


def estimate_price_rows() -> list[str]:
    """Price rows flagged as estimates that the catalog still uses, one line each with its reason.

    A part's or an offering's price is its newest row, and a tariff or a hosting
    option is its newest version: an estimate that a later row replaced is history
    (it stays, since prices are never overwritten) and is counted by
    :func:`superseded_estimate_rows` instead. FX rates are listed whenever flagged.
    """
    superseded = _superseded_estimate_pks()
    lines = []
    for label, rows in check_queries.dated_price_rows(estimate=True).items():
        for row in rows:
            if (label, row.pk) in superseded:
                continue
            lines.append(f"{label} {'/'.join(str(k) for k in _natural_key(row))}: {row.note}")
    return lines


FAR = datetime.date.max
"""A day after every row: the version in effect on it is an item's newest."""

REPLACEABLE = ("catalog.partprice", "catalog.cloudrate", "catalog.tariff", "catalog.hostingoption")
"""Kinds of price row a later row of the same item replaces (an FX rate is listed whenever
flagged)."""


def superseded_estimate_rows() -> int:
    """How many estimate rows of parts, offerings, tariffs and hosting options a later row
    of the same item has replaced."""
    return len(_superseded_estimate_pks())


def _superseded_estimate_pks() -> set[tuple[str, int]]:
    newest = {(row._meta.label_lower, row.pk) for row in check_queries.latest_prices()}
    # a tariff or a hosting option is its newest live version
    newest |= {("catalog.tariff", pk) for pk in selectors.in_effect_per_slug(Tariff, FAR)}
    newest |= {
        ("catalog.hostingoption", pk) for pk in selectors.in_effect_per_slug(HostingOption, FAR)
    }
    flagged = check_queries.dated_price_rows(estimate=True)
    return {
        (label, row.pk)
        for label in REPLACEABLE
        for row in flagged[label]
        if (label, row.pk) not in newest
    }


def _natural_key(row: Model) -> tuple:
    if hasattr(row, "natural_key"):
        return row.natural_key()  # type: ignore[no-any-return]
    return (row.slug,)  # type: ignore[attr-defined]
