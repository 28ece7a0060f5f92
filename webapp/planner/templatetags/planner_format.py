"""Template filters over :mod:`webapp.planner.formatting`."""

from __future__ import annotations

from django import template

from webapp.planner import formatting

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
def months(value: float | None) -> str:
    return formatting.months(value)


@register.filter
def num(value: float | None, decimals: int = 0) -> str:
    return formatting.number(value, decimals)
