"""One re-pricing decision: CPU time per distinct scenario, over a sample of a year's plans.

The worker's re-pricing (:mod:`webapp.scenarios.services`) takes as long as the distinct
scenarios a catalog change moves, one decision each (the results page's, its Monte Carlo
included: :func:`webapp.scenarios.decisions.decide_today`). This times that decision alone,
without the database, over ``--sample`` distinct scenarios drawn as the scale benchmark
draws a year of saves (:class:`benchmarks.scale_data.Planner`, its seed): the CPU time of
each (``time.process_time``, which other work on the machine stretches less than the wall
clock), the worker's in-memory cache emptied before each, as a scenario the worker has not
seen. Each is decided ``--repeat`` times and its least CPU time kept: the machine is shared,
and other work slows a decision (caches, a sibling hyperthread) but never speeds it up.
``--profile`` prints cProfile's top functions by their own time.

    DATABASE_URL=sqlite:////tmp/decide.sqlite3 .venv/bin/python benchmarks/scale_decide.py

It migrates the database and loads the shipped catalog when it has none.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only")
os.environ.setdefault("DJANGO_STATIC_MANIFEST", "false")


def sample(count: int) -> list[Any]:
    """``count`` distinct scenarios at today's prices, drawn as a year of saves draws them."""
    from benchmarks.scale_data import Planner
    from costmodel import ScenarioError
    from costmodel.errors import with_fields
    from webapp.catalog.resolver import resolve_data
    from webapp.scenarios.services import inputs_digest

    planner = Planner()
    teams = [planner.team() for _ in range(200)]
    scenarios: dict[str, Any] = {}
    while len(scenarios) < count:
        currency, favourites = teams[len(scenarios) % len(teams)]
        selection, typed = planner.draw(currency, favourites)
        try:
            scenario = resolve_data(selection, planner.catalog).scenario
        except ScenarioError:  # this tariff or offering does not go with this box
            continue
        if typed is not None:
            scenario = with_fields(
                scenario, {typed: planner.typed_value(typed, scenario, currency)}
            )
        scenarios.setdefault(inputs_digest(scenario), scenario)
    return list(scenarios.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=150)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each; the least is kept")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top functions")
    parser.add_argument("--sort", default="tottime", help="their order (pstats: cumtime, …)")
    args = parser.parse_args()
    import django

    django.setup()
    from django.core.cache import caches
    from django.core.management import call_command

    from webapp.catalog.models import BuildPreset
    from webapp.decided import CACHE
    from webapp.scenarios.decisions import decide_today

    call_command("migrate", verbosity=0)
    if not BuildPreset.objects.exists():
        call_command("load_catalog", verbosity=0, stdout=open(os.devnull, "w"))
    scenarios = sample(args.sample)
    decide_today(scenarios[0])  # the process's first decision: imports
    cpu: list[float] = []
    profile = cProfile.Profile() if args.profile else None
    for scenario in scenarios:
        runs = []
        for _ in range(args.repeat):
            caches[CACHE].clear()  # a scenario the worker has not decided
            start = time.process_time()
            if profile is not None:
                profile.enable()
            decide_today(scenario)
            if profile is not None:
                profile.disable()
            runs.append(time.process_time() - start)
        cpu.append(min(runs))
    report = {
        "distinct_scenarios": len(scenarios),
        "runs_of_each": args.repeat,
        "cpu_ms_mean": round(1000 * statistics.fmean(cpu), 1),
        "cpu_ms_p50": round(1000 * statistics.median(cpu), 1),
        "cpu_ms_p95": round(1000 * statistics.quantiles(cpu, n=20)[-1], 1),
        "horizons": {
            str(h): sum(1 for s in scenarios if s.horizon_months == h)
            for h in sorted({s.horizon_months for s in scenarios})
        },
        "load_average": round(os.getloadavg()[0], 1),
    }
    print(json.dumps(report, indent=2))
    if profile is not None:
        pstats.Stats(profile).sort_stats(args.sort).print_stats(25)


if __name__ == "__main__":
    main()
