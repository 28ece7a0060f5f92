"""Numbers for people: money per currency, percentages, months, in the active language.

Every number is written by babel (``babel.numbers.format_decimal``,
``format_currency``, ``format_percent``) in the babel locale of the active
Django language, so separators, the minus sign and the percent sign are the
Unicode CLDR's. The pattern is ours, so that a figure has the same shape in
both languages:

- amounts in yuan and dollars show ``¥`` and ``$`` in every language (CLDR
  writes ``CN¥`` in English and ``US$`` in Chinese: unambiguous, but noisy on
  a page in one currency); another currency shows CLDR's symbol, or its ISO
  code and a space when it has none (``CHF 10.00``);
- a fixed number of decimals: the currency's minor unit for money (ISO 4217:
  2 for CNY, 0 for JPY), chosen per figure for other numbers (CLDR's own
  patterns drop trailing zeros: ``5.1`` beside ``5.25``);
- a space before the percent sign (``5.1 %``; CLDR writes ``5.1%``);
- digits are grouped in threes in Chinese as in English (``¥147,381.88``):
  CLDR's Chinese patterns do so, as Chinese finance documents and
  spreadsheets do (Django's own zh-hans format would group by 4).

Rounding is half to even, once, at display (and in the CSV export, per the
currency's minor unit); the engine's floats are never rounded upstream.
"""

from __future__ import annotations

import functools
import math
from decimal import ROUND_HALF_EVEN, Decimal, localcontext

from babel import Locale
from babel.numbers import (
    NumberPattern,
    format_currency,
    format_decimal,
    format_percent,
    get_currency_precision,
    parse_pattern,
)
from babel.numbers import get_currency_symbol as cldr_symbol
from django.utils.translation import get_language, ngettext, to_locale
from django.utils.translation import gettext as _

CURRENCY_SYMBOLS = {"CNY": "¥", "USD": "$"}
"""Symbols shown in every language for the app's two currencies."""

MONEY_PRECISION = 400
"""Significant digits for rounding money [digits].

The largest finite float has 309 integer digits; with the minor unit that is
311. Decimal's default context keeps 28, and ``quantize`` refuses
(``InvalidOperation``) any result longer than the context's precision, so an
amount from about 10^26 up could not be rounded or formatted at all.
"""


def active_locale() -> Locale:
    """The babel locale of the active Django language (``zh-hans`` → ``zh_Hans``)."""
    return _locale(get_language() or "en")


@functools.lru_cache(maxsize=16)
def _locale(language: str) -> Locale:
    """babel's locale of a Django language, parsed once per language (``Locale.parse`` reads
    and checks the identifier anew at every call)."""
    return Locale.parse(to_locale(language))


def minor_unit(currency: str) -> int:
    """Decimal places of the currency's minor unit (ISO 4217): 2 for CNY, 0 for JPY."""
    return int(get_currency_precision(currency))


def currency_symbol(currency: str) -> str:
    """``¥`` / ``$`` for yuan and dollars, else CLDR's symbol in the active language."""
    return CURRENCY_SYMBOLS.get(currency) or cldr_symbol(currency, active_locale())


def round_money(value: float, currency: str) -> Decimal:
    """Round an amount to the currency's minor unit, half to even (banker's rounding).

    Exact for every finite float, however large: ``round_money(1e26, "CNY")``
    is ``100000000000000000000000000.00``.
    """
    quantum = Decimal(1).scaleb(-minor_unit(currency))
    with localcontext(prec=MONEY_PRECISION):
        return Decimal(repr(float(value))).quantize(quantum, rounding=ROUND_HALF_EVEN)


def _exact(value: float | int | Decimal) -> Decimal:
    """The decimal a number reads as (``0.1`` → ``Decimal("0.1")``, not its binary value);
    a zero of either sign as ``0``: a zero reads as ``0``, never ``-0``."""
    if isinstance(value, Decimal | int) and not isinstance(value, bool):
        exact = Decimal(value)
    else:
        exact = Decimal(repr(float(value)))
    return abs(exact) if exact.is_zero() else exact


