"""CSV import: rows added all or nothing; a bad row names its row number and field."""

import datetime
from decimal import Decimal

import pytest

from webapp.catalog.importer import CsvImportError, decode, import_prices
from webapp.catalog.models import CloudRate, FxRate, PartPrice

HEADER = "item_type,item,amount,currency,effective_date,source,note,estimate\n"


def total_rows() -> int:
    return PartPrice.objects.count() + CloudRate.objects.count() + FxRate.objects.count()


def errors_of(text: str, **kwargs) -> list[str]:
    before = total_rows()
    with pytest.raises(CsvImportError) as info:
        import_prices(text, **kwargs)
    assert total_rows() == before, "a failed import must write nothing"
    return info.value.errors


def test_it_adds_part_prices_cloud_rates_and_fx_rates(mini):
    report = import_prices(
        HEADER
        + "part,cpu,1800,CNY,2025-03-01,https://example.com/cpu,spring sale,\n"
        + "cloud_offering,cloud-1,1.5,USD,2025-03-01,https://example.com/cloud,,false\n"
        + "fx_rate,USD/CNY,7.2,CNY,2025-03-01,,,true\n"
    )
    assert len(report.added) == 3
    price = PartPrice.objects.get(part__slug="cpu", effective_date="2025-03-01")
    assert (price.amount, price.currency, price.note) == (Decimal(1800), "CNY", "spring sale")
    assert CloudRate.objects.get(offering__slug="cloud-1", effective_date="2025-03-01").hourly_rate
    rate = FxRate.objects.get(effective_date="2025-03-01")
    assert (rate.rate, rate.estimate) == (Decimal("7.2"), True)
    # the old price is kept
    assert PartPrice.objects.filter(part__slug="cpu").count() == 2


def test_a_note_may_come_with_its_chinese(mini):
    import_prices(
        "item_type,item,amount,currency,effective_date,source,note,note_zh\n"
        "part,cpu,1800,CNY,2025-03-01,https://example.com/cpu,spring sale,春季促销\n"
    )
    price = PartPrice.objects.get(part__slug="cpu", effective_date="2025-03-01")
    assert (price.note, price.note_zh) == ("spring sale", "春季促销")
    assert price.localized("note", "zh-hans") == "春季促销"


def test_a_dry_run_reports_and_writes_nothing(mini):
    before = total_rows()
    report = import_prices(HEADER + "part,cpu,1800,CNY,2025-03-01,src,,\n", dry_run=True)
    assert report.added == ["part cpu 1800 CNY from 2025-03-01"]
    assert total_rows() == before


def test_a_bad_row_names_its_row_and_field_and_nothing_is_written(mini):
    errors = errors_of(
        HEADER
        + "part,cpu,1800,CNY,2025-03-01,src,,\n"
        + "part,cpu,-5,CNY,2025-04-01,src,,\n"
        + "part,psu,12,EUR,2025-04-01,src,,\n"
        + "part,psu,12,CNY,2025-13-01,src,,\n"
    )
    assert errors[0] == "row 3: amount: must be greater than or equal to 0"
    assert errors[1].startswith("row 4: currency: must be 'CNY' or 'USD'")
    assert errors[2].startswith("row 5: effective_date:")
    assert len(errors) == 3


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ("part,ghost,1,CNY,2025-03-01,src,,", "row 2: item: no part with slug 'ghost'"),
        ("cloud_offering,ghost,1,CNY,2025-03-01,src,,", "row 2: item: no cloud offering"),
        ("gizmo,cpu,1,CNY,2025-03-01,src,,", "row 2: item_type: must be 'part'"),
        ("part,cpu,abc,CNY,2025-03-01,src,,", "row 2: amount: must be written as plain decimal"),
        ("part,cpu,NaN,CNY,2025-03-01,src,,", "row 2: amount:"),
        ("part,cpu,1.234,CNY,2025-03-01,src,,", "row 2: amount: at most 2 decimal places"),
        ("part,cpu,1,CNY,2025-03-01,,,", "row 2: source: is required unless estimate is true"),
        ("part,cpu,1,CNY,2025-03-01,src,,maybe", "row 2: estimate: must be a valid boolean"),
        ("fx_rate,USD-CNY,7,CNY,2025-03-01,src,,", "row 2: item: an FX rate is written"),
        ("fx_rate,USD/CNY,7,USD,2025-03-01,src,,", "row 2: currency: must be the quote currency"),
        ("fx_rate,USD/CNY,0,CNY,2025-03-01,src,,", "row 2: amount: an FX rate must be greater"),
        ("part,cpu,1,CNY,2025-03-01,src,,,extra", "row 2: columns: more cells"),
        ("part,cpu,2001,CNY,2024-01-01,src,,", "row 2: effective_date: cpu already has 2000.00"),
    ],
)
def test_it_rejects_a_bad_row(mini, row, expected):
    errors = errors_of(HEADER + row + "\n")
    assert any(e.startswith(expected) for e in errors), errors


