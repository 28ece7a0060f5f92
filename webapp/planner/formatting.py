"""Numbers for people: money per currency, percentages, months, in the active language.

Separators, the minus sign and the currency's minor unit come from babel (the
Unicode CLDR data) for the active Django language; the digits are what babel
writes for the pattern ``#,##0.00``, written here with Python's own decimal
formatting (:func:`_grouped`). Two choices are ours:

- amounts in yuan and dollars show ``¥`` and ``$`` in every language (CLDR
  writes ``CN¥`` in English and ``US$`` in Chinese: unambiguous, but noisy on
  a page in one currency); another currency shows CLDR's symbol, or its ISO
  code and a space when it has none (``CHF 10.00``);
- digits are grouped in threes in Chinese as in English (``¥147,381.88``):
  CLDR's Chinese patterns do so, as Chinese finance documents and
  spreadsheets do (Django's own zh-hans format would group by 4).

Rounding happens here, once, at display (and in the CSV export, per the
currency's minor unit); the engine's floats are never rounded upstream.
"""

from __future__ import annotations

import functools
import math
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from typing import Any

from babel import Locale
from babel.numbers import get_currency_precision
from babel.numbers import get_currency_symbol as cldr_symbol
from django.utils.translation import get_language, ngettext, to_locale
from django.utils.translation import gettext as _

from webapp.planner.fields import PERCENT_UNITS, WORKLOAD_KIND_LABELS, ScenarioField

CURRENCY_SYMBOLS = {"CNY": "¥", "USD": "$"}
"""Symbols shown in every language for the app's two currencies."""

MONEY_PRECISION = 400
"""Significant digits for rounding money [digits].

The largest finite float has 309 integer digits; with the minor unit that is
311. Decimal's default context keeps 28, and ``quantize`` refuses
(``InvalidOperation``) any result longer than the context's precision, so an
amount from about 10^26 up could not be rounded or formatted at all.
"""


@functools.lru_cache(maxsize=8)
def _locale(language: str) -> Locale:
    return Locale.parse(to_locale(language))


def active_locale() -> Locale:
    """The babel locale of the active Django language (``zh-hans`` → ``zh_Hans``)."""
    return _locale(get_language() or "en")


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
    """The decimal a number reads as (``0.1`` → ``Decimal("0.1")``, not its binary value)."""
    if isinstance(value, Decimal | int) and not isinstance(value, bool):
        return Decimal(value)
    return Decimal(repr(float(value)))


FORMATTED_MEMO = 4096
"""Formatted numbers remembered per worker (a few hundred KB at most).

Formatting a number takes about 6 µs (exact decimal rounding in a 400-digit
context; babel's own formatting took 20-50 µs). A results page shows about 80
numbers, most of them the same from one permalink to the next (the catalog's
prices, the scenario's fixed inputs): remembering the text of a number in a
language makes each of those a lookup.
"""


def _unsigned_zero(value: Any) -> Any:
    """``-0.0`` as ``0.0`` (any other value as it is): a zero reads as ``0``, never ``-0``.

    The memo below could not tell them apart either (``-0.0 == 0.0``, with equal hashes):
    whichever a worker formatted first came back for both."""
    return abs(value) if value == 0 else value


def number(value: float | Decimal | None, decimals: int = 0) -> str:
    """A localized number with grouping, e.g. ``12,345.7``; an em dash for ``None``."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    return _number(get_language() or "en", _unsigned_zero(value), decimals)


@functools.lru_cache(maxsize=FORMATTED_MEMO, typed=True)
def _number(language: str, value: float | Decimal, decimals: int) -> str:
    return _grouped(_exact(value), decimals, language)


def _grouped(value: Decimal, places: int, language: str, symbol: str = "") -> str:
    """``value`` rounded half to even to ``places`` decimals, its digits grouped in threes,
    with the language's CLDR minus sign, group and decimal separators, ``symbol`` before
    the digits: what babel writes for the pattern ``'symbol'#,##0.00`` (a test holds the
    two equal), in a fifth of babel's time. Exact for every finite float."""
    minus, separators = _symbols(language)
    with localcontext(prec=MONEY_PRECISION, rounding=ROUND_HALF_EVEN):
        rounded = value.quantize(Decimal(1).scaleb(-places))
        digits = format(abs(rounded), f",.{places}f").translate(separators)
    return (minus if rounded.is_signed() else "") + symbol + digits


@functools.lru_cache(maxsize=8)
def _symbols(language: str) -> tuple[str, dict[int, str]]:
    """The language's minus sign, and a table from Python's "," and "." to its separators."""
    symbols = _locale(language).number_symbols["latn"]
    return symbols["minusSign"], str.maketrans({",": symbols["group"], ".": symbols["decimal"]})


def money(value: float | None, currency: str, decimals: int | None = None) -> str:
    """``¥12,345.00`` / ``-$3.50``: the currency's minor unit unless ``decimals`` says."""
    if value is None or not math.isfinite(value):
        return "—"
    return _money(get_language() or "en", _unsigned_zero(value), currency, decimals)


@functools.lru_cache(maxsize=FORMATTED_MEMO, typed=True)
def _money(language: str, value: float, currency: str, decimals: int | None) -> str:
    places = minor_unit(currency) if decimals is None else decimals
    symbol = currency_symbol(currency)
    if symbol == currency:  # no symbol of its own: the ISO code, spaced
        symbol += " "
    return _grouped(_exact(value), places, language, symbol)


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


def field_value(field: ScenarioField, value: Any, currency: str) -> str:
    """A scenario field's value for people, by the field's unit: money in the scenario's
    currency, fractions in percent (the inputs table, the ranges, the compare page)."""
    if value is None:
        return "—"
    if isinstance(value, list):  # a monthly profile
        value = tuple(value)
    return _field_value(
        get_language() or "en", field.unit, field.path, _unsigned_zero(value), currency
    )


@functools.lru_cache(maxsize=FORMATTED_MEMO, typed=True)
def _field_value(language: str, unit: str, path: str, value: Any, currency: str) -> str:
    """:func:`field_value`, remembered: a results page shows some eighty field values (its
    inputs and their ranges), most of them the same on every page with the same catalog rows."""
    if unit == "money":
        return money(value, currency)
    if unit.startswith("money/"):
        per = {"kWh": _("per kWh"), "h": _("per hour"), "month": _("per month")}[unit[6:]]
        decimals = 4 if unit == "money/kWh" else None
        return f"{money(value, currency, decimals)} {per}"
    if unit in PERCENT_UNITS:
        return percent(value, 1)
    if unit == "profile":
        return ", ".join(percent(v) for v in value)
    if unit == "months":
        return months(value, 0)
    if unit == "W":
        return f"{number(value)} W"
    if unit == "h":
        return f"{number(value, 1)} h"
    if unit == "days":
        return number(value, 1)
    if unit == "ratio":
        return number(value, 2)
    if unit == "int":
        return number(value)
    if path == "workload.kind":
        return str(WORKLOAD_KIND_LABELS.get(value, value))
    return str(value)
