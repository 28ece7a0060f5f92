"""The price catalog: hardware, prices with history, clouds, places, presets.

Every row a user can pick is identified by a ``slug`` (its natural key), so the
shipped fixtures in ``fixtures/`` carry no database ids and an admin's change
shows up as a readable diff. Dated rows (prices, rates, tariffs, hosting fees,
FX rates) carry their ``source`` and an ``estimate`` flag; prices are never
overwritten: a new price is a new row with a later ``effective_date``, and
"the price" of an item on a date is the latest row effective on or before it
(:meth:`PricePointQuerySet.effective_on`).

Money is ``DecimalField``; conversion between currencies happens only in the
resolver (``webapp/catalog/resolver.py``), never in the engine.
"""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Any, ClassVar, Self

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from webapp.catalog import pricing_modes
from webapp.catalog.pricing_modes import COMMITMENT_TERMS as COMMITMENT_TERMS  # re-exported
from webapp.catalog.pricing_modes import PricingMode as PricingMode  # re-exported

STALE_AFTER_DAYS = 180
"""A price older than this many days is flagged "stale" in the admin, by ``catalog_check`` and
on a results page (for the prices its plan used, on the plan's date)."""


def is_stale_on(effective: datetime.date, day: datetime.date) -> bool:
    """Whether a price in effect from ``effective`` is stale on ``day``
    (older than :data:`STALE_AFTER_DAYS`)."""
    return (day - effective).days > STALE_AFTER_DAYS


def months_between(earlier: datetime.date, later: datetime.date) -> int:
    """Whole calendar months from ``earlier`` to ``later`` (2024-08-22 → 2026-12-05: 27)."""
    months = (later.year - earlier.year) * 12 + later.month - earlier.month
    return months - 1 if later.day < earlier.day else months


class Currency(models.TextChoices):
    CNY = "CNY", _("Chinese yuan (CNY)")
    USD = "USD", _("US dollar (USD)")


CURRENCY_CODES = [c.value for c in Currency]


def _currency_field() -> models.CharField:
    return models.CharField(_("currency"), max_length=3, choices=Currency.choices)


# --- natural keys ---------------------------------------------------------------------------


class SlugManager(models.Manager):
    """Default manager of slug-keyed models: ``get_by_natural_key(slug)``."""

    def get_by_natural_key(self, slug: str) -> Any:
        return self.get(slug=slug)


class SlugModel(models.Model):
    slug = models.SlugField(
        _("slug"),
        max_length=80,
        unique=True,
        help_text=_("Stable identifier used in fixtures, the API and the command line."),
    )

    objects = SlugManager()

    class Meta:
        abstract = True
        ordering = ["slug"]

    def natural_key(self) -> tuple[str]:
        return (self.slug,)


def is_chinese(language: str | None = None) -> bool:
    """Whether ``language`` (default: the active one) is Chinese."""
    return (language or get_language() or "").lower().startswith("zh")


class TranslatedTextMixin:
    """A row whose explanatory texts come in English and, optionally, Simplified Chinese.

    ``TRANSLATED`` names the English fields of prose a user reads (notes, descriptions,
    rationales, sources that explain rather than cite); each has a Chinese companion
    ``<field>_zh`` (:func:`chinese_text_field`), blank when nobody translated it yet.
    Citations (a price's ``source``, titles, URLs) stay as published and have none.
    """

    TRANSLATED: ClassVar[tuple[str, ...]] = ()

    def localized(self, field: str, language: str | None = None) -> str:
        """The text of ``field`` in ``language`` (default: the active one): its Chinese
        companion under Chinese when it has one, else the English."""
        if is_chinese(language):
            chinese = getattr(self, f"{field}_zh", "")
            if chinese:
                return str(chinese)
        return str(getattr(self, field))

    def translation_of(self, english: str, language: str | None = None) -> str | None:
        """``english`` in ``language`` when it is the English of one of the row's texts as
        stored now (else ``None``: a text the row no longer holds has no translation here)."""
        for field in self.TRANSLATED:
            if english and getattr(self, field) == english:
                return self.localized(field, language)
        return None

    def untranslated(self) -> list[str]:
        """The row's texts that have English but no Chinese."""
        return [f for f in self.TRANSLATED if getattr(self, f) and not getattr(self, f"{f}_zh")]


class LocalizedNameMixin(TranslatedTextMixin):
    """A row with an English ``name`` and an optional Chinese ``name_zh`` (blank: English).

    :meth:`localized_name` is the name in the active language, falling back to English.
    """

    name_zh: str

    def english_name(self) -> str:
        return str(getattr(self, "name", "") or self)

    def localized_name(self, language: str | None = None) -> str:
        if is_chinese(language) and self.name_zh:
            return self.name_zh
        return self.english_name()


def name_zh_field() -> models.CharField:
    return models.CharField(
        _("Chinese name"),
        max_length=200,
        blank=True,
        help_text=_("Shown in the Chinese interface; blank shows the English name."),
    )


def chinese_text_field(verbose_name: Any) -> models.TextField:
    """The Simplified Chinese companion of an English text (see :class:`TranslatedTextMixin`)."""
    return models.TextField(
        verbose_name,
        blank=True,
        help_text=_(
            "Shown in the Chinese interface; blank shows the English. Keep figures and units "
            "as in the English; leave product names, titles and URLs as published."
        ),
    )


def sourced_fields() -> tuple[
    models.CharField, models.TextField, models.TextField, models.BooleanField
]:
    """Where a figure comes from: a URL or citation, a note (and its Chinese), and whether it
    is an estimate.

    A function rather than an abstract base so the fields come last in each model
    (and so in each fixture row), after the figures they describe.
    """
    return (
        models.CharField(
            _("source"),
            max_length=500,
            blank=True,
            help_text=_(
                "URL or citation of the public source; required unless this is an estimate."
            ),
        ),
        models.TextField(_("note"), blank=True),
        chinese_text_field(_("Chinese note")),
        models.BooleanField(
            _("estimate"),
            default=False,
            help_text=_("The figure has no direct public source and is shown as an estimate."),
        ),
    )


# --- GPUs and benchmarks --------------------------------------------------------------------


