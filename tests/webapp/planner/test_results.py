"""The results page: the verdict and figures from the engine, the charts left to its JSON,
inputs, bad links."""

import re

import pytest
from django.urls import reverse
from django.utils import translation
from django.utils.safestring import SafeString

from costmodel import compare, parse_scenario
from costmodel.ranges import default_ranges
from webapp import formatting
from webapp.planner.permalink import encode


def results_url(code: str) -> str:
    return reverse("planner:results", args=[code])


def test_the_results_page_says_the_verdict_and_shows_the_engines_figures(
    client, scenario, permalink
):
    response = client.get(results_url(permalink), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    html = response.content.decode()
    result = compare(scenario)
    assert round(result["break_even_month"], 1) == 2.7
    # the methodology's worked example: 320 434.19 over 36 months, 2.6717 months to break even;
    # at its 8 % cost of capital the verdict is decided, and said, in present value
    with translation.override("en"):
        present_value = formatting.amount(result["present_value_savings"], "CNY")
    assert (
        f"Build: it saves {present_value} in present value over 36 months, at a cost of "
        "capital of 8 % a year." in html
    )
    assert "keep it at least 2.7 months" in html
    assert "¥320,434.19" in html  # savings, rounded to the fen, labelled as cash
    assert "Savings of building over 36 months (cash, resale credited)" in html
    with translation.override("en"):
        shown = formatting.money(result["present_value_savings"], "CNY")
    assert re.search(r'id="figure-present-value-savings" class="">' + re.escape(shown) + "<", html)
    assert "¥2.68" in html and "¥28.09" in html  # cost per reference GPU-hour, build and rent
    assert "5.1 %" in html  # break-even utilization
    assert "¥8,575.00" in html  # resale value
    assert 'class="verdict verdict-good"' in html


def test_a_scenario_that_never_pays_back_says_rent(client, scenario_data):
    scenario_data["workload"] = {"kind": "steady", "utilization": 0.01}
    scenario = parse_scenario(scenario_data)
    result = compare(scenario)
    assert result["break_even_month"] is None and result["savings"] < 0
    html = client.get(results_url(encode(scenario)), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    with translation.override("en"):
        shortfall = formatting.amount(-result["present_value_savings"], "CNY")
    assert (
        f"Rent: building would cost {shortfall} more in present value over 36 months, at a "
        "cost of capital of 8 % a year." in html
    )
    assert 'class="verdict verdict-neutral"' in html
    assert "In cash alone building never catches up" in html


def test_the_page_leaves_the_heavy_analyses_to_its_json(client, scenario, permalink):
    response = client.get(results_url(permalink))
    html = response.content.decode()
    for chart in ("cumulative", "fan", "tornado", "fleet", "grid", "breakdown", "utilization"):
        assert f'id="chart-{chart}"' in html
    assert 'id="chart-tidal"' not in html
    analysis = reverse("planner:results-analysis", args=[permalink])
    assert f'data-url="{analysis}"' in html
    assert 'id="chart-data"' not in html  # no chart series in the page itself
    assert "/static/vendor/plotly/plotly-charts." in html  # local, the pages' trace types only
    assert " on" + "click=" not in html
    scripts = html.count("<script")
    assert scripts == html.count('type="application/json"') + html.count("<script src=")
    assert "script-src 'self'" in response["Content-Security-Policy"]


def test_a_tidal_workload_has_no_fleet_chart(client, scenario_data):
    scenario_data["workload"] = {"kind": "tidal", "active_days_per_month": 4}
    html = client.get(results_url(encode(parse_scenario(scenario_data)))).content.decode()
    assert 'id="chart-fan"' in html and 'id="chart-fleet"' not in html


def test_the_page_lists_the_uncertainty_ranges_it_will_use(client, scenario, permalink):
    html = client.get(results_url(permalink), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    for r in default_ranges(scenario):
        assert f'<tr data-field="{r.path}">' in html
    # utilization 0.8: from half to a quarter more, 40 % to 100 %
    row = re.search(r'<tr data-field="workload.utilization">(.*?)</tr>', html, re.S).group(1)
    assert re.findall(r"<td>(.*?)</td>", row) == ["40.0 %", "80.0 %", "100.0 %"]


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


def test_reloading_a_permalink_shows_the_same_page(client, permalink):
    first = client.get(results_url(permalink)).content.decode()
    second = client.get(results_url(permalink)).content.decode()
    strip = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"')
    assert strip.sub("", first) == strip.sub("", second)


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


def test_the_fragments_hold_no_form_and_no_token(permalink):
    from webapp.planner.permalink import decode
    from webapp.planner.results import results_fragments

    fragments = results_fragments(decode(permalink), permalink)
    assert set(fragments) == {"summary", "details", "title"}
    for fragment in fragments.values():
        assert "<form" not in fragment and "csrfmiddlewaretoken" not in fragment


def test_no_results_page_is_kept_in_a_cache(client, scenario_data):
    # A page cache per worker would mostly miss (permalinks are many) and is not shared;
    # each visit renders the page, so nothing of one visit can reach another.
    from django.core.cache import caches

    code = encode(parse_scenario(scenario_data))
    caches["default"].clear()
    client.get(results_url(code))
    client.get(results_url(code))
    assert not [key for key in caches["default"]._cache if "results" in key]  # LocMemCache


def inputs_row(**changes):
    row = {
        "path": "build.capex",
        "label": "Build capex",
        "value": "¥20,000.00",
        "override": False,
        "sources": "",
    }
    return {**row, **changes}


def inputs_html(rows, from_catalog):
    """The inputs table's rows as the results page renders them."""
    from django.template.loader import render_to_string

    context = {"rows": rows, "from_catalog": from_catalog}
    return render_to_string("planner/includes/input_rows.html", context)


def test_input_rows_show_their_value_and_where_it_came_from():
    rows = [
        inputs_row(),
        inputs_row(path="rent.hourly_rate", override=True),
        inputs_row(path="build.pue", sources=SafeString('<a href="https://example.com/">x</a>')),
    ]
    with translation.override("en"):
        first = inputs_html(rows, from_catalog=True)
    assert first.count("<tr ") == 3
    assert 'data-field="rent.hourly_rate" class="override"' in first
    assert "your override" in first
    assert '<a href="https://example.com/">x</a>' in first  # the sources cell is HTML already
    assert ">default<" in first  # from the catalog, with no source of its own


def test_an_input_row_follows_the_language_and_where_the_values_came_from():
    override, plain = inputs_row(override=True), inputs_row(path="build.gpu_count")
    with translation.override("en"):
        english = inputs_html([override, plain], from_catalog=True)
        entered = inputs_html([plain], from_catalog=False)
    with translation.override("zh-hans"):
        chinese = inputs_html([override, plain], from_catalog=True)
        said = translation.gettext("your override"), translation.gettext("default")
    assert said != ("your override", "default")  # the test means something in Chinese
    assert said[0] in chinese and said[1] in chinese
    assert "your override" in english and ">default<" in english
    assert ">as entered<" in entered and ">default<" not in entered


def test_an_input_rows_text_is_escaped():
    with translation.override("en"):
        html = inputs_html([inputs_row(label="a <b> & c", value="<1>")], from_catalog=False)
    assert "a &lt;b&gt; &amp; c" in html and "&lt;1&gt;" in html


def test_a_sources_cell_is_html_only_when_it_was_made_as_html():
    text = '<a href="https://example.com/">x</a>'
    with translation.override("en"):
        made = inputs_html([inputs_row(sources=SafeString(text))], from_catalog=True)
        typed = inputs_html([inputs_row(sources=text)], from_catalog=True)
    assert text in made
    assert text not in typed and "&lt;a href=" in typed


def test_a_translation_with_a_percent_sign_is_shown_with_one(client, scenario_data):
    # No break-even utilization: the translated text holds a literal "%".
    scenario_data["rent"]["hourly_rate"] = 0.01
    code = encode(parse_scenario(scenario_data))
    english = client.get(results_url(code), HTTP_ACCEPT_LANGUAGE="en")
    chinese = client.get(results_url(code), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "none between 0 and 100 %<" in english.content.decode()
    assert "0 到 100 % 之间无解" in chinese.content.decode()


@pytest.mark.django_db
def test_the_results_page_is_drawn_in_the_layout_every_page_uses(client, permalink):
    response = client.get(results_url(permalink))
    saved_list = client.get(reverse("planner:saved-list"))
    names = [template.name for template in response.templates]
    assert {"planner/results.html", "base.html"} <= set(names)
    assert "base.html" in [template.name for template in saved_list.templates]


def test_an_input_whose_low_equals_its_high_is_left_out_of_ranges_and_tornado_with_a_note(
    client, db, scenario_data
):
    # the hosting fee includes power: the electricity price is 0, its range 0 to 0
    scenario_data["build"]["electricity_price_per_kwh"] = 0.0
    code = encode(parse_scenario(scenario_data))
    html = client.get(results_url(code), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    ranges = re.search(r'<table class="ranges-table">.*?</table>', html, re.S).group(0)
    assert 'data-field="build.electricity_price_per_kwh"' not in ranges
    assert 'data-field="rent.annual_price_change"' in ranges
    assert html.count('data-fixed="build.electricity_price_per_kwh"') == 2  # ranges, tornado
    assert "Left out of the ranges and the tornado: Electricity price" in html
    assert "cannot move the answer" in html
    doc = client.get(reverse("planner:results-analysis", args=[code])).json()
    tornado_paths = [row["path"] for row in doc["tornado"]["rows"]]
    assert "build.electricity_price_per_kwh" not in tornado_paths and "build.capex" in tornado_paths
    drawn = [r["path"] for r in doc["uncertainty"]["ranges"]]
    assert "build.electricity_price_per_kwh" not in drawn
    zh = client.get(results_url(code), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "不参与区间和龙卷风图" in zh


def test_every_range_with_a_spread_stays_and_no_note_is_shown(client, permalink):
    html = client.get(results_url(permalink), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'data-field="build.electricity_price_per_kwh"' in html
    assert "data-fixed" not in html
