"""The worker as a real process (`manage.py worker`, django-tasks' db_worker) on a real SQLite
file: killed in the middle of a re-pricing, it loses nothing — the rows it wrote stay written,
and the next worker's start takes up the rest."""

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# The killed worker re-prices CHUNK rows a transaction instead of REPRICE_CHUNK (200): the same
# code, a smaller chunk, so that the test writes and prices 90 rows, not 300 (about 10 CPU s
# less). One chunk committed and half of the next in hand when the worker is killed: the kill
# falls between two commits, as it does with any number of rows (the test polls every 10 ms;
# the half chunk takes most of a second).
CHUNK = 60
ROWS = CHUNK + CHUNK // 2
WORKER_ARGUMENTS = ("worker", "--verbosity", "0", "--niceness", "0")
WORKER_WITH_CHUNK = (
    "import sys, django; django.setup(); from webapp.scenarios import services; "
    "services.REPRICE_CHUNK = int(sys.argv[1]); "
    "from django.core.management import execute_from_command_line; "
    "execute_from_command_line(['manage.py', *sys.argv[2:]])"
)

pytestmark = [
    pytest.mark.skipif(
        os.environ.get("DATABASE_URL", "").startswith("postgres"),
        reason="the worker's process, not the database, is under test: SQLite is enough",
    ),
    pytest.mark.xdist_group("worker-process"),
]


def environment(db: Path) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    return {
        **clean,
        "DJANGO_SETTINGS_MODULE": "webapp.settings",
        "DJANGO_SECRET_KEY": "worker-test",
        "DJANGO_STATIC_MANIFEST": "false",
        "DATABASE_URL": f"sqlite:///{db}",
    }


def run(db: Path, *args: str) -> None:
    subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=environment(db),
        check=True,
        capture_output=True,
        timeout=600,
    )


def count(db: Path, sql: str) -> int:
    with sqlite3.connect(db, timeout=30) as connection:
        return int(connection.execute(sql).fetchone()[0])


PRICED = "select count(*) from scenarios_savedscenario where today_computed_at is not null"


@pytest.fixture(scope="module")
def migrated(tmp_path_factory) -> Path:
    """An empty database file, migrated once for the module (each test works on a copy)."""
    db = tmp_path_factory.mktemp("worker") / "template.sqlite3"
    run(db, "manage.py", "migrate", "--noinput")
    return db


@pytest.fixture
def migrated_copy(migrated, tmp_path) -> Path:
    db = tmp_path / "db.sqlite3"
    shutil.copyfile(migrated, db)
    return db


@pytest.fixture
def saved_rows(migrated_copy) -> Path:
    db = migrated_copy
    run(db, "manage.py", "load_catalog")  # it added rows: a re-pricing is queued
    run(db, "-m", "benchmarks.scale_data", "--count", str(ROWS), "--teams", "10")
    with sqlite3.connect(db) as connection:  # as if their analyses had run
        connection.execute("update scenarios_savedscenario set analysed_at = created_at")
    return db


def test_a_worker_killed_mid_repricing_loses_nothing(saved_rows):
    db = saved_rows
    # At the test's own priority (the default lowers it, tested below): under the suite's other
    # workers a lowered one would wait its turn for minutes.
    worker = subprocess.Popen(
        [sys.executable, "-c", WORKER_WITH_CHUNK, str(CHUNK), *WORKER_ARGUMENTS],
        cwd=ROOT,
        env=environment(db),
    )
    try:
        deadline = time.monotonic() + 300
        while count(db, PRICED) == 0:  # the first chunk committed
            assert worker.poll() is None, "the worker stopped on its own"
            assert time.monotonic() < deadline, "the worker priced nothing in 5 minutes"
            time.sleep(0.01)
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=30)
    priced = count(db, PRICED)
    assert 0 < priced < ROWS  # killed mid-run: some rows priced, and kept
    assert (
        count(
            db, "select count(*) from django_tasks_database_dbtaskresult where status = 'RUNNING'"
        )
        == 1
    )  # the killed worker's task, never finished

    # the next start: catch-up, then work
    run(db, "manage.py", "worker", "--batch", "--niceness", "0")

    assert count(db, PRICED) == ROWS
    assert (
        count(db, "select count(distinct today_catalog_version) from scenarios_savedscenario") == 1
    )


def test_the_worker_gives_the_web_server_the_cpu_first(migrated_copy):
    db = migrated_copy
    script = (
        "import os, django; django.setup(); from django.core.management import call_command; "
        "call_command('worker', batch=True, verbosity=0, **{}); print(os.nice(0))"
    )
    ours = os.nice(0)
    for options, added in (("", 10), ("'niceness': 3", 3)):
        done = subprocess.run(
            [sys.executable, "-c", script.format("{" + options + "}")],
            cwd=ROOT,
            env=environment(db),
            check=True,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert int(done.stdout.split()[-1]) == min(19, ours + added)


@pytest.mark.parametrize("value", ["-5", "20", "low"])
def test_a_niceness_out_of_range_is_refused_naming_the_option(tmp_path, value):
    done = subprocess.run(
        [sys.executable, "manage.py", "worker", "--batch", "--niceness", value],
        cwd=ROOT,
        env=environment(tmp_path / "db.sqlite3"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "--niceness" in done.stderr and "from 0 to 19" in done.stderr
    assert "Traceback" not in done.stderr
