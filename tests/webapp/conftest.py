"""Fixtures for the web app's tests: the methodology's worked example."""

import copy
import json
from pathlib import Path

import pytest

# The methodology's worked example, shipped with the engine tests.
EXAMPLE = (
    Path(__file__).resolve().parents[1] / "costmodel" / "examples" / "steady-4090-vs-a100.json"
)
WORKED_EXAMPLE = json.loads(EXAMPLE.read_text())


@pytest.fixture
def scenario_data() -> dict:
    """The methodology's worked example (break-even 2.6717 months), as a fresh dict."""
    return copy.deepcopy(WORKED_EXAMPLE)


@pytest.fixture
def scenario(scenario_data):
    from costmodel import parse_scenario

    return parse_scenario(scenario_data)
