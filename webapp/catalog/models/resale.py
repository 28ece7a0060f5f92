"""What a used GPU sells for: dated, sourced observations per GPU model, from which the resale
retention per year is fitted (:mod:`webapp.catalog.resale`)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from webapp.catalog.models.base import (
    DatedSlugManager,
    PricePoint,
    TranslatedTextMixin,
    dated_slug_field,
    history_constraints,
    sourced_fields,
)
from webapp.catalog.models.currency import CURRENCY_CODES, currency_field
from webapp.catalog.models.hardware import GpuModel


class UsedGpuPrice(TranslatedTextMixin, PricePoint):
    """One observed price of a GPU card of ``gpu_model`` aged ``age_years`` when it sold.

    ``effective_date`` is when the price was observed (a listing, a sale, a market report),
    ``age_years`` the card's age then: years since it was bought new, or since the model's
    launch when a report states the age that way. A new card's price is an observation at
    age 0. An observation whose age nobody states is kept (it is context a reader can weigh)
    but cannot place a point on the curve: the fit leaves it out.

    Like every price, an observation is never edited: a correction is a new row that
    supersedes it. ``slug`` names the observation (one source's figure for one age), so a
    later reading of the same source is a new dated row of the same slug.
    """

    TRANSLATED = ("note",)

    slug = dated_slug_field()
    gpu_model = models.ForeignKey(
        GpuModel, on_delete=models.CASCADE, related_name="used_prices", verbose_name=_("GPU model")
    )
    amount = models.DecimalField(_("price per card"), max_digits=12, decimal_places=2)
    currency = currency_field()
    age_years = models.DecimalField(
        _("age [years]"),
        max_digits=4,
        decimal_places=2,
        null=True,
        blank=True,
        help_text=_(
            "The card's age when it sold (0 for a new card); blank when the source does not "
            "say (kept, but not fitted)."
        ),
    )
    effective_date = models.DateField(_("observed on"))
    source, note, note_zh, estimate = sourced_fields()

    objects = DatedSlugManager()

    class Meta:
        verbose_name = _("used GPU price")
        verbose_name_plural = _("used GPU prices")
        ordering = ["gpu_model__slug", "effective_date", "slug", "revision"]
        constraints = [
            *history_constraints("usedgpuprice", ["slug"]),
            models.CheckConstraint(condition=Q(amount__gt=0), name="usedgpuprice_amount_gt_0"),
            models.CheckConstraint(
                condition=Q(age_years__isnull=True) | Q(age_years__gte=0),
                name="usedgpuprice_age_ge_0",
            ),
            models.CheckConstraint(
                condition=Q(currency__in=CURRENCY_CODES), name="usedgpuprice_currency_known"
            ),
        ]

    def __str__(self) -> str:
        age = "?" if self.age_years is None else f"{self.age_years}"
        return (
            f"{self.gpu_model} {self.amount} {self.currency}, age {age} y ({self.effective_date})"
        )

    def natural_key(self) -> tuple[str, ...]:
        return (self.slug, self.effective_date.isoformat(), *self.revision_key())

    natural_key.dependencies = ["catalog.gpumodel"]  # type: ignore[attr-defined]

    def item_lookup(self) -> dict[str, Any]:
        return {"slug": self.slug}

    def review_figures(self) -> dict[str, Decimal | None]:
        return {"amount": self.amount}
