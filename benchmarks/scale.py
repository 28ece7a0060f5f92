"""Thousands of saved scenarios: the saved list, the admin's report and the re-pricing.

Fills the database of ``DATABASE_URL`` (run it on a throwaway PostgreSQL:
``make bench-scale`` runs ``scripts/with-postgres.sh``) with ``--count`` saved
scenarios in ``--teams`` teams, a year of saves: thousands of distinct plans over every
preset and every offering of the USD and CNY markets, some saved twice
(``benchmarks/scale_data.py``; it prints how many are distinct and how long deciding each
once took), each already priced by the worker at today's catalog. Then it measures:

- the saved list, server time through the Django test client (the whole middleware
  stack, no network): a member of one team (its own rows), and an analyst in every
  team, who sees them all — first page, a late page, the "changed at today's prices"
  filter, by name — p50 and p95 of ``--rounds`` requests each;
- the admin's "decisions that today's prices would change" report, p50 and p95;
- the re-pricing of every saved scenario after a catalog change — a fifth off the rates
  of the most used offerings, as many as cover more than half the rows — by one worker
  process (``manage.py worker --batch``, at its default lower CPU priority): wall time,
  the task's own time, the worker's CPU time (which other work on the machine does not
  stretch), how many rows' scenarios moved and how many distinct scenarios it decided;
- a saved scenario's results page, p50 and p95, idle and while that worker runs, and the
  ratio of the two p95s: each request a different saved scenario (no cache has seen it);
- the load average when it starts and ends: the machine's other work, which the figures
  depend on.

    scripts/with-postgres.sh .venv/bin/python benchmarks/scale.py --count 10000 --teams 200
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only")
os.environ.setdefault("DJANGO_STATIC_MANIFEST", "false")
os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver")

import django  # noqa: E402

django.setup()

from django.contrib.auth.models import Group, User  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.urls import reverse  # noqa: E402
from django.utils import timezone  # noqa: E402

from benchmarks.scale_data import populate  # noqa: E402


def timed(client: Client, url: str, rounds: int, **params: str) -> list[float]:
    """Server times of ``rounds`` GETs of ``url`` [ms]; each must answer 200."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        response = client.get(url, params)
        times.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, (url, params, response.status_code)
    return times


