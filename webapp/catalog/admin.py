"""Admin for the price catalog (staff only, Django's default admin login).

Every dated figure shows its age: prices older than ``STALE_AFTER_DAYS`` are
marked stale, and each item lists its effective price (the latest point in
effect today) beside it, with its price history inline.

Dated rows (part prices, cloud rates, FX rates, tariffs, hosting options) are
append-only: a stored row is shown, never edited (its amount, source and date
are read-only) nor deleted. Its page offers *record a new price* (a new row,
prefilled, with its own date) and *supersede (correction)* (a new row that
replaces it, both kept in the history). A new row that moves too far from the
one before it waits as *pending* until a staff user approves it (the action
"approve the selected pending rows").
"""

from __future__ import annotations

import datetime
from typing import Any

from django.contrib import admin, messages
from django.db.models import Max, Model, QuerySet
from django.forms.models import model_to_dict
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from webapp.catalog import services
from webapp.catalog.models import (
    HISTORY_FIELDS,
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
    PricePoint,
    Tariff,
    TariffPeriod,
    UsedGpuPrice,
)
from webapp.catalog.resale import retention_fit


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


def _held_message(request: HttpRequest, row: PricePoint, reasons: list[str]) -> None:
    if reasons:
        messages.warning(
            request,
            gettext("%(row)s is held for review (%(reasons)s): approve it to use it.")
            % {"row": row, "reasons": "; ".join(reasons)},
        )


def row_status(row: PricePoint) -> str:
    """Pending review, superseded (by an approved correction), or live."""
    if row.pending:
        return str(_("pending review"))
    if hasattr(row, "superseded_by") and not row.superseded_by.pending:
        return str(_("superseded"))
    return str(_("live"))


class HistoryAdmin(StaleMarkerMixin, admin.ModelAdmin):
    """A model of dated rows: add-only, with "record a new price", "supersede" and review.

    ``descriptive_fields`` stay editable on a stored row (a name, a translation); every
    other field (amounts, currency, source, note, date) is frozen once recorded. The
    Chinese of a note is a translation, not a change of the price: it stays editable.
    """

    descriptive_fields: tuple[str, ...] = ("note_zh",)
    raw_id_fields = ["supersedes"]
    history_readonly = ("revision", "pending", "recorded_at", "recorded_by", "approved_at",
                        "approved_by", "record_links")  # fmt: skip
    actions = ["approve_selected"]

    def get_readonly_fields(self, request: HttpRequest, obj: Model | None = None) -> Any:
        if obj is None:
            return [*self.history_readonly[:-1]]
        frozen = [
            f.name
            for f in self.model._meta.concrete_fields
            if not f.primary_key
            and f.name not in self.descriptive_fields
            and f.name not in HISTORY_FIELDS
        ]
        return [*frozen, "supersedes", *self.history_readonly]

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        # The status and "recorded by" columns read these for every row.
        return super().get_queryset(request).select_related("superseded_by", "recorded_by")

    def has_approve_permission(self, request: HttpRequest) -> bool:
        """Approving is changing a row's status: the model's change permission."""
        opts = self.model._meta
        return request.user.has_perm(f"{opts.app_label}.change_{opts.model_name}")

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, Any]:
        """``?record_from=PK``: the row's values, for a new price (new date and source);
        ``?supersedes=PK``: all of them, for a correction of that row."""
        initial: dict[str, Any] = dict(super().get_changeform_initial_data(request))
        for parameter in ("record_from", "supersedes"):
            pk = request.GET.get(parameter, "")
            row = self.model._default_manager.filter(pk=pk).first() if pk.isdigit() else None
            if row is None:
                continue
            exclude = ["id", *HISTORY_FIELDS]
            if parameter == "record_from":
                exclude += ["effective_date", "source", "note", "note_zh", "estimate"]
            initial.update(model_to_dict(row, exclude=exclude))
            if parameter == "supersedes":
                initial["supersedes"] = row.pk
        return initial

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if change:  # only descriptive fields can have changed
            super().save_model(request, obj, form, change)
            return
        _held_message(request, obj, services.record_price(obj, request.user))

    @admin.display(description=_("record"))
    def record_links(self, obj: PricePoint) -> str:
        add = reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_add")
        return format_html(
            '<a href="{}?record_from={}">{}</a> · <a href="{}?supersedes={}">{}</a>',
            add,
            obj.pk,
            gettext("Record a new price"),
            add,
            obj.pk,
            gettext("Supersede (correction)"),
        )

    @admin.display(description=_("status"))
    def status(self, obj: PricePoint) -> str:
        return row_status(obj)

    @admin.action(description=_("Approve the selected pending rows"), permissions=["approve"])
    def approve_selected(self, request: HttpRequest, queryset: QuerySet) -> None:
        count = services.approve(queryset.filter(pending=True), request.user)
        self.message_user(
            request,
            ngettext("%(count)d row approved.", "%(count)d rows approved.", count)
            % {"count": count},
        )


