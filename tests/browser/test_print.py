"""The results and compare pages printed to PDF by Chromium, on A4 and on Letter.

Chromium fires ``beforeprint`` when a person prints; Playwright's ``page.pdf``
does not, so the tests fire it, as the browser would, before printing. The PDF
is read back with poppler's ``pdftotext`` and ``pdfinfo``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from webapp.scenarios.services import create_saved_scenario

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PAPER = {"A4": (595.28, 841.89), "Letter": (612.0, 792.0)}  # [pt]
MARGIN = "15mm"
CLICKED = ("Sizing advisor", "The guide, checked", "Save as", "Change the inputs", "Apply")
"""Text of navigation, forms and buttons: never on paper."""


def _tool(name: str) -> str:
    path = shutil.which(name)
    assert path, f"{name} is needed: apt-get install poppler-utils"
    return path


def printed(page, tmp_path: Path, paper: str) -> tuple[str, dict[str, str], list[float]]:
    """The page printed to PDF on ``paper``: its text, pdfinfo's fields, and the right edge of
    every word [pt]."""
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    pdf = tmp_path / f"{paper}.pdf"
    page.pdf(path=str(pdf), format=paper, print_background=True)
    text = subprocess.run(
        [_tool("pdftotext"), "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    info = subprocess.run(
        [_tool("pdfinfo"), str(pdf)], capture_output=True, text=True, check=True
    ).stdout
    fields = dict(
        (key.strip(), value.strip())
        for key, value in (line.split(":", 1) for line in info.splitlines() if ":" in line)
    )
    boxes = subprocess.run(
        [_tool("pdftotext"), "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    right_edges = [float(x) for x in re.findall(r'xMax="([0-9.]+)"', boxes)]
    page.evaluate("window.dispatchEvent(new Event('afterprint'))")
    return text, fields, right_edges


def assert_fits(fields: dict[str, str], right_edges: list[float], paper: str) -> None:
    width, height = PAPER[paper]
    size = re.match(r"([0-9.]+) x ([0-9.]+) pts", fields["Page size"])
    assert size, fields["Page size"]
    assert (float(size[1]), float(size[2])) == pytest.approx((width, height), abs=1)
    # Nothing runs off the paper: every word ends inside the right margin (15 mm = 42.5 pt).
    assert right_edges and max(right_edges) <= width - 42.5 + 1


def words(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("paper", ["A4", "Letter"])
def test_the_results_page_prints_with_verdict_charts_and_sources(
    page, live_server, shipped_catalog, tmp_path, paper
):
    page.goto(live_server.url + "/")
    page.get_by_label("Preset", exact=True).select_option("budget-rtx4060ti")
    page.get_by_label("Cloud offering").select_option("runpod-a100-80gb-community")
    page.get_by_label("Horizon [months]").fill("36")
    page.get_by_role("button", name="Compare build and rent").click()
    page.wait_for_url("**/r/**")
    page.wait_for_selector("body[data-charts-rendered]:not([data-charts-rendered='0'])")
    verdict = page.locator("#headline-sentence").inner_text()
    charts = int(page.locator("body").get_attribute("data-charts-rendered") or 0)

    text, fields, right_edges = printed(page, tmp_path, paper)

    flat = words(text)
    assert words(verdict) in flat
    assert "Inputs and where they come from" in flat
    assert "Catalog rows used" in flat
    # tariff and hosting were left to the catalog: what it chose, and why, is on paper too
    assert "Chosen for you" in flat and "a CNY plan runs in China" in flat
    assert "CapEx and OpEx per fiscal year" in flat
    for clicked in CLICKED:
        assert clicked not in flat, clicked
    assert_fits(fields, right_edges, paper)
    # Every chart was drawn on paper, not cut to its first screen's width.
    pages = int(fields["Pages"])
    assert 2 <= pages <= 12
    assert charts >= 5
    assert page.locator(".js-plotly-plot").count() == charts


@pytest.mark.parametrize("paper", ["A4", "Letter"])
def test_the_compare_page_prints_without_its_forms(page, live_server, tmp_path, paper):
    from costmodel import parse_scenario
    from tests.webapp.conftest import WORKED_EXAMPLE

    first = create_saved_scenario(
        name="Deskside 4090", scenario=parse_scenario(WORKED_EXAMPLE), user=None, session_key="x"
    )
    cheaper = {**WORKED_EXAMPLE, "rent": {**WORKED_EXAMPLE["rent"], "hourly_rate": 9.0}}
    second = create_saved_scenario(
        name="Cheap cloud", scenario=parse_scenario(cheaper), user=None, session_key="x"
    )
    page.goto(f"{live_server.url}/saved/compare?ids={first.pk}&ids={second.pk}")
    page.wait_for_selector(".compare-chart[data-rendered='true']")

    text, fields, right_edges = printed(page, tmp_path, paper)

    flat = words(text)
    assert "Deskside 4090" in flat and "Cheap cloud" in flat
    for clicked in ("Sizing advisor", "The guide, checked", "Summary CSV", "Workbook (.xlsx)"):
        assert clicked not in flat, clicked
    assert_fits(fields, right_edges, paper)
    assert 1 <= int(fields["Pages"]) <= 6
