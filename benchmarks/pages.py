"""Server time of the planner's results page against the trivial /healthz view.

Runs both through the Django test client (the whole middleware stack, no
network), many times each, interleaved, and reports medians. The target of
issue 4 is results page < 3 × healthz.

    DJANGO_SECRET_KEY=x DJANGO_STATIC_MANIFEST=false .venv/bin/python benchmarks/pages.py
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only")
os.environ.setdefault("DJANGO_STATIC_MANIFEST", "false")
os.environ.setdefault("DATABASE_URL", "sqlite://:memory:")

import django

django.setup()

from django.core.cache import cache  # noqa: E402
from django.test import Client  # noqa: E402

from costmodel import parse_scenario  # noqa: E402
from webapp.planner.permalink import encode  # noqa: E402

# The methodology's worked example, as shipped with the engine tests.
SCENARIO = json.loads(
    (
        Path(__file__).resolve().parent.parent
        / "tests"
        / "costmodel"
        / "examples"
        / "steady-4090-vs-a100.json"
    ).read_text()
)


def timings(client: Client, url: str, n: int) -> list[float]:
    out = []
    for _ in range(n):
        start = time.perf_counter()
        response = client.get(url)
        out.append(time.perf_counter() - start)
        assert response.status_code == 200, (url, response.status_code)
    return out


def cold_timings(client: Client, url: str, n: int) -> list[float]:
    """First views of a permalink: the rendered-figures cache is emptied before each."""
    out = []
    for _ in range(n):
        cache.clear()
        out += timings(client, url, 1)
    return out


def main(rounds: int = 20, per_round: int = 25) -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="en", HTTP_HOST="localhost")
    results = "/r/" + encode(parse_scenario(SCENARIO))
    long = dict(SCENARIO, horizon_months=240)
    results_240 = "/r/" + encode(parse_scenario(long))
    urls = {
        "healthz": "/healthz",
        "results 36 months": results,
        "results 240 months": results_240,
    }
    for url in urls.values():  # warm up: imports, template compilation
        timings(client, url, 5)
    samples: dict[str, list[float]] = {name: [] for name in urls}
    samples |= {"results 36 m, first view": [], "results 240 m, first view": []}
    for _ in range(rounds):  # interleaved so drift affects all alike
        for name, url in urls.items():
            samples[name] += timings(client, url, per_round)
        samples["results 36 m, first view"] += cold_timings(client, results, 3)
        samples["results 240 m, first view"] += cold_timings(client, results_240, 3)
    base = statistics.median(samples["healthz"])
    print(f"{'view':<28}{'median':>12}{'p90':>12}{'× healthz':>12}")
    for name, values in samples.items():
        median = statistics.median(values)
        p90 = statistics.quantiles(values, n=10)[-1]
        print(f"{name:<28}{median * 1e3:>10.3f}ms{p90 * 1e3:>10.3f}ms{median / base:>12.2f}")


if __name__ == "__main__":
    main()
