"""Fixtures for the whole suite."""

import pytest
from django.utils import translation

from tests import catalog_once


@pytest.fixture(autouse=True)
def _english_unless_a_test_says_otherwise():
    """Every test starts in the default language.

    A request in Chinese leaves zh-hans active in the worker's thread; without
    this, whichever test runs next on that worker would see Chinese messages.
    """
    translation.activate("en")
    yield
    translation.activate("en")


@pytest.fixture(autouse=True)
def _catalog_version_read_afresh():
    """Every test reads the catalog's version from its own database.

    A process trusts the version it read for two seconds; without this, a test
    would see the version of the one before (its rows rolled back) and read
    names cached under it from that test's catalog.
    """
    from webapp.catalog.selectors import forget_catalog_version

    forget_catalog_version()
    yield


# --------------------------------------------------------------------------
# The shipped catalog: read from fixtures/ once per test session, restored per test
# --------------------------------------------------------------------------


@pytest.fixture(scope="session", autouse=True)
def _fast_password_hashing():
    """Passwords hashed with a fast hasher: the suite signs people in hundreds of times, and
    the production hasher is slow by design (Django's advice for tests). No test here is about
    the hasher's strength."""
    from django.test import override_settings

    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """The test database (pytest-django's), and the shipped catalog read into memory once."""
    with django_db_blocker.unblock():
        catalog_once.read()
    yield


@pytest.fixture
def shipped_catalog(db):
    """The price catalog as `make run` loads it from fixtures/ (rolled back after the test)."""
    catalog_once.restore()


# --------------------------------------------------------------------------
# Which tests use a database: `make test` runs only those a second time, on PostgreSQL
# --------------------------------------------------------------------------

DATABASE_FIXTURES = frozenset(
    {
        "db",
        "transactional_db",
        "django_db_reset_sequences",
        "django_db_serialized_rollback",
        "live_server",
    }
)
"""pytest-django's fixtures that give a test the test database (``shipped_catalog`` and the
other fixtures built on them count through them)."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put the grouped tests first; mark ``database`` every test that reaches the test
    database: marked ``django_db`` or using one of :data:`DATABASE_FIXTURES`, directly or
    through another fixture.

    The rest (the engine's tests under tests/costmodel, parsers, settings, CLI runs on files)
    give the same result on any database, so the PostgreSQL pass of `make test` leaves them
    out (``-m database``) and they run once, in the SQLite pass. So do the tests marked
    ``reads_only`` (a whole module of pages built from the shipped catalog), except those of
    them marked ``database`` by hand."""
    for item in items:
        uses = set(getattr(item, "fixturenames", ()))
        if item.get_closest_marker("database") is not None:
            continue  # marked by hand: a test that writes, in a module marked reads_only
        if item.get_closest_marker("reads_only") is not None:
            continue  # run once: see reads_only_means_no_write below
        if item.get_closest_marker("django_db") or uses & DATABASE_FIXTURES:
            item.add_marker(pytest.mark.database)

    # The tests grouped for one xdist worker (real servers, SQLite's locking, the worker's
    # process) are the longest units of work, minutes each: handed out first, so that a
    # group is never what the run still waits for once every other test has finished. Only
    # those that leave the test database alone move: pytest-django's order of the others
    # (transactional tests last) stands.
    def handed_out_later(item: pytest.Item) -> bool:
        grouped = item.get_closest_marker("xdist_group") is not None
        return not grouped or item.get_closest_marker("database") is not None

    items.sort(key=handed_out_later)


def pytest_collection_finish(session: pytest.Session) -> None:
    """In an xdist worker of `--dist loadgroup`, a grouped test carries its group in its id
    (xdist's own hook adds it; the scheduler reads it). With pytest 9.2 it silently does not
    (pytest-dev/pytest-xdist#1386): the groups were split over the workers, a module's fixtures
    built twice and the SQLite locking tests run beside each other. Such a test fails, saying
    why, rather than run where it was not meant to."""
    if getattr(session.config.option, "loadgroup", False):
        for item in session.items:
            grouped = item.get_closest_marker("xdist_group") is not None
            if grouped and "@" not in item.nodeid.rpartition("]")[2]:
                item.stash[GROUP_SPLIT] = True


GROUP_SPLIT = pytest.StashKey[bool]()


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.stash.get(GROUP_SPLIT, False):
        pytest.fail(
            "pytest-xdist did not keep this test's xdist_group together (--dist loadgroup with "
            "this pytest: see the pin of pytest in pyproject.toml)",
            pytrace=False,
        )


# --------------------------------------------------------------------------
# reads_only: pages built from the shipped catalog, run once (in the SQLite pass)
# --------------------------------------------------------------------------

WRITES = ("INSERT", "UPDATE", "DELETE")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """A test marked ``reads_only`` (and not ``database``) fails if it writes to the database.

    Such a test reaches the database only through what its fixtures wrote (the shipped catalog,
    users) and the reads of the pages it requests: the resolver's and the selectors' queries,
    which the catalog's own tests run on both databases. What it checks on top (the engine's
    figures for the scenario those reads resolve, the page's words) cannot differ between
    SQLite and PostgreSQL, so the PostgreSQL pass leaves it out. A test that saves, queues a
    task, signs in or caches does not fit that reason: it must be marked ``database``, and this
    says so rather than let it run on one database only."""
    if item.get_closest_marker("reads_only") is None or item.get_closest_marker("database"):
        return (yield)
    from contextlib import ExitStack

    from django.db import connections

    writes: list[str] = []

    def refuse_writes(execute, sql, params, many, context):
        if sql.lstrip()[:6].upper() in WRITES:
            writes.append(" ".join(sql.split())[:100])
        return execute(sql, params, many, context)

    with ExitStack() as stack:
        for alias in connections:
            stack.enter_context(connections[alias].execute_wrapper(refuse_writes))
        result = yield
    if writes:
        pytest.fail(
            f"marked reads_only, yet it wrote to the database ({len(writes)} statements, the "
            f"first: {writes[0]}): mark it database, so that it runs on PostgreSQL too",
            pytrace=False,
        )
    return result
