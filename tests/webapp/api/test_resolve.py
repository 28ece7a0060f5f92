from costmodel import parse_scenario
from tests.webapp.api.conftest import post_json
from webapp.catalog.resolver import resolve_data

URL = "/api/v1/resolve"


def test_it_returns_the_resolvers_scenario_and_provenance(client, catalog, selection_data):
    response = post_json(client, URL, selection_data)

    assert response.status_code == 200
    assert response.json() == resolve_data(selection_data).as_dict()


def test_its_scenario_can_be_compared_as_it_is(client, catalog, selection_data):
    scenario = post_json(client, URL, selection_data).json()["scenario"]

    assert parse_scenario(scenario).currency == "CNY"
    assert post_json(client, "/api/v1/compare", scenario).status_code == 200


def test_it_names_the_selection_field_it_cannot_resolve(client, catalog, selection_data):
    selection_data["cloud_offering"] = "no-such-offering"

    response = post_json(client, URL, selection_data)

    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"field": "cloud_offering", "message": "no cloud offering with slug 'no-such-offering'"}
    ]


def test_it_rejects_a_selection_with_wrong_types(client, catalog, selection_data):
    selection_data["horizon_months"] = "36"

    response = post_json(client, URL, selection_data)

    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "horizon_months"


def test_it_refuses_a_nul_character_before_it_reaches_the_database(client, catalog, selection_data):
    selection_data["tariff"] = "cn\x00business"

    response = post_json(client, URL, selection_data)

    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "tariff"


def test_it_fills_in_what_the_selection_leaves_out_and_says_so(client, catalog, selection_data):
    for name in ("cloud_offering", "tariff", "hosting"):
        del selection_data[name]
    selection_data["currency"] = "USD"

    response = post_json(client, URL, selection_data)

    assert response.status_code == 200
    body = response.json()
    defaulted = {item["field"]: item["value"] for item in body["defaulted"]}
    assert set(defaulted) == {"cloud_offering", "tariff", "hosting"}
    assert defaulted["tariff"].startswith("us-")
    assert all(item["reason"] for item in body["defaulted"])
    assert body == resolve_data(selection_data).as_dict()
    named = post_json(client, URL, {**selection_data, **defaulted}).json()
    assert named["scenario"] == body["scenario"]
    assert named["defaulted"] == []
