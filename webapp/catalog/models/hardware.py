"""The hardware of a self-built box: GPU models and their benchmark throughputs, parts and
their prices."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from webapp.catalog.models.base import (
    LocalizedNameMixin,
    PricePoint,
    PricePointQuerySet,
    SlugModel,
    TranslatedTextMixin,
    chinese_text_field,
    history_constraints,
    name_zh_field,
    sourced_fields,
)
from webapp.catalog.models.currency import CURRENCY_CODES, currency_field

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


# --- parts and their prices -----------------------------------------------------------------


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
    currency = currency_field()
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
