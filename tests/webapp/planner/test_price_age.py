"""The results page names the prices its plan used that were old on the plan's date: a
finance reader checks those against a current quote before signing off."""

import datetime
import html
import re

import pytest
from django.urls import reverse
from django.utils import translation

from webapp.catalog.models import STALE_AFTER_DAYS, is_stale_on, months_between
from webapp.planner.permalink import decode, encode
from webapp.planner.sources import localized_label

from .test_chinese_pages import ZH
from .test_planner_form import HOME, form_data


def _item(label: str, date: str | None, amount: str | None = "100.00") -> dict:
    return {
        "role": "part",
        "label": label,
        "model": "catalog.partprice",
        "natural_key": [label.lower().replace(" ", "-"), date],
        "amount": amount,
        "currency": "USD",
        "effective_date": date,
        "fields": ["build.capex"],
    }


def _sentence(page: str) -> str | None:
    match = re.search(r'<p id="verdict-price-age"[^>]*>(.*?)</p>', page, re.S)
    if match is None:
        return None
    return html.unescape(re.sub(r"<[^>]+>", "", match.group(1))).strip()


@pytest.mark.parametrize(
    ("earlier", "later", "months"),
    [
        ("2024-08-22", "2026-12-05", 27),
        ("2026-06-05", "2026-12-05", 6),
        ("2026-06-06", "2026-12-05", 5),
        ("2026-12-05", "2026-12-05", 0),
        ("2025-01-31", "2025-02-28", 0),
        ("2025-01-31", "2025-03-01", 1),
    ],
)
def test_months_between_counts_whole_calendar_months(earlier, later, months):
    day = datetime.date.fromisoformat
    assert months_between(day(earlier), day(later)) == months


def test_a_price_is_stale_the_day_after_its_180_days():
    day = datetime.date(2026, 12, 5)
    assert STALE_AFTER_DAYS == 180
    assert not is_stale_on(day - datetime.timedelta(days=180), day)
    assert is_stale_on(day - datetime.timedelta(days=181), day)


@pytest.mark.django_db
def test_the_old_prices_of_a_plan_are_named_oldest_first(client, scenario):
    provenance = [
        _item("Recent card", "2026-11-01"),
        _item("Half-year switch", "2026-06-07"),  # 181 days before the plan: stale
        _item("Just fresh cable", "2026-06-08"),  # 180 days: not yet
        _item("Old server", "2024-08-22"),
        _item("Old server", "2024-08-22"),  # the same row feeding two fields: named once
        _item("Undated preset figure", None),
        _item("Old quantity, no price", "2020-01-01", amount=None),
    ]
    code = encode(scenario, provenance, selection={"as_of": "2026-12-05"})
    page = client.get(reverse("planner:results", args=[code])).content.decode()
    assert 'data-old-prices="2"' in page
    assert _sentence(page) == (
        "Old prices 2 prices behind these figures were more than 180 days old on the plan's "
        "date, 2026-12-05: Old server (2024-08-22, 27 months old); Half-year switch "
        "(2026-06-07, 5 months old). Check them against current quotes before signing off."
    )


@pytest.mark.django_db
def test_more_than_five_old_prices_are_counted_after_the_fifth(client, scenario):
    provenance = [_item(f"Part {i}", f"2020-0{i}-01") for i in range(1, 9)]
    code = encode(scenario, provenance, selection={"as_of": "2026-12-05"})
    sentence = _sentence(client.get(reverse("planner:results", args=[code])).content.decode())
    assert sentence is not None
    assert "Part 5 (2020-05-01, 79 months old); 3 more." in sentence
    assert "Part 6" not in sentence


@pytest.mark.django_db
def test_no_sentence_without_old_prices_or_without_a_catalog_plan(client, scenario):
    fresh = encode(
        scenario, [_item("Recent card", "2026-11-01")], selection={"as_of": "2026-12-05"}
    )
    explicit = encode(scenario)
    for code in (fresh, explicit):
        page = client.get(reverse("planner:results", args=[code])).content.decode()
        assert 'id="verdict-price-age"' not in page


@pytest.mark.django_db
def test_a_chinese_catalog_plan_names_its_old_prices_in_chinese(client, shipped_catalog):
    response = client.post(HOME, form_data(client, preset="multi-4x-rtx4090", currency="CNY"), **ZH)
    assert response.status_code == 302
    link = decode(response["Location"].removeprefix("/r/"))
    day = datetime.date.fromisoformat(link.selection["as_of"])
    old = sorted(
        (item for item in link.provenance if item.get("amount") and item.get("effective_date")),
        key=lambda item: item["effective_date"],
    )
    oldest = old[0]
    assert is_stale_on(datetime.date.fromisoformat(oldest["effective_date"]), day)
    page = client.get(response["Location"], **ZH).content.decode()
    sentence = _sentence(page)
    assert sentence is not None
    assert sentence.startswith("旧价格 这些数字所依据的价格中")
    assert "签字确认前请与最新报价核对。" in sentence
    with translation.override("zh-hans"):
        name = localized_label(oldest)
    assert f"{name}（{oldest['effective_date']}，已 " in sentence
    assert "months old" not in sentence