class HistoryInline(admin.TabularInline):
    """The price history of an item: stored rows read-only, new rows added below."""

    extra = 1
    ordering = ["-effective_date", "-revision"]
    readonly_fields = ["status", "recorded_by", "recorded_at"]

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).select_related("superseded_by", "recorded_by")

    @admin.display(description=_("status"))
    def status(self, obj: PricePoint) -> str:
        return row_status(obj)


class RecordsPricesInline:
    """For the admin of an item with a price-history inline: new rows are recorded through
    :func:`services.record_price` (who, when, review)."""

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        if not issubclass(formset.model, PricePoint):
            formset.save()
            return
        for obj in formset.save(commit=False):
            if obj.pk is None:
                _held_message(request, obj, services.record_price(obj, request.user))


class GpuThroughputInline(admin.TabularInline):
    model = GpuThroughput
    extra = 0


@admin.register(Benchmark)
class BenchmarkAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "unit"]
    search_fields = ["slug", "name"]


class UsedGpuPriceInline(HistoryInline):
    model = UsedGpuPrice
    fields = ["slug", "amount", "currency", "age_years", "effective_date", "source", "note",
              "note_zh", "estimate", "status", "recorded_by", "recorded_at"]  # fmt: skip


@admin.register(GpuModel)
class GpuModelAdmin(RecordsPricesInline, admin.ModelAdmin):
    list_display = [
        "slug",
        "vendor",
        "name",
        "vram_gb",
        "board_power_watts",
        "idle_power_watts",
        "supports_nvlink",
        "resale_retention",
    ]
    list_filter = ["vendor", "supports_nvlink"]
    search_fields = ["slug", "name", "vendor"]
    readonly_fields = ["resale_fit"]
    inlines = [GpuThroughputInline, UsedGpuPriceInline]

    @admin.display(description=_("resale retention per year (fit)"))
    def resale_retention(self, obj: GpuModel) -> str:
        fit = retention_fit(obj, datetime.date.today())
        return "—" if fit.retention_decimal is None else str(fit.retention_decimal)

    @admin.display(description=_("resale fit"))
    def resale_fit(self, obj: GpuModel) -> str:
        """The fit as of today, the observations it uses and those it leaves out."""
        if obj.pk is None:
            return "—"
        fit = retention_fit(obj, datetime.date.today())
        used = format_html_join(
            "",
            "<li>{} {} {}, {} {} ({}){}</li>",
            (
                (o.effective_date, o.amount, o.currency, gettext("age"), o.age_years, o.slug,
                 gettext(" — estimate") if o.estimate else "")
                for o in fit.fitted
            ),
        )  # fmt: skip
        left = format_html_join(
            "",
            "<li>{} {} {} ({}): {}</li>",
            ((o.effective_date, o.amount, o.currency, o.slug, why) for o, why in fit.left_out),
        )
        return format_html(
            "<p>{}</p><p>{}</p><ul>{}</ul><p>{}</p><ul>{}</ul>",
            fit.summary(),
            gettext("Observations fitted:"),
            used,
            gettext("Shown, not fitted:"),
            left,
        )


@admin.register(GpuThroughput)
class GpuThroughputAdmin(admin.ModelAdmin):
    list_display = ["gpu_model", "benchmark", "relative_throughput", "measured_value", "estimate"]
    list_filter = ["benchmark", "estimate"]
    search_fields = ["gpu_model__slug", "gpu_model__name", "benchmark__slug"]
    list_select_related = ["gpu_model", "benchmark"]


class PartPriceInline(HistoryInline):
    model = PartPrice
    fields = ["amount", "currency", "effective_date", "source", "note", "note_zh", "estimate",
              "status", "recorded_by", "recorded_at"]  # fmt: skip


@admin.register(Part)
class PartAdmin(RecordsPricesInline, admin.ModelAdmin):
    list_display = ["slug", "name", "kind", "load_power_watts", "idle_power_watts", "price_now"]
    list_filter = ["kind", LatestPriceStaleFilter]
    search_fields = ["slug", "name"]
    inlines = [PartPriceInline]

    @admin.display(description=_("effective price"))
    def price_now(self, obj: Part) -> str:
        point = obj.prices.effective_on(datetime.date.today()).first()
        return _describe(point, point.amount if point else None)


@admin.register(PartPrice)
class PartPriceAdmin(HistoryAdmin):
    list_display = ["part", "amount", "currency", "effective_date", "estimate", "stale", "status",
                    "revision", "recorded_by", "recorded_at", "source"]  # fmt: skip
    list_filter = ["pending", "currency", "estimate", StaleFilter, "part__kind"]
    autocomplete_fields = ["part"]
    search_fields = ["part__slug", "part__name", "source", "note"]
    date_hierarchy = "effective_date"
    list_select_related = ["part"]


