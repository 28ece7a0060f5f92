"""Names people typed are drawn in charts as they were typed: plotly reads tags in legend
text (``<a href>`` becomes a link), so the page's JavaScript escapes them."""

import json
from pathlib import Path

import pytest
from django.urls import reverse

from webapp.planner.saved import create_saved_scenario

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EXAMPLE = Path(__file__).resolve().parents[1] / "costmodel" / "examples"
SCENARIO = json.loads((EXAMPLE / "steady-4090-vs-a100.json").read_text())
NAMES = ['<a href="https://evil.example/">x</a>', "<b>bold</b> &amp; <br>co"]


def test_scenario_names_in_the_compare_chart_are_plain_text(page, live_server):
    ids = [
        str(create_saved_scenario(name=name, scenario=SCENARIO, session_key="s").pk)
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
    page.watch.assert_clean()
