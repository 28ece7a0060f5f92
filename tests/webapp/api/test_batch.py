import copy
import json
import time

import pytest

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


def test_a_summary_holds_the_headline_figures_of_the_full_result(client, scenario_data):
    never = copy.deepcopy(scenario_data)
    never["rent"]["hourly_rate"] = 0

    body = {"scenarios": [scenario_data, never, "x"]}
    full = post_json(client, URL, body).json()["results"]
    summary = post_json(client, URL, {**body, "detail": "summary"}).json()["results"]

    headline = {"total", "resale_value", "total_net", "present_value"}
    per_hour = "cost_per_reference_gpu_hour"
    for f, s in zip(full[:2], summary[:2], strict=True):
        got, whole = s["result"], f["result"]
        assert set(got["build"]) == {*headline, per_hour}
        assert set(got["rent"]) == {"total", "present_value", per_hour}
        expected = {k: v for k, v in whole.items() if not isinstance(v, dict | list)}
        expected["build"] = {k: whole["build"][k] for k in got["build"]}
        expected["rent"] = {k: whole["rent"][k] for k in got["rent"]}
        assert_same_result(got, expected)
    assert summary[1]["result"]["break_even_month"] is None
    assert summary[2] == full[2]


def test_full_series_for_too_many_months_ask_for_a_summary(client, scenario_data):
    scenario_data["horizon_months"] = 240
    body = {"scenarios": [scenario_data] * 2000}

    full = post_json(client, URL, body)
    summary = post_json(client, URL, {**body, "detail": "summary"})

    assert full.status_code == 422
    assert full.json()["errors"][0]["field"] == "detail"
    assert "summary" in full.json()["errors"][0]["message"]
    assert summary.status_code == 200
    assert summary.json()["valid"] == 2000


def test_it_refuses_an_unknown_detail(client, scenario_data):
    response = post_json(client, URL, {"scenarios": [scenario_data], "detail": "all"})

    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "detail"


def test_a_gpu_count_too_large_for_floating_point_does_not_spoil_the_rest(client, scenario_data):
    huge = json.dumps(scenario_data).replace('"gpu_count": 1', '"gpu_count": ' + "9" * 400, 1)
    body = '{"scenarios": [' + json.dumps(scenario_data) + "," + huge + "]}"

    first, second = post_json(client, URL, body).json()["results"]

    assert first["result"] is not None
    assert second["result"] is None
    assert "not finite" in second["errors"][0]["message"]


def test_an_infinite_cost_per_gpu_hour_does_not_spoil_the_rest(client, scenario_data):
    tiny = copy.deepcopy(scenario_data)
    tiny["workload"]["utilization"] = 1e-308
    tiny["build"]["gpu_throughput"] = 0.01

    for detail in ("full", "summary"):
        body = {"scenarios": [tiny, scenario_data], "detail": detail}
        first, second = post_json(client, URL, body).json()["results"]

        assert first["result"] is None
        assert "not finite" in first["errors"][0]["message"]
        assert second["result"]["savings"] == pytest.approx(
            compare(parse_scenario(scenario_data))["savings"], rel=1e-12
        )


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

    # CPU time of this process (client and server both run in it), not wall time:
    # other processes competing for the machine must not fail the test.
    elapsed = []
    for _ in range(3):
        start = time.process_time()
        response = post_json(client, URL, {"scenarios": batch})
        elapsed.append(time.process_time() - start)
        assert response.status_code == 200

    assert response.json()["valid"] == 1000
    assert min(elapsed) < 1.0, elapsed


def _varied(scenario_data: dict, i: int) -> dict:
    """The i-th of a family of scenarios that differ in every headline figure."""
    data = copy.deepcopy(scenario_data)
    data["name"] = f"varied {i}"
    data["horizon_months"] = 12 + 5 * i
    data["build"]["capex"] = scenario_data["build"]["capex"] * (1 + 0.07 * i)
    data["rent"]["hourly_rate"] = scenario_data["rent"]["hourly_rate"] * (1 + 0.03 * i)
    if i % 3 == 0:
        data["workload"] = {"kind": "steady", "utilization": 0.05 + 0.06 * i}
    elif i % 3 == 1:
        data["workload"] = {"kind": "tidal", "active_days_per_month": 2 + i}
    else:
        data["workload"] = {
            "kind": "profile",
            "monthly_utilization": [((i + m) % 10) / 10 for m in range(12)],
        }
    if i == 7:
        data["currency"] = "USD"
    return data


def test_a_summary_batch_of_many_varied_scenarios_matches_compare_index_by_index(
    client, scenario_data
):
    """More than ten, with invalid items between them: indices 2–11 and beyond must not shuffle."""
    items: list = [_varied(scenario_data, i) for i in range(14)]
    items[4] = {"not": "a scenario"}
    items[9] = dict(items[9], horizon_months=0)
    body = post_json(client, URL, {"scenarios": items, "detail": "summary"}).json()

    assert (body["count"], body["valid"], body["invalid"]) == (14, 12, 2)
    assert [r["index"] for r in body["results"]] == list(range(14))
    summary_keys = None
    for index, (item, got) in enumerate(zip(items, body["results"], strict=True)):
        one = post_json(client, "/api/v1/compare", item)
        if index in (4, 9):
            assert one.status_code == 422 and got["result"] is None
            assert got["errors"] == one.json()["errors"]
            continue
        assert one.status_code == 200 and got["errors"] == []
        full = one.json()
        summary_keys = summary_keys or {k: v for k, v in got["result"].items()}
        expected = {
            key: ({k: full[key][k] for k in value} if isinstance(value, dict) else full[key])
            for key, value in got["result"].items()
        }
        assert_same_result(got["result"], expected)
    assert summary_keys is not None and set(summary_keys) == {
        "break_even_month",
        "break_even_utilization",
        "savings",
        "present_value_savings",
        "work_reference_gpu_hours",
        "build",
        "rent",
    }
    savings = [r["result"]["savings"] for r in body["results"] if r["result"]]
    assert len(set(savings)) == len(savings)  # every scenario's figures differ
