"""What the charts draw, read back from the browser: names as typed (plotly reads tags in
legend text, so ``<a href>`` would become a link), and each series from its own figures."""

import json
from pathlib import Path

import pytest
from django.urls import reverse

from costmodel import parse_scenario
from costmodel.lines import LINES
from tests.browser.conftest import margins_plotly_grew
from webapp.scenarios.services import create_saved_scenario

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EXAMPLE = Path(__file__).resolve().parents[1] / "costmodel" / "examples"
SCENARIO = json.loads((EXAMPLE / "steady-4090-vs-a100.json").read_text())
NAMES = ['<a href="https://evil.example/">x</a>', "<b>bold</b> &amp; <br>co"]


def test_scenario_names_in_the_compare_chart_are_plain_text(page, live_server):
    ids = [
        str(create_saved_scenario(name=name, scenario=parse_scenario(SCENARIO), session_key="s").pk)
        for name in NAMES
    ]
    query = "&".join(f"ids={i}" for i in ids)
    page.goto(f"{live_server.url}{reverse('planner:saved-compare')}?{query}")
    page.wait_for_selector("#chart-compare[data-rendered='true']")

    legend = page.locator("#chart-compare .legendtext").all_text_contents()
    assert legend == [f"{name} · {part} (CNY)" for name in NAMES for part in ("Build", "Rent")], (
        legend
    )
    assert page.locator("#chart-compare a").count() == 0
    assert page.locator("#chart-compare .legendtext tspan[style*='bold']").count() == 0
    assert margins_plotly_grew(page) == {}  # its margins hold the four-entry legend at once
    page.watch.assert_clean()


def test_the_breakdown_chart_draws_each_of_its_six_series_from_its_own_figures(page, live_server):
    from costmodel import compare, parse_scenario
    from webapp.planner.permalink import encode

    data = json.loads(json.dumps(SCENARIO))
    data["build"].update(hosting_monthly=410.0, ops_monthly=170.0)
    data["rent"].update(fixed_monthly=95.0, annual_price_change=-0.1)
    scenario = parse_scenario(data)
    result = compare(scenario)
    page.goto(f"{live_server.url}{reverse('planner:results', args=[encode(scenario)])}")
    page.wait_for_selector("#chart-breakdown[data-rendered='true']")

    traces = page.evaluate(
        "() => document.getElementById('chart-breakdown').data.map("
        "t => ({name: t.name, x: Array.from(t.x), y: Array.from(t.y), colour: t.marker.color}))"
    )
    # The lines always charted (the rest are zero here), named and coloured as declared.
    sides = {"build": "Build", "rent": "Rent"}
    expected = [
        (f"{sides[line.side]} · {line.label}", result[line.side][line.key], line.colour)
        for line in LINES
        if line.always_charted
    ]
    assert [t["name"] for t in traces] == [name for name, _, _ in expected]
    for trace, (name, series, colour) in zip(traces, expected, strict=True):
        assert trace["x"] == result["months"][1:], name
        assert trace["y"] == series[1:], name
        assert trace["colour"] == colour, name
    page.watch.assert_clean()


def test_a_chinese_page_draws_its_charts_with_plotlys_chinese_toolbar(browser, live_server):
    from tests.browser.conftest import PageWatch
    from webapp.planner.permalink import encode

    context = browser.new_context(
        viewport={"width": 1280, "height": 900},
        locale="zh-CN",
        extra_http_headers={"Accept-Language": "zh-hans"},
    )
    try:
        page = context.new_page()
        watch = PageWatch(page, live_server.url)
        code = encode(parse_scenario(SCENARIO))
        page.goto(f"{live_server.url}{reverse('planner:results', args=[code])}")
        page.wait_for_selector("#chart-breakdown[data-rendered='true']")
        assert page.locator("html").get_attribute("lang") == "zh-hans"
        titles = page.locator("#chart-breakdown .modebar-btn").evaluate_all(
            "buttons => buttons.map(b => b.getAttribute('data-title'))"
        )
        assert "下载图表为PNG格式" in titles, titles
        assert "重置轴" in titles, titles
        assert not [t for t in titles if t and t.isascii()], titles  # nor "Share chart..."
        watch.assert_clean()
    finally:
        context.close()
