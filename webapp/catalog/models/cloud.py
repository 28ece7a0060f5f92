"""The cloud: rentable instance types in a pricing mode, and their hourly rates."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from webapp.catalog import pricing_modes
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
from webapp.catalog.models.currency import CURRENCY_CODES, Currency, currency_field
from webapp.catalog.models.hardware import GpuModel
from webapp.catalog.pricing_modes import PricingMode

MODE_LABELS = dict(PricingMode.choices)
"""Each pricing mode's label (translated when shown)."""


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
        # the label by a dict made once: get_pricing_mode_display() rebuilds one per call, and
        # a ranking names a hundred offerings
        mode = MODE_LABELS.get(self.pricing_mode, self.pricing_mode)
        return f"{self.provider} {self.instance_type} ({mode})"

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
    currency = currency_field()
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
