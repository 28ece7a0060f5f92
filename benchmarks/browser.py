"""What a visitor waits for: pages timed in a real headless Chromium against gunicorn.

gunicorn is started as `make serve` starts it (gunicorn.conf.py: uvicorn's worker, DEBUG
off, hashed and compressed static files collected, the shipped catalog loaded into a
throwaway SQLite database) on a free loopback port. Debian's Chromium, driven by
Playwright, then times, from the start of the navigation:

- first visit: a results permalink nobody asked for before (the worked example at a
  new utilization), in a browser with an empty cache, until the verdict's "how sure"
  sentence is in and every chart is drawn, the ones below the first screen included
  (results.js draws those while the browser is idle, without being scrolled to);
- first screen: the same visit, until the "how sure" sentence is in and every chart
  that reaches into the 1366 × 900 window is drawn: what the visitor sees before
  scrolling (printed beside the first visit, not compared with a target);
- repeat visit: the same permalink again in the same browser (its cache and the
  server's now warm), until every chart is drawn;
- guide: the checked guide with every cache emptied (a new browser, the server's
  shared cache cleared and the catalog's version with it), until the page has loaded.

Each is measured ROUNDS times (default 5); the medians are printed. Targets: first
visit (every chart drawn) ≤ 1.0 s, repeat visit ≤ 0.5 s, guide ≤ 1.0 s. Below them, where
the first visit's time went: the page's HTML, plotly.js, the analysis document, the "how
sure" sentence and each chart's drawing (results.js times it with performance.measure), and
the renderer's main-thread time (busy, script, layout, style) from Chrome's own metrics.

    .venv/bin/python benchmarks/browser.py            # ROUNDS=9 WEB_CONCURRENCY=2 ...
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = ROOT / ".venv" / "bin" / "python"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ROUNDS = int(os.environ.get("ROUNDS", "5"))
TARGETS = {"first visit": 1.0, "repeat visit": 0.5, "guide, caches emptied": 1.0}
WINDOW = {"width": 1366, "height": 900}
VERSION_SECONDS = 2.0  # webapp.catalog.selectors.VERSION_SECONDS: workers re-read after this

# Every chart drawn (or hidden after an error) and the "how sure" sentence in place.
RESULTS_DRAWN = """() => {
  const charts = [...document.querySelectorAll('.chart')];
  const badge = document.getElementById('confidence-badge');
  const sure = document.getElementById('verdict-confidence');
  return charts.length > 0
    && charts.every(c => c.dataset.rendered === 'true' || c.hidden)
    && !!badge && (!!badge.dataset.code || sure.hidden);
}"""


# The "how sure" sentence in and every chart reaching into the window drawn.
FIRST_SCREEN = """() => {
  const badge = document.getElementById('confidence-badge');
  const sure = document.getElementById('verdict-confidence');
  const shown = [...document.querySelectorAll('.chart')].filter(c => {
    const box = c.getBoundingClientRect();
    return box.bottom > 0 && box.top < window.innerHeight;
  });
  return !!badge && (!!badge.dataset.code || sure.hidden)
    && shown.every(c => c.dataset.rendered === 'true' || c.hidden);
}"""


# Chrome's Performance.getMetrics, for the first visit: the renderer's main thread busy
# (all its tasks), running script, laying out and working out styles, in seconds.
RENDERER = {
    "busy": "TaskDuration",
    "script": "ScriptDuration",
    "layout": "LayoutDuration",
    "style": "RecalcStyleDuration",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def manage(env: dict[str, str], *arguments: str) -> None:
    subprocess.run([str(PY), "manage.py", *arguments], cwd=ROOT, env=env, check=True)


def permalink(env: dict[str, str], utilization: float) -> str:
    """The results path of the worked example at ``utilization``, signed with the server's key."""
    code = subprocess.run(
        [
            str(PY),
            "-c",
            "import json, sys, django; django.setup()\n"
            "from costmodel import parse_scenario\n"
            "from webapp.planner.permalink import encode\n"
            "data = json.load(open('tests/costmodel/examples/steady-4090-vs-a100.json'))\n"
            f"data['workload'] = {{'kind': 'steady', 'utilization': {utilization}}}\n"
            "print(encode(parse_scenario(data)))",
        ],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return "/r/" + code


def empty_shared_cache(db: Path) -> None:
    """The database cache of every worker: analysis documents, the guide, the catalog's
    version (so what the workers remember from catalog rows is dropped as well)."""
    with sqlite3.connect(db) as connection:
        connection.execute("DELETE FROM django_cache")
    time.sleep(VERSION_SECONDS + 0.2)


# Where the time went: the page's HTML, its first paint, plotly.js, the analysis document,
# the "how sure" sentence (a mark: when the script found it in the page, or put it there)
# and each chart's drawing (results.js's measures), each [start, end] in ms from the start
# of the navigation.
PARTS = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const out = {html: [0, nav.responseEnd]};
  for (const r of performance.getEntriesByType('resource')) {
    if (r.name.includes('plotly')) out.plotly = [r.startTime, r.responseEnd];
    if (r.name.includes('analysis.json')) out.analysis = [r.startTime, r.responseEnd];
  }
  for (const p of performance.getEntriesByName('first-contentful-paint')) {
    out['first paint'] = [p.startTime, p.startTime];
  }
  for (const m of performance.getEntriesByName('verdict-confidence')) {
    out['how sure'] = [m.startTime, m.startTime];
  }
  for (const m of performance.getEntriesByType('measure')) {
    if (m.name.startsWith('chart-')) out[m.name.slice(6)] = [m.startTime, m.startTime + m.duration];
  }
  return out;
}"""


def timed(page, url: str, *drawn: str | None, parts: list[dict] | None = None) -> list[float]:
    """Seconds from the start of the navigation until each of ``drawn`` holds, in turn (or
    the page loaded)."""
    page.goto(url, wait_until="load")
    seconds = []
    for condition in drawn:
        if condition:
            page.wait_for_function(condition, timeout=30_000)
        seconds.append(page.evaluate("performance.now()") / 1000)
    if parts is not None:
        parts.append(page.evaluate(PARTS))
    return seconds


def main() -> None:
    from playwright.sync_api import sync_playwright

    work = Path(tempfile.mkdtemp(prefix="browser-bench-"))
    db = work / "db.sqlite3"
    port = free_port()
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env = {
        **clean,
        "DJANGO_SETTINGS_MODULE": "webapp.settings",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": f"sqlite:///{db}",
    }
    print("browser.py: migrate, collectstatic, load_catalog ...", flush=True)
    manage(env, "migrate", "--noinput", "--verbosity", "0")
    manage(env, "collectstatic", "--noinput", "--verbosity", "0")
    manage(env, "load_catalog", "--verbosity", "0")
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [str(ROOT / ".venv" / "bin" / "gunicorn"), "--bind", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(work / "gunicorn.log", "w"),
        start_new_session=True,
    )
    names = ["first screen", *TARGETS]
    samples: dict[str, list[float]] = {name: [] for name in names}
    first_parts: list[dict] = []
    renderer: dict[str, list[float]] = {name: [] for name in RENDERER}
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(base + "/healthz", timeout=2).read()
                break
            except OSError:
                time.sleep(0.2)
        else:
            raise SystemExit("gunicorn did not answer within 60 s")
        # Every worker imports and compiles its templates once, as after any restart.
        for i in range(8):
            urllib.request.urlopen(base + permalink(env, 0.9 + i / 100), timeout=30).read()
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
            )
            for round_ in range(ROUNDS):
                path = base + permalink(env, 0.11 + round_ / 100)
                context = browser.new_context(viewport=WINDOW)
                page = context.new_page()
                # the renderer's own busy time (Chrome's Performance domain): on a shared
                # machine it moves less than the wall clock
                cdp = context.new_cdp_session(page)
                cdp.send("Performance.enable")
                screen, every = timed(page, path, FIRST_SCREEN, RESULTS_DRAWN, parts=first_parts)
                read = cdp.send("Performance.getMetrics")["metrics"]
                metrics = {m["name"]: m["value"] for m in read}
                for name, metric in RENDERER.items():
                    renderer[name].append(metrics[metric] * 1000)
                samples["first screen"].append(screen)
                samples["first visit"].append(every)
                samples["repeat visit"] += timed(page, path, RESULTS_DRAWN)
                context.close()

                empty_shared_cache(db)
                context = browser.new_context(viewport=WINDOW)
                page = context.new_page()
                samples["guide, caches emptied"] += timed(page, base + "/guide/", None)
                context.close()
                print(
                    f"round {round_ + 1}: "
                    + ", ".join(f"{name} {values[-1]:.3f} s" for name, values in samples.items()),
                    flush=True,
                )
            browser.close()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    print(f"\n{ROUNDS} rounds, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print(f"{'page':<24}{'median':>9}{'min':>9}{'max':>9}{'target':>9}")
    for name, values in samples.items():
        median = statistics.median(values)
        target = f"≤ {TARGETS[name]:.1f}s" if name in TARGETS else "-"
        print(f"{name:<24}{median:>8.3f}s{min(values):>8.3f}s{max(values):>8.3f}s{target:>9}")
    names = list(dict.fromkeys(name for p in first_parts for name in p))
    print(
        "first visit, medians [ms from the start]: "
        + ", ".join(
            f"{part} {statistics.median(p[part][0] for p in first_parts if part in p):.0f}"
            f"-{statistics.median(p[part][1] for p in first_parts if part in p):.0f}"
            for part in names
        )
    )
    print(
        "first visit, the renderer's main thread until every chart is drawn [ms, medians]: "
        + ", ".join(f"{name} {statistics.median(v):.0f}" for name, v in renderer.items())
    )
    print(json.dumps({name: round(statistics.median(v), 3) for name, v in samples.items()}))


if __name__ == "__main__":
    sys.exit(main())
