"""A person plans with a 1-year commitment and a loan, compares scenarios priced in two currencies,
ticks too few to compare, and does it all on a 390 px phone without scrolling sideways."""

import datetime
import json
from pathlib import Path

import pytest

from costmodel import Financing, compare, parse_scenario
from costmodel.ranges import default_ranges
from webapp.catalog import selectors
from webapp.catalog.resolver import parse_selection, resolve
from webapp.planner.form_fields import committed_text
from webapp.planner.permalink import decode
from webapp.scenarios.services import create_saved_scenario

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
COMMITMENT = "gcp-a3-highgpu-1g-commit-1y"
EXAMPLE = Path(__file__).resolve().parents[1] / "costmodel" / "examples"
SCENARIO = json.loads((EXAMPLE / "steady-4090-vs-a100.json").read_text())
DAY = "2025-02-15"

OVERFLOW = """() => ({
  width: window.innerWidth,
  page: document.scrollingElement.scrollWidth,
  culprits: [...document.querySelectorAll("body *")]
    .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5
      && el.getClientRects().length && !el.closest(".table-scroll"))
    .slice(0, 5).map((el) => `${el.tagName.toLowerCase()}#${el.id}.${el.className}`),
})"""


def expected_default(preset: str, utilization: float) -> int:
    """The resolver's default count of committed instances for the form's other defaults
    (tariff and hosting left to the resolver, as the form leaves them)."""
    from webapp.planner.choices import catalog_choices

    catalog = catalog_choices()
    selection = {
        "preset": preset,
        "cloud_offering": COMMITMENT,
        "benchmark": catalog.default_benchmark,
        "workload": {"kind": "steady", "utilization": utilization},
        "horizon_months": 36,
        "currency": "CNY",
    }
    return resolve(parse_selection(selection)).scenario.rent.committed_instances


def in_dollars(rate: float) -> dict:
    data = json.loads(json.dumps(SCENARIO))
    data["currency"] = "USD"
    for key in ("capex", "electricity_price_per_kwh", "hosting_monthly"):
        data["build"][key] = data["build"][key] / rate
    for key in ("hourly_rate", "fixed_monthly"):
        data["rent"][key] = data["rent"][key] / rate
    return data


def two_currencies(session_key: str = "s") -> list:
    return [
        create_saved_scenario(
            name=name,
            scenario=parse_scenario(data),
            session_key=session_key,
            selection={"as_of": DAY},
        )
        for name, data in (("in yuan", SCENARIO), ("in dollars", in_dollars(7.0)))
    ]


def test_a_person_plans_a_commitment_with_a_loan_and_their_own_ranges(
    page, live_server, shipped_catalog
):
    page.goto(f"{live_server.url}/?preset=multi-4x-rtx4090")
    assert page.locator("#commitment").is_hidden()  # an on-demand offering is chosen
    page.get_by_label("Show pricing modes").select_option("commit-1y")
    offering = page.get_by_label("Cloud offering")
    modes = offering.locator("option:not([hidden])").evaluate_all(
        "(options) => options.map((o) => o.dataset.pricingMode)"
    )
    assert set(modes) == {"commit-1y"}
    offering.select_option(COMMITMENT)
    assert page.locator("#commitment").is_visible()

    page.get_by_label("Utilization [%]").fill("250")
    page.get_by_label("Utilization [%]").dispatch_event("change")
    default = expected_default("multi-4x-rtx4090", 2.5)
    page.wait_for_selector(f"#committed-default[data-count='{default}']")
    assert page.locator("#committed-default").inner_text() == committed_text(default)

    page.get_by_label("Committed instances").fill(str(default + 1))
    page.get_by_label("Down payment [%]").fill("20")
    page.get_by_label("Interest rate per year [%]").fill("6")
    page.get_by_label("Loan term [months]").fill("36")
    page.locator("#range-retention").get_by_label("Low").fill("30")
    page.get_by_role("button", name="Compare build and rent").click()
    page.wait_for_url("**/r/**")

    link = decode(page.url.split("/r/", 1)[1])
    assert link.selection["cloud_offering"] == COMMITMENT
    assert link.selection["committed_instances"] == default + 1
    assert link.scenario.rent.committed_instances == default + 1
    assert link.scenario.workload.utilization == 2.5
    assert link.scenario.build.financing == Financing(
        down_payment_fraction=0.2, annual_interest_rate=0.06, term_months=36
    )
    ranges = {r.path: r for r in link.ranges}
    retention = ranges["build.residual_value_retention_per_year"]
    assert retention.low == 0.3
    defaults = {r.path: r for r in default_ranges(link.scenario)}
    assert (retention.mode, retention.high) == (
        defaults[retention.path].mode,
        defaults[retention.path].high,
    )
    page.watch.assert_clean()


def test_a_wrong_percentage_is_explained_beside_its_field_without_javascript(
    browser, live_server, shipped_catalog
):
    context = browser.new_context(java_script_enabled=False, locale="en-US")
    try:
        page = context.new_page()
        page.goto(live_server.url + "/")
        assert page.locator(".offering-filter").is_hidden()  # the filter needs the script
        assert page.get_by_label("Committed instances").is_visible()  # everything else is there
        page.locator("#advanced > summary").click()
        page.get_by_label("Maintenance per year [%]").fill("150")
        page.get_by_role("button", name="Compare build and rent").click()
        row = page.locator("[data-field='build__maintenance_rate_per_year']")
        assert "Enter a percentage between 0 and 100, e.g. 3 for 3 %." in row.inner_text()
        assert page.get_by_label("Maintenance per year [%]").input_value() == "150"
    finally:
        context.close()


