import copy
import json
from pathlib import Path

import pytest

# The methodology's worked example, shipped with the engine tests.
EXAMPLE = (
    Path(__file__).resolve().parents[2] / "costmodel" / "examples" / "steady-4090-vs-a100.json"
)
STEADY_4090 = json.loads(EXAMPLE.read_text())


@pytest.fixture
def scenario_data() -> dict:
    """The methodology's worked example (break-even 2.6717 months), as a fresh dict."""
    return copy.deepcopy(STEADY_4090)


@pytest.fixture
def shipped_catalog(db):
    """The price catalog as `make run` loads it from fixtures/ (rolled back after the test)."""
    from webapp.catalog.fixtures_io import load_catalog

    load_catalog()


@pytest.fixture
def scenario(scenario_data):
    from costmodel import parse_scenario

    return parse_scenario(scenario_data)


@pytest.fixture
def permalink(scenario):
    from webapp.planner.permalink import encode

    return encode(scenario)
