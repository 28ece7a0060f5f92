"""What ``manage.py catalog_check`` reads (:mod:`webapp.catalog.checks`): queries for rows
that lack something (a source, a Chinese text, a price, a sibling, a rework fraction, a
useful life) or that the check lists (pending rows, dated prices, time-of-use tariffs).

The pages and the resolver read :mod:`webapp.catalog.selectors`; these serve the check
alone.
"""

from __future__ import annotations

import datetime
from typing import Any, TypeVar

from django.apps import apps
from django.db.models import Model, Q, QuerySet

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
    PartPrice,
    PricePoint,
    Tariff,
    TariffKind,
    TariffPeriod,
    TranslatedTextMixin,
)
from webapp.catalog.pricing_modes import COMMITMENT_MODES, INTERRUPTIBLE_MODES
from webapp.catalog.selectors import in_effect_per_slug

M = TypeVar("M", bound=Model)


def commitments_without_sibling() -> QuerySet[CloudOffering]:
    return CloudOffering.objects.filter(
        pricing_mode__in=sorted(COMMITMENT_MODES),
        on_demand_sibling__isnull=True,
    ).order_by("slug")


def commitments_with_sibling() -> QuerySet[CloudOffering]:
    return (
        CloudOffering.objects.filter(on_demand_sibling__isnull=False)
        .select_related("on_demand_sibling")
        .order_by("slug")
    )


def spot_offerings_without_rework() -> QuerySet[CloudOffering]:
    return CloudOffering.objects.filter(
        pricing_mode__in=sorted(INTERRUPTIBLE_MODES), rework_fraction__isnull=True
    ).order_by("slug")


def presets_without_useful_life() -> QuerySet[BuildPreset]:
    return BuildPreset.objects.filter(useful_life_months__isnull=True).order_by("slug")


def rows_without_chinese_name() -> list[Model]:
    """Every row the planner shows by name that has no Chinese name."""
    models: list[type[Model]] = [
        Benchmark,
        GpuModel,
        Part,
        BuildPreset,
        Tariff,
        HostingOption,
        CloudOffering,
    ]
    rows: list[Model] = []
    for model in models:
        rows.extend(model._default_manager.filter(name_zh="").order_by("slug"))
    return rows


def rows_without_chinese_text() -> list[tuple[Model, list[str]]]:
    """Every catalog row with an explanatory text that has no Chinese, and those texts' fields
    (:meth:`~webapp.catalog.models.TranslatedTextMixin.untranslated`)."""
    found: list[tuple[Model, list[str]]] = []
    for model in apps.get_app_config("catalog").get_models():
        if not issubclass(model, TranslatedTextMixin) or not model.TRANSLATED:
            continue
        missing = Q()
        for name in model.TRANSLATED:
            missing |= ~Q(**{name: ""}) & Q(**{f"{name}_zh": ""})
        for row in model._default_manager.filter(missing).order_by("pk"):
            found.append((row, model.untranslated(row)))
    return found


def latest_prices() -> list[PartPrice | CloudRate]:
    """The newest price point of every part and every offering."""
    latest: dict[tuple[str, int], PartPrice | CloudRate] = {}
    for point in PartPrice.objects.live().select_related("part").order_by("effective_date"):
        latest[("part", point.part_id)] = point
    for rate in CloudRate.objects.live().select_related("offering").order_by("effective_date"):
        latest[("offering", rate.offering_id)] = rate
    return list(latest.values())


def dated_rows_in_effect() -> list[Tariff | HostingOption]:
    """The newest live row of each tariff and of each hosting option that charges a fee
    (an office's "no fee" never ages)."""
    far = datetime.date.max
    return [
        *Tariff.objects.filter(pk__in=in_effect_per_slug(Tariff, far)).order_by("slug"),
        *HostingOption.objects.filter(pk__in=in_effect_per_slug(HostingOption, far))
        .exclude(kind="office")
        .order_by("slug"),
    ]


def pending_rows() -> list[PricePoint]:
    """Every dated row held for review, by model and date."""
    rows: list[PricePoint] = []
    for model in (PartPrice, CloudRate, FxRate, Tariff, HostingOption):
        rows.extend(model.objects.filter(pending=True).order_by("effective_date", "pk"))
    return rows


def dated_price_rows(*, estimate: bool | None = None) -> dict[str, QuerySet[Any]]:
    """Every dated price row, by model label (what "price rows" counts); only the estimates
    (or only the sourced figures) when ``estimate`` says."""
    rows: dict[str, QuerySet[Any]] = {
        "catalog.partprice": PartPrice.objects.select_related("part"),
        "catalog.cloudrate": CloudRate.objects.select_related("offering"),
        "catalog.fxrate": FxRate.objects.all(),
        "catalog.tariff": Tariff.objects.all(),
        "catalog.hostingoption": HostingOption.objects.all(),
    }
    if estimate is None:
        return rows
    return {label: queryset.filter(estimate=estimate) for label, queryset in rows.items()}


def unsourced_rows(model: type[M]) -> QuerySet[M]:
    """Rows of a dated ``model`` with neither a source nor the estimate flag."""
    return model._default_manager.filter(source="", estimate=False)


def parts_without_price() -> QuerySet[Part]:
    return Part.objects.filter(prices__isnull=True)


def offerings_without_rate() -> QuerySet[CloudOffering]:
    return CloudOffering.objects.filter(rates__isnull=True)


def time_of_use_tariffs() -> QuerySet[Tariff]:
    tariffs: QuerySet[Tariff] = Tariff.objects.filter(kind=TariffKind.TIME_OF_USE)
    return tariffs.prefetch_related("periods")


def periods_of_flat_tariffs() -> QuerySet[TariffPeriod]:
    return TariffPeriod.objects.filter(tariff__kind=TariffKind.FLAT)


def gpus_without_throughput() -> QuerySet[GpuModel]:
    return GpuModel.objects.filter(throughputs__isnull=True)


def all_benchmarks() -> list[Benchmark]:
    return list(Benchmark.objects.all())


def gpus_in_use() -> QuerySet[GpuModel]:
    """GPU models that a preset or a cloud offering uses."""
    used = GpuModel.objects.filter(presets__isnull=False) | GpuModel.objects.filter(
        offerings__isnull=False
    )
    return used.distinct()


def benchmark_ids_measured(gpu: GpuModel) -> set[int]:
    """Ids of the benchmarks the catalog has a throughput of ``gpu`` on."""
    return set(GpuThroughput.objects.filter(gpu_model=gpu).values_list("benchmark", flat=True))


def card_slugs(gpu: GpuModel) -> set[str]:
    """Slugs of the parts that carry ``gpu`` (its cards, and servers built around it)."""
    return set(Part.objects.filter(gpu_model=gpu).values_list("slug", flat=True))
