import copy
import time

from costmodel import compare, parse_scenario
from tests.webapp.api.conftest import assert_same_result, post_json

URL = "/api/v1/compare/batch"


def test_it_answers_every_scenario_by_index(client, scenario_data):
    tidal = copy.deepcopy(scenario_data)
    tidal["workload"] = {"kind": "tidal", "active_days_per_month": 10}
    tidal["horizon_months"] = 12

    response = post_json(client, URL, {"scenarios": [scenario_data, tidal]})

    assert response.status_code == 200
    body = response.json()
    assert (body["count"], body["valid"], body["invalid"]) == (2, 2, 0)
    assert [item["index"] for item in body["results"]] == [0, 1]
    assert_same_result(body["results"][0]["result"], compare(parse_scenario(scenario_data)))
    assert_same_result(body["results"][1]["result"], compare(parse_scenario(tidal)))
    assert body["results"][1]["errors"] == []


def test_one_invalid_scenario_does_not_spoil_the_rest(client, scenario_data):
    bad = copy.deepcopy(scenario_data)
    bad["build"]["capex"] = True

    response = post_json(client, URL, {"scenarios": [scenario_data, bad, 7, scenario_data]})

    body = response.json()
    assert response.status_code == 200
    assert (body["valid"], body["invalid"]) == (2, 2)
    first, second, third, fourth = body["results"]
    assert first["result"] == fourth["result"]
    assert_same_result(first["result"], compare(parse_scenario(scenario_data)))
    assert second["result"] is None
    assert second["errors"] == [{"field": "build.capex", "message": "must be a valid number"}]
    assert third["errors"][0]["field"] == "(scenario)"


def test_one_overflowing_scenario_does_not_spoil_the_rest(client, scenario_data):
    huge = copy.deepcopy(scenario_data)
    huge["build"]["hosting_monthly"] = 1e308
    huge["build"]["ops_monthly"] = 1e308

    response = post_json(client, URL, {"scenarios": [huge, scenario_data]})

    first, second = response.json()["results"]
    assert first["result"] is None
    assert "not finite" in first["errors"][0]["message"]
    assert_same_result(second["result"], compare(parse_scenario(scenario_data)))


def test_it_refuses_more_than_ten_thousand_scenarios(client):
    response = post_json(client, URL, {"scenarios": [{}] * 10_001})

    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "scenarios"
    assert "10000" in response.json()["errors"][0]["message"]


def test_it_refuses_a_body_without_a_scenario_list(client):
    for body, field in [
        ({}, "scenarios"),
        ({"scenarios": {}}, "scenarios"),
        ({"scenarios": []}, "scenarios"),
        ({"scenarios": [], "extra": 1}, "extra"),
        ([], "(body)"),
    ]:
        response = post_json(client, URL, body)
        assert response.status_code == 422, body
        assert response.json()["errors"][0]["field"] == field


def test_a_thousand_scenarios_are_answered_in_under_a_second(client, scenario_data):
    batch = []
    for i in range(1000):
        item = copy.deepcopy(scenario_data)
        item["horizon_months"] = 12 + i % 49
        item["workload"]["utilization"] = (i % 101) / 100
        batch.append(item)

    elapsed = []
    for _ in range(3):
        start = time.perf_counter()
        response = post_json(client, URL, {"scenarios": batch})
        elapsed.append(time.perf_counter() - start)
        assert response.status_code == 200

    assert response.json()["valid"] == 1000
    assert min(elapsed) < 1.0, elapsed
