"""A person plans, reads the results in two languages, downloads the CSV, saves and compares."""

import csv
import io

import pytest
from django.utils import translation

from costmodel import compare
from costmodel.decision import decide
from costmodel.sensitivity import utilization_sweep
from webapp.planner.permalink import decode
from webapp.planner.results import VERDICT_SWEEP_STEPS
from webapp.planner.verdict import verdict

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CHARTS = ("cumulative", "fan", "tornado", "fleet", "grid", "breakdown", "utilization")


def wait_for_charts(page, fleet: bool = True) -> None:
    """Every chart drawn; a tidal plan has no fleet (its busy days cannot be shared)."""
    charts = [chart for chart in CHARTS if fleet or chart != "fleet"]
    page.wait_for_selector(f"body[data-charts-rendered='{len(charts)}']")
    for chart in charts:
        assert page.locator(f"#chart-{chart}[data-rendered='true'] .main-svg").count() >= 1


def permalink_of(page):
    return decode(page.url.split("/r/", 1)[1])


def test_a_person_plans_reads_both_languages_and_downloads_the_csv(
    page, live_server, shipped_catalog, screenshot
):
    page.goto(live_server.url + "/")
    page.get_by_label("Preset", exact=True).select_option("entry-rtx4090")
    page.get_by_label("Cloud offering").select_option("aliyun-gn7e-c16g1-4xlarge")
    page.get_by_label("Tidal: a few busy days a month").check()
    assert page.get_by_label("Utilization [%]").is_hidden()
    page.get_by_label("Active days per month").fill("12")
    page.get_by_label("Busy hours per active day").fill("20")
    page.get_by_label("Horizon [months]").fill("24")
    page.get_by_role("button", name="Compare build and rent").click()
    page.wait_for_url("**/r/**")
    wait_for_charts(page, fleet=False)

    link = permalink_of(page)
    assert link.scenario.workload.active_days_per_month == 12
    assert link.scenario.horizon_months == 24
    assert link.selection["preset"] == "entry-rtx4090"
    result = compare(link.scenario)
    decision = decide(link.scenario, result, utilization_sweep(link.scenario, VERDICT_SWEEP_STEPS))
    with translation.override("en"):
        expected = verdict(decision, link.scenario).headline
    assert page.locator("#headline-sentence").inner_text() == expected
    screenshot(page, "results-en", full_page=True)

    with page.expect_download() as download:
        page.locator("#download-csv").click()
    body = download.value.path().read_bytes()
    assert body.startswith("\ufeff".encode())
    rows = list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))
    rent = rows[0].index(f"Rent: cumulative [{link.scenario.currency}]")
    assert float(rows[-1][rent]) == pytest.approx(result["rent"]["total"], abs=0.005)

    page.get_by_role("button", name="简体中文").click()
    page.wait_for_selector("html[lang='zh-hans']")
    wait_for_charts(page, fleet=False)
    assert permalink_of(page).scenario == link.scenario
    screenshot(page, "results-zh-hans", full_page=True)
    page.watch.assert_clean()


def test_a_person_saves_two_results_and_compares_them(page, live_server, shipped_catalog):
    for utilization, name in (("80", "busy"), ("20", "quiet")):
        page.goto(live_server.url + "/?preset=budget-rtx4060ti")
        assert page.get_by_label("Preset", exact=True).input_value() == "budget-rtx4060ti"
        page.get_by_label("Utilization [%]").fill(utilization)
        page.get_by_role("button", name="Compare build and rent").click()
        page.wait_for_url("**/r/**")
        page.get_by_label("Save as").fill(name)
        page.get_by_role("button", name="Save", exact=True).click()
        page.wait_for_url("**/saved/*/")
        wait_for_charts(page)
    page.goto(live_server.url + "/saved/")
    page.get_by_label("Compare busy").check()
    page.get_by_label("Compare quiet").check()
    page.get_by_role("button", name="Compare side by side").click()
    page.wait_for_selector("#chart-compare[data-rendered='true']")
    assert page.locator(".compare-table tbody tr").count() == 2
    page.watch.assert_clean()


def test_invalid_input_keeps_what_was_typed(page, live_server, shipped_catalog):
    page.goto(live_server.url + "/")
    page.get_by_label("Name of this comparison").fill("our lab")
    page.get_by_label("Utilization [%]").fill("950")  # above 800 %: eight boxes' work
    page.get_by_role("button", name="Compare build and rent").click()
    page.wait_for_selector(".has-error")
    row = page.locator("[data-field='utilization_percent']")
    assert "800" in row.locator(".errorlist").inner_text()
    assert page.get_by_label("Utilization [%]").input_value() == "950"
    assert page.get_by_label("Name of this comparison").input_value() == "our lab"
    page.watch.assert_clean()
