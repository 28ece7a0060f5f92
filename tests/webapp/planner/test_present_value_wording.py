"""The page says the measure the verdict is decided on: with a cost of capital, present-value
savings in the headline, the median, the fan chart's title, axis and caption, the tornado and
the CSV's bands; without one, the savings themselves, as before. Cash figures stay, labelled
as cash (issue 41: "the fan chart's title and band are the same measure")."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.urls import reverse
from django.utils import translation

from costmodel import compare, parse_scenario
from webapp import formatting
from webapp.planner.permalink import encode

pytestmark = pytest.mark.django_db


def fan_caption(html: str) -> tuple[str, str]:
    found = re.search(r'<figcaption id="fan-caption" data-measure="(\w+)">(.*?)</figcaption>', html)
    assert found is not None
    return found.group(1), found.group(2)


@pytest.mark.parametrize("rate", [0.08, 0.0])
def test_every_statement_of_the_verdicts_measure_names_it(client, scenario_data, rate):
    scenario_data["discount_rate_per_year"] = rate
    scenario = parse_scenario(scenario_data)
    code = encode(scenario)
    result = compare(scenario)
    html = client.get(
        reverse("planner:results", args=[code]), HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    doc = client.get(
        reverse("planner:results-analysis", args=[code]), HTTP_ACCEPT_LANGUAGE="en"
    ).json()
    rows = list(
        csv.reader(
            io.StringIO(
                client.get(reverse("planner:results-csv", args=[code]), HTTP_ACCEPT_LANGUAGE="en")
                .content.decode()
                .lstrip("\ufeff")
            )
        )
    )
    measure, caption = fan_caption(html)
    headline = re.search(r'<h1 id="headline-sentence">(.*?)</h1>', html).group(1)
    bands = rows[0][-3:]
    labels = doc["labels"]
    # the cash savings stay on the page, labelled as cash
    with translation.override("en"):
        cash = formatting.money(result["savings"], "CNY")
        decided_on = formatting.amount(
            result["present_value_savings"] if rate else result["savings"], "CNY"
        )
    assert re.search(
        r"\(cash, resale credited\)</dt>\s*<dd id=\"figure-savings\" class=\"\">" + re.escape(cash),
        html,
    )
    assert decided_on in headline
    if rate:
        assert measure == "present_value_savings"
        assert "in present value" in caption and "8 % a year" in caption
        assert "in present value" in headline and "8 % a year" in headline
        assert doc["uncertainty"]["title"].startswith("Advantage of building in present value")
        assert labels["fan_axis"].startswith("Rent minus build so far, in present value")
        assert labels["tornado_axis"].startswith("Present-value savings of building")
        assert all(b.startswith("Rent minus build so far in present value") for b in bands)
        assert doc["verdict"]["median"].endswith("in present value.")
        assert 'id="figure-present-value-savings"' in html
    else:
        assert measure == "savings"
        assert "present value" not in caption and "present value" not in headline
        assert doc["uncertainty"]["title"].startswith("Advantage of building, the box sold")
        assert labels["fan_axis"] == "Rent minus build so far [¥]"
        assert all(b.startswith("Rent minus build so far, P") for b in bands)
        assert 'id="figure-present-value-savings"' not in html
    # the median said beside the headline is the fan's draws' own (one measure)
    with translation.override("en"):
        median = formatting.amount(abs(doc["uncertainty"]["savings"]["p50"]), "CNY")
    assert median in doc["verdict"]["median"]


def test_the_present_value_wording_is_chinese_on_a_chinese_page(client, scenario_data):
    code = encode(parse_scenario(scenario_data))  # 8 % a year
    html = client.get(
        reverse("planner:results", args=[code]), HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    _measure, caption = fan_caption(html)
    headline = re.search(r'<h1 id="headline-sentence">(.*?)</h1>', html).group(1)
    assert "现值" in caption and "现值" in headline
    assert "present value" not in caption + headline
