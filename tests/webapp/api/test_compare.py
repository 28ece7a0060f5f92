import json

import pytest
from hypothesis import HealthCheck, given, settings
from numpy.testing import assert_allclose

from costmodel import compare, parse_scenario
from costmodel.projection import ProjectionOverflowError
from tests.costmodel.strategies import scenarios
from tests.webapp.api.conftest import post_json
from tests.webapp.conftest import WORKED_EXAMPLE

URL = "/api/v1/compare"


def fields(response) -> list[str]:
    return [e["field"] for e in response.json()["errors"]]


def test_it_answers_the_worked_example(client, scenario_data):
    response = post_json(client, URL, scenario_data)

    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert_allclose(response.json()["break_even_month"], 2.6717, rtol=1e-4)


def test_it_returns_exactly_what_the_engine_returns(client, scenario_data):
    response = post_json(client, URL, scenario_data)

    assert response.json() == compare(parse_scenario(scenario_data))


def test_it_fills_in_defaults_in_the_echoed_scenario(client, scenario_data):
    del scenario_data["build"]["pue"]

    response = post_json(client, URL, scenario_data)

    assert response.json()["scenario"]["build"]["pue"] == 1.0


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("build", "capex"), True),
        (("build", "capex"), "25000"),
        (("horizon_months",), "31"),
        (("horizon_months",), 36.0),
        (("build", "gpu_count"), False),
        (("workload", "utilization"), 8.5),  # version 2 allows demand up to 8 boxes
        (("rent", "hourly_rate"), -1),
        (("currency",), "cny"),
    ],
)
def test_it_rejects_a_wrongly_typed_or_out_of_bounds_field(client, scenario_data, path, value):
    target = scenario_data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value

    response = post_json(client, URL, scenario_data)

    assert response.status_code == 422
    assert fields(response) == [".".join(path)]
    assert response.json()["errors"][0]["message"]


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_it_rejects_numbers_that_are_not_finite(client, scenario_data, literal):
    body = json.dumps(scenario_data).replace('"capex": 25000', f'"capex": {literal}')
    assert literal in body

    response = post_json(client, URL, body)

    assert response.status_code == 422
    assert fields(response) == ["build.capex"]


def test_it_rejects_unknown_fields(client, scenario_data):
    scenario_data["rent"]["spot"] = True

    response = post_json(client, URL, scenario_data)

    assert response.status_code == 422
    assert fields(response) == ["rent.spot"]


def test_it_reports_every_invalid_field_at_once(client, scenario_data):
    del scenario_data["currency"]
    scenario_data["build"]["power_idle_watts"] = 900

    response = post_json(client, URL, scenario_data)

    assert response.status_code == 422
    assert set(fields(response)) == {"currency", "build.power_idle_watts"}


def test_it_reports_an_overflowing_scenario_as_invalid_input(client, scenario_data):
    scenario_data["build"]["hosting_monthly"] = 1e308
    scenario_data["build"]["ops_monthly"] = 1e308

    response = post_json(client, URL, scenario_data)

    assert response.status_code == 422
    assert "not finite" in response.json()["errors"][0]["message"]


def test_it_reports_a_cost_per_gpu_hour_beyond_floating_point_as_invalid_input(
    client, scenario_data
):
    scenario_data["workload"]["utilization"] = 1e-308
    scenario_data["build"]["gpu_throughput"] = 0.01

    response = post_json(client, URL, scenario_data)

    assert response.status_code == 422
    assert "not finite" in response.json()["errors"][0]["message"]


def test_it_reports_a_gpu_count_too_large_for_floating_point_as_invalid_input(
    client, scenario_data
):
    body = json.dumps(scenario_data).replace('"gpu_count": 1', '"gpu_count": ' + "9" * 400, 1)

    response = post_json(client, URL, body)

    assert response.status_code == 422
    assert "not finite" in response.json()["errors"][0]["message"]


def test_it_rejects_a_json_value_that_is_not_an_object(client):
    response = post_json(client, URL, [WORKED_EXAMPLE])

    assert response.status_code == 422
    assert fields(response) == ["(scenario)"]


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=scenarios())
def test_generated_scenarios_through_the_api_agree_with_the_engine(client, data):
    response = post_json(client, URL, data)
    try:
        expected = compare(parse_scenario(data))
    except ProjectionOverflowError:
        # Work so small that a cost per GPU-hour leaves float64: the engine refuses
        # it, and the API answers that as the scenario's error.
        assert response.status_code == 422
        assert "not finite" in response.json()["errors"][0]["message"]
        return
    assert response.status_code == 200
    # JSON floats round-trip exactly, so agreement is equality, not closeness.
    assert response.json() == expected
