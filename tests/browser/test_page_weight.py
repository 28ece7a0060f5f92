"""What a results page costs to download under `make serve`, measured in Chromium.

The server is `make serve` itself (check --deploy, migrate, collectstatic,
load_catalog, gunicorn with DEBUG off) in the production environment of
docs/production.md, on a throwaway SQLite database; the browser sends the
`X-Forwarded-Proto: https` header a TLS proxy would. Bytes are counted from the
DevTools protocol: ``Network.loadingFinished``'s ``encodedDataLength`` is what
crossed the wire for each request, headers included, and 0 for a request the
browser cache answered.
"""

import json
import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.webapp.served import free_port

pytestmark = [pytest.mark.browser]

ROOT = Path(__file__).resolve().parents[2]
FIRST_VISIT_BUDGET = 700 * 1024
REPEAT_VISIT_BUDGET = 50 * 1024
PROXY_HEADERS = {"X-Forwarded-Proto": "https"}
SELECTION = {
    "preset": "entry-rtx4090",
    "cloud_offering": "aliyun-gn7e-c16g1-4xlarge",
    "tariff": "cn-business-average",
    "hosting": "office-deskside",
    "benchmark": "resnet50-fp16",
    "workload": {"kind": "tidal", "active_days_per_month": 12, "hours_per_active_day": 20},
    "horizon_months": 36,
    "currency": "CNY",
}
RESULTS_PATH_SCRIPT = """
import json, os
from webapp.catalog.resolver import resolve_data
from webapp.planner.permalink import encode
selection = json.loads(os.environ["RESULTS_SELECTION"])
resolution = resolve_data(selection)
print('/r/' + encode(resolution.scenario, resolution.provenance, [], selection))
"""


@dataclass
class Server:
    url: str
    env: dict[str, str]
    log: Path


def _healthy(url: str) -> bool:
    request = urllib.request.Request(url + "/healthz", headers=PROXY_HEADERS)
    try:
        with urllib.request.urlopen(request, timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


@pytest.fixture(scope="module")
def production_server(tmp_path_factory):
    if not (ROOT / "static" / "vendor" / "plotly").exists():
        pytest.fail("static/vendor/plotly is missing: run make install")
    work = tmp_path_factory.mktemp("serve")
    port = free_port()
    # Only the settings below: none of the test run's (debug, no manifest, async-unsafe…).
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_", "MAKE", "MFLAGS"))
    }
    env.update(
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        DJANGO_HTTPS="true",
        DJANGO_BEHIND_PROXY="true",
        DATABASE_URL=f"sqlite:///{work}/db.sqlite3",
        WEB_CONCURRENCY="1",
        HOST="127.0.0.1",
        PORT=str(port),
    )
    log = work / "serve.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            ["make", "--no-print-directory", "serve"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: make, manage.py, gunicorn
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while not _healthy(url):
            if process.poll() is not None:
                pytest.fail(f"make serve exited with {process.returncode}:\n{log.read_text()}")
            if time.monotonic() > deadline:
                pytest.fail(f"make serve did not answer /healthz in time:\n{log.read_text()}")
            time.sleep(0.5)
        yield Server(url=url, env=env, log=log)
    finally:
        _stop_group(process)


def _stop_group(process: subprocess.Popen) -> None:
    """End the process group `make serve` started (gunicorn and its workers included)."""
    for sig, wait in ((signal.SIGTERM, 30), (signal.SIGKILL, 10)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _results_path(server: Server) -> str:
    """A results link signed with the server's secret key, for a catalog scenario."""
    completed = subprocess.run(
        [sys.executable, "manage.py", "shell", "--no-imports", "-c", RESULTS_PATH_SCRIPT],
        cwd=ROOT,
        env={**server.env, "RESULTS_SELECTION": json.dumps(SELECTION)},
        capture_output=True,
        text=True,
        check=True,
    )
    return completed.stdout.strip().splitlines()[-1]


class Transfer:
    """Bytes received per request of one page load, from the DevTools protocol."""

    def __init__(self, page) -> None:
        self.urls: dict[str, str] = {}
        self.bytes: dict[str, int] = {}
        self.cached: set[str] = set()
        session = page.context.new_cdp_session(page)
        session.on("Network.requestWillBeSent", self._sent)
        session.on("Network.requestServedFromCache", self._from_cache)
        session.on("Network.loadingFinished", self._finished)
        session.send("Network.enable")

    def _sent(self, event) -> None:
        self.urls[event["requestId"]] = event["request"]["url"]

    def _from_cache(self, event) -> None:
        self.cached.add(event["requestId"])

    def _finished(self, event) -> None:
        self.bytes[event["requestId"]] = int(event["encodedDataLength"])

    def reset(self) -> None:
        self.urls.clear()
        self.bytes.clear()
        self.cached.clear()

    @property
    def total(self) -> int:
        return sum(self.bytes.values())

    def table(self) -> str:
        rows = [
            f"{self.bytes.get(rid, -1):>9} B  {'cache' if rid in self.cached else 'net  '}  "
            f"{url.split('?')[0][:100]}"
            for rid, url in self.urls.items()
        ]
        return "\n".join(rows) + f"\n{self.total:>9} B  in all"


def _load(page, url: str) -> None:
    page.goto(url, wait_until="load")
    page.wait_for_selector("body[data-charts-rendered]")
    page.wait_for_load_state("networkidle")


def test_a_results_page_weighs_at_most_700_kb_first_and_50_kb_again(
    browser, production_server, artifacts
):
    url = production_server.url + _results_path(production_server)
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, locale="en-US", extra_http_headers=PROXY_HEADERS
    )
    try:
        page = context.new_page()
        page.set_default_timeout(30_000)
        transfer = Transfer(page)

        _load(page, url)
        first, first_table = transfer.total, transfer.table()
        assert any("plotly-charts" in u for u in transfer.urls.values()), first_table
        transfer.reset()
        _load(page, url)
        repeat, repeat_table = transfer.total, transfer.table()
    finally:
        context.close()

    report = (
        f"first visit: {first} B ({first / 1024:.1f} KiB)\n{first_table}\n\n"
        f"repeat visit: {repeat} B ({repeat / 1024:.1f} KiB)\n{repeat_table}\n"
    )
    (artifacts / "page-weight.txt").write_text(report)
    assert first <= FIRST_VISIT_BUDGET, report
    assert repeat <= REPEAT_VISIT_BUDGET, report
