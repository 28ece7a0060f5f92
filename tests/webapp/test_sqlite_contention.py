"""SQLite under contention: writers wait for the lock instead of failing, a lock that
cannot be had in time is a clean 503 with Retry-After, and pages that only read never
wait for it to cache what they computed.

Real processes against a real SQLite file: the database the suite runs on is
in memory (or PostgreSQL), so each test migrates a file of its own and runs
writers as separate Python processes, as gunicorn's workers and a
``load_catalog`` run beside them would be.
"""

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("contention_worker.py")

pytestmark = [
    pytest.mark.skipif(
        os.environ.get("DATABASE_URL", "").startswith("postgres"),
        reason="SQLite's locking: the PostgreSQL run has nothing to add",
    ),
    pytest.mark.xdist_group("sqlite-contention"),
]


def environment(db: Path, **extra: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    return {
        **clean,
        "DJANGO_SETTINGS_MODULE": "webapp.settings",
        "DJANGO_SECRET_KEY": "contention-test",
        "DJANGO_STATIC_MANIFEST": "false",
        "DJANGO_ALLOWED_HOSTS": "testserver",
        "DATABASE_URL": f"sqlite:///{db}",
        **extra,
    }


@pytest.fixture(scope="module")
def migrated(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("sqlite") / "template.sqlite3"
    for command in (["migrate", "--noinput"], ["load_catalog"]):
        subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=ROOT,
            env=environment(db),
            check=True,
            capture_output=True,
            timeout=300,
        )
    return db


@pytest.fixture
def db_file(migrated, tmp_path) -> Path:
    db = tmp_path / "db.sqlite3"
    shutil.copy(migrated, db)
    return db


def start_worker(db: Path, mode: str, count: int, **env: str) -> subprocess.Popen:
    """A writer process, set up and waiting for :func:`go`."""
    process = subprocess.Popen(
        [sys.executable, str(WORKER), mode, str(count)],
        cwd=ROOT,
        env=environment(db, **env),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "ready"
    return process


def go(*processes: subprocess.Popen) -> None:
    for process in processes:
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.flush()


def outcomes(process: subprocess.Popen, timeout: float = 240) -> tuple[list[dict], str]:
    out, err = process.communicate(timeout=timeout)
    assert process.returncode == 0, err
    return json.loads(out.splitlines()[-1]), err


class WriteLock:
    """Another writer: holds SQLite's write lock from ``take()`` to ``release()``."""

    def __init__(self, db: Path) -> None:
        self.connection = sqlite3.connect(db, isolation_level=None, timeout=30)

    def take(self) -> float:
        self.connection.execute("BEGIN IMMEDIATE")
        self.connection.execute("UPDATE django_migrations SET app = app WHERE id = 1")
        return time.monotonic()

    def release(self) -> None:
        self.connection.execute("COMMIT")
        self.connection.close()


def saved_rows(db: Path) -> int:
    with sqlite3.connect(db) as connection:
        return connection.execute("SELECT count(*) FROM scenarios_savedscenario").fetchone()[0]


def test_saves_wait_for_a_writer_holding_the_lock_longer_than_five_seconds(db_file):
    worker = start_worker(db_file, "save", 2)
    lock = WriteLock(db_file)
    lock.take()
    go(worker)
    time.sleep(6.5)  # Python's sqlite3 gives up after 5 s by default
    lock.release()
    results, err = outcomes(worker)

    assert [r["status"] for r in results] == [302, 201, 302, 201], results
    assert results[0]["seconds"] > 6  # it waited for the lock rather than failing
    assert "Traceback" not in err
    assert saved_rows(db_file) == 4


def test_load_catalog_in_a_loop_is_safe_while_the_site_saves(db_file):
    loader = start_worker(db_file, "load", 6)
    savers = [start_worker(db_file, "save", 8) for _ in range(2)]
    go(loader, *savers)
    loads, _ = outcomes(loader)
    saves = [outcomes(s) for s in savers]

    assert [r["outcome"] for r in loads] == ["ok"] * 6
    for results, err in saves:
        assert {r["status"] for r in results} <= {302, 201}, results
        assert "Traceback" not in err
    assert saved_rows(db_file) == 2 * 8 * 2


def test_reads_that_cache_what_they_compute_do_not_wait_for_a_writer_holding_the_lock(db_file):
    # DJANGO_SQLITE_TIMEOUT is 20 s: a read that waited for the lock would take that long.
    worker = start_worker(db_file, "read", 2)
    lock = WriteLock(db_file)
    lock.take()
    go(worker)
    try:
        results, err = outcomes(worker, timeout=120)
    finally:
        lock.release()

    assert [r["status"] for r in results] == [200, 200, 200], results
    assert max(r["seconds"] for r in results) < 5, results
    assert "Traceback" not in err


def test_a_lock_that_cannot_be_had_in_time_is_a_503_with_retry_after(db_file):
    worker = start_worker(db_file, "save", 1, DJANGO_SQLITE_TIMEOUT="1")
    lock = WriteLock(db_file)
    lock.take()
    go(worker)
    try:
        results, err = outcomes(worker)
    finally:
        lock.release()

    web, api = results
    assert (web["status"], web["retry_after"]) == (503, "5")
    assert "The database is busy; please try again in a few seconds." in web["body"]
    assert (api["status"], api["retry_after"]) == (503, "5")
    assert api["content_type"].startswith("application/json")
    assert json.loads(api["body"]) == {
        "errors": [
            {
                "field": "(server)",
                "message": "The database is busy; please try again in a few seconds.",
            }
        ]
    }
    assert "Traceback" not in err
    assert saved_rows(db_file) == 0
