"""Places: where a box runs (hosting options) and what its electricity costs (tariffs);
each row one dated version of its item."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from webapp.catalog.models.base import (
    DatedSlugManager,
    LocalizedNameMixin,
    PricePoint,
    SlugModel,
    dated_slug_field,
    history_constraints,
    name_zh_field,
    sourced_fields,
)
from webapp.catalog.models.currency import CURRENCY_CODES, currency_field


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
    currency = currency_field()
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
    currency = currency_field()
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
