"""``POST /api/v1/options``: the published ranking over HTTP, bounded, and 422s naming the field."""

import copy
import json
from pathlib import Path

import pytest

from costmodel.options import MAX_BUILDS, MAX_RENTS
from tests.webapp.api.conftest import post_json
from webapp.busy import heavy_request

URL = "/api/v1/options"
V4 = Path(__file__).resolve().parents[2] / "costmodel" / "examples" / "v4"
NAME = "options-lora-boxes-and-offerings.json"
REQUEST = json.loads((V4 / NAME).read_text())
EXPECTED = json.loads((V4 / "operations.json").read_text())[NAME]

pytestmark = pytest.mark.django_db


def assert_agrees(actual, expected) -> None:
    if isinstance(expected, dict):
        assert set(actual) == set(expected)
        for key, value in expected.items():
            assert_agrees(actual[key], value)
    elif isinstance(expected, list):
        assert len(actual) == len(expected)
        for got, want in zip(actual, expected, strict=True):
            assert_agrees(got, want)
    elif isinstance(expected, float) or (isinstance(expected, int) and expected > 0):
        assert actual == pytest.approx(expected, rel=1e-6, abs=1e-4)
    else:
        assert actual == expected


def test_it_answers_the_published_ranking(client):
    response = post_json(client, URL, REQUEST)

    assert response.status_code == 200, response.content
    assert_agrees(response.json(), EXPECTED)


def test_bad_input_is_a_422_naming_each_field(client):
    data = copy.deepcopy(REQUEST)
    data["rents"][1]["name"] = data["rents"][0]["name"]
    data["builds"][0]["build"]["gpu_count"] = 0

    response = post_json(client, URL, data)

    assert response.status_code == 422
    assert [e["field"] for e in response.json()["errors"]] == [
        "builds.0.build.gpu_count",
    ]
    data["builds"][0]["build"]["gpu_count"] = 1
    [error] = post_json(client, URL, data).json()["errors"]
    assert error["field"] == "rents.1.name"
    assert error["message"].startswith("must be unique")


def test_too_many_options_are_refused_naming_the_list(client):
    data = copy.deepcopy(REQUEST)
    data["rents"] = [
        {"name": f"offer {i}", "rent": REQUEST["rents"][1]["rent"]} for i in range(MAX_RENTS + 1)
    ]
    response = post_json(client, URL, data)
    assert response.status_code == 422
    assert [e["field"] for e in response.json()["errors"]] == ["rents"]


def test_the_largest_request_with_every_field_given_is_read(client):
    build = {
        **REQUEST["builds"][1]["build"],
        "ops_monthly": 100,
        "useful_life_months": 48,
        "capex_annual_price_change": -0.1,
        "running_cost_annual_change": 0.02,
        "financing": {
            "down_payment_fraction": 0.2,
            "annual_interest_rate": 0.05,
            "term_months": 24,
        },
    }
    rent = {
        **REQUEST["rents"][1]["rent"],
        "fixed_monthly": 10,
        "annual_price_change": -0.05,
        "rework_fraction": 0.05,
        "committed_instances": 0,
        "committed_hourly_rate": 30,
        "commitment_term_months": 12,
        "commitment_upfront_per_instance": 0,
    }
    data = {
        "scenario": REQUEST["scenario"],
        "builds": [{"name": f"box {i}", "build": build} for i in range(MAX_BUILDS)],
        "rents": [{"name": f"offer {i}", "rent": rent} for i in range(MAX_RENTS)],
    }

    response = post_json(client, URL, data)

    assert response.status_code == 200, response.content
    assert len(response.json()["plans"]) == MAX_BUILDS + MAX_RENTS


def test_it_waits_its_turn_among_the_heavy_analyses(client, settings):
    settings.HEAVY_REQUESTS_PER_WORKER = 1
    with heavy_request():
        refused = post_json(client, URL, REQUEST)
    assert refused.status_code == 503
    [problem] = refused.json()["errors"]
    assert problem["field"] == "(server)"


def test_the_openapi_document_describes_the_request_and_the_answer(client):
    document = client.get("/api/v1/openapi.json").json()
    schemas = document["components"]["schemas"]

    assert "/api/v1/options" in document["paths"]
    assert set(schemas["OptionsRequest"]["properties"]) == {"scenario", "builds", "rents"}
    assert set(schemas["OptionsAnswer"]["properties"]) == {
        "plans",
        "infeasible",
        "best",
        "present_value_savings",
    }
    assert "memory_gb" in schemas["Job"]["properties"]
    assert "gpu_memory_gb" in schemas["Rent"]["properties"]
