"""Catalog health: what ``manage.py catalog_check`` reports.

A problem is one line of text naming the row (model and natural key) and what
is wrong with it. An empty list means the catalog is fit to ship.
"""

from __future__ import annotations

import datetime
from decimal import Decimal

from costmodel import ScenarioError
from webapp.catalog.models import (
    Benchmark,
    BuildPreset,
    CloudOffering,
    CloudRate,
    FxRate,
    GpuModel,
    GpuThroughput,
    HostingOption,
    Part,
    PartKind,
    PartPrice,
    Tariff,
    TariffKind,
    TariffPeriod,
)
from webapp.catalog.resolver import Selection, resolve

PSU_HEADROOM = Decimal("1.3")
"""Rated PSU output must be ≥ 30 % above the box's peak DC draw (sizing rule 3)."""

CHECK_WORKLOAD = {"kind": "steady", "utilization": 1.0}
CHECK_HORIZON_MONTHS = 36


def _key(row) -> str:
    return f"{row._meta.label_lower} {'/'.join(str(k) for k in row.natural_key())}"


def unsourced_rows() -> list[str]:
    """Dated figures with neither a source nor the estimate flag."""
    problems = []
    for model in (PartPrice, CloudRate, FxRate, Tariff, HostingOption, GpuThroughput):
        for row in model._default_manager.filter(source="", estimate=False):
            problems.append(f"{_key(row)}: no source (give one, or mark the figure an estimate)")
    return problems


def orphan_rows() -> list[str]:
    """Rows nothing can use: unpriced parts and offerings, tariffs without usable periods, …"""
    problems = []
    for part in Part.objects.filter(prices__isnull=True):
        problems.append(f"{_key(part)}: has no price")
    for offering in CloudOffering.objects.filter(rates__isnull=True):
        problems.append(f"{_key(offering)}: has no hourly rate")
    for tariff in Tariff.objects.filter(kind=TariffKind.TIME_OF_USE).prefetch_related("periods"):
        hours = sum((p.hours_per_day for p in tariff.periods.all()), Decimal(0))
        if hours != 24:
            problems.append(f"{_key(tariff)}: time-of-use periods cover {hours} h, not 24 h")
    for period in TariffPeriod.objects.filter(tariff__kind=TariffKind.FLAT):
        problems.append(f"{_key(period)}: a period of a flat tariff is never used")
    for gpu in GpuModel.objects.filter(throughputs__isnull=True):
        problems.append(f"{_key(gpu)}: has no throughput on any benchmark")
    benchmarks = list(Benchmark.objects.all())
    used_gpus = GpuModel.objects.filter(presets__isnull=False) | GpuModel.objects.filter(
        offerings__isnull=False
    )
    for gpu in used_gpus.distinct():
        have = set(GpuThroughput.objects.filter(gpu_model=gpu).values_list("benchmark", flat=True))
        for benchmark in benchmarks:
            if benchmark.pk not in have:
                problems.append(f"{_key(gpu)}: no throughput on benchmark '{benchmark.slug}'")
    return problems


def preset_problems() -> list[str]:
    """Presets whose parts list does not match their GPU count, or whose PSU is too small."""
    problems = []
    for preset in BuildPreset.objects.prefetch_related("lines__part"):
        lines = list(preset.lines.all())
        if not lines:
            problems.append(f"{_key(preset)}: has no parts")
            continue
        gpu_lines = [line for line in lines if line.part.kind == PartKind.GPU]
        cards = sum(line.quantity for line in gpu_lines)
        if cards != preset.gpu_count:
            problems.append(
                f"{_key(preset)}: lists {cards} GPU cards but gpu_count is {preset.gpu_count}"
            )
        wrong = sorted({line.part.slug for line in gpu_lines} - _cards_of(preset.gpu_model))
        if wrong:
            problems.append(
                f"{_key(preset)}: GPU cards {', '.join(wrong)} are not {preset.gpu_model.slug}"
            )
        rated = sum(
            (line.part.rated_watts or 0) * line.quantity
            for line in lines
            if line.part.kind == PartKind.PSU
        )
        peak_dc = preset.gpu_model.board_power_watts * preset.gpu_count + sum(
            line.part.load_power_watts * line.quantity
            for line in lines
            if line.part.kind not in (PartKind.GPU, PartKind.PSU)
        )
        if rated < PSU_HEADROOM * peak_dc:
            problems.append(
                f"{_key(preset)}: power supplies give {rated} W, less than 1.3 × the "
                f"{peak_dc} W peak draw"
            )
    return problems


def _cards_of(gpu: GpuModel) -> set[str]:
    return set(Part.objects.filter(gpu_model=gpu).values_list("slug", flat=True))


def _first(model) -> str | None:
    row = model._default_manager.order_by("slug").first()
    return None if row is None else row.slug


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
    combos: list[tuple[dict[str, str], str]] = []
    for preset in BuildPreset.objects.order_by("slug").values_list("slug", flat=True):
        combos += [({**first, "preset": preset}, "CNY"), ({**first, "preset": preset}, "USD")]
    for field_name, model in (
        ("cloud_offering", CloudOffering),
        ("tariff", Tariff),
        ("hosting", HostingOption),
    ):
        for slug in model._default_manager.order_by("slug").values_list("slug", flat=True):
            combos.append(({**first, field_name: slug}, "CNY"))
    problems: list[str] = []
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
            resolve(selection)
        except ScenarioError as exc:
            label = ", ".join(f"{k}={v}" for k, v in combo.items())
            for error in exc.errors:
                problems.append(f"resolve {label}, {currency}: {error}")
    return list(dict.fromkeys(problems))


def check_catalog(as_of: datetime.date | None = None) -> list[str]:
    """Every problem found in the catalog, one line each (empty: the catalog is fine)."""
    return unsourced_rows() + orphan_rows() + preset_problems() + resolution_problems(as_of)
