"""Admin for the price catalog (staff only, Django's default admin login).

Every dated figure shows its age: prices older than ``STALE_AFTER_DAYS`` are
marked stale, and each item lists its effective price (the latest point in
effect today) beside it, with its price history inline.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.contrib import admin
from django.db.models import Max, QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from webapp.catalog.models import (
    STALE_AFTER_DAYS,
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
    PresetPart,
    Tariff,
    TariffPeriod,
)


def stale_cutoff() -> datetime.date:
    return datetime.date.today() - datetime.timedelta(days=STALE_AFTER_DAYS)


class StaleFilter(admin.SimpleListFilter):
    """Rows dated more than 180 days ago (for items: whose latest price is)."""

    title = _("stale (older than 180 days)")
    parameter_name = "stale"
    date_field = "effective_date"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("yes", _("stale")), ("no", _("current"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() == "yes":
            return queryset.filter(**{f"{self.date_field}__lt": stale_cutoff()})
        if self.value() == "no":
            return queryset.filter(**{f"{self.date_field}__gte": stale_cutoff()})
        return queryset


class LatestPriceStaleFilter(StaleFilter):
    date_field = "latest_price_date"

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        related = "prices" if queryset.model is Part else "rates"
        queryset = queryset.annotate(latest_price_date=Max(f"{related}__effective_date"))
        return super().queryset(request, queryset)


def _describe(point: Any, amount: Any) -> str:
    if point is None:
        return str(_("no price in effect"))
    text = f"{amount} {point.currency} ({point.effective_date.isoformat()})"
    if point.estimate:
        text += " " + str(_("estimate"))
    if point.is_stale:
        text += " ⚠ " + str(_("stale"))
    return text


class StaleMarkerMixin:
    @admin.display(description=_("stale"), boolean=True)
    def stale(self, obj: Any) -> bool:
        return bool(obj.is_stale)


class GpuThroughputInline(admin.TabularInline):
    model = GpuThroughput
    extra = 0


@admin.register(Benchmark)
class BenchmarkAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "unit"]
    search_fields = ["slug", "name"]


@admin.register(GpuModel)
class GpuModelAdmin(admin.ModelAdmin):
    list_display = [
        "slug",
        "vendor",
        "name",
        "vram_gb",
        "board_power_watts",
        "idle_power_watts",
        "supports_nvlink",
    ]
    list_filter = ["vendor", "supports_nvlink"]
    search_fields = ["slug", "name", "vendor"]
    inlines = [GpuThroughputInline]


@admin.register(GpuThroughput)
class GpuThroughputAdmin(admin.ModelAdmin):
    list_display = ["gpu_model", "benchmark", "relative_throughput", "measured_value", "estimate"]
    list_filter = ["benchmark", "estimate"]
    search_fields = ["gpu_model__slug", "gpu_model__name", "benchmark__slug"]
    list_select_related = ["gpu_model", "benchmark"]


class PartPriceInline(admin.TabularInline):
    model = PartPrice
    extra = 1
    ordering = ["-effective_date"]
    fields = ["amount", "currency", "effective_date", "source", "note", "estimate"]


@admin.register(Part)
class PartAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "kind", "load_power_watts", "idle_power_watts", "price_now"]
    list_filter = ["kind", LatestPriceStaleFilter]
    search_fields = ["slug", "name"]
    inlines = [PartPriceInline]

    @admin.display(description=_("effective price"))
    def price_now(self, obj: Part) -> str:
        point = obj.prices.effective_on(datetime.date.today()).first()
        return _describe(point, point.amount if point else None)


@admin.register(PartPrice)
class PartPriceAdmin(StaleMarkerMixin, admin.ModelAdmin):
    list_display = ["part", "amount", "currency", "effective_date", "estimate", "stale", "source"]
    list_filter = ["currency", "estimate", StaleFilter, "part__kind"]
    search_fields = ["part__slug", "part__name", "source", "note"]
    date_hierarchy = "effective_date"
    list_select_related = ["part"]


@admin.register(FxRate)
class FxRateAdmin(StaleMarkerMixin, admin.ModelAdmin):
    list_display = [
        "base_currency",
        "quote_currency",
        "rate",
        "effective_date",
        "estimate",
        "stale",
    ]
    list_filter = ["base_currency", "quote_currency", "estimate", StaleFilter]
    search_fields = ["source", "note"]


class TariffPeriodInline(admin.TabularInline):
    model = TariffPeriod
    extra = 0


@admin.register(Tariff)
class TariffAdmin(StaleMarkerMixin, admin.ModelAdmin):
    list_display = [
        "slug",
        "name",
        "region",
        "kind",
        "price_per_kwh",
        "currency",
        "effective_date",
        "estimate",
        "stale",
    ]
    list_filter = ["country", "kind", "currency", "estimate", StaleFilter]
    search_fields = ["slug", "name", "region"]
    inlines = [TariffPeriodInline]


@admin.register(TariffPeriod)
class TariffPeriodAdmin(admin.ModelAdmin):
    list_display = ["tariff", "name", "hours_per_day", "price_per_kwh"]
    search_fields = ["tariff__slug", "name"]


@admin.register(HostingOption)
class HostingOptionAdmin(StaleMarkerMixin, admin.ModelAdmin):
    list_display = [
        "slug",
        "name",
        "kind",
        "per_u_monthly",
        "per_kw_monthly",
        "currency",
        "pue",
        "power_metered_separately",
        "effective_date",
        "estimate",
        "stale",
    ]
    list_filter = ["kind", "currency", "power_metered_separately", "estimate", StaleFilter]
    search_fields = ["slug", "name", "region"]


class CloudRateInline(admin.TabularInline):
    model = CloudRate
    extra = 1
    ordering = ["-effective_date"]
    fields = ["hourly_rate", "currency", "effective_date", "source", "note", "estimate"]


@admin.register(CloudOffering)
class CloudOfferingAdmin(admin.ModelAdmin):
    list_display = [
        "slug",
        "provider",
        "instance_type",
        "gpu_model",
        "gpu_count",
        "pricing_mode",
        "rate_now",
    ]
    list_filter = ["provider", "pricing_mode", "gpu_model", LatestPriceStaleFilter]
    search_fields = ["slug", "provider", "instance_type", "region"]
    list_select_related = ["gpu_model"]
    inlines = [CloudRateInline]

    @admin.display(description=_("effective hourly rate"))
    def rate_now(self, obj: CloudOffering) -> str:
        point = obj.rates.effective_on(datetime.date.today()).first()
        return _describe(point, point.hourly_rate if point else None)


@admin.register(CloudRate)
class CloudRateAdmin(StaleMarkerMixin, admin.ModelAdmin):
    list_display = [
        "offering",
        "hourly_rate",
        "currency",
        "effective_date",
        "estimate",
        "stale",
        "source",
    ]
    list_filter = ["currency", "offering__provider", "estimate", StaleFilter]
    search_fields = ["offering__slug", "offering__provider", "source", "note"]
    date_hierarchy = "effective_date"
    list_select_related = ["offering"]


class PresetPartInline(admin.TabularInline):
    model = PresetPart
    extra = 1
    autocomplete_fields = ["part"]


@admin.register(BuildPreset)
class BuildPresetAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "tier", "gpu_model", "gpu_count", "scaling_efficiency"]
    list_filter = ["tier", "gpu_model"]
    search_fields = ["slug", "name"]
    inlines = [PresetPartInline]


@admin.register(PresetPart)
class PresetPartAdmin(admin.ModelAdmin):
    list_display = ["preset", "part", "quantity"]
    list_filter = ["preset__tier", "preset"]
    search_fields = ["preset__slug", "part__slug"]
    list_select_related = ["preset", "part"]
