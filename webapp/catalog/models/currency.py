"""Currencies, and the exchange rates between them (dated, like every price).

Money is ``DecimalField``; conversion between currencies happens only in the resolver
(:mod:`webapp.catalog.resolver`), never in the engine.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from webapp.catalog.models.base import (
    PricePoint,
    PricePointQuerySet,
    TranslatedTextMixin,
    history_constraints,
    sourced_fields,
)


class Currency(models.TextChoices):
    CNY = "CNY", _("Chinese yuan (CNY)")
    USD = "USD", _("US dollar (USD)")


CURRENCY_CODES = [c.value for c in Currency]


def currency_field() -> models.CharField:
    return models.CharField(_("currency"), max_length=3, choices=Currency.choices)


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
