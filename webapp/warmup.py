"""What a worker does once, before its first request, so that no visitor pays for it.

A new process loads much of the site lazily: Django imports the URLconf (and
with it every view module, the workbook's openpyxl among them) at the first
request, compiles each template the first time it is rendered, reads a
language's translations and babel's locale data at first use, and numpy and
pydantic set up the engine's code paths at the first projection. On the 2-core
development machine a fresh worker's first results page took about 0.5 s of
CPU, the next about 0.07 s (``benchmarks/ranking.py``, "a worker's first
request"). With 4 workers, a results page and its analysis document usually
reach different workers, so a restarted worker's first visitor waited for it.

gunicorn calls :func:`warm_up` in each worker once the application is loaded,
before the worker accepts a connection (``post_worker_init`` in
``gunicorn.conf.py``): it renders the results page of a small explicit plan
and builds its analysis document in each language, without the database, then
reads today's catalog (:func:`webapp.catalog.selectors.snapshot`, under the
catalog's version like every request: a later change is seen as usual). A
database that cannot be read yet is no reason to stop a worker: the catalog is
then read by the first request that needs it, as before.
"""

from __future__ import annotations

import datetime
import logging

from django.conf import settings
from django.db import DatabaseError
from django.template.loader import get_template
from django.urls import get_resolver
from django.utils import translation

from costmodel import parse_scenario
from webapp.catalog.selectors import snapshot
from webapp.planner.analysis import build_document, run_analyses
from webapp.planner.permalink import Permalink
from webapp.planner.results import results_fragments

logger = logging.getLogger(__name__)

PLAN = {
    "name": "warm-up",
    "currency": "USD",
    "horizon_months": 36,
    "discount_rate_per_year": 0.08,
    "workload": {"kind": "steady", "utilization": 0.5},
    "build": {
        "gpu_count": 1,
        "gpu_throughput": 0.6,
        "capex": 3500,
        "power_load_watts": 650,
        "power_idle_watts": 110,
        "electricity_price_per_kwh": 0.15,
        "hosting_monthly": 0,
        "residual_value_retention_per_year": 0.7,
    },
    "rent": {"gpu_count": 1, "gpu_throughput": 1.0, "hourly_rate": 1.5},
}
"""A one-GPU box against one cloud GPU: a plan typed without the catalog."""

PAGES = ("planner/results.html", "planner/home.html")
"""Templates compiled ahead: the results page's shell (its fragments are rendered) and the
planner's form."""


def warm_up() -> None:
    """Load in this process what every results page and analysis document need."""
    get_resolver().url_patterns  # noqa: B018 (imports every view module)
    link = Permalink(scenario=parse_scenario(PLAN))
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            results_fragments(link)
            build_document(link, run_analyses(link))
    for name in PAGES:
        get_template(name)
    try:
        snapshot(datetime.date.today()).read_all()
    except DatabaseError:
        logger.warning("warm-up: the catalog could not be read; the first request will read it")
