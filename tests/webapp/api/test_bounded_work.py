"""Every request's work is bounded: keys in a body, draws × months of an uncertainty
analysis, heavy analyses in flight per worker, problems listed in an error answer."""

import json

import pytest

from tests.webapp.api.conftest import post_json
from webapp.busy import heavy_request
from webapp.errors import key_count

pytestmark = pytest.mark.django_db


def with_unknown_keys(scenario_data: dict, count: int) -> str:
    extra = ", ".join(f'"unknown{i}": 1' for i in range(count))
    return json.dumps(scenario_data)[:-1] + ", " + extra + "}"


def uncertainty_request(scenario_data: dict, draws: int) -> dict:
    return {
        "scenario": scenario_data,
        "distributions": {"rent.hourly_rate": {"kind": "uniform", "low": 10, "high": 30}},
        "draws": draws,
    }


def test_a_body_with_more_keys_than_the_limit_is_refused_before_it_is_parsed(client, scenario_data):
    response = post_json(client, "/api/v1/compare", with_unknown_keys(scenario_data, 2000))

    assert response.status_code == 413
    assert response.json() == {
        "errors": [{"field": "(body)", "message": "holds more than 1000 keys"}]
    }


@pytest.mark.parametrize(
    ("body", "keys"),
    [
        (b'{"a": 1, "b": {"c": "d"}}', 3),
        (b'{"a": "10:00:00", "b": ["x:y"]}', 2),
        (b'{"a\\"b": "c\\\\", "d": "\\":"}', 2),  # escaped quote and backslash
    ],
)
def test_keys_are_the_colons_outside_strings(body, keys):
    assert key_count(body) == keys


def test_an_error_answer_lists_at_most_twenty_problems_and_counts_the_rest(client, scenario_data):
    response = post_json(client, "/api/v1/compare", with_unknown_keys(scenario_data, 100))

    assert response.status_code == 422
    errors = response.json()["errors"]
    assert len(errors) == 20
    assert {e["message"] for e in errors[:19]} == {"is not a known field"}
    assert errors[19] == {"field": "(request)", "message": "and 81 more problems"}


def test_a_batch_item_lists_at_most_twenty_problems_too(client, scenario_data):
    body = '{"scenarios": [' + with_unknown_keys(scenario_data, 30) + "]}"
    response = post_json(client, "/api/v1/compare/batch", body)

    assert response.status_code == 200
    errors = response.json()["results"][0]["errors"]
    assert len(errors) == 20 and errors[19]["message"] == "and 11 more problems"


def test_an_uncertainty_analysis_of_too_many_draws_times_months_is_refused(client, scenario_data):
    scenario_data["horizon_months"] = 240
    response = post_json(client, "/api/v1/uncertainty", uncertainty_request(scenario_data, 100_000))

    assert response.status_code == 422
    [problem] = response.json()["errors"]
    assert problem["field"] == "draws"
    assert "at most 25311 for a horizon of 240 months" in problem["message"]


def test_past_the_heavy_analyses_a_worker_may_run_at_once_it_answers_503(
    client, scenario_data, settings
):
    settings.HEAVY_REQUESTS_PER_WORKER = 1
    request = uncertainty_request(scenario_data, 100)
    with heavy_request():  # another request of this worker is computing
        refused = post_json(client, "/api/v1/uncertainty", request)
        batch = post_json(client, "/api/v1/compare/batch", {"scenarios": [scenario_data]})

    for response in (refused, batch):
        assert response.status_code == 503
        assert response["Retry-After"] == "5"
        [problem] = response.json()["errors"]
        assert problem["field"] == "(server)" and "busy" in problem["message"]
    assert post_json(client, "/api/v1/uncertainty", request).status_code == 200
