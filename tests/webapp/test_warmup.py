"""A worker's warm-up (webapp.warmup), which gunicorn runs before the worker accepts requests."""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import OperationalError
from django.utils import translation

from webapp import warmup
from webapp.catalog import selectors
from webapp.catalog.services import bump_catalog_version

ROOT = Path(__file__).resolve().parents[2]

FRESH_WORKER = """
import sys
import django
django.setup()
before = "webapp.planner.workbook_views" in sys.modules
from webapp.warmup import warm_up
warm_up()
print(before, "webapp.planner.workbook_views" in sys.modules)
"""


def test_a_fresh_worker_loads_the_views_and_survives_a_database_it_cannot_read(tmp_path):
    # A new process, as gunicorn forks it, on a database without tables: the views and
    # everything a results page needs are loaded; the catalog is left to the first request.
    environment = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))},
        "DJANGO_SETTINGS_MODULE": "webapp.settings",
        "DJANGO_SECRET_KEY": "warm-up",
        "DJANGO_STATIC_MANIFEST": "false",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'empty.sqlite3'}",
    }
    done = subprocess.run(
        [sys.executable, "-c", FRESH_WORKER],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]
    assert "warm-up: the catalog could not be read" in done.stderr


def test_after_the_warm_up_todays_catalog_is_read_without_a_query(
    shipped_catalog, django_assert_num_queries, monkeypatch
):
    monkeypatch.setattr(selectors, "VERSION_SECONDS", 3600.0)  # however slow the machine
    warmup.warm_up()
    with django_assert_num_queries(0):
        catalog = selectors.snapshot(datetime.date.today())
        for kind in catalog.KINDS:
            getattr(catalog, kind)


def test_a_catalog_change_after_the_warm_up_is_read_afresh(shipped_catalog, monkeypatch):
    monkeypatch.setattr(selectors, "VERSION_SECONDS", 3600.0)
    warmup.warm_up()
    warm = selectors.snapshot(datetime.date.today())
    bump_catalog_version()  # what every save of a catalog row does
    assert selectors.snapshot(datetime.date.today()) is not warm


def unreadable(day: datetime.date) -> selectors.CatalogSnapshot:
    raise OperationalError("the database is starting up")


def test_a_database_error_while_reading_the_catalog_does_not_stop_the_warm_up(monkeypatch, caplog):
    monkeypatch.setattr(warmup, "snapshot", unreadable)
    warmup.warm_up()
    assert "the catalog could not be read" in caplog.text


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_warm_up_leaves_the_active_language_as_it_was(language, monkeypatch):
    monkeypatch.setattr(warmup, "snapshot", unreadable)
    translation.activate(language)
    warmup.warm_up()
    assert translation.get_language() == language
