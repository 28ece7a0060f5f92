"""On a 390 px phone every page fits the screen, and the charts draw their data in it."""

import pytest

from tests.browser.conftest import margins_plotly_grew

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
CHARTS = ("cumulative", "fan", "tornado", "fleet", "grid", "breakdown", "utilization")
"""The charts of a steady plan's results page (a tidal plan has no fleet chart)."""

OVERFLOW = """() => {
  const width = window.innerWidth;
  const page = document.scrollingElement.scrollWidth;
  // The elements sticking out on the right, to say what overflows when something does.
  const culprits = [...document.querySelectorAll("body *")]
    .filter((el) => el.getBoundingClientRect().right > width + 0.5 && el.getClientRects().length)
    .filter((el) => !el.closest(".table-scroll"))
    .slice(0, 5)
    .map((el) => `${el.tagName.toLowerCase()}#${el.id}.${el.className}`);
  return { width, page, culprits };
}"""

CHART_STATE = """(el) => ({
  traces: el.data.length,
  points: el.data.map((t) => (t.z || t.y || []).length),
  svgRight: el.querySelector(".main-svg").getBoundingClientRect().right,
  modeBar: !!el.querySelector(".modebar"),
  drawn: el.querySelectorAll(
    ".scatterlayer .trace, .barlayer .trace, .heatmaplayer .hm image").length,
})"""


def _overflow(page) -> dict:
    return page.evaluate(OVERFLOW)


def _plan(page, origin: str, utilization: str, preset: str = "entry-rtx4090") -> None:
    page.goto(f"{origin}/?preset={preset}")
    page.get_by_label("Utilization [%]").fill(utilization)
    page.get_by_role("button", name="Compare build and rent").click()
    page.wait_for_url("**/r/**")
    page.wait_for_selector(f"body[data-charts-rendered='{len(CHARTS)}']")


def _save(page, name: str) -> None:
    page.get_by_label("Save as").fill(name)
    page.get_by_role("button", name="Save", exact=True).click()
    page.wait_for_url("**/saved/*/")
    page.wait_for_selector(f"body[data-charts-rendered='{len(CHARTS)}']")


@pytest.fixture
def phone(browser, live_server):
    context = browser.new_context(viewport=PHONE, locale="en-US", is_mobile=True, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(20_000)
    yield page
    context.close()


def test_every_page_fits_390_px_without_horizontal_scrolling(
    phone, live_server, shipped_catalog, screenshot
):
    origin = live_server.url
    too_wide: dict[str, dict] = {}

    def check(name: str) -> None:
        state = _overflow(phone)
        if state["page"] > state["width"]:
            too_wide[name] = state
        screenshot(phone, f"phone-{name}", failed=name in too_wide, full_page=True)

    phone.goto(origin + "/")
    check("planner-form")
    phone.get_by_label("My own parts list").check()
    phone.get_by_label("Tidal: a few busy days a month").check()
    phone.locator("#advanced > summary").click()
    check("planner-form-open")

    _plan(phone, origin, "80")
    check("results")
    _save(phone, "busy")
    check("saved-detail")
    _plan(phone, origin, "20", preset="budget-rtx4060ti")
    _save(phone, "quiet")

    phone.goto(origin + "/saved/")
    check("saved-list")
    phone.get_by_label("Compare busy").check()
    phone.get_by_label("Compare quiet").check()
    phone.get_by_role("button", name="Compare side by side").click()
    phone.wait_for_selector("#chart-compare[data-rendered='true']")
    check("compare")

    phone.goto(origin + "/advisor/")
    check("advisor-form")
    phone.get_by_label("Model size [billion parameters]").fill("3")
    phone.get_by_label("Dataset size [GB]").fill("200")
    phone.get_by_role("button", name="Recommend a tier").click()
    phone.wait_for_selector("#advice-tier")
    check("advisor-advice")

    phone.goto(origin + "/guide/")
    check("guide")
    for summary in phone.locator(".claim details > summary").all():
        summary.click()
    check("guide-open")

    phone.goto(origin + "/api/v1/docs")
    phone.wait_for_selector(".swagger-ui .info .title")
    phone.locator("#operations-compare-webapp_api_compare_compare_one .opblock-summary").click()
    phone.wait_for_selector("#operations-compare-webapp_api_compare_compare_one .opblock-body")
    check("api-docs")

    phone.goto(origin + "/admin/login/")
    check("admin-login")

    assert not too_wide, f"wider than the 390 px screen: {too_wide}"


def test_the_charts_draw_their_data_inside_a_390_px_screen(phone, live_server, shipped_catalog):
    _plan(phone, live_server.url, "60")

    for chart in CHARTS:
        state = phone.locator(f"#chart-{chart}").evaluate(CHART_STATE)
        assert state["traces"] >= 1, chart
        assert all(n > 0 for n in state["points"]), (chart, state)
        assert state["drawn"] >= 1, (chart, state)
        assert state["svgRight"] <= PHONE["width"], (chart, state)
        assert not state["modeBar"], f"{chart}: no mode bar on a phone, it sits on the title"
    assert phone.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]