def test_the_compare_page_shows_two_currencies_on_one_axis_only_converted(
    page, live_server, shipped_catalog
):
    yuan, dollars = two_currencies()
    page.goto(f"{live_server.url}/saved/compare?ids={yuan.pk}&ids={dollars.pk}")
    page.wait_for_selector("#chart-compare[data-rendered='true']")
    assert page.locator(".compare-chart").count() == 1
    axis = page.locator("#chart-compare .ytitle").text_content()
    assert axis == "Cumulative cost [¥]"
    legend = page.locator("#chart-compare .legendtext").all_text_contents()
    assert "in dollars · Build (USD → CNY)" in legend and "in yuan · Build (CNY)" in legend

    row = selectors.fx_rate_on("USD", "CNY", datetime.date.fromisoformat(DAY))
    plotted = page.locator("#chart-compare").evaluate("(el) => el.data.map((t) => t.y)")
    usd = compare(parse_scenario(dollars.scenario))
    expected = [v * float(row.rate) for v in usd["build"]["cumulative"]]
    assert plotted[2] == pytest.approx(expected, rel=1e-12)
    note = page.locator("#fx-note").inner_text()
    assert f"1 USD = {float(row.rate):.4f} CNY" in note and DAY in note
    page.watch.assert_clean()


def test_without_an_exchange_rate_each_currency_has_its_own_chart(page, live_server):
    yuan, dollars = two_currencies()
    page.goto(f"{live_server.url}/saved/compare?ids={yuan.pk}&ids={dollars.pk}")
    page.wait_for_selector("#chart-compare[data-rendered='true']")
    page.wait_for_selector("#chart-compare-1[data-rendered='true']")
    titles = [
        page.locator(f"#{chart} .ytitle").text_content()
        for chart in ("chart-compare", "chart-compare-1")
    ]
    assert titles == ["Cumulative cost [¥]", "Cumulative cost [$]"]
    page.watch.assert_clean()


def test_ticking_one_scenario_says_so_on_the_saved_list(page, live_server, permalink_code):
    for name in ("busy", "quiet"):
        page.goto(f"{live_server.url}/r/{permalink_code}")
        page.get_by_label("Save as").fill(name)
        page.get_by_role("button", name="Save", exact=True).click()
        page.wait_for_url("**/saved/*/")
    page.goto(live_server.url + "/saved/")
    page.get_by_label("Compare busy").check()
    page.get_by_role("button", name="Compare side by side").click()
    alert = page.get_by_role("alert")
    assert "Tick at least 2 scenarios to compare them (you ticked 1)" in alert.inner_text()
    assert page.get_by_label("Compare busy").is_checked()
    assert not page.get_by_label("Compare quiet").is_checked()
    assert "damaged" not in page.content()
    page.get_by_label("Compare quiet").check()
    page.get_by_role("button", name="Compare side by side").click()
    page.wait_for_selector("#chart-compare[data-rendered='true']")
    page.watch.assert_clean()


@pytest.fixture
def permalink_code() -> str:
    from webapp.planner.permalink import encode

    return encode(parse_scenario(SCENARIO))


def _fits(phone, name: str, screenshot, too_wide: dict) -> None:
    """Record the page as too wide (with what sticks out) if it scrolls sideways."""
    state = phone.evaluate(OVERFLOW)
    language = phone.evaluate("document.documentElement.lang")
    wide = state["page"] > state["width"]
    if wide:
        too_wide[f"{name} ({language})"] = state
    screenshot(phone, f"phone-{name}-{language}", failed=wide, full_page=True)


def test_the_form_the_compare_page_and_the_saved_list_fit_390_px(
    browser, live_server, shipped_catalog, screenshot, permalink_code
):
    too_wide: dict = {}
    for language in ("en-US", "zh-CN"):
        context = browser.new_context(
            viewport=PHONE, locale=language, is_mobile=True, has_touch=True
        )
        try:
            phone = context.new_page()
            phone.set_default_timeout(20_000)
            phone.goto(live_server.url + "/?preset=multi-4x-rtx4090")
            phone.locator("#id_cloud_offering").select_option(COMMITMENT)
            phone.locator("#advanced > summary").click()
            _fits(phone, "form-commitment", screenshot, too_wide)
            phone.locator("#id_build__maintenance_rate_per_year").fill("150")
            phone.locator("#range-utilization input").first.fill("900")
            phone.locator("#compare-button").click()
            phone.wait_for_selector(".has-error")
            _fits(phone, "form-errors", screenshot, too_wide)

            items = two_currencies()
            phone.goto(f"{live_server.url}/saved/compare?ids={items[0].pk}&ids={items[1].pk}")
            phone.wait_for_selector("#chart-compare[data-rendered='true']")
            _fits(phone, "compare-currencies", screenshot, too_wide)

            for name in ("busy", "quiet"):
                phone.goto(f"{live_server.url}/r/{permalink_code}")
                phone.locator("input[name='name']").fill(name)
                phone.locator(".save-form button[type='submit']").click()
                phone.wait_for_url("**/saved/*/")
            phone.goto(live_server.url + "/saved/")
            phone.wait_for_selector(".verdict")
            _fits(phone, "saved-list", screenshot, too_wide)
            phone.locator("input[name='ids']").first.check()
            phone.locator("#compare-form button[type='submit']").first.click()
            phone.wait_for_selector("#compare-errors")
            _fits(phone, "saved-list-too-few", screenshot, too_wide)
        finally:
            context.close()
    assert not too_wide, f"wider than the 390 px screen: {too_wide}"
