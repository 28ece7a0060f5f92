"""axe-core (from npm, pinned in package-lock.json) finds no violation on any page, in both
languages: the planner, results (a permalink and a saved scenario), the saved list, the
compare page, measured usage, the advisor and the guide."""

import json
import os
from pathlib import Path

import pytest
from django.urls import reverse

from costmodel import parse_scenario
from tests.browser.conftest import PageWatch
from webapp.planner.permalink import encode
from webapp.scenarios.services import create_saved_scenario

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
AXE = Path(os.environ.get("AXE_CORE", ROOT / "node_modules" / "axe-core" / "axe.min.js"))
EXAMPLE = ROOT / "tests" / "costmodel" / "examples" / "steady-4090-vs-a100.json"


def violations(page) -> list[str]:
    """Each axe-core violation as ``rule: target …`` (WCAG 2.1 A/AA and best practice)."""
    page.add_script_tag(path=str(AXE))
    found = page.evaluate(
        """async () => {
            const r = await axe.run(document, {resultTypes: ["violations"]});
            return r.violations.map(
                v => v.id + ": " + v.nodes.map(n => n.target.join(" ")).join(", "));
        }"""
    )
    return list(found)


@pytest.fixture
def pages(live_server, shipped_catalog):
    """The site's pages, with two saved scenarios to list and compare."""
    scenario = parse_scenario(json.loads(EXAMPLE.read_text()))
    items = [create_saved_scenario(name=name, scenario=scenario, session_key="s") for name in "ab"]
    ids = "&".join(f"ids={item.pk}" for item in items)
    return {
        "planner": reverse("planner:home"),
        "usage": reverse("planner:usage"),
        "results": reverse("planner:results", args=[encode(scenario)]),
        "saved scenario": reverse("planner:saved-detail", args=[items[0].pk]),
        "compare": f"{reverse('planner:saved-compare')}?{ids}",
        "advisor": reverse("advisor:advisor"),
        "guide": reverse("advisor:guide"),
    }


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_axe_core_finds_no_violation_on_any_page(browser, live_server, pages, language):
    assert AXE.exists(), f"{AXE}: make install fetches axe-core with npm"
    context = browser.new_context(
        viewport={"width": 1280, "height": 900},
        extra_http_headers={"Accept-Language": language},
        bypass_csp=True,  # axe is injected as a script of the test's, not the page's
    )
    try:
        page = context.new_page()
        watch = PageWatch(page, live_server.url)
        found = {}
        for name, path in pages.items():
            page.goto(live_server.url + path)
            if name in ("results", "saved scenario"):
                page.wait_for_selector("#chart-cumulative[data-rendered='true']")
            if name == "compare":
                page.wait_for_selector("#chart-compare[data-rendered='true']")
            problems = violations(page)
            if problems:
                found[name] = problems
        assert not found, found
        watch.assert_clean()
    finally:
        context.close()
