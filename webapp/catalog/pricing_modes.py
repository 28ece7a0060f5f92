"""The pricing modes of a cloud offering, defined once.

Everything that depends on a pricing mode is derived from :data:`MODES`: the
model's choices (:class:`PricingMode`), the database's check constraints on
offerings (:func:`commitment_condition` and friends), the selectors, the
planner's form choices, and the ``data-`` attributes the planner's script reads
(:func:`data_attributes`). Adding a mode (say a 2-year commitment) is one member
of :class:`PricingMode`, one row of :data:`MODES`, its translation and a
migration for the constraints.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class PricingMode(models.TextChoices):
    ON_DEMAND = "on-demand", _("on-demand")
    SPOT = "spot", _("spot / interruptible")
    COMMIT_1Y = "commit-1y", _("1-year commitment")
    COMMIT_3Y = "commit-3y", _("3-year commitment")


@dataclass(frozen=True)
class ModeTerms:
    """What a pricing mode implies for an offering."""

    term_months: int | None = None
    """A commitment's term [months]; ``None``: not a commitment (paid by the hour)."""
    interruptible: bool = False
    """The provider may stop the instance: the offering carries a rework fraction."""
    on_demand: bool = False
    """Paid by the hour without commitment: what pays a commitment's extra hours."""


MODES: dict[PricingMode, ModeTerms] = {
    PricingMode.ON_DEMAND: ModeTerms(on_demand=True),
    PricingMode.SPOT: ModeTerms(interruptible=True),
    PricingMode.COMMIT_1Y: ModeTerms(term_months=12),
    PricingMode.COMMIT_3Y: ModeTerms(term_months=36),
}
"""The table: every pricing mode, in the order the planner lists them, with its terms."""

COMMITMENT_TERMS: dict[str, int] = {
    mode.value: terms.term_months for mode, terms in MODES.items() if terms.term_months
}
"""Term [months] of each commitment pricing mode."""

COMMITMENT_MODES = frozenset(COMMITMENT_TERMS)
INTERRUPTIBLE_MODES = frozenset(mode.value for mode, terms in MODES.items() if terms.interruptible)
ON_DEMAND_MODES = frozenset(mode.value for mode, terms in MODES.items() if terms.on_demand)


def is_commitment(mode: str) -> bool:
    return mode in COMMITMENT_MODES


def data_attributes(mode: str) -> dict[str, str]:
    """The ``data-`` attributes of an offering's ``<option>``: its mode, and whether it is a
    commitment (the planner's script shows the committed count for those)."""
    return {
        "data-pricing-mode": mode,
        "data-commitment": "true" if is_commitment(mode) else "false",
    }


# --- conditions of the offerings' check constraints -------------------------------------------


def known_condition() -> Q:
    """The offering's mode is one of the table's."""
    return Q(pricing_mode__in=[mode.value for mode in MODES])


def commitment_condition() -> Q:
    """The offering is a commitment."""
    return Q(pricing_mode__in=sorted(COMMITMENT_MODES))


def interruptible_condition() -> Q:
    """The offering can be interrupted (spot)."""
    return Q(pricing_mode__in=sorted(INTERRUPTIBLE_MODES))


def term_condition() -> Q:
    """A commitment has its mode's term; any other offering has none."""
    condition = ~commitment_condition() & Q(commitment_term_months__isnull=True)
    for mode, months in sorted(COMMITMENT_TERMS.items()):
        # (isnull=False: a NULL term would make the check unknown, which a database passes)
        condition |= Q(
            pricing_mode=mode, commitment_term_months__isnull=False, commitment_term_months=months
        )
    return condition
