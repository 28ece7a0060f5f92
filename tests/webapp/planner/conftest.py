"""Planner fixtures; the worked example (``scenario_data``, ``scenario``) is in
tests/webapp/conftest.py."""

import pytest


@pytest.fixture
def permalink(scenario):
    from webapp.planner.permalink import encode

    return encode(scenario)
