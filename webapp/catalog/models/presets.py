"""Presets: ready-made boxes and clusters of a sizing tier, with their parts lists."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from webapp.catalog.models.base import (
    LocalizedNameMixin,
    SlugModel,
    chinese_text_field,
    name_zh_field,
)
from webapp.catalog.models.currency import Currency
from webapp.catalog.models.energy import HostingKind
from webapp.catalog.models.hardware import GpuModel, Part


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
