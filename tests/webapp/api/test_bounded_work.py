"""Every request's work is bounded: keys, items and depth of a body, draws × months of an
uncertainty analysis, heavy analyses in flight per worker, problems listed in an error answer."""

import json

import pytest

from tests.webapp.api.conftest import post_json
from webapp.busy import heavy_request
from webapp.errors import item_count, key_count, nested_deeper_than

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


@pytest.mark.parametrize("url", ["/api/v1/compare", "/api/v1/uncertainty", "/api/v1/resolve"])
def test_a_body_with_more_items_than_the_limit_is_refused_before_it_is_parsed(client, url):
    """The probe's body, smaller: a list of empty objects has no keys to count."""
    response = post_json(client, url, "[" + "{}," * 25_000 + "{}]")

    assert response.status_code == 413
    assert response.json() == {
        "errors": [
            {
                "field": "(body)",
                "message": "holds more than 25000 items (values in lists and objects)",
            }
        ]
    }


def test_a_batch_may_hold_200_items_per_scenario_it_may_hold(client):
    body = '{"scenarios": [' + "0," * 2_000_000 + "0]}"
    response = post_json(client, "/api/v1/compare/batch", body)

    assert response.status_code == 413
    assert "more than 2000000 items" in response.json()["errors"][0]["message"]
    response = post_json(client, "/api/v1/compare/batch", '{"scenarios": [' + "0," * 30_000 + "0]}")
    assert response.status_code == 422  # read, then too many scenarios
    assert response.json()["errors"][0]["field"] != "(body)"


@pytest.mark.parametrize(
    ("body", "items"),
    [
        (b"[]", 0),
        (b'{"a": [ ], "b": { }}', 2),
        (b'[1, 2, {"a": [3, {}], "b,": "[{"}]', 7),  # brackets and commas in a string
        (b'{"a\\"b": "c,\\\\", "d": ["\\",", 1]}', 4),  # escaped quote and backslash
    ],
)
def test_items_are_the_values_in_lists_and_objects(body, items):
    assert item_count(body) == items


@pytest.mark.parametrize(
    ("body", "limit", "deeper"),
    [
        (b'{"a": [{"b": [1]}]}', 3, True),
        (b'{"a": [{"b": [1]}]}', 4, False),
        (b'["[[[[[[", {"a": "]]]]"}]', 2, False),  # brackets in strings do not nest
        (b"[[]]" * 1000, 2, False),
        (b"[" * 21 + b"]" * 21, 20, True),
    ],
)
def test_depth_is_the_most_brackets_open_at_once(body, limit, deeper):
    assert nested_deeper_than(body, limit) is deeper


def test_a_body_nested_more_than_twenty_deep_is_a_422_and_twenty_are_read(client):
    deep = post_json(client, "/api/v1/compare", "[" * 21 + "]" * 21)
    assert deep.status_code == 422
    assert deep.json()["errors"][0]["field"] == "(body)"
    read = post_json(client, "/api/v1/compare", "[" * 20 + "]" * 20)
    assert read.status_code == 422
    assert read.json()["errors"][0]["field"] != "(body)"  # the parser's own answer


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
