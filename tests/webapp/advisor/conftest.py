"""Fixtures of the advisor app's tests: the shipped catalog, and a clean cache."""

import pytest
from django.core.cache import cache
from django.core.management import call_command


@pytest.fixture(autouse=True)
def empty_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def catalog(db):
    """The price catalog as `make run` loads it (rolled back after the test)."""
    call_command("load_catalog", verbosity=0)
