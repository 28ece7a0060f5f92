"""Fixtures of the advisor app's tests: the shipped catalog, and a clean cache."""

import pytest
from django.core.cache import cache

from tests import catalog_once


@pytest.fixture(autouse=True)
def empty_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def catalog(db):
    """The price catalog as `make run` loads it (rolled back after the test)."""
    catalog_once.restore()  # as load_catalog writes it (read once per session)