def _overlap(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


TABLET = {"width": 640, "height": 900}


@pytest.mark.parametrize("viewport", [DESKTOP, TABLET], ids=["1280px", "640px"])
def test_the_mode_bar_never_covers_a_chart_title(page, live_server, shipped_catalog, viewport):
    page.set_viewport_size(viewport)
    page.goto(f"{live_server.url}/?preset=entry-rtx4090")
    page.get_by_role("button", name="Compare build and rent").click()
    page.wait_for_selector(f"body[data-charts-rendered='{len(CHARTS)}']")

    for chart in CHARTS:
        figure = page.locator(f"#chart-{chart}")
        figure.scroll_into_view_if_needed()
        figure.hover()
        mode_bar = figure.locator(".modebar")
        mode_bar.wait_for(state="visible")
        title = figure.locator(".gtitle")
        assert title.text_content().strip(), chart
        box_title, box_bar = title.bounding_box(), mode_bar.bounding_box()
        assert box_title and box_bar
        assert not _overlap(box_title, box_bar), (chart, box_title, box_bar)
        box_chart = figure.bounding_box()
        assert box_title["x"] + box_title["width"] <= box_chart["x"] + box_chart["width"], chart
    page.watch.assert_clean()


def test_the_chinese_pages_fit_390_px_too(browser, live_server, shipped_catalog, screenshot):
    context = browser.new_context(viewport=PHONE, locale="zh-CN", is_mobile=True, has_touch=True)
    try:
        phone = context.new_page()
        phone.set_default_timeout(20_000)
        too_wide: dict[str, dict] = {}
        for name, path in (("planner-form", "/"), ("advisor", "/advisor/"), ("guide", "/guide/")):
            phone.goto(live_server.url + path)
            assert phone.locator("html").get_attribute("lang") == "zh-hans"
            if path == "/":
                phone.locator("#advanced > summary").click()
            state = _overflow(phone)
            if state["page"] > state["width"]:
                too_wide[name] = state
        phone.goto(live_server.url + "/?preset=multi-4x-rtx4090")
        phone.locator("#compare-button").click()
        phone.wait_for_selector(f"body[data-charts-rendered='{len(CHARTS)}']")
        screenshot(phone, "phone-results-zh-hans", full_page=True)
        state = _overflow(phone)
        if state["page"] > state["width"]:
            too_wide["results"] = state
    finally:
        context.close()
    assert not too_wide, f"wider than the 390 px screen: {too_wide}"


BOXES = """(el) => {
  const box = (node) => {
    const r = node.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height, text: node.textContent };
  };
  const all = (selector) => [...el.querySelectorAll(selector)].map(box)
    .filter((b) => b.width > 0 && b.text.trim());
  return {
    chart: box(el),
    title: all(".gtitle"),
    axisTitles: all(".g-xtitle text, .g-x2title text, .g-ytitle text, .g-y2title text"),
    yTicks: all(".yaxislayer-above .ytick text, .yaxislayer-above .y2tick text"),
    xTicks: all(".xaxislayer-above .xtick text, .xaxislayer-above .x2tick text"),
    plots: [...el.querySelectorAll(".draglayer .nsewdrag")].map(box),
    legend: all(".legend .legendtext"),
  };
}"""


def _inside(inner: dict, outer: dict) -> bool:
    return (
        inner["x"] >= outer["x"] - 0.5
        and inner["y"] >= outer["y"] - 0.5
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.5
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 0.5
    )


def _collisions(boxes: list[dict]) -> list[tuple[str, str]]:
    return [
        (a["text"], b["text"])
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
        if _overlap(a, b)
    ]


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_tornado_and_breakdown_charts_read_cleanly_on_a_phone(
    browser, live_server, shipped_catalog, screenshot, language
):
    context = browser.new_context(
        viewport=PHONE,
        is_mobile=True,
        has_touch=True,
        extra_http_headers={"Accept-Language": language},
    )
    try:
        phone = context.new_page()
        phone.set_default_timeout(20_000)
        phone.goto(f"{live_server.url}/?preset=entry-rtx4090")
        phone.locator("#compare-button").click()
        phone.wait_for_selector(f"body[data-charts-rendered='{len(CHARTS)}']")
        found = {}
        for chart in ("tornado", "breakdown"):
            element = phone.locator(f"#chart-{chart}")
            element.scroll_into_view_if_needed()
            screenshot(element, f"phone-{chart}-{language}")
            b = element.evaluate(BOXES)
            texts = b["title"] + b["axisTitles"]
            found[chart] = {
                "cut": [t["text"] for t in texts + b["legend"] if not _inside(t, b["chart"])],
                "titles collide": _collisions(texts + b["xTicks"] + b["yTicks"]),
                "tick labels collide": _collisions(b["yTicks"]) + _collisions(b["xTicks"]),
            }
            if chart == "breakdown":  # build and rent one above the other, never side by side
                plots = sorted(b["plots"], key=lambda p: p["y"])
                assert len(plots) == 2, plots
                assert plots[0]["y"] + plots[0]["height"] <= plots[1]["y"], plots
                assert min(p["width"] for p in plots) > PHONE["width"] / 2, plots
    finally:
        context.close()
    assert not any(v for problems in found.values() for v in problems.values()), found


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_compare_page_reads_cleanly_on_a_phone(browser, live_server, screenshot, language):
    import json
    from pathlib import Path

    from costmodel import parse_scenario
    from webapp.scenarios.services import create_saved_scenario

    example = Path(__file__).resolve().parents[1] / "costmodel" / "examples"
    data = json.loads((example / "steady-4090-vs-a100.json").read_text())
    items = [
        create_saved_scenario(name=name, scenario=parse_scenario(data), session_key="s")
        for name in ("单卡 RTX 4090 工作站，稳定使用", "Single RTX 4090 box, busy every day")
    ]
    context = browser.new_context(
        viewport=PHONE,
        is_mobile=True,
        has_touch=True,
        extra_http_headers={"Accept-Language": language},
    )
    try:
        phone = context.new_page()
        phone.set_default_timeout(20_000)
        query = "&".join(f"ids={item.pk}" for item in items)
        phone.goto(f"{live_server.url}/saved/compare?{query}")
        phone.wait_for_selector(".compare-chart[data-rendered='true']")
        screenshot(phone, f"phone-compare-{language}", full_page=True)
        chart = phone.locator(".compare-chart").first
        b = chart.evaluate(BOXES)
        clipped = [t["text"] for t in b["legend"] + b["title"] if not _inside(t, b["chart"])]
        assert len(b["legend"]) == 4 and not clipped, (b["legend"], clipped)
        assert margins_plotly_grew(phone) == {}
        # no header row standing blank above the figures: on a phone each row reads on its own
        header = phone.locator(".compare-table thead").bounding_box()
        assert header is None or header["height"] <= 2, header
        first = phone.locator(".compare-table tbody tr").first
        assert first.locator(".cell-label").first.is_visible()
        assert phone.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    finally:
        context.close()
