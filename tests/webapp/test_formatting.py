from decimal import Decimal, localcontext

import pytest
from django.utils import translation
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.formatting import break_even_headline, money, number, percent, round_money


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


def test_an_amount_is_said_in_the_active_language():
    shown = []
    for language in ("en", "zh-hans", "en", "zh-hans"):
        with translation.override(language):
            shown.append(money(1234.5, "JPY"))
    assert shown == ["¥1,234", "JP¥1,234", "¥1,234", "JP¥1,234"]


finite = (
    st.floats(allow_nan=False, allow_infinity=False)
    | st.floats(-1e7, 1e7)
    | st.integers(-(10**12), 10**12).map(lambda n: n / 1000)
)


def _digits(text: str) -> Decimal:
    """The amount a shown figure stands for: its symbol and group separators left out."""
    kept = "".join(c for c in text if c.isdigit() or c in ".-")
    with localcontext(prec=400):
        return Decimal(kept)


@settings(max_examples=300, deadline=None)
@given(
    value=finite,
    currency=st.sampled_from(["CNY", "USD", "JPY"]),
    language=st.sampled_from(["en", "zh-hans"]),
)
def test_a_shown_amount_is_the_amount_the_export_rounds_to(value, currency, language):
    # The page and the CSV round once each, the same way: what a reader sees is the cell.
    with translation.override(language):
        shown = money(value, currency)
    with localcontext(prec=400):
        assert _digits(shown) == round_money(value, currency)
    if currency in ("CNY", "USD"):
        assert shown.lstrip("-").startswith({"CNY": "¥", "USD": "$"}[currency])


@settings(max_examples=300, deadline=None)
@given(value=finite, decimals=st.sampled_from([0, 1, 2, 4]))
def test_numbers_have_the_decimals_asked_for_rounded_half_to_even(value, decimals):
    with translation.override("en"):
        shown = number(value, decimals)
    with localcontext(prec=400):
        expected = Decimal(repr(value)).quantize(Decimal(1).scaleb(-decimals))
        assert _digits(shown) == expected
    assert len(shown.partition(".")[2]) == decimals


@pytest.mark.parametrize(
    ("value", "text"), [(-1234567.891, "-1.234.567,89"), (0.125, "0,12"), (-0.001, "-0,00")]
)
def test_separators_and_the_minus_sign_are_the_languages_own(value, text):
    # German swaps the separators: nothing assumes "," groups and "." marks decimals.
    with translation.override("de"):
        assert number(value, 2) == text


def test_a_percentage_has_a_space_before_its_sign_in_both_languages():
    for language in ("en", "zh-hans"):
        with translation.override(language):
            assert percent(0.0511, 1) == "5.1 %"
            assert percent(0.5) == "50 %"
            assert percent(1.0) == "100 %"


def test_a_zero_reads_as_zero_whatever_its_sign():
    with translation.override("en"):
        assert [number(-0.0), number(0.0), number(Decimal("-0"))] == ["0", "0", "0"]
        assert [money(-0.0, "CNY"), money(0.0, "CNY")] == ["¥0.00", "¥0.00"]
        assert number(-0.004, 2) == "-0.00"  # a negative amount that rounds to zero keeps its sign
