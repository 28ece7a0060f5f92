"""Server time of the planner's results page, and of the trivial /healthz view beside it.

Runs both through the Django test client (the whole middleware stack, no
network), many times each, interleaved, and reports medians. Every results
request is a different permalink (the worked example at another utilization),
as visitors' links are: nothing is a repeat of an earlier request. The served
figure (gunicorn, concurrent clients) is `benchmarks/load.sh`'s.

    DJANGO_SECRET_KEY=x DJANGO_STATIC_MANIFEST=false .venv/bin/python benchmarks/pages.py

With ``--cpu`` it times the process's CPU time instead of the wall clock: on a
machine shared with other work, the wall clock measures the neighbours too.
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


CLOCK = time.process_time if "--cpu" in sys.argv[1:] else time.perf_counter


def timings(client: Client, url: str, n: int) -> list[float]:
    out = []
    for _ in range(n):
        start = CLOCK()
        response = client.get(url)
        out.append(CLOCK() - start)
        assert response.status_code == 200, (url, response.status_code)
    return out


def distinct_pages(horizon_months: int, count: int) -> list[str]:
    """Results pages of the worked example at ``count`` different utilizations."""
    pages = []
    for i in range(count):
        data = json.loads(json.dumps(SCENARIO))
        data["horizon_months"] = horizon_months
        data["workload"] = {"kind": "steady", "utilization": (i + 1) / (count + 1)}
        pages.append("/r/" + encode(parse_scenario(data)))
    return pages


def main(rounds: int = 20, per_round: int = 25) -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="en", HTTP_HOST="localhost")
    count = (rounds + 1) * per_round
    pages = {
        "results 36 months": iter(distinct_pages(36, count)),
        "results 240 months": iter(distinct_pages(240, count)),
    }
    timings(client, "/healthz", 5)  # warm up: imports, template compilation
    for urls in pages.values():
        for _ in range(per_round):
            timings(client, next(urls), 1)
    samples: dict[str, list[float]] = {"healthz": [], **{name: [] for name in pages}}
    for _ in range(rounds):  # interleaved so drift affects all alike
        samples["healthz"] += timings(client, "/healthz", per_round)
        for name, urls in pages.items():
            for _ in range(per_round):
                samples[name] += timings(client, next(urls), 1)
    print(f"{'view':<28}{'median':>12}{'p90':>12}")
    for name, values in samples.items():
        median = statistics.median(values)
        p90 = statistics.quantiles(values, n=10)[-1]
        print(f"{name:<28}{median * 1e3:>10.3f}ms{p90 * 1e3:>10.3f}ms")


if __name__ == "__main__":
    main()
