"""Thousands of saved scenarios: the saved list, the admin's report and the re-pricing.

Fills the database of ``DATABASE_URL`` (run it on a throwaway PostgreSQL:
``make bench-scale`` runs ``scripts/with-postgres.sh``) with ``--count`` saved
scenarios in ``--teams`` teams (``benchmarks/scale_data.py``), then measures:

- the saved list, server time through the Django test client (the whole middleware
  stack, no network): a member of one team (its own rows), and an analyst in every
  team, who sees them all — first page, a late page, the "changed at today's prices"
  filter, by name — p50 and p95 of ``--rounds`` requests each;
- the admin's "decisions that today's prices would change" report, p50 and p95;
- the re-pricing of every saved scenario after a price change, by one worker process
  (``manage.py worker --batch``, at its default lower CPU priority): wall time, the task's
  own time and the worker's CPU time (which other work on the machine does not stretch);
- a saved scenario's results page, p50 and p95, idle and while that worker runs, and the
  ratio of the two p95s;
- the load average when it starts and ends: the machine's other work, which the figures
  depend on.

    scripts/with-postgres.sh .venv/bin/python benchmarks/scale.py --count 10000 --teams 200
"""

from __future__ import annotations

import argparse
import datetime
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


def change_a_price() -> str:
    """Record a new, far lower rate for the cloud offering most saved scenarios use, approved:
    the catalog changes and the decisions of those scenarios move."""
    from webapp.catalog import services
    from webapp.catalog.models import CloudOffering, CloudRate
    from webapp.scenarios.models import SavedScenario

    slug = (
        SavedScenario.objects.values_list("selection__cloud_offering", flat=True)
        .order_by("pk")
        .first()
    )
    offering = CloudOffering.objects.get(slug=slug)
    admin = User.objects.filter(is_superuser=True).first()
    rate = CloudRate(
        offering=offering,
        hourly_rate=Decimal("0.0100"),
        currency="USD",
        effective_date=datetime.date.today() - datetime.timedelta(days=1),
        source="benchmark",
    )
    if services.record_price(rate, admin):
        services.approve([rate], admin)
    return str(slug)


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
    populate(args.count, args.teams)
    report["populate_s"] = round(time.perf_counter() - start, 1)
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
    report["changed_offering"] = change_a_price()
    detail = reverse("planner:saved-detail", args=[SavedScenario.objects.order_by("pk")[0].pk])
    viewer = Client()
    viewer.force_login(admin)
    idle = timed(viewer, detail, args.rounds)
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
        busy.extend(timed(viewer, detail, 1))
    wall = time.perf_counter() - start
    used = resource.getrusage(resource.RUSAGE_CHILDREN)  # the worker is this process's child
    runs = DBTaskResult.objects.filter(task_path__endswith=".reprice_saved_scenarios")
    report["repricing"] = {
        "rows": SavedScenario.objects.exclude(today_computed_at=None).count(),
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
