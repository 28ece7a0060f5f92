"""Headless Chromium (Debian's package) driving the app on pytest-django's live server.

Sync Playwright runs an event loop in the test thread, so Django's async-safety
check must be told that database access from that thread is fine.
"""

import os
from pathlib import Path

import pytest

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CHROMIUM", "/usr/lib/chromium/chromium-headless-shell")
"""Chromium's headless shell (Debian's ``chromium-headless-shell``), the build Playwright itself
runs by default for headless tests: the same Blink and V8 as the browser, without the browser's
user interface. The 75 browser tests spent 224 core-seconds in the full
``/usr/bin/chromium`` and 133 in the shell, with the same results (2026-12-08, alternate runs
of ``pytest -n 0 tests/browser``). ``make bench-browser`` times the full browser, as a visitor
runs it. ``CHROMIUM=/usr/bin/chromium`` runs the tests in it too."""
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip(
            f"no Chromium at {CHROMIUM} (make test installs Debian's chromium-headless-shell)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class PageWatch:
    """Every request the page makes and every console error or uncaught exception."""

    def __init__(self, page, origin: str) -> None:
        self.origin = origin
        self.requests: list[str] = []
        self.errors: list[str] = []
        page.on("request", lambda request: self.requests.append(request.url))
        page.on(
            "console",
            lambda message: self.errors.append(message.text) if message.type == "error" else None,
        )
        page.on("pageerror", lambda error: self.errors.append(str(error)))

    def assert_clean(self) -> None:
        foreign = [
            url
            for url in self.requests
            if not url.startswith(self.origin + "/") and not url.startswith("data:")
        ]
        assert not foreign, f"requests left 127.0.0.1: {foreign}"
        assert not self.errors, f"console errors (CSP violations?): {self.errors}"


@pytest.fixture
def page(browser, live_server):
    assert live_server.url.startswith("http://127.0.0.1:") or live_server.url.startswith(
        "http://localhost:"
    )
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, locale="en-US", accept_downloads=True
    )
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.watch = PageWatch(page, live_server.url)
    yield page
    context.close()


GROWN_MARGINS = """() => Object.fromEntries([...document.querySelectorAll('.js-plotly-plot')]
  .map((el) => [el.id, ['l', 'r', 't', 'b'].filter(
    (side) => el._fullLayout._size[side] > Math.ceil(el._fullLayout.margin[side]))])
  .filter(([, sides]) => sides.length))"""
"""The drawn charts whose margins plotly had to grow (automargin) for their labels, legend or
colour bar, by element id: the sides it grew. Each such chart was drawn twice; the pages work
out the margins beforehand (static/js/charts.js, ``fit``) so that plotly needs to grow none.
Read from plotly's laid-out figure (``_fullLayout``: the margins asked for, and ``_size``: those
it drew with), as the bundled plotly.js (pinned by its sha256) keeps them."""


def margins_plotly_grew(page) -> dict[str, list[str]]:
    return page.evaluate(GROWN_MARGINS)


@pytest.fixture
def shipped_catalog(transactional_db):
    from tests import catalog_once

    catalog_once.restore()  # as load_catalog writes it (read once per session)


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


SCREENSHOTS = os.environ.get("TEST_SCREENSHOTS", "") not in ("", "0")
"""Whether the browser tests keep a screenshot of each page they check (``TEST_SCREENSHOTS=1
make test``), to look at. Otherwise a screenshot is taken only where it says what went wrong:
a page found too wide for a phone, and every page a failing browser test leaves open (below).
A full-page screenshot draws the whole page again, charts and all: the two test files that
took 11 of the suite's 25 took 38 s instead of 46 s without them (alternating runs)."""


@pytest.fixture
def screenshot(artifacts):
    """``screenshot(page_or_element, name, failed=False, **options)``: keeps a picture of
    what the test checked in test-artifacts/<name>.png when asked (:data:`SCREENSHOTS`) or when
    the test found it wrong (``failed``); the options are Playwright's (``full_page=True``)."""

    def take(target, name: str, failed: bool = False, **options) -> None:
        if SCREENSHOTS or failed:
            target.screenshot(path=str(artifacts / f"{name}.png"), **options)

    return take


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A browser test that fails leaves a screenshot of every page still open in
    test-artifacts/failed-<test>-<n>.png (its fixtures are not torn down yet)."""
    report = yield
    if report.when == "call" and report.failed and "browser" in item.fixturenames:
        browser = item.funcargs.get("browser")
        pages = [page for context in browser.contexts for page in context.pages] if browser else []
        name = "".join(c if c.isalnum() or c in "-_" else "-" for c in item.name)[:120]
        ARTIFACTS.mkdir(exist_ok=True)
        for n, page in enumerate(pages):
            try:
                page.screenshot(path=str(ARTIFACTS / f"failed-{name}-{n}.png"), full_page=True)
            except Exception as error:  # a crashed page: the report already says what failed
                report.sections.append(("screenshot", f"page {n}: none ({error})"))
    return report
