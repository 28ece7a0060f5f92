"""The CapEx/OpEx table per fiscal year on the results page and in the finance CSV."""

from __future__ import annotations

import csv
import io
import re
import zipfile
from datetime import date
from decimal import Decimal

import pytest
from django.urls import reverse

from costmodel import compare, parse_scenario
from costmodel.accounting import AccountingOptions, accounting
from webapp import formatting
from webapp.planner.permalink import encode
from webapp.scenarios.services import create_saved_scenario

from .helpers import code_of


def parse(body: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))


def section(rows: list[list[str]], title: str) -> list[list[str]]:
    start = next(i for i, r in enumerate(rows) if r == [title]) + 1
    end = next((i for i in range(start, len(rows)) if rows[i] == []), len(rows))
    return rows[start:end]


def test_the_results_page_shows_capex_and_opex_per_fiscal_year(client, scenario):
    page = client.get(
        reverse("planner:results", args=[encode(scenario)]), HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()

    assert "CapEx and OpEx per fiscal year" in page
    # The worked example: a 25 000 CNY box, 36 months, fiscal years from the purchase.
    assert "Year 1: months 0–12" in page and "Year 3: months 25–36" in page
    assert "¥25,000" in page
    # Defaults are named: 60 months without a useful life; calendar years, bought in January.
    assert "Depreciation over 60 months" in page
    assert "Fiscal years start in January (not set)." in page
    assert "The box is bought in the fiscal year&#x27;s first month" in page
    # 60 months of 25 000: 5 000 a year.
    assert "¥5,000" in page


def test_the_options_from_the_query_change_the_table_and_travel_to_the_downloads(client, scenario):
    code = encode(scenario)
    query = "?depreciation_months=24&fiscal_year_start_month=4&purchase_month=1"
    page = client.get(
        reverse("planner:results", args=[code]) + query, HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()

    assert "Year 1: months 0–3" in page and "Year 2: months 4–15" in page
    assert "Depreciation over" not in page  # set, not defaulted
    assert f"/r/{code}/workbook.xlsx{query.replace('&', '&amp;')}" in page
    assert f"/r/{code}/projection.csv{query.replace('&', '&amp;')}" in page


def test_a_bad_option_names_the_field_and_shows_no_table(client, scenario):
    page = client.get(
        reverse("planner:results", args=[encode(scenario)]) + "?depreciation_months=0",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert page.status_code == 200  # the rest of the page is still right
    text = page.content.decode()
    assert "greater than or equal to 1" in text
    assert "Year 1: months" not in text


def unzip(body: bytes) -> dict[str, list[list[str]]]:
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        return {name: parse(archive.read(name)) for name in archive.namelist()}


def test_the_zip_carries_the_fiscal_years_rounded_to_the_cent(client, scenario):
    code = encode(scenario)
    response = client.get(
        reverse("planner:results-zip", args=[code]) + "?fiscal_year_start_month=4&purchase_month=1",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 200
    files = unzip(response.content)
    about = dict(zip(*files["scenario.csv"], strict=True))
    assert about["Depreciation period [months]"] == "60"
    assert about["Fiscal year starts in month"] == "4"
    assert about["Box bought in month"] == "1"
    table = files["fiscal_years.csv"]
    assert table[0][:4] == ["Fiscal year", "First month", "Last month", "CapEx: purchases [CNY]"]
    rows = [dict(zip(table[0], row, strict=True)) for row in table[1:]]
    result = compare(scenario)
    accounts = accounting(
        scenario, result, AccountingOptions(fiscal_year_start_month=4, purchase_month=1)
    )
    assert len(rows) == len(accounts.fiscal_years) == 4
    columns = {
        "capex": "CapEx: purchases [CNY]",
        "opex": "OpEx: build [CNY]",
        "depreciation": "Depreciation [CNY]",
        "rent": "Renting instead (OpEx) [CNY]",
        "book_value": "Book value at year end [CNY]",
    }
    for row, expected in zip(rows, accounts.fiscal_years, strict=True):
        for name, column in columns.items():
            assert Decimal(row[column]) == Decimal(str(round(expected[name], 2))), name
    assert sum(Decimal(r[columns["rent"]]) for r in rows) == pytest.approx(
        Decimal(str(result["rent"]["total"])), abs=Decimal("0.05")
    )


def test_a_bad_option_makes_the_zip_a_400_naming_the_field(client, scenario):
    response = client.get(
        reverse("planner:results-zip", args=[encode(scenario)]) + "?purchase_month=x",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 400
    assert "purchase_month" in response.content.decode()


@pytest.mark.django_db
def test_a_saved_scenarios_page_has_the_table_and_the_workbook_link(client, scenario):
    saved = create_saved_scenario(name="box", scenario=scenario, user=None, session_key="x")
    page = client.get(
        reverse("planner:saved-detail", args=[saved.pk]), HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    assert "CapEx and OpEx per fiscal year" in page
    assert reverse("planner:saved-workbook", args=[saved.pk]) in page


def test_a_purchase_month_without_a_fiscal_year_start_says_january_was_assumed(client, scenario):
    page = client.get(
        reverse("planner:results", args=[encode(scenario)]) + "?purchase_month=7",
        HTTP_ACCEPT_LANGUAGE="en",
    ).content.decode()
    assert "Fiscal years start in January (not set)." in page
    assert "Year 1: months 0–6" in page  # July to December, then calendar years


def test_a_typed_option_is_shown_back_escaped(client, scenario):
    page = client.get(
        reverse("planner:results", args=[encode(scenario)]),
        {"depreciation_months": '"><script>alert(1)</script>'},
        HTTP_ACCEPT_LANGUAGE="en",
    ).content.decode()
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "Enter a whole number." in page


def test_fiscal_years_default_to_calendar_years_and_another_start_can_be_chosen(client, scenario):
    page = client.get(
        reverse("planner:results", args=[encode(scenario)]), HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    start = re.search(r'<select id="id_fiscal_year_start_month".*?</select>', page, re.S)
    assert start is not None
    options = re.findall(r'<option value="([^"]*)"( selected)?>', start.group(0))
    assert [value for value, _ in options] == [str(n) for n in range(1, 13)]  # no blank
    assert [value for value, selected in options if selected] == ["1"]  # January
    chosen = client.get(
        reverse("planner:results", args=[encode(scenario)]) + "?fiscal_year_start_month=4",
        HTTP_ACCEPT_LANGUAGE="en",
    ).content.decode()
    assert '<option value="4" selected>' in chosen


def test_the_fiscal_years_show_the_sale_at_the_horizon_and_its_gain_on_book_value(client, scenario):
    code = encode(scenario)
    page = client.get(reverse("planner:results", args=[code]), HTTP_ACCEPT_LANGUAGE="en")
    html = page.content.decode()
    result = compare(scenario)
    accounts = accounting(scenario, result, AccountingOptions())
    resale = result["build"]["resale_value"]
    # 25 000 written down over 60 months, 36 of them gone: 10 000 on the books.
    assert accounts.disposal_book_value == pytest.approx(10_000)
    assert "Sold at the horizon: proceeds" in html
    assert "Gain (loss) on the sale against book value" in html
    table = re.search(r'<table class="fiscal-years">.*?</table>', html, re.S)
    assert table is not None
    last_row = table.group(0).split("</tr>")[-2]
    assert formatting.money(resale, "CNY") in last_row
    assert formatting.money(resale - 10_000, "CNY") in last_row
    # The zip carries the same two columns, in the last year only.
    zipped = client.get(reverse("planner:results-zip", args=[code]), HTTP_ACCEPT_LANGUAGE="en")
    with zipfile.ZipFile(io.BytesIO(zipped.content)) as archive:
        rows = list(csv.reader(io.StringIO(archive.read("fiscal_years.csv").decode("utf-8-sig"))))
    proceeds = rows[0].index("Sold at the horizon: proceeds [CNY]")
    gain = rows[0].index("Gain (loss) on the sale against book value [CNY]")
    assert [float(row[proceeds]) for row in rows[1:]] == [0, 0, round(resale, 2)]
    assert float(rows[-1][gain]) == round(resale - 10_000, 2)


@pytest.mark.django_db
def test_a_download_is_named_after_the_scenario_and_the_day(client, scenario_data):
    today = date.today().isoformat()
    scenario_data["name"] = "Lab box vs. A100"
    code = encode(parse_scenario(scenario_data))
    for route, extension in (
        ("planner:results-workbook", "xlsx"),
        ("planner:results-zip", "zip"),
        ("planner:results-csv", "csv"),
    ):
        response = client.get(reverse(route, args=[code]))
        assert response.status_code == 200
        # A scenario typed in by hand names no catalog rows: its own name.
        assert response["Content-Disposition"] == (
            f'attachment; filename="lab-box-vs-a100-{today}.{extension}"'
        )
    del scenario_data["name"]
    scenario = parse_scenario(scenario_data)
    nameless = client.get(reverse("planner:results-csv", args=[encode(scenario)]))
    assert nameless["Content-Disposition"] == f'attachment; filename="scenario-{today}.csv"'

    saved = create_saved_scenario(name="Lab 方案 #2", scenario=scenario, user=None, session_key="x")
    response = client.get(reverse("planner:saved-workbook", args=[saved.pk]))
    assert response.status_code == 200
    assert response["Content-Disposition"] == (
        f"attachment; filename*=utf-8''lab-%E6%96%B9%E6%A1%88-2-{today}.xlsx"
    )


@pytest.mark.django_db
def test_a_planned_scenario_is_named_after_its_gpus(client, shipped_catalog):
    from .test_chosen import submit

    url = submit(
        client, preset="multi-4x-rtx4090", currency="CNY", cloud_offering="cn-market-a800-80gb"
    )
    response = client.get(reverse("planner:results-workbook", args=[code_of(url)]))
    assert response["Content-Disposition"] == (
        f'attachment; filename="4x4090-vs-a800-{date.today().isoformat()}.xlsx"'
    )
