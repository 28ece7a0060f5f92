"""Numbers for people: money per currency, percentages, months, in the active language.

Rounding happens here, once, at display (and in the CSV export, per the
currency's minor unit); the engine's floats are never rounded upstream.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_EVEN, Decimal, localcontext

from django.utils import numberformat
from django.utils.formats import get_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

CURRENCY_SYMBOLS = {"CNY": "¥", "USD": "$", "EUR": "€", "JPY": "¥", "GBP": "£"}
MINOR_UNITS = {"CNY": 2, "USD": 2, "EUR": 2, "GBP": 2, "JPY": 0}
"""Decimal places of each currency's minor unit (ISO 4217); 2 for any other code."""


def number_format(value: float | Decimal, decimals: int) -> str:
    """Localized separators, digits grouped in threes in every language.

    Django's zh-hans format groups by 4 (myriads: 14,7381.88); Chinese
    finance documents and spreadsheets group by 3, as English does.
    """
    grouping = 3
    thousands = get_format("THOUSAND_SEPARATOR") or ","
    return numberformat.format(
        value,
        get_format("DECIMAL_SEPARATOR"),
        decimals,
        grouping,
        thousands,
        force_grouping=True,
    )


def minor_unit(currency: str) -> int:
    return MINOR_UNITS.get(currency, 2)


MONEY_PRECISION = 400
"""Significant digits for rounding money [digits].

The largest finite float has 309 integer digits; with the minor unit that is
311. Decimal's default context keeps 28, and ``quantize`` refuses
(``InvalidOperation``) any result longer than the context's precision, so an
amount from about 10^26 up could not be rounded at all.
"""


def round_money(value: float, currency: str) -> Decimal:
    """Round an amount to the currency's minor unit, half to even (banker's rounding).

    Exact for every finite float, however large: ``round_money(1e26, "CNY")``
    is ``100000000000000000000000000.00``.
    """
    quantum = Decimal(1).scaleb(-minor_unit(currency))
    with localcontext(prec=MONEY_PRECISION):
        return Decimal(repr(float(value))).quantize(quantum, rounding=ROUND_HALF_EVEN)


def number(value: float | None, decimals: int = 0) -> str:
    """A localized number with grouping, e.g. ``12,345.7``; an em dash for ``None``."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    return number_format(round(value, decimals), decimals)


def money(value: float | None, currency: str, decimals: int | None = None) -> str:
    """``¥12,345.00`` / ``-$3.50``; the currency code if it has no symbol here."""
    if value is None or not math.isfinite(value):
        return "—"
    places = minor_unit(currency) if decimals is None else decimals
    amount = round_money(value, currency) if decimals is None else round(value, places)
    symbol = CURRENCY_SYMBOLS.get(currency, currency + " ")
    sign = "-" if amount < 0 else ""
    digits = number_format(abs(amount), places)
    return f"{sign}{symbol}{digits}"


def percent(fraction: float | None, decimals: int = 0) -> str:
    if fraction is None or not math.isfinite(fraction):
        return "—"
    return number(fraction * 100, decimals) + " %"


def months(value: float | None, decimals: int = 1) -> str:
    if value is None:
        return "—"
    shown = number(value, decimals)
    return ngettext("%(n)s month", "%(n)s months", 1 if value == 1 else 2) % {"n": shown}


def break_even_headline(break_even_month: float | None, horizon_months: int) -> str:
    """The break-even month in words."""
    if break_even_month is None:
        return ngettext(
            "Building does not pay back within %(horizon)s month.",
            "Building does not pay back within %(horizon)s months.",
            horizon_months,
        ) % {"horizon": number(horizon_months)}
    if break_even_month == 0:
        return _("Building costs no more than renting from the first day.")
    return _("Building pays for itself in %(months)s.") % {"months": months(break_even_month)}
