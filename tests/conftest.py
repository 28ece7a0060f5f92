"""Fixtures for the whole suite."""

import pytest
from django.utils import translation


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