def figures(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50_ms": round(statistics.median(ordered), 1), "p95_ms": round(p95, 1)}


def change_prices() -> dict[str, object]:
    """Record a new rate, a fifth lower, approved, for the most used cloud offerings, as many
    as it takes to reach more than half the saved scenarios: the catalog changes, and the
    scenarios of those rows move (but those whose user typed in the hourly rate)."""
    import datetime as dt

    from webapp.catalog import services
    from webapp.catalog.models import CloudOffering, CloudRate
    from webapp.catalog.selectors import CatalogSnapshot
    from webapp.scenarios.models import SavedScenario

    used: dict[str, int] = {}
    for slug in SavedScenario.objects.values_list("selection__cloud_offering", flat=True):
        used[slug] = used.get(slug, 0) + 1
    total = sum(used.values())
    catalog = CatalogSnapshot(dt.date.today())
    admin = User.objects.filter(is_superuser=True).first()
    changed: list[str] = []
    rows = 0
    for slug, n in sorted(used.items(), key=lambda item: -item[1]):
        if rows * 2 > total:
            break
        offering = CloudOffering.objects.get(slug=slug)
        today = catalog.rate(offering)
        assert today is not None, slug
        rate = CloudRate(
            offering=offering,
            hourly_rate=(today.hourly_rate * Decimal("0.8")).quantize(Decimal("0.0001")),
            currency=today.currency,
            effective_date=dt.date.today() - dt.timedelta(days=1),
            source="benchmark",
        )
        if services.record_price(rate, admin):
            services.approve([rate], admin)
        changed.append(slug)
        rows += n
    return {"offerings": changed, "rows_using_them": rows}


def one_row_per_scenario() -> list[object]:
    """A saved scenario of each distinct scenario (by its stored digest), in a fixed random
    order: results pages that no cache has seen."""
    import random

    from webapp.scenarios.models import SavedScenario

    first: dict[str, int] = {}
    for pk, inputs in SavedScenario.objects.order_by("pk").values_list("pk", "today_inputs"):
        first.setdefault(inputs, pk)
    pks = sorted(first.values())
    random.Random(37).shuffle(pks)
    return pks


def worker_environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--teams", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()

    report: dict[str, object] = {"database": connection.vendor, "count": args.count}
    report["load_average_at_start"] = round(os.getloadavg()[0], 1)  # other work on the machine
    call_command("migrate", verbosity=0)
    call_command("load_catalog", verbosity=0, stdout=open(os.devnull, "w"))
    start = time.perf_counter()
    made = populate(args.count, args.teams, priced=True)  # as the worker's last run left them
    report["data"] = {**made.as_report(), "populate_wall_s": round(time.perf_counter() - start, 1)}
    from webapp.scenarios.models import SavedScenario

    SavedScenario.objects.update(analysed_at=timezone.now())  # as if their analyses ran
    admin = User.objects.create_superuser("bench-admin", "admin@example.com", "unused")
    analyst = User.objects.create_user("bench-analyst")
    analyst.groups.set(Group.objects.filter(name__startswith="scale-team-"))
    member = User.objects.filter(username__startswith="scale-user-").order_by("pk").first()
    assert member is not None

    # the re-pricing of everything: one worker process after one price change
    from django_tasks_db.models import DBTaskResult

    DBTaskResult.objects.all().delete()
    pages = iter(one_row_per_scenario())  # each results page a different scenario

    def results_page() -> list[float]:
        pk = next(pages)
        return timed(viewer, reverse("planner:saved-detail", args=[pk]), 1)

    viewer = Client()
    viewer.force_login(admin)
    results_page()  # the process's first page: imports, templates
    idle = [t for _ in range(args.rounds) for t in results_page()]
    before = dict(SavedScenario.objects.values_list("pk", "today_inputs"))
    report["price_change"] = change_prices()
    busy: list[float] = []
    worker = subprocess.Popen(
        [sys.executable, "manage.py", "worker", "--batch", "--verbosity", "0"],
        cwd=ROOT,
        env=worker_environment(),
    )
    start = time.perf_counter()
    done = threading.Event()

    def wait_for_worker() -> None:
        worker.wait()
        done.set()

    threading.Thread(target=wait_for_worker, daemon=True).start()
    while not done.is_set():
        try:
            busy.extend(results_page())
        except StopIteration:  # every distinct scenario shown once
            break
    worker.wait()
    wall = time.perf_counter() - start
    used = resource.getrusage(resource.RUSAGE_CHILDREN)  # the worker is this process's child
    runs = DBTaskResult.objects.filter(task_path__endswith=".reprice_saved_scenarios")
    after = SavedScenario.objects.values_list("pk", "today_inputs")
    moved = {inputs for pk, inputs in after if inputs != before[pk]}
    report["repricing"] = {
        "rows": SavedScenario.objects.exclude(today_computed_at=None).count(),
        "rows_whose_scenario_moved": sum(1 for pk, inputs in after if inputs != before[pk]),
        "distinct_scenarios_decided": len(moved),
        "changed": SavedScenario.objects.filter(changed_today=True).count(),
        "wall_s": round(wall, 1),  # the worker's start, its tasks and its stop
        "task_s": round(
            sum((r.finished_at - r.started_at).total_seconds() for r in runs if r.finished_at), 1
        ),  # the re-pricing task(s) alone
        "worker_cpu_s": round(used.ru_utime + used.ru_stime, 1),
        "worker_exit": worker.returncode,
    }
    report["results_page_idle"] = figures(idle)
    report["results_page_while_repricing"] = figures(busy) if busy else None
    if busy:  # the target: at most 2 × idle
        report["results_page_p95_busy_over_idle"] = round(
            figures(busy)["p95_ms"] / figures(idle)["p95_ms"], 2
        )

    # the lists, once the marks are there
    lists: dict[str, object] = {}
    saved_list = reverse("planner:saved-list")
    for name, user in (("member of one team", member), ("analyst in every team", analyst)):
        client = Client()
        client.force_login(user)
        client.get(saved_list)  # the session's first request
        pages = {
            "first page": {},
            "page 100": {"page": "100"},
            "changed at today's prices": {"changed": "on"},
            "by name": {"sort": "name"},
        }
        lists[name] = {
            label: figures(timed(client, saved_list, args.rounds, **params))
            for label, params in pages.items()
        }
    report["saved_list"] = lists
    staff = Client()
    staff.force_login(admin)
    report["admin_report"] = figures(
        timed(staff, reverse("admin:scenarios_savedscenario_decisions_changed"), args.rounds)
    )
    report["load_average_at_end"] = round(os.getloadavg()[0], 1)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