def test_it_rejects_the_same_item_and_date_twice_in_one_file(mini):
    errors = errors_of(
        HEADER + "part,cpu,1,CNY,2025-03-01,src,,\n" + "part,cpu,2,CNY,2025-03-01,src,,\n"
    )
    assert errors == ["row 3: effective_date: duplicates row 2"]


def test_an_identical_existing_price_is_reported_unchanged(mini):
    report = import_prices(HEADER + "part,cpu,2000,CNY,2024-01-01,src,,\n")
    assert report.added == []
    assert report.unchanged == ["part cpu 2000 CNY from 2024-01-01"]


def test_it_names_missing_and_unknown_columns(mini):
    errors = errors_of("item_type,item,price,currency\npart,cpu,1,CNY\n")
    assert "row 1: columns: missing 'amount'" in errors
    assert "row 1: columns: missing 'effective_date'" in errors
    assert "row 1: columns: unknown 'price'" in errors


def test_it_rejects_an_empty_file(mini):
    assert errors_of("") == ["row 1: columns: the file is empty (a header row is required)"]


def test_it_accepts_columns_in_any_order_blank_lines_and_a_byte_order_mark(mini):
    text = decode(
        "\ufeffcurrency,amount,item,item_type,effective_date,source\n\nCNY,99,psu,part,2025-02-02,s\n".encode()
    )
    import_prices(text)
    price = PartPrice.objects.get(part__slug="psu", effective_date=datetime.date(2025, 2, 2))
    assert price.amount == 99


def test_it_rejects_bytes_that_are_not_utf8():
    with pytest.raises(CsvImportError) as info:
        decode(b"\xff\xfe\x00bad")
    assert info.value.errors == ["(file): is not UTF-8 text"]


def test_every_bad_row_is_named_in_one_run_including_unknown_items(mini):
    errors = errors_of(
        HEADER
        + "part,no-such-part,10,CNY,2025-03-01,src,,\n"
        + "part,cpu,-5,CNY,2025-04-01,src,,\n"
        + "cloud_offering,no-such-cloud,1.5,USD,2025-03-01,src,,\n"
        + "part,cpu,1800,CNY,2025-03-01,src,,\n"
        + "part,psu,12,EUR,2025-04-01,src,,\n"
        + "part,cpu,1800,CNY,2025-03-01,src,,\n"
    )
    assert [e.split(":")[0] for e in errors] == ["row 2", "row 3", "row 4", "row 6", "row 7"]
    assert errors[0] == "row 2: item: no part with slug 'no-such-part'"
    assert errors[2] == "row 4: item: no cloud offering with slug 'no-such-cloud'"
    assert errors[4] == "row 7: effective_date: duplicates row 5"


@pytest.mark.parametrize(
    "amount", ["1e3", "1E+3", "+5", "1_000", "1,000", "NaN", ".5", "5.", "1 000", "0x10"]
)
def test_an_amount_in_any_but_the_plain_decimal_format_is_refused(mini, amount):
    errors = errors_of(HEADER + f'part,cpu,"{amount}",CNY,2025-03-01,src,,\n')
    assert len(errors) == 1
    assert errors[0].startswith("row 2: amount: must be written as plain decimal digits")
    assert "no '+', grouping or exponent" in errors[0]


@pytest.mark.parametrize("amount", ["1800", "1800.5", "0", " 1800.25 ", "007"])
def test_a_plain_decimal_amount_is_accepted(mini, amount):
    report = import_prices(HEADER + f"part,cpu,{amount},CNY,2025-03-01,src,,\n", dry_run=True)
    # (0 and 7 are far below the 2 000 CNY before: they are added, held for review.)
    [added] = report.added
    assert (
        added.split(" (held for review")[0]
        == f"part cpu {Decimal(amount.strip())} CNY from 2025-03-01"
    )


def test_a_cell_over_the_csv_limit_is_a_clean_error_naming_its_row(mini):
    errors = errors_of(
        HEADER
        + "part,cpu,-1,CNY,2025-03-01,src,,\n"
        + "part,cpu,1800,CNY,2025-04-01,src,"
        + "x" * 131_073
        + ",\n"
        + "part,cpu,1900,CNY,2025-05-01,src,,\n"
    )
    assert errors == [
        "row 2: amount: must be greater than or equal to 0",
        "row 3: a cell is longer than 131 072 characters; the rest of the file was not read",
    ]
