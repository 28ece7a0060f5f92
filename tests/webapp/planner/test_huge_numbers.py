"""Amounts far beyond any real price still render, export and save, or are refused cleanly.

The engine works in float64; a page, a CSV or a saved scenario must either show
what it computed or, when the numbers overflow, say so with a 4xx naming the
problem, never a 500.
"""

import csv
import io
import zipfile
from decimal import Decimal

import pytest
from django.urls import reverse

from costmodel import compare, parse_scenario
from costmodel.tables import MONTHLY_COLUMNS
from webapp.formatting import money, round_money
from webapp.planner.permalink import encode
from webapp.scenarios.models import SavedScenario

pytestmark = pytest.mark.django_db


def test_round_money_keeps_every_digit_of_a_huge_amount():
    assert round_money(1e26, "CNY") == Decimal("100000000000000000000000000.00")
    assert round_money(-1.7976931348623157e308, "JPY") == Decimal("-1.7976931348623157e308")
    assert round_money(9.9e25, "USD") == Decimal("99000000000000000000000000.00")


def test_money_shows_a_huge_amount():
    assert money(1e26, "CNY") == "¥100,000,000,000,000,000,000,000,000.00"
    assert money(1e300, "USD").startswith("$")


@pytest.fixture
def huge_capex(scenario_data):
    scenario_data["build"]["capex"] = 1e26
    return parse_scenario(scenario_data)


def _csv_rows(response) -> list[list[str]]:
    return list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))


def test_a_capex_of_1e26_renders_on_every_page_and_csv(client, huge_capex):
    code = encode(huge_capex)
    page = client.get(reverse("planner:results", args=[code]))
    assert page.status_code == 200
    assert "100,000,000,000,000,000,000,000,000.00" in page.content.decode()
    analysis = client.get(reverse("planner:results-analysis", args=[code]))
    assert analysis.status_code == 200
    assert analysis.json()["cumulative"]["build"] == compare(huge_capex)["build"]["cumulative"]
    monthly = client.get(reverse("planner:results-csv", args=[code]))
    assert monthly.status_code == 200
    assert _csv_rows(monthly)[1][MONTHLY_COLUMNS.index("build_monthly")] == (
        "100000000000000000000000000.00"  # month 0: the purchase
    )
    tables = client.get(reverse("planner:results-zip", args=[code]), HTTP_ACCEPT_LANGUAGE="en")
    with zipfile.ZipFile(io.BytesIO(tables.content)) as archive:
        assumptions = list(
            csv.reader(io.StringIO(archive.read("assumptions.csv").decode("utf-8-sig")))
        )
    capex = next(row for row in assumptions if row[0] == "Purchase price of the box")
    assert capex[1] == "100000000000000000000000000.00"

    saved = client.post(reverse("planner:save"), {"code": code, "name": "huge"})
    assert saved.status_code == 302
    item = SavedScenario.objects.get()
    assert client.get(saved["Location"]).status_code == 200
    assert client.get(reverse("planner:saved-csv", args=[item.pk])).status_code == 200
    other = client.post(reverse("planner:save"), {"code": code, "name": "twin"})
    twin = SavedScenario.objects.exclude(pk=item.pk).get()
    assert other.status_code == 302
    summary = client.get(
        reverse("planner:saved-summary-csv"),
        {"ids": [item.pk, twin.pk]},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert summary.status_code == 200
    header, first, *_ = _csv_rows(summary)
    capex = header.index("Purchase price of the box [CNY]")
    assert first[capex] == "100000000000000000000000000.00"


@pytest.fixture
def overflowing(scenario_data):
    for path in (("build", "capex"), ("rent", "hourly_rate"), ("rent", "fixed_monthly")):
        scenario_data[path[0]][path[1]] = 1e308
    return parse_scenario(scenario_data)


def test_saving_a_permalink_whose_numbers_overflow_is_refused_without_a_row(client, overflowing):
    code = encode(overflowing)
    response = client.post(reverse("planner:save"), {"code": code, "name": "too big"})
    assert response.status_code == 400
    assert "too large" in response.content.decode()
    assert not SavedScenario.objects.exists()


def test_a_saved_row_that_overflows_is_a_clean_400_not_a_500(client, overflowing):
    """Rows stored before saves were checked stay readable as an error page."""
    item = SavedScenario.objects.create(
        name="stored earlier", scenario=overflowing.model_dump(mode="json")
    )
    for url in (
        reverse("planner:saved-detail", args=[item.pk]),
        reverse("planner:saved-csv", args=[item.pk]),
        reverse("planner:saved-zip", args=[item.pk]),
    ):
        response = client.get(url)
        assert response.status_code == 400, url
        assert "too large" in response.content.decode()
