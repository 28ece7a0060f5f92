"""Template filters over :mod:`webapp.formatting`."""

from __future__ import annotations

from django import template

from costmodel.decision import Decision
from webapp import formatting
from webapp.planner import verdict

register = template.Library()


@register.filter
def money(value: float | None, currency: str) -> str:
    return formatting.money(value, currency)


@register.filter
def money_whole(value: float | None, currency: str) -> str:
    """Money without the minor unit, for large headline figures."""
    return formatting.money(value, currency, decimals=0)


@register.filter
def percent(value: float | None, decimals: int = 0) -> str:
    return formatting.percent(value, decimals)


@register.filter
def months(value: float | None, decimals: int = 1) -> str:
    return formatting.months(value, decimals)


@register.filter
def num(value: float | None, decimals: int = 0) -> str:
    return formatting.number(value, decimals)


@register.filter
def magnitude(value: float | None) -> float | None:
    """The size of a signed figure, for sentences that say its direction in words
    ("renting is cheaper by ¥1,200.00" for savings of −1 200)."""
    return None if value is None else abs(value)


@register.filter
def break_even(decision: Decision) -> str:
    """A decision's cash break-even month in words."""
    return formatting.break_even_headline(decision.break_even_month, decision.horizon_months)


@register.filter
def headline(decision: Decision, currency: str) -> str:
    """A decision's verdict in one sentence (:func:`webapp.planner.verdict.headline`)."""
    return verdict.headline(decision, currency)


@register.filter
def verdict_label(code: str) -> str:
    """The short label of a stored verdict code (``build``, ``close_call``…); — when none."""
    label = verdict.VERDICT_LABELS.get(code)
    return "—" if label is None else str(label)


@register.filter
def verdict_tone(code: str) -> str:
    """The badge colour of a stored verdict code (always shown with its words)."""
    return verdict.VERDICT_TONES.get(code, "neutral")
