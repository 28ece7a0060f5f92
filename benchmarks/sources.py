"""Rendering a results page's catalog sources, with and without the per-process memo.

``webapp.planner.sources.catalog_sources`` renders the "Catalog rows used" table and
the Source cells of a page from its provenance, and keeps each rendering in a memo keyed
by the pickled provenance (and language, and under Chinese the catalog's version). This
times, end to end through ``catalog_sources``:

- **cold**: a provenance seen for the first time (a memo miss: pickling, rendering,
  storing), each provenance distinct (other presets, offerings, tariffs, hostings and
  benchmarks of the shipped catalog), so no cache hit is counted;
- **no memo**: the same distinct provenances rendered by the function the memo wraps;
- **warm**: the same provenances again (memo hits).

What the memo saves a page is *no memo − warm* on a page whose provenance was seen
before, and costs *cold − no memo* on one that was not.

    DJANGO_SECRET_KEY=x DJANGO_STATIC_MANIFEST=false .venv/bin/python benchmarks/sources.py

With ``--cpu`` it times the process's CPU time instead of the wall clock.
"""

from __future__ import annotations

import itertools
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only")
os.environ.setdefault("DJANGO_STATIC_MANIFEST", "false")
os.environ.setdefault("DATABASE_URL", "sqlite://:memory:")

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from django.utils import translation  # noqa: E402

from costmodel import ScenarioError  # noqa: E402
from webapp.catalog.fixtures_io import load_catalog  # noqa: E402
from webapp.catalog.models import (  # noqa: E402
    Benchmark,
    BuildPreset,
    CloudOffering,
    HostingOption,
    Tariff,
)
from webapp.catalog.resolver import resolve_data  # noqa: E402
from webapp.planner import sources  # noqa: E402

CLOCK = time.process_time if "--cpu" in sys.argv[1:] else time.perf_counter


def distinct_provenances(limit: int) -> list[list[dict[str, Any]]]:
    """Provenances of different selections of the shipped catalog, no two equal."""
    combos = list(
        itertools.product(
            *(
                model.objects.values_list("slug", flat=True)
                for model in (BuildPreset, CloudOffering, Tariff, HostingOption, Benchmark)
            )
        )
    )
    random.Random(0).shuffle(combos)
    found: dict[str, list[dict[str, Any]]] = {}
    for preset, offering, tariff, hosting, benchmark in combos:
        selection = {
            "preset": preset,
            "cloud_offering": offering,
            "tariff": tariff,
            "hosting": hosting,
            "benchmark": benchmark,
            "workload": {"kind": "steady", "utilization": 0.6},
            "horizon_months": 36,
            "currency": "CNY",
        }
        try:
            provenance = resolve_data(selection).provenance
        except ScenarioError:
            continue
        found.setdefault(repr(provenance), provenance)
        if len(found) == limit:
            break
    return list(found.values())


def times(render: Callable[[list[dict[str, Any]]], object], inputs: list[Any]) -> list[float]:
    out = []
    for provenance in inputs:
        start = CLOCK()
        render(provenance)
        out.append(CLOCK() - start)
    return out


def unmemoized(provenance: list[dict[str, Any]]) -> object:
    """``catalog_sources`` with the memo's wrapped function called directly."""
    import pickle

    version = (
        sources.catalog_version()
        if sources.is_chinese() and sources._reads_catalog(provenance)
        else ""
    )
    return sources._rendered.__wrapped__(
        translation.get_language(), version, pickle.dumps(provenance)
    )


def main(count: int = 200) -> None:
    call_command("migrate", verbosity=0)
    load_catalog()
    inputs = distinct_provenances(count)
    sizes = [len(p) for p in inputs]
    print(f"{len(inputs)} distinct provenances, {min(sizes)}–{max(sizes)} catalog rows each")
    print(f"{'language':<10}{'cold (miss)':>14}{'no memo':>12}{'warm (hit)':>13}{'saved/hit':>12}")
    for language in ("en", "zh-hans"):
        with translation.override(language):
            times(unmemoized, inputs[:5])  # warm up: imports, template compilation
            sources._rendered.cache_clear()
            cold = times(sources.catalog_sources, inputs)  # every call a miss
            plain = times(unmemoized, inputs)
            warm = times(sources.catalog_sources, inputs[-sources.MEMO_SIZE :])
            info = sources._rendered.cache_info()
            assert info.misses == len(inputs), info  # the cold figure counted no hit
            cold_ms, plain_ms, warm_ms = (
                statistics.median(values) * 1e3 for values in (cold, plain, warm)
            )
            print(
                f"{language:<10}{cold_ms:>12.3f}ms{plain_ms:>10.3f}ms{warm_ms:>11.3f}ms"
                f"{plain_ms - warm_ms:>10.3f}ms  (no memo / hit = {plain_ms / warm_ms:.0f}×)"
            )


if __name__ == "__main__":
    main()
