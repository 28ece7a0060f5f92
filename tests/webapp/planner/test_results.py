"""The results page: headline, chart data from the engine, inputs, bad links."""

import pytest
from django.urls import reverse
from numpy.testing import assert_allclose

from costmodel import compare, parse_scenario
from costmodel.sensitivity import tidal_sweep, utilization_horizon_grid, utilization_sweep
from webapp.planner.permalink import encode

from .helpers import json_script


def results_url(code: str) -> str:
    return reverse("planner:results", args=[code])


def test_the_results_page_shows_the_engines_headline_in_words(client, scenario, permalink):
    response = client.get(results_url(permalink), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    html = response.content.decode()
    result = compare(scenario)
    assert round(result["break_even_month"], 1) == 2.7
    assert "Building pays for itself in 2.7 months." in html
    assert "¥320,434.19" in html  # savings, rounded to the fen
    assert "¥2.68" in html and "¥28.09" in html  # cost per reference GPU-hour, build and rent
    assert "5.1 %" in html  # break-even utilization
    assert "¥8,575.00" in html  # resale value


def test_a_scenario_that_never_pays_back_says_so(client, scenario_data):
    scenario_data["workload"] = {"kind": "steady", "utilization": 0.01}
    code = encode(parse_scenario(scenario_data))
    html = client.get(results_url(code), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Building does not pay back within 36 months." in html


def test_the_chart_data_is_the_engines_output(client, scenario, permalink):
    html = client.get(results_url(permalink)).content.decode()
    charts = json_script(html, "chart-data")
    result = compare(scenario)
    assert charts["build"]["cumulative"] == result["build"]["cumulative"]
    assert charts["rent"]["cumulative"] == result["rent"]["cumulative"]
    assert charts["break_even_month"] == result["break_even_month"]
    assert charts["breakdown"]["build"]["energy"] == result["build"]["energy"][1:]
    assert charts["breakdown"]["rent"]["compute"] == result["rent"]["compute"][1:]
    sweep = utilization_sweep(scenario)
    assert_allclose(charts["utilization"]["savings"], sweep["savings"], rtol=1e-12)
    assert charts["utilization"]["break_even_utilization"] == result["break_even_utilization"]
    assert_allclose(charts["utilization"]["scenario_utilization"], 0.8, rtol=1e-12)
    assert charts["tidal"]["tidal_savings"] == tidal_sweep(scenario)["tidal_savings"]
    assert charts["grid"]["savings"] == utilization_horizon_grid(scenario)["savings"]
    assert set(charts["labels"]) >= {"cumulative_title", "utilization_title", "grid_title"}


def test_the_page_has_five_charts_and_no_inline_script(client, permalink):
    response = client.get(results_url(permalink))
    html = response.content.decode()
    for chart in ("cumulative", "breakdown", "utilization", "tidal", "grid"):
        assert f'id="chart-{chart}"' in html
    assert "/static/vendor/plotly/plotly-cartesian." in html  # local, cartesian-only bundle
    assert " on" + "click=" not in html
    scripts = html.count("<script")
    assert scripts == html.count('type="application/json"') + html.count("<script src=")
    assert "script-src 'self'" in response["Content-Security-Policy"]


def test_the_inputs_table_lists_every_field_and_flags_overrides(client, scenario):
    provenance = [
        {
            "role": "cloud rate",
            "label": "Cloud A100",
            "fields": ["rent.hourly_rate"],
            "amount": "28",
            "currency": "CNY",
            "effective_date": "2025-01-01",
            "source": "https://example.com/prices",
            "estimate": True,
        },
        {"role": "part", "label": "RTX 4090 card", "fields": ["build.capex"], "estimate": False},
    ]
    code = encode(scenario, provenance, ["build.capex"])
    html = client.get(results_url(code), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'data-field="build.capex" class="override"' in html
    assert 'data-field="rent.hourly_rate"' in html
    assert "Cloud A100" in html and "estimate" in html
    assert 'href="https://example.com/prices"' in html
    assert "your override" in html


def test_reloading_a_permalink_shows_the_same_figures(client, permalink):
    first = client.get(results_url(permalink)).content.decode()
    second = client.get(results_url(permalink)).content.decode()
    assert json_script(first, "chart-data") == json_script(second, "chart-data")


@pytest.mark.parametrize("code", ["garbage", "x" * 20000, "a:b:c"])
def test_a_broken_link_gets_a_clear_400_page(client, code):
    response = client.get(results_url(code), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 400
    assert "This link cannot be shown" in response.content.decode()


def test_a_tampered_link_gets_a_400_page(client, permalink):
    response = client.get(results_url(permalink[:-4] + "abcd"), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 400
    assert "damaged or was altered" in response.content.decode()


def test_absurd_figures_give_a_400_not_a_500(client, scenario_data):
    scenario_data["horizon_months"] = 240
    scenario_data["rent"]["hourly_rate"] = 1e307
    response = client.get(results_url(encode(parse_scenario(scenario_data))))
    assert response.status_code == 400


def test_the_results_page_speaks_chinese(client, permalink):
    client.cookies["django_language"] = "zh-hans"
    response = client.get(results_url(permalink))
    assert response.status_code == 200
    assert '<html lang="zh-hans">' in response.content.decode()


@pytest.mark.django_db
def test_every_visitor_gets_a_working_csrf_token_of_their_own(permalink):
    import re

    from django.test import Client

    tokens = []
    for _ in range(2):
        client = Client(enforce_csrf_checks=True)
        html = client.get(results_url(permalink)).content.decode()
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
        tokens.append(token)
        response = client.post(
            reverse("planner:save"), {"code": permalink, "name": "n", "csrfmiddlewaretoken": token}
        )
        assert response.status_code == 302
    assert tokens[0] != tokens[1]


def test_the_language_switcher_returns_to_the_same_permalink(client, permalink):
    html = client.get(results_url(permalink) + "?x=1").content.decode()
    assert f'name="next" type="hidden" value="{results_url(permalink)}"' in html


@pytest.mark.django_db
@pytest.mark.parametrize(
    "name",
    ["csrf-slot-7d1e9b", "before csrf-slot-7d1e9b after", "{% csrf_token %}", "{{ csrf_token }}"],
)
def test_a_scenario_name_is_shown_literally_never_with_the_visitors_token(
    client, scenario_data, name
):
    import html as html_lib
    import re

    scenario_data["name"] = name
    url = results_url(encode(parse_scenario(scenario_data)))
    client.get(url)  # a first visit fills whatever cache there is
    page = client.get(url).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    escaped = html_lib.escape(name)
    assert f'<p class="scenario-name">{escaped}</p>' in page
    assert f'id="save-name" name="name" maxlength="200" required value="{escaped}"' in page
    assert page.count(token) == page.count('name="csrfmiddlewaretoken"') == 2  # 2 forms
    assert page.count(client.cookies["csrftoken"].value) == 0


def test_the_cached_fragments_hold_no_form_and_no_token(rf, permalink):
    from webapp.planner.permalink import decode
    from webapp.planner.results import results_fragments

    fragments = results_fragments(rf.get("/"), decode(permalink), "test:" + permalink)
    assert set(fragments) == {"summary", "details", "title"}
    for fragment in fragments.values():
        assert "<form" not in fragment and "csrfmiddlewaretoken" not in fragment


BREAKDOWN_SERIES = {
    "build": ("energy", "hosting", "maintenance", "ops"),
    "rent": ("compute", "fixed"),
}


def test_all_six_series_of_the_monthly_breakdown_chart_are_the_engines(client, scenario_data):
    # Every component different from the others, so a series drawn from the wrong one shows.
    scenario_data["build"].update(hosting_monthly=410.0, ops_monthly=170.0)
    scenario_data["rent"].update(fixed_monthly=95.0, annual_price_change=-0.1)
    scenario = parse_scenario(scenario_data)
    result = compare(scenario)
    html = client.get(results_url(encode(scenario))).content.decode()
    breakdown = json_script(html, "chart-data")["breakdown"]

    assert breakdown["months"] == result["months"][1:]
    assert {side: set(series) for side, series in breakdown.items() if side != "months"} == {
        side: set(names) for side, names in BREAKDOWN_SERIES.items()
    }
    for side, names in BREAKDOWN_SERIES.items():
        for name in names:
            assert breakdown[side][name] == result[side][name][1:], (side, name)
    firsts = [
        breakdown[side][name][0] for side, names in BREAKDOWN_SERIES.items() for name in names
    ]
    assert len(set(firsts)) == 6
