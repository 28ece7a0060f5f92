"""A separate process that writes to the database the environment names (run by the tests).

``save N``: N saves through the web form and N through the API, with the
Django test client (the whole request path, middleware included).
``load N``: ``load_catalog`` N times.
``read N``: N uncached analysis documents of results permalinks, then the checked guide,
which the site computes and caches on the way.
Prints "ready" once set up, waits for a line on standard input (so the test can time
its lock holder against the first request rather than against Python's start-up),
then prints one JSON line of outcomes.
"""

import json
import sys
import time
from pathlib import Path

import django

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
django.setup()

from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from costmodel import parse_scenario  # noqa: E402
from webapp.planner.permalink import encode  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[1] / "costmodel" / "examples"
SCENARIO = json.loads((EXAMPLE / "steady-4090-vs-a100.json").read_text())


def save(count: int) -> list[dict]:
    client = Client()
    code = encode(parse_scenario(SCENARIO))
    out = []
    for i in range(count):
        for kind in ("web", "api"):
            start = time.monotonic()
            if kind == "web":
                response = client.post("/saved/new", {"code": code, "name": f"web {i}"})
            else:
                response = client.post(
                    "/api/v1/scenarios",
                    {"name": f"api {i}", "scenario": SCENARIO},
                    content_type="application/json",
                )
            out.append(
                {
                    "kind": kind,
                    "status": response.status_code,
                    "seconds": time.monotonic() - start,
                    "retry_after": response.get("Retry-After"),
                    "content_type": response.get("Content-Type", ""),
                    "body": response.content.decode()[:2000],
                }
            )
    return out


def load(count: int) -> list[dict]:
    out = []
    for _ in range(count):
        start = time.monotonic()
        try:
            call_command("load_catalog", verbosity=0)
            outcome = "ok"
        except Exception as exc:  # reported to the test, which fails on it
            outcome = f"{type(exc).__name__}: {exc}"
        out.append({"outcome": outcome, "seconds": time.monotonic() - start})
    return out


def read(count: int) -> list[dict]:
    client = Client()
    urls = []
    for i in range(count):
        scenario = {**SCENARIO, "workload": {"kind": "steady", "utilization": 0.3 + i / 100}}
        urls.append(f"/r/{encode(parse_scenario(scenario))}/analysis.json")
    urls.append("/guide/")
    out = []
    for url in urls:
        start = time.monotonic()
        response = client.get(url)
        out.append(
            {"url": url[:20], "status": response.status_code, "seconds": time.monotonic() - start}
        )
    return out


if __name__ == "__main__":
    mode, count = sys.argv[1], int(sys.argv[2])
    print("ready", flush=True)
    sys.stdin.readline()
    print(json.dumps({"save": save, "load": load, "read": read}[mode](count)))
