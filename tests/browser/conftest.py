"""Headless Chromium (Debian's package) driving the app on pytest-django's live server.

Sync Playwright runs an event loop in the test thread, so Django's async-safety
check must be told that database access from that thread is fine.
"""

import os
from pathlib import Path

import pytest

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
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
        pytest.skip(f"no Chromium at {CHROMIUM} (make test installs Debian's package)")
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


@pytest.fixture
def shipped_catalog(transactional_db):
    from tests import catalog_once

    catalog_once.restore()  # as load_catalog writes it (read once per session)


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
