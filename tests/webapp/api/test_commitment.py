"""``POST /api/v1/commitment``: the published table over HTTP, and 422s that name the field."""

import json
from pathlib import Path

import pytest

from tests.webapp.api.conftest import post_json

URL = "/api/v1/commitment"
EXAMPLES = Path(__file__).resolve().parents[2] / "costmodel" / "examples"
CASES = json.loads((EXAMPLES / "v3" / "operations.json").read_text())["commitment"]


def scenario(name: str) -> dict:
    return json.loads((EXAMPLES / "v3" / name).read_text())


@pytest.mark.parametrize("case", CASES, ids=[c["scenario"] for c in CASES])
def test_it_answers_the_published_table(client, case):
    request = {"scenario": scenario(case["scenario"])}
    if case["max_instances"] is not None:
        request["max_instances"] = case["max_instances"]

    response = post_json(client, URL, request)

    assert response.status_code == 200, response.content
    answer, expected = response.json(), case["expected"]
    assert answer["max_instances"] == expected["max_instances"]
    assert answer["best_committed_instances"] == expected["best_committed_instances"]
    for got, want in zip(answer["rows"], expected["rows"], strict=True):
        assert got["committed_instances"] == want["committed_instances"]
        for key in ("rent_total", "rent_present_value", "savings", "break_even_month"):
            assert got[key] == pytest.approx(want[key], rel=1e-9), key


def test_a_scenario_without_a_committed_rate_is_a_422_naming_it(client):
    data = scenario("../v2/commitment-with-overflow.json")
    data["rent"]["committed_hourly_rate"] = 0

    response = post_json(client, URL, {"scenario": data, "max_instances": 70})

    assert response.status_code == 422
    assert [e["field"] for e in response.json()["errors"]] == ["max_instances"]
    response = post_json(client, URL, {"scenario": data, "max_instances": 2})
    assert response.status_code == 422
    errors = response.json()["errors"]
    assert [e["field"] for e in errors] == ["scenario.rent.committed_hourly_rate"]
    assert errors[0]["message"].startswith("must be greater than 0")


def test_bad_json_is_a_400_in_the_same_shape(client):
    response = post_json(client, URL, b"{not json")

    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "(input)"


def test_the_openapi_document_describes_request_and_answer(client):
    document = client.get("/api/v1/openapi.json").json()

    operation = document["paths"]["/api/v1/commitment"]["post"]
    body = operation["requestBody"]["content"]["application/json"]["schema"]
    assert body == {"$ref": "#/components/schemas/CommitmentRequest"}
    request = document["components"]["schemas"]["CommitmentRequest"]
    assert set(request["properties"]) == {"scenario", "max_instances"}
    assert {"200", "422"} <= set(operation["responses"])
    answer = document["components"]["schemas"]["CommitmentAnswer"]
    assert set(answer["properties"]) == {"max_instances", "best_committed_instances", "rows"}