@admin.register(FxRate)
class FxRateAdmin(HistoryAdmin):
    list_display = [
        "base_currency",
        "quote_currency",
        "rate",
        "effective_date",
        "estimate",
        "stale",
        "status",
        "revision",
        "recorded_by",
        "recorded_at",
    ]
    list_filter = ["pending", "base_currency", "quote_currency", "estimate", StaleFilter]
    search_fields = ["source", "note"]


class TariffPeriodInline(admin.TabularInline):
    """A tariff version's periods: given when the version is recorded, then frozen with it."""

    model = TariffPeriod
    extra = 0

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return obj is None

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return obj is None

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def get_extra(self, request: HttpRequest, obj: Model | None = None, **kwargs: Any) -> int:
        return len(self._initial(request)) if obj is None else 0

    def _initial(self, request: HttpRequest) -> list[dict[str, Any]]:
        """A new version of a time-of-use tariff starts from the periods of the row it
        follows or corrects."""
        pk = request.GET.get("supersedes") or request.GET.get("record_from") or ""
        if not pk.isdigit():
            return []
        periods = TariffPeriod.objects.filter(tariff_id=int(pk)).order_by("name")
        return [
            model_to_dict(p, fields=["name", "hours_per_day", "price_per_kwh"]) for p in periods
        ]


@admin.register(Tariff)
class TariffAdmin(HistoryAdmin):
    descriptive_fields = ("name", "name_zh", "note_zh")

    def get_formset_kwargs(
        self, request: HttpRequest, obj: Any, inline: Any, prefix: str
    ) -> dict[str, Any]:
        kwargs: dict[str, Any] = super().get_formset_kwargs(request, obj, inline, prefix)
        if isinstance(inline, TariffPeriodInline) and obj.pk is None and request.method == "GET":
            kwargs["initial"] = inline._initial(request)
        return kwargs

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
        "status",
        "revision",
        "recorded_by",
    ]
    list_filter = ["pending", "country", "kind", "currency", "estimate", StaleFilter]
    search_fields = ["slug", "name", "region"]
    inlines = [TariffPeriodInline]


@admin.register(TariffPeriod)
class TariffPeriodAdmin(admin.ModelAdmin):
    """Periods are read here; they are recorded with their tariff version (its page)."""

    list_display = ["tariff", "name", "hours_per_day", "price_per_kwh"]
    search_fields = ["tariff__slug", "name"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


@admin.register(HostingOption)
class HostingOptionAdmin(HistoryAdmin):
    descriptive_fields = ("name", "name_zh", "note_zh")
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
        "status",
        "revision",
        "recorded_by",
    ]
    list_filter = [
        "pending",
        "kind",
        "currency",
        "power_metered_separately",
        "estimate",
        StaleFilter,
    ]
    search_fields = ["slug", "name", "region"]


class CloudRateInline(HistoryInline):
    model = CloudRate
    fields = ["hourly_rate", "currency", "effective_date", "source", "note", "note_zh",
              "estimate", "status", "recorded_by", "recorded_at"]  # fmt: skip


@admin.register(CloudOffering)
class CloudOfferingAdmin(RecordsPricesInline, admin.ModelAdmin):
    list_display = [
        "slug",
        "provider",
        "instance_type",
        "gpu_model",
        "gpu_count",
        "gpu_memory",
        "pricing_mode",
        "rate_now",
    ]
    list_filter = ["provider", "pricing_mode", "gpu_model", LatestPriceStaleFilter]
    search_fields = ["slug", "provider", "instance_type", "region"]
    list_select_related = ["gpu_model"]
    inlines = [CloudRateInline]

    @admin.display(description=_("GPU memory"))
    def gpu_memory(self, obj: CloudOffering) -> str:
        """The instance's GPU memory, from its GPU model: count × memory of one GPU."""
        return f"{obj.gpu_count} × {obj.gpu_model.vram_gb} GB"

    @admin.display(description=_("effective hourly rate"))
    def rate_now(self, obj: CloudOffering) -> str:
        point = obj.rates.effective_on(datetime.date.today()).first()
        return _describe(point, point.hourly_rate if point else None)


@admin.register(CloudRate)
class CloudRateAdmin(HistoryAdmin):
    list_display = [
        "offering",
        "hourly_rate",
        "currency",
        "effective_date",
        "estimate",
        "stale",
        "status",
        "revision",
        "recorded_by",
        "recorded_at",
        "source",
    ]
    list_filter = ["pending", "currency", "offering__provider", "estimate", StaleFilter]
    autocomplete_fields = ["offering"]
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


@admin.register(UsedGpuPrice)
class UsedGpuPriceAdmin(HistoryAdmin):
    list_display = ["slug", "gpu_model", "amount", "currency", "age_years", "effective_date",
                    "estimate", "stale", "status", "revision", "recorded_by", "source"]  # fmt: skip
    list_filter = ["pending", "currency", "estimate", StaleFilter, "gpu_model"]
    search_fields = ["slug", "gpu_model__slug", "gpu_model__name", "source", "note"]
    date_hierarchy = "effective_date"
    list_select_related = ["gpu_model"]
