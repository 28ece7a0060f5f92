from decimal import Decimal

import pytest
from django.utils import translation

from webapp.planner.formatting import break_even_headline, money, percent, round_money


def test_money_uses_the_currency_symbol_grouping_and_minor_unit():
    with translation.override("en"):
        assert money(320434.1862, "CNY") == "¥320,434.19"
        assert money(-3.5, "USD") == "-$3.50"
        assert money(None, "USD") == "—"
        assert money(1234.5, "EUR") == "€1,234.50"


def test_an_unknown_currency_is_shown_by_its_code():
    assert money(10, "CHF").startswith("CHF ")


def test_rounding_is_to_the_minor_unit_half_to_even():
    assert round_money(0.125, "CNY") == Decimal("0.12")
    assert round_money(0.135, "CNY") == Decimal("0.14")
    assert round_money(1234.5, "JPY") == Decimal("1234")


@pytest.mark.parametrize(
    ("month", "words"),
    [
        (2.6717, "Building pays for itself in 2.7 months."),
        (None, "Building does not pay back within 36 months."),
        (0.0, "Building costs no more than renting from the first day."),
    ],
)
def test_the_headline_says_the_break_even_month_in_words(month, words):
    with translation.override("en"):
        assert break_even_headline(month, 36) == words


def test_percent_formats_a_fraction():
    with translation.override("en"):
        assert percent(0.0511, 1) == "5.1 %"
        assert percent(None) == "—"


def test_chinese_amounts_are_grouped_in_thousands_too():
    with translation.override("zh-hans"):
        assert money(147381.875, "CNY") == "¥147,381.88"
        assert percent(0.039, 1) == "3.9 %"


def test_yuan_and_dollars_keep_their_short_symbols_in_both_languages():
    # CLDR (babel) writes CN¥ in English and US$ in Chinese; the pages show ¥ and $.
    for language in ("en", "zh-hans"):
        with translation.override(language):
            assert money(1234.5, "CNY") == "¥1,234.50"
            assert money(-1234.5, "USD") == "-$1,234.50"


def test_a_currency_without_a_minor_unit_shows_whole_amounts():
    with translation.override("en"):
        assert money(1234.5, "JPY") == "¥1,234"


def test_a_remembered_amount_is_still_said_in_the_active_language():
    # Formatted numbers are memoized per language: a figure first shown in one language
    # must not come back in it when another is active.
    shown = []
    for language in ("en", "zh-hans", "en", "zh-hans"):
        with translation.override(language):
            shown.append(money(1234.5, "JPY"))
    assert shown == ["¥1,234", "JP¥1,234", "¥1,234", "JP¥1,234"]