def _finite(value: float | Decimal) -> bool:
    return not isinstance(value, float) or math.isfinite(value)


@functools.lru_cache(maxsize=64)
def _pattern(prefix: str, decimals: int, suffix: str = "") -> NumberPattern:
    """babel's parsed pattern ``'prefix'#,##0.00…'suffix'``: digits grouped in threes and
    ``decimals`` fixed decimals. Parsed once per shape (parsing is most of a short
    number's formatting time)."""
    quoted = f"'{prefix}'" if prefix else ""
    fraction = "." + "0" * decimals if decimals > 0 else ""
    return parse_pattern(f"{quoted}#,##0{fraction}{suffix}")


def number(value: float | Decimal | None, decimals: int = 0) -> str:
    """A localized number with grouping, e.g. ``12,345.7``; an em dash for ``None``."""
    if value is None or not _finite(value):
        return "—"
    with localcontext(prec=MONEY_PRECISION, rounding=ROUND_HALF_EVEN):
        return format_decimal(_exact(value), format=_pattern("", decimals), locale=active_locale())


def money(value: float | None, currency: str, decimals: int | None = None) -> str:
    """``¥12,345.00`` / ``-$3.50``: the currency's minor unit unless ``decimals`` says."""
    if value is None or not _finite(value):
        return "—"
    places = minor_unit(currency) if decimals is None else decimals
    symbol = currency_symbol(currency)
    if symbol == currency:  # no symbol of its own: the ISO code, spaced
        symbol += " "
    with localcontext(prec=MONEY_PRECISION, rounding=ROUND_HALF_EVEN):
        return format_currency(
            _exact(value),
            currency,
            format=_pattern(symbol, places),
            locale=active_locale(),
            currency_digits=False,
        )


SENTENCE_WHOLE_UNITS_FROM = 100
"""In a sentence, amounts of this size and more drop the minor unit (¥42,100, not ¥42,100.00)."""


def amount(value: float | None, currency: str) -> str:
    """Money in a sentence: whole units from :data:`SENTENCE_WHOLE_UNITS_FROM` up, else cents.

    ``amount(42100.37, "CNY")`` → ``¥42,100``; ``amount(28.66, "CNY")`` → ``¥28.66``.
    """
    if value is None or not math.isfinite(value):
        return "—"
    if abs(value) >= SENTENCE_WHOLE_UNITS_FROM:
        return money(value, currency, decimals=0)
    return money(value, currency)


def share(fraction: float | None) -> str:
    """A share in a sentence: a whole percent from 10 % up, one decimal below (``4.5 %``)."""
    if fraction is None or not math.isfinite(fraction):
        return "—"
    return percent(fraction, 0 if abs(fraction) >= 0.1 else 1)


def shares(first: float | None, second: float | None) -> tuple[str, str]:
    """Two shares side by side, with just enough decimals (up to 2) that different ones read
    differently: ``shares(0.13144, 0.13151)`` → ``("13.14 %", "13.15 %")``."""
    if first is None or second is None or not (math.isfinite(first) and math.isfinite(second)):
        return share(first), share(second)
    start = 0 if min(abs(first), abs(second)) >= 0.1 else 1
    for decimals in range(start, 3):
        pair = percent(first, decimals), percent(second, decimals)
        if pair[0] != pair[1]:
            return pair
    return pair


def percent(fraction: float | None, decimals: int = 0) -> str:
    """A fraction in percent with ``decimals`` decimals: ``percent(0.0511, 1)`` → ``5.1 %``."""
    if fraction is None or not _finite(fraction):
        return "—"
    with localcontext(prec=MONEY_PRECISION, rounding=ROUND_HALF_EVEN):
        return format_percent(
            _exact(fraction), format=_pattern("", decimals, " %"), locale=active_locale()
        )


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
