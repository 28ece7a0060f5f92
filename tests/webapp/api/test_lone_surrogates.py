"""A JSON string or key holding a lone UTF-16 surrogate (``"\\ud800"``) is a 400 naming it.

JSON text may escape one, but it is no character: nothing downstream (UTF-8,
the database, the JSON answer echoing an unknown key) can encode it, so each
of these used to be a 500.
"""

import json

import pytest

from tests.webapp.api.conftest import SELECTION, post_json

pytestmark = pytest.mark.django_db

SURROGATE = "\\ud800"  # as it appears in the JSON text
ESCAPED = "\\ud800"  # as a field path names it (the surrogate escaped)


def scenario_text(scenario_data) -> str:
    return json.dumps(scenario_data)


def cases(scenario_data) -> list[tuple[str, str, str]]:
    scenario = scenario_text(scenario_data)
    selection = json.dumps({**SELECTION, "preset": "PLACEHOLDER"})
    return [
        ("/api/v1/scenarios", f'{{"name": "{SURROGATE}", "scenario": {scenario}}}', "name"),
        (
            "/api/v1/scenarios",
            f'{{"name": "x", "{SURROGATE}": 1, "scenario": {scenario}}}',
            ESCAPED,
        ),
        ("/api/v1/compare", scenario[:-1] + f', "{SURROGATE}": 1}}', ESCAPED),
        ("/api/v1/compare/batch", f'{{"scenarios": [{scenario}], "{SURROGATE}": 2}}', ESCAPED),
        ("/api/v1/resolve", selection.replace("PLACEHOLDER", SURROGATE), "preset"),
        (
            "/api/v1/tornado",
            f'{{"scenario": {scenario}, "drivers": {{"{SURROGATE}": [0.5, 1.5]}}}}',
            f"drivers.{ESCAPED}",
        ),
        (
            "/api/v1/uncertainty",
            f'{{"scenario": {scenario}, "draws": 10, '
            f'"distributions": {{"{SURROGATE}": {{"kind": "uniform", "low": 1, "high": 2}}}}}}',
            f"distributions.{ESCAPED}",
        ),
    ]


def test_every_api_edge_answers_a_lone_surrogate_with_a_400_naming_it(client, scenario_data):
    for url, body, field in cases(scenario_data):
        response = post_json(client, url, body)
        assert response.status_code == 400, (url, response.content)
        assert response["Content-Type"].startswith("application/json")
        errors = response.json()["errors"]
        assert [e["field"] for e in errors] == [field], url
        assert "surrogate" in errors[0]["message"]


def test_a_surrogate_pair_is_a_character_and_is_accepted(client, scenario_data):
    body = scenario_text({**scenario_data, "name": "PLACEHOLDER"})
    response = post_json(client, "/api/v1/compare", body.replace("PLACEHOLDER", "\\ud83d\\ude00"))
    assert response.status_code == 200
    assert response.json()["scenario"]["name"] == "\U0001f600"