class Benchmark(LocalizedNameMixin, SlugModel):
    """A named training benchmark; throughputs are relative to the reference GPU on it."""

    TRANSLATED = ("description",)

    name = models.CharField(_("name"), max_length=200)
    name_zh = name_zh_field()
    unit = models.CharField(_("unit"), max_length=50, help_text=_("e.g. images/s"))
    description = models.TextField(_("description"), blank=True)
    description_zh = chinese_text_field(_("Chinese description"))

    class Meta(SlugModel.Meta):
        verbose_name = _("benchmark")
        verbose_name_plural = _("benchmarks")

    def __str__(self) -> str:
        return self.name


class GpuModel(LocalizedNameMixin, SlugModel):
    """A GPU model. Power is the board power [W]: what the card draws at full load."""

    TRANSLATED = ("note",)

    vendor = models.CharField(_("vendor"), max_length=50)
    name = models.CharField(_("name"), max_length=100)
    name_zh = name_zh_field()
    vram_gb = models.PositiveSmallIntegerField(_("VRAM [GB]"))
    board_power_watts = models.PositiveIntegerField(_("board power [W]"))
    idle_power_watts = models.PositiveIntegerField(
        _("idle power [W]"), help_text=_("Draw while powered on but not computing.")
    )
    supports_nvlink = models.BooleanField(_("supports NVLink"), default=False)
    peak_dense_tflops = models.DecimalField(
        _("peak dense 16-bit TFLOPS"),
        max_digits=7,
        decimal_places=2,
        null=True,
        blank=True,
        help_text=_(
            "Peak dense tensor throughput at BF16 or FP16 with FP32 accumulate, without "
            "sparsity [TFLOP/s], from the datasheet; converts a training run to GPU-hours."
        ),
    )
    peak_tflops_source = models.CharField(
        _("source of the peak TFLOPS"), max_length=500, blank=True
    )
    skypilot_name = models.CharField(
        _("SkyPilot accelerator name"),
        max_length=50,
        blank=True,
        help_text=_(
            "AcceleratorName in SkyPilot's catalog files (e.g. H100); lets catalog_import "
            "add offerings of this GPU model."
        ),
    )
    source = models.CharField(_("source"), max_length=500, blank=True)
    note = models.TextField(_("note"), blank=True)
    note_zh = chinese_text_field(_("Chinese note"))

    class Meta(SlugModel.Meta):
        verbose_name = _("GPU model")
        verbose_name_plural = _("GPU models")
        constraints = [
            models.CheckConstraint(
                condition=Q(idle_power_watts__lte=F("board_power_watts")),
                name="gpumodel_idle_le_board_power",
            ),
            models.CheckConstraint(condition=Q(vram_gb__gte=1), name="gpumodel_vram_ge_1"),
            models.CheckConstraint(
                condition=Q(peak_dense_tflops__isnull=True) | Q(peak_dense_tflops__gt=0),
                name="gpumodel_peak_tflops_positive",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.vendor} {self.name}"

    def english_name(self) -> str:
        return str(self)

    def localized_name(self, language: str | None = None) -> str:
        name = super().localized_name(language)
        return name if name == str(self) else f"{self.vendor} {name}"


class GpuThroughputManager(models.Manager):
    def get_by_natural_key(self, gpu_model: str, benchmark: str) -> Any:
        return self.get(gpu_model__slug=gpu_model, benchmark__slug=benchmark)


class GpuThroughput(TranslatedTextMixin, models.Model):
    """Training throughput of one GPU on one benchmark, relative to the reference GPU (= 1.0)."""

    TRANSLATED = ("note",)

    gpu_model = models.ForeignKey(
        GpuModel,
        on_delete=models.CASCADE,
        related_name="throughputs",
        verbose_name=_("GPU model"),
    )
    benchmark = models.ForeignKey(
        Benchmark,
        on_delete=models.PROTECT,
        related_name="throughputs",
        verbose_name=_("benchmark"),
    )
    relative_throughput = models.DecimalField(
        _("relative throughput"),
        max_digits=6,
        decimal_places=3,
        help_text=_("Throughput of one GPU; A100 80GB PCIe = 1.000."),
    )
    measured_value = models.DecimalField(
        _("measured value"),
        max_digits=10,
        decimal_places=1,
        null=True,
        blank=True,
        help_text=_("Absolute figure in the benchmark's unit, when published."),
    )
    source, note, note_zh, estimate = sourced_fields()

    objects = GpuThroughputManager()

    class Meta:
        verbose_name = _("GPU throughput")
        verbose_name_plural = _("GPU throughputs")
        ordering = ["gpu_model__slug", "benchmark__slug"]
        constraints = [
            models.UniqueConstraint(
                fields=["gpu_model", "benchmark"], name="gputhroughput_one_per_benchmark"
            ),
            models.CheckConstraint(
                condition=Q(relative_throughput__gt=0), name="gputhroughput_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.gpu_model} · {self.benchmark}: {self.relative_throughput}"

    def natural_key(self) -> tuple[str, str]:
        return (self.gpu_model.slug, self.benchmark.slug)

    natural_key.dependencies = ["catalog.gpumodel", "catalog.benchmark"]  # type: ignore[attr-defined]


# --- prices with history --------------------------------------------------------------------


class PricePointQuerySet(models.QuerySet):
    def live(self) -> Self:
        """Rows that count: approved (not pending review) and not superseded by an approved
        correction. A pending row, and the row a pending correction would replace, are
        left as they were until a staff user approves it."""
        return self.filter(pending=False).exclude(superseded_by__pending=False)

    def effective_on(self, day: datetime.date) -> Self:
        """Live points in effect on ``day``, newest first: ``.first()`` is "the price" on that
        day (of one item: filter by item first)."""
        return self.live().filter(effective_date__lte=day).order_by("-effective_date", "-revision")


class PricePoint(models.Model):
    """One dated figure of one item (a price, a rate, a tariff, a hosting fee, an FX rate).

    Never edited in place: a new price is a new row with its own ``effective_date``; a
    correction (a typo, a wrong date) is a new row that ``supersedes`` the wrong one, whose
    ``revision`` is one more than the row it corrects, and both stay in the history. Each
    row records who recorded it and when, and whether it waits for review (``pending``):
    a pending row is ignored by every reader of prices until a staff user approves it.

    The subclass declares ``effective_date`` itself, so that its fields keep their order
    in the fixture files.
    """

    effective_date: datetime.date

    revision = models.PositiveSmallIntegerField(
        _("revision"),
        default=0,
        editable=False,
        help_text=_("0: as first recorded; n: the n-th correction of it."),
    )
    supersedes = models.OneToOneField(
        "self",
        # A row that was corrected stays in the history: it cannot be deleted while its
        # correction exists (unless both go, with their item).
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="superseded_by",
        verbose_name=_("supersedes (correction of)"),
    )
    pending = models.BooleanField(
        _("pending review"),
        default=False,
        help_text=_("Held for review: not used until a staff user approves it."),
    )
    recorded_at = models.DateTimeField(_("recorded at"), default=timezone.now, editable=False)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
        verbose_name=_("recorded by"),
    )
    approved_at = models.DateTimeField(_("approved at"), null=True, blank=True, editable=False)
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
        verbose_name=_("approved by"),
    )

    class Meta:
        abstract = True

    @property
    def is_stale(self) -> bool:
        return is_stale_on(self.effective_date, datetime.date.today())

    def item_lookup(self) -> dict[str, Any]:
        """Filter arguments that select every row of this row's item (its history)."""
        raise NotImplementedError

    def clean(self) -> None:
        super().clean()
        corrected = self.supersedes
        if corrected is None:
            return
        if corrected.item_lookup() != self.item_lookup():
            raise ValidationError(
                {"supersedes": _("A correction replaces a row of the same item.")}
            )

    def review_figures(self) -> dict[str, Decimal | None]:
        """The figures a reviewer compares with the row before: field name → value."""
        raise NotImplementedError

    @property
    def review_currency(self) -> str | None:
        """The currency of :meth:`review_figures` (``None``: the row has none of its own)."""
        return getattr(self, "currency", None)

    def revision_key(self) -> tuple[str, ...]:
        """The revision as the last part of a natural key: nothing for the row as first
        recorded (so the shipped fixtures' keys stay as they were), else its number."""
        return () if not self.revision else (str(self.revision),)


HISTORY_FIELDS = (
    "revision",
    "supersedes",
    "pending",
    "recorded_at",
    "recorded_by",
    "approved_at",
    "approved_by",
)
"""Fields of :class:`PricePoint` that record the history of a row rather than the figure."""


def history_constraints(prefix: str, item_fields: list[str]) -> list[models.BaseConstraint]:
    """One row per item, date and revision; a correction (and only one) has a revision ≥ 1."""
    return [
        models.UniqueConstraint(
            fields=[*item_fields, "effective_date", "revision"],
            name=f"{prefix}_one_per_date_and_revision",
        ),
        models.CheckConstraint(
            condition=Q(supersedes__isnull=True, revision=0)
            | Q(supersedes__isnull=False, revision__gte=1),
            name=f"{prefix}_revision_iff_correction",
        ),
    ]


class PartKind(models.TextChoices):
    GPU = "gpu", _("GPU card")
    NODE = "node", _("GPU server (GPUs included)")
    CPU = "cpu", _("CPU")
    MOTHERBOARD = "motherboard", _("motherboard")
    RAM = "ram", _("memory")
    STORAGE = "storage", _("storage")
    PSU = "psu", _("power supply")
    CHASSIS = "chassis", _("chassis")
    NETWORK = "network", _("network")
    COOLING = "cooling", _("cooling")


class EfficiencyGrade(models.TextChoices):
    BRONZE = "bronze", _("80 Plus Bronze")
    SILVER = "silver", _("80 Plus Silver")
    GOLD = "gold", _("80 Plus Gold")
    PLATINUM = "platinum", _("80 Plus Platinum")
    TITANIUM = "titanium", _("80 Plus Titanium")


GPU_CARRYING_KINDS = (PartKind.GPU, PartKind.NODE)
"""Kinds of part that hold GPUs of a :class:`GpuModel` (``gpu_count`` of them per unit)."""

RACK_KINDS = (PartKind.CHASSIS, PartKind.NODE, PartKind.NETWORK)
"""Kinds of part whose ``rack_units`` a colocation provider bills."""


class Part(LocalizedNameMixin, SlugModel):
    """A component of a self-built box, with its wall power draw [W] idle and under load.

    A GPU card is a part of kind ``gpu`` pointing at its :class:`GpuModel`; its draw is
    the GPU model's board/idle power (counted once, by the resolver), so the part's own
    power fields stay 0. A power supply's draw is its conversion loss.

    A GPU server sold whole (kind ``node``, e.g. an 8-GPU HGX server) also points at its
    GPU model and holds ``gpu_count`` GPUs; its own power fields are what the server
    draws *besides* its GPUs (CPUs, NVSwitch, NICs, fans, supply losses), and
    ``rated_watts``/``efficiency_grade`` describe its built-in power supplies.
    """

    TRANSLATED = ("note",)

    kind = models.CharField(_("kind"), max_length=20, choices=PartKind.choices)
    name = models.CharField(_("name"), max_length=200)
    name_zh = name_zh_field()
    gpu_model = models.ForeignKey(
        GpuModel,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="parts",
        verbose_name=_("GPU model"),
        help_text=_("For GPU cards and GPU servers only."),
    )
    gpu_count = models.PositiveSmallIntegerField(
        _("GPUs per unit"),
        default=0,
        help_text=_("GPU card: 1; GPU server: the GPUs it holds; other parts: 0."),
    )
    idle_power_watts = models.PositiveIntegerField(_("idle power [W]"), default=0)
    load_power_watts = models.PositiveIntegerField(_("load power [W]"), default=0)
    rated_watts = models.PositiveIntegerField(
        _("rated output [W]"),
        null=True,
        blank=True,
        help_text=_("Power supplies, and the built-in supplies of a GPU server."),
    )
    efficiency_grade = models.CharField(
        _("efficiency grade"),
        max_length=20,
        choices=EfficiencyGrade.choices,
        blank=True,
        help_text=_("Power supplies, and the built-in supplies of a GPU server."),
    )
    rack_units = models.PositiveSmallIntegerField(
        _("rack units"),
        default=0,
        help_text=_(
            "Chassis, GPU servers and network gear: height billed by a colocation provider (U)."
        ),
    )
    cores = models.PositiveSmallIntegerField(_("CPU cores"), null=True, blank=True)
    source = models.CharField(_("source"), max_length=500, blank=True)
    note = models.TextField(_("note"), blank=True)
    note_zh = chinese_text_field(_("Chinese note"))

    class Meta(SlugModel.Meta):
        verbose_name = _("part")
        verbose_name_plural = _("parts")
        constraints = [
            models.CheckConstraint(
                condition=Q(idle_power_watts__lte=F("load_power_watts")),
                name="part_idle_le_load_power",
            ),
            models.CheckConstraint(
                condition=(Q(kind__in=["gpu", "node"]) & Q(gpu_model__isnull=False))
                | (~Q(kind__in=["gpu", "node"]) & Q(gpu_model__isnull=True)),
                name="part_gpu_model_iff_gpu",
            ),
            models.CheckConstraint(
                condition=(Q(kind="gpu") & Q(gpu_count=1))
                | (Q(kind="node") & Q(gpu_count__gte=1))
                | (~Q(kind__in=["gpu", "node"]) & Q(gpu_count=0)),
                name="part_gpu_count_by_kind",
            ),
            models.CheckConstraint(
                condition=~Q(kind="gpu") | (Q(idle_power_watts=0) & Q(load_power_watts=0)),
                name="part_gpu_power_from_gpu_model",
            ),
            models.CheckConstraint(
                condition=~Q(kind="psu")
                | (Q(rated_watts__isnull=False) & Q(rated_watts__gte=1) & ~Q(efficiency_grade="")),
                name="part_psu_rated_and_graded",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        # A card holds one GPU: spare every caller (admin, tests, scripts) from saying so.
        if self.kind == PartKind.GPU and not self.gpu_count:
            self.gpu_count = 1
        super().save(*args, **kwargs)


class PartPriceManager(models.Manager.from_queryset(PricePointQuerySet)):  # type: ignore[misc]
    def get_by_natural_key(self, part: str, effective_date: str, revision: str = "0") -> Any:
        return self.get(part__slug=part, effective_date=effective_date, revision=int(revision))


class PartPrice(TranslatedTextMixin, PricePoint):
    """Purchase price of one unit of a part, effective from ``effective_date``."""

    TRANSLATED = ("note",)

    part = models.ForeignKey(
        Part, on_delete=models.CASCADE, related_name="prices", verbose_name=_("part")
    )
    amount = models.DecimalField(_("amount"), max_digits=12, decimal_places=2)
    currency = _currency_field()
    effective_date = models.DateField(_("effective date"))
    source, note, note_zh, estimate = sourced_fields()

    objects = PartPriceManager()

    class Meta:
        verbose_name = _("part price")
        verbose_name_plural = _("part prices")
        ordering = ["part__slug", "effective_date"]
        get_latest_by = "effective_date"
        constraints = [
            *history_constraints("partprice", ["part"]),
            models.CheckConstraint(condition=Q(amount__gte=0), name="partprice_amount_ge_0"),
            models.CheckConstraint(
                condition=Q(currency__in=CURRENCY_CODES), name="partprice_currency_known"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.part} {self.amount} {self.currency} ({self.effective_date})"

    def natural_key(self) -> tuple[str, ...]:
        return (self.part.slug, self.effective_date.isoformat(), *self.revision_key())

    def item_lookup(self) -> dict[str, Any]:
        return {"part_id": self.part_id}

    def review_figures(self) -> dict[str, Decimal | None]:
        return {"amount": self.amount}

    natural_key.dependencies = ["catalog.part"]  # type: ignore[attr-defined]


class FxRateManager(models.Manager.from_queryset(PricePointQuerySet)):  # type: ignore[misc]
    def get_by_natural_key(
        self, base_currency: str, quote_currency: str, effective_date: str, revision: str = "0"
    ) -> Any:
        return self.get(
            base_currency=base_currency,
            quote_currency=quote_currency,
            effective_date=effective_date,
            revision=int(revision),
        )


class FxRate(TranslatedTextMixin, PricePoint):
    """``1 base_currency = rate quote_currency``, effective from ``effective_date``."""

    TRANSLATED = ("note",)

    base_currency = models.CharField(_("base currency"), max_length=3, choices=Currency.choices)
    quote_currency = models.CharField(_("quote currency"), max_length=3, choices=Currency.choices)
    rate = models.DecimalField(_("rate"), max_digits=12, decimal_places=6)
    effective_date = models.DateField(_("effective date"))
    source, note, note_zh, estimate = sourced_fields()

    objects = FxRateManager()

    class Meta:
        verbose_name = _("FX rate")
        verbose_name_plural = _("FX rates")
        ordering = ["base_currency", "quote_currency", "effective_date"]
        constraints = [
            *history_constraints("fxrate", ["base_currency", "quote_currency"]),
            models.CheckConstraint(condition=Q(rate__gt=0), name="fxrate_rate_positive"),
            models.CheckConstraint(
                condition=~Q(base_currency=F("quote_currency")), name="fxrate_distinct_currencies"
            ),
        ]

    def __str__(self) -> str:
        return f"1 {self.base_currency} = {self.rate} {self.quote_currency} ({self.effective_date})"

    def multiplier(self, currency: str) -> Decimal:
        """Units of the pair's other currency per unit of ``currency``: the rate from the
        base currency, its inverse from the quote currency."""
        return self.rate if currency == self.base_currency else Decimal(1) / self.rate

    def natural_key(self) -> tuple[str, ...]:
        return (
            self.base_currency,
            self.quote_currency,
            self.effective_date.isoformat(),
            *self.revision_key(),
        )

    def item_lookup(self) -> dict[str, Any]:
        return {"base_currency": self.base_currency, "quote_currency": self.quote_currency}

    def review_figures(self) -> dict[str, Decimal | None]:
        return {"rate": self.rate}

    @property
    def review_currency(self) -> str | None:
        return None  # the pair is the item: a rate cannot change currency


# --- places: electricity and hosting --------------------------------------------------------


class DatedSlugManager(models.Manager.from_queryset(PricePointQuerySet)):  # type: ignore[misc]
    """Manager of items whose every row is one dated version (tariffs, hosting options):
    the slug names the item, ``(slug, effective date[, revision])`` one row of it."""

    def get_by_natural_key(self, slug: str, effective_date: str, revision: str = "0") -> Any:
        return self.get(slug=slug, effective_date=effective_date, revision=int(revision))


def dated_slug_field() -> models.SlugField:
    return models.SlugField(
        _("slug"),
        max_length=80,
        help_text=_(
            "Stable identifier used in fixtures, the API and the command line; every dated "
            "row of the same item has the same slug."
        ),
    )


class TariffKind(models.TextChoices):
    FLAT = "flat", _("flat rate")
    TIME_OF_USE = "tou", _("time of use")


class Tariff(LocalizedNameMixin, PricePoint, SlugModel):
    """An electricity tariff of a region, as published from ``effective_date``.

    A flat tariff has one ``price_per_kwh``. A time-of-use tariff has periods
    (:class:`TariffPeriod`) covering the 24 hours of a day; the resolver averages
    them weighted by hours, because a training box draws around the clock.

    Every row is one dated version of the tariff (its periods belong to that
    version): a new price is a new row with the same ``slug`` and a later date, and
    the tariff on a date is the live row of that slug in effect on it.
    """

    TRANSLATED = ("note",)

    slug = dated_slug_field()  # not unique: one row per version

    name = models.CharField(_("name"), max_length=200)
    name_zh = name_zh_field()
    region = models.CharField(_("region"), max_length=100)
    country = models.CharField(_("country"), max_length=2, help_text=_("ISO 3166 code"))
    kind = models.CharField(
        _("kind"), max_length=10, choices=TariffKind.choices, default=TariffKind.FLAT
    )
    price_per_kwh = models.DecimalField(
        _("price per kWh"),
        max_digits=10,
        decimal_places=5,
        null=True,
        blank=True,
        help_text=_("Flat tariffs only."),
    )
    currency = _currency_field()
    effective_date = models.DateField(_("effective date"))
    source, note, note_zh, estimate = sourced_fields()

    objects = DatedSlugManager()  # type: ignore[misc]

    class Meta(SlugModel.Meta):
        verbose_name = _("electricity tariff")
        verbose_name_plural = _("electricity tariffs")
        ordering = ["slug", "effective_date", "revision"]
        constraints = [
            *history_constraints("tariff", ["slug"]),
            models.CheckConstraint(
                condition=Q(price_per_kwh__gte=0) | Q(price_per_kwh__isnull=True),
                name="tariff_price_ge_0",
            ),
            models.CheckConstraint(
                condition=~Q(kind="flat") | Q(price_per_kwh__isnull=False),
                name="tariff_flat_has_price",
            ),
            models.CheckConstraint(
                condition=Q(currency__in=CURRENCY_CODES), name="tariff_currency_known"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def natural_key(self) -> tuple[str, ...]:  # type: ignore[override]
        return (self.slug, self.effective_date.isoformat(), *self.revision_key())

    def item_lookup(self) -> dict[str, Any]:
        return {"slug": self.slug}

    def review_figures(self) -> dict[str, Decimal | None]:
        return {"price_per_kwh": self.price_per_kwh}  # time of use: the periods, not reviewed


class TariffPeriodManager(models.Manager):
    def get_by_natural_key(self, *key: str) -> Any:
        """``(tariff slug, its effective date[, its revision], period name)``."""
        *tariff, name = key
        return self.get(tariff=Tariff.objects.get_by_natural_key(*tariff), name=name)


class TariffPeriod(models.Model):
    """One band of a time-of-use tariff: ``hours_per_day`` hours at ``price_per_kwh``."""

    tariff = models.ForeignKey(
        Tariff, on_delete=models.CASCADE, related_name="periods", verbose_name=_("tariff")
    )
    name = models.CharField(_("name"), max_length=50, help_text=_("e.g. peak, flat, valley"))
    hours_per_day = models.DecimalField(_("hours per day"), max_digits=4, decimal_places=2)
    price_per_kwh = models.DecimalField(_("price per kWh"), max_digits=10, decimal_places=5)

    objects = TariffPeriodManager()

    class Meta:
        verbose_name = _("time-of-use period")
        verbose_name_plural = _("time-of-use periods")
        ordering = ["tariff__slug", "name"]
        constraints = [
            models.UniqueConstraint(fields=["tariff", "name"], name="tariffperiod_unique_name"),
            models.CheckConstraint(
                condition=Q(hours_per_day__gt=0) & Q(hours_per_day__lte=24),
                name="tariffperiod_hours_in_day",
            ),
            models.CheckConstraint(
                condition=Q(price_per_kwh__gte=0), name="tariffperiod_price_ge_0"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tariff} · {self.name}"

    def natural_key(self) -> tuple[str, ...]:
        return (*self.tariff.natural_key(), self.name)

    natural_key.dependencies = ["catalog.tariff"]  # type: ignore[attr-defined]


class HostingKind(models.TextChoices):
    OFFICE = "office", _("desk-side / office")
    COLOCATION = "colocation", _("colocation")


class HostingOption(LocalizedNameMixin, PricePoint, SlugModel):
    """Where the box runs, with its fees as offered from ``effective_date``.

    Desk-side/office: no fee, PUE 1.0, electricity at the chosen tariff.
    Colocation: ``per_u_monthly`` × rack units, plus — when power is *not*
    metered separately — ``per_kw_monthly`` × the box's load power in kW, which
    then includes the electricity (the resolver sets the scenario's tariff to 0).
    When power is metered separately, energy is paid at the tariff × PUE instead.

    Every row is one dated version of the option, like a :class:`Tariff`'s.
    """

    TRANSLATED = ("note",)

    slug = dated_slug_field()  # not unique: one row per version
    name = models.CharField(_("name"), max_length=200)
    name_zh = name_zh_field()
    kind = models.CharField(_("kind"), max_length=20, choices=HostingKind.choices)
    region = models.CharField(_("region"), max_length=100)
    currency = _currency_field()
    per_u_monthly = models.DecimalField(
        _("fee per rack unit and month"), max_digits=10, decimal_places=2, default=Decimal(0)
    )
    per_kw_monthly = models.DecimalField(
        _("fee per kW and month"), max_digits=10, decimal_places=2, default=Decimal(0)
    )
    pue = models.DecimalField(_("PUE"), max_digits=4, decimal_places=2, default=Decimal("1.00"))
    power_metered_separately = models.BooleanField(
        _("power metered separately"),
        default=True,
        help_text=_("If false, the per-kW fee includes the electricity."),
    )
    effective_date = models.DateField(_("effective date"))
    source, note, note_zh, estimate = sourced_fields()

    objects = DatedSlugManager()  # type: ignore[misc]

    class Meta(SlugModel.Meta):
        verbose_name = _("hosting option")
        verbose_name_plural = _("hosting options")
        ordering = ["slug", "effective_date", "revision"]
        constraints = [
            *history_constraints("hosting", ["slug"]),
            models.CheckConstraint(
                condition=Q(per_u_monthly__gte=0) & Q(per_kw_monthly__gte=0),
                name="hosting_fees_ge_0",
            ),
            models.CheckConstraint(
                condition=Q(pue__gte=1) & Q(pue__lte=3), name="hosting_pue_between_1_and_3"
            ),
            models.CheckConstraint(
                condition=~Q(kind="office") | (Q(per_u_monthly=0) & Q(per_kw_monthly=0)),
                name="hosting_office_has_no_fee",
            ),
            models.CheckConstraint(
                condition=Q(currency__in=CURRENCY_CODES), name="hosting_currency_known"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def natural_key(self) -> tuple[str, ...]:  # type: ignore[override]
        return (self.slug, self.effective_date.isoformat(), *self.revision_key())

    def item_lookup(self) -> dict[str, Any]:
        return {"slug": self.slug}

    def review_figures(self) -> dict[str, Decimal | None]:
        return {"per_u_monthly": self.per_u_monthly, "per_kw_monthly": self.per_kw_monthly}


# --- cloud ----------------------------------------------------------------------------------


class CloudOffering(LocalizedNameMixin, SlugModel):
    """A rentable instance type in one pricing mode; its hourly rates are :class:`CloudRate` rows.

    ``scaling_efficiency`` is the multi-GPU efficiency of the instance's own GPUs
    (NVLink boxes scale better than PCIe ones), applied like a preset's.

    A spot offering carries ``rework_fraction``: the extra instance-hours that
    interruptions cost (lost work since the last checkpoint, restarts), with its
    source or an estimate flag. A commitment offering (1- or 3-year) carries its
    term, the upfront paid per instance when each term starts, and its
    ``on_demand_sibling``: the same provider's on-demand offering of the same
    instance type, whose rate pays the hours beyond the committed instances.
    """

    TRANSLATED = ("note", "rework_source")

    provider = models.CharField(_("provider"), max_length=100)
    instance_type = models.CharField(_("instance type"), max_length=100)
    name_zh = name_zh_field()
    region = models.CharField(_("region"), max_length=100)
    gpu_model = models.ForeignKey(
        GpuModel, on_delete=models.PROTECT, related_name="offerings", verbose_name=_("GPU model")
    )
    gpu_count = models.PositiveSmallIntegerField(_("GPU count"))
    pricing_mode = models.CharField(_("pricing mode"), max_length=20, choices=PricingMode.choices)
    scaling_efficiency = models.DecimalField(
        _("scaling efficiency"),
        max_digits=4,
        decimal_places=3,
        default=Decimal("1.000"),
        help_text=_("Speed-up of all GPUs ÷ GPU count; 1.000 for single-GPU instances."),
    )
    rework_fraction = models.DecimalField(
        _("rework fraction"),
        max_digits=4,
        decimal_places=3,
        null=True,
        blank=True,
        help_text=_(
            "Spot only: extra instance-hours lost to interruptions, as a fraction of the "
            "work (0.10: a tenth more hours)."
        ),
    )
    rework_source = models.CharField(
        _("rework fraction source"),
        max_length=500,
        blank=True,
        help_text=_("URL or citation, or the reasoning behind an estimate."),
    )
    rework_source_zh = chinese_text_field(_("Chinese rework fraction source"))
    rework_estimate = models.BooleanField(_("rework fraction is an estimate"), default=False)
    commitment_term_months = models.PositiveSmallIntegerField(
        _("commitment term [months]"),
        null=True,
        blank=True,
        help_text=_("Commitments only: 12 for 1-year, 36 for 3-year."),
    )
    commitment_upfront_per_instance = models.DecimalField(
        _("upfront per instance"),
        max_digits=12,
        decimal_places=2,
        default=Decimal(0),
        help_text=_("Commitments only: paid when each term starts, per committed instance."),
    )
    commitment_upfront_currency = models.CharField(
        _("upfront currency"), max_length=3, choices=Currency.choices, blank=True
    )
    on_demand_sibling = models.ForeignKey(
        "self",
        # Deleting the on-demand offering leaves the commitment without a sibling
        # (catalog_check warns), rather than blocking the deletion.
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="commitments",
        verbose_name=_("on-demand sibling"),
        help_text=_(
            "Commitments only: the same provider's on-demand offering of this instance type; "
            "its rate pays the hours beyond the committed instances."
        ),
    )
    note = models.TextField(_("note"), blank=True)
    note_zh = chinese_text_field(_("Chinese note"))

    class Meta(SlugModel.Meta):
        verbose_name = _("cloud offering")
        verbose_name_plural = _("cloud offerings")
        constraints = [
            models.CheckConstraint(condition=Q(gpu_count__gte=1), name="offering_gpu_count_ge_1"),
            models.CheckConstraint(
                condition=Q(scaling_efficiency__gt=0) & Q(scaling_efficiency__lte=1),
                name="offering_scaling_efficiency_in_0_1",
            ),
            models.CheckConstraint(
                condition=~Q(gpu_count=1) | Q(scaling_efficiency=1),
                name="offering_single_gpu_scales_perfectly",
            ),
            models.CheckConstraint(
                condition=pricing_modes.known_condition(), name="offering_pricing_mode_known"
            ),
            models.CheckConstraint(
                condition=Q(rework_fraction__isnull=True)
                | (
                    pricing_modes.interruptible_condition()
                    & Q(rework_fraction__gte=0)
                    & Q(rework_fraction__lte=1)
                ),
                name="offering_rework_spot_only_in_0_1",
            ),
            models.CheckConstraint(
                condition=pricing_modes.term_condition(),
                name="offering_term_matches_commitment_mode",
            ),
            models.CheckConstraint(
                condition=Q(commitment_upfront_per_instance__gte=0)
                & (
                    Q(commitment_upfront_per_instance=0)
                    | (
                        pricing_modes.commitment_condition()
                        & Q(commitment_upfront_currency__in=CURRENCY_CODES)
                    )
                ),
                name="offering_upfront_commitments_only",
            ),
            models.CheckConstraint(
                condition=Q(on_demand_sibling__isnull=True) | pricing_modes.commitment_condition(),
                name="offering_sibling_commitments_only",
            ),
            models.CheckConstraint(
                condition=~Q(on_demand_sibling=F("pk")),
                name="offering_sibling_not_itself",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.provider} {self.instance_type} ({self.get_pricing_mode_display()})"

    def clean(self) -> None:
        sibling = self.on_demand_sibling
        if sibling is None:
            return
        errors = []
        if sibling.pricing_mode not in pricing_modes.ON_DEMAND_MODES:
            errors.append(_("must be an on-demand offering"))
        if sibling.provider != self.provider or sibling.gpu_model_id != self.gpu_model_id:
            errors.append(_("must be of the same provider and GPU model"))
        if sibling.gpu_count != self.gpu_count:
            errors.append(_("must have the same GPU count"))
        if errors:
            raise ValidationError({"on_demand_sibling": errors})

    @property
    def is_commitment(self) -> bool:
        return pricing_modes.is_commitment(self.pricing_mode)


class CloudRateManager(models.Manager.from_queryset(PricePointQuerySet)):  # type: ignore[misc]
    def get_by_natural_key(self, offering: str, effective_date: str, revision: str = "0") -> Any:
        return self.get(
            offering__slug=offering, effective_date=effective_date, revision=int(revision)
        )


class CloudRate(TranslatedTextMixin, PricePoint):
    """Price of one instance-hour of an offering, effective from ``effective_date``."""

    TRANSLATED = ("note",)

    offering = models.ForeignKey(
        CloudOffering,
        on_delete=models.CASCADE,
        related_name="rates",
        verbose_name=_("cloud offering"),
    )
    hourly_rate = models.DecimalField(_("hourly rate"), max_digits=12, decimal_places=4)
    currency = _currency_field()
    effective_date = models.DateField(_("effective date"))
    source, note, note_zh, estimate = sourced_fields()

    objects = CloudRateManager()

    class Meta:
        verbose_name = _("cloud rate")
        verbose_name_plural = _("cloud rates")
        ordering = ["offering__slug", "effective_date"]
        get_latest_by = "effective_date"
        constraints = [
            *history_constraints("cloudrate", ["offering"]),
            models.CheckConstraint(
                condition=Q(hourly_rate__gte=0), name="cloudrate_hourly_rate_ge_0"
            ),
            models.CheckConstraint(
                condition=Q(currency__in=CURRENCY_CODES), name="cloudrate_currency_known"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.offering} {self.hourly_rate} {self.currency}/h ({self.effective_date})"

    def natural_key(self) -> tuple[str, ...]:
        return (self.offering.slug, self.effective_date.isoformat(), *self.revision_key())

    def item_lookup(self) -> dict[str, Any]:
        return {"offering_id": self.offering_id}

    def review_figures(self) -> dict[str, Decimal | None]:
        return {"hourly_rate": self.hourly_rate}

    natural_key.dependencies = ["catalog.cloudoffering"]  # type: ignore[attr-defined]

    @property
    def amount(self) -> Decimal:
        return self.hourly_rate


# --- presets --------------------------------------------------------------------------------


class Tier(models.TextChoices):
    BUDGET = "budget", _("budget")
    ENTRY = "entry", _("entry (single GPU)")
    MULTI = "multi", _("multi-GPU")
    CLUSTER = "cluster", _("cluster")


class BuildPreset(LocalizedNameMixin, SlugModel):
    """A ready-made box or cluster of a sizing tier: parts with quantities, GPU model and count.

    The parts list includes the GPU cards or GPU servers (their price is part of
    capex); for a cluster it holds every node and the fabric joining them.
    ``gpu_count`` is the GPUs of the whole preset, ``node_count`` the servers they
    sit in. Throughput per GPU is the benchmark figure × ``scaling_efficiency``
    (inside one server, when it has 2 or more GPUs) × ``multi_node_scaling_efficiency``
    (across servers, when there are 2 or more). The running-cost defaults
    (maintenance, resale retention, ops, useful life) are the preset's suggestion,
    explained with their sources; users may override them.
    """

    TRANSLATED = (
        "description",
        "multi_node_source",
        "retention_source",
        "useful_life_source",
        "defaults_rationale",
        "hosting_rationale",
    )

    name = models.CharField(_("name"), max_length=200)
    name_zh = name_zh_field()
    tier = models.CharField(_("tier"), max_length=20, choices=Tier.choices)
    description = models.TextField(_("description"), blank=True)
    description_zh = chinese_text_field(_("Chinese description"))
    gpu_model = models.ForeignKey(
        GpuModel, on_delete=models.PROTECT, related_name="presets", verbose_name=_("GPU model")
    )
    gpu_count = models.PositiveSmallIntegerField(_("GPU count"))
    node_count = models.PositiveSmallIntegerField(
        _("node count"), default=1, help_text=_("Servers joined by a network fabric; 1 for a box.")
    )
    scaling_efficiency = models.DecimalField(
        _("scaling efficiency"),
        max_digits=4,
        decimal_places=3,
        default=Decimal("1.000"),
        help_text=_("Inside one server: speed-up of its GPUs ÷ their count; 1.000 for one GPU."),
    )
    multi_node_scaling_efficiency = models.DecimalField(
        _("multi-node scaling efficiency"),
        max_digits=4,
        decimal_places=3,
        default=Decimal("1.000"),
        help_text=_("Across servers: speed-up of N servers ÷ N; 1.000 for one server."),
    )
    multi_node_source = models.CharField(
        _("multi-node efficiency source"),
        max_length=500,
        blank=True,
        help_text=_("URL or citation, or the reasoning behind an estimate."),
    )
    multi_node_source_zh = chinese_text_field(_("Chinese multi-node efficiency source"))
    multi_node_estimate = models.BooleanField(
        _("multi-node efficiency is an estimate"), default=False
    )
    maintenance_rate_per_year = models.DecimalField(
        _("maintenance rate per year"), max_digits=4, decimal_places=3
    )
    residual_value_retention_per_year = models.DecimalField(
        _("residual value retention per year"), max_digits=4, decimal_places=3
    )
    retention_source = models.CharField(
        _("retention source"),
        max_length=500,
        blank=True,
        help_text=_("Where the resale retention of this GPU class comes from."),
    )
    retention_source_zh = chinese_text_field(_("Chinese retention source"))
    retention_estimate = models.BooleanField(_("retention is an estimate"), default=False)
    useful_life_months = models.PositiveSmallIntegerField(
        _("useful life [months]"),
        null=True,
        blank=True,
        help_text=_("The hardware is replaced after this many months."),
    )
    useful_life_source = models.CharField(
        _("useful life source"),
        max_length=500,
        blank=True,
        help_text=_("URL or citation, or the reasoning behind an estimate."),
    )
    useful_life_source_zh = chinese_text_field(_("Chinese useful life source"))
    useful_life_estimate = models.BooleanField(_("useful life is an estimate"), default=False)
    ops_monthly = models.DecimalField(
        _("operations per month"), max_digits=10, decimal_places=2, default=Decimal(0)
    )
    ops_currency = models.CharField(
        _("operations currency"), max_length=3, choices=Currency.choices, default=Currency.CNY
    )
    defaults_rationale = models.TextField(_("why these defaults"), blank=True)
    defaults_rationale_zh = chinese_text_field(_("why these defaults, in Chinese"))
    hosting_kind = models.CharField(
        _("default hosting"),
        max_length=20,
        choices=HostingKind.choices,
        default=HostingKind.OFFICE,
        help_text=_(
            "Where this box runs unless the user says: the resolver picks the hosting option "
            "of this kind in the region of the plan's currency."
        ),
    )
    hosting_rationale = models.TextField(_("why this hosting"), blank=True)
    hosting_rationale_zh = chinese_text_field(_("why this hosting, in Chinese"))

    class Meta(SlugModel.Meta):
        verbose_name = _("build preset")
        verbose_name_plural = _("build presets")
        constraints = [
            models.CheckConstraint(condition=Q(gpu_count__gte=1), name="preset_gpu_count_ge_1"),
            models.CheckConstraint(
                condition=Q(scaling_efficiency__gt=0) & Q(scaling_efficiency__lte=1),
                name="preset_scaling_efficiency_in_0_1",
            ),
            models.CheckConstraint(
                condition=~Q(gpu_count=1) | Q(scaling_efficiency=1),
                name="preset_single_gpu_scales_perfectly",
            ),
            models.CheckConstraint(
                condition=Q(node_count__gte=1) & Q(node_count__lte=F("gpu_count")),
                name="preset_node_count_in_1_gpu_count",
            ),
            models.CheckConstraint(
                condition=Q(multi_node_scaling_efficiency__gt=0)
                & Q(multi_node_scaling_efficiency__lte=1),
                name="preset_multi_node_efficiency_in_0_1",
            ),
            models.CheckConstraint(
                condition=~Q(node_count=1) | Q(multi_node_scaling_efficiency=1),
                name="preset_single_node_scales_perfectly",
            ),
            models.CheckConstraint(
                condition=Q(useful_life_months__isnull=True)
                | (Q(useful_life_months__gte=1) & Q(useful_life_months__lte=240)),
                name="preset_useful_life_in_1_240",
            ),
            models.CheckConstraint(
                condition=Q(maintenance_rate_per_year__gte=0) & Q(maintenance_rate_per_year__lte=1),
                name="preset_maintenance_rate_in_0_1",
            ),
            models.CheckConstraint(
                condition=Q(residual_value_retention_per_year__gte=0)
                & Q(residual_value_retention_per_year__lte=1),
                name="preset_retention_in_0_1",
            ),
            models.CheckConstraint(condition=Q(ops_monthly__gte=0), name="preset_ops_ge_0"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def gpus_per_node(self) -> int:
        return self.gpu_count // self.node_count


class PresetPartManager(models.Manager):
    def get_by_natural_key(self, preset: str, part: str) -> Any:
        return self.get(preset__slug=preset, part__slug=part)


class PresetPart(models.Model):
    """One line of a preset's parts list."""

    preset = models.ForeignKey(
        BuildPreset, on_delete=models.CASCADE, related_name="lines", verbose_name=_("preset")
    )
    part = models.ForeignKey(
        Part, on_delete=models.PROTECT, related_name="preset_lines", verbose_name=_("part")
    )
    quantity = models.PositiveSmallIntegerField(_("quantity"), default=1)

    objects = PresetPartManager()

    class Meta:
        verbose_name = _("preset part")
        verbose_name_plural = _("preset parts")
        ordering = ["preset__slug", "part__slug"]
        constraints = [
            models.UniqueConstraint(fields=["preset", "part"], name="presetpart_unique_part"),
            models.CheckConstraint(condition=Q(quantity__gte=1), name="presetpart_quantity_ge_1"),
        ]

    def __str__(self) -> str:
        return f"{self.quantity} × {self.part}"

    def natural_key(self) -> tuple[str, str]:
        return (self.preset.slug, self.part.slug)

    natural_key.dependencies = ["catalog.buildpreset", "catalog.part"]  # type: ignore[attr-defined]
