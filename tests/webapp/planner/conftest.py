"""Planner fixtures; the worked example (``scenario_data``, ``scenario``) is in
tests/webapp/conftest.py."""

import pytest


@pytest.fixture
def shipped_catalog(db):
    """The price catalog as `make run` loads it from fixtures/ (rolled back after the test)."""
    from webapp.catalog.fixtures_io import load_catalog

    load_catalog()


@pytest.fixture
def permalink(scenario):
    from webapp.planner.permalink import encode

    return encode(scenario)
