"""Whatever arrives, the answer is a clear 4xx in the one error shape, never a 500."""

import json

import pytest
from django.test import override_settings

from tests.webapp.api.conftest import post_json

POST_URLS = ["/api/v1/compare", "/api/v1/compare/batch", "/api/v1/options"]


def assert_error(response, status: int, field: str) -> str:
    assert response.status_code == status
    assert response["Content-Type"].startswith("application/json")
    errors = response.json()["errors"]
    assert errors[0]["field"] == field
    assert errors[0]["message"]
    return errors[0]["message"]


@pytest.mark.parametrize("url", POST_URLS)
def test_it_refuses_a_body_over_the_size_limit(client, url, scenario_data):
    with override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000):
        body = json.dumps({"scenarios": [scenario_data] * 5})
        response = post_json(client, url, body)

    message = assert_error(response, 413, "(request)")
    assert "1000 bytes" in message


@pytest.mark.parametrize("url", POST_URLS)
@pytest.mark.parametrize("depth", [100, 100_000])
def test_it_refuses_deeply_nested_json(client, url, depth):
    body = "[" * depth + "]" * depth

    response = post_json(client, url, body)

    assert response.status_code in {400, 422}
    assert response.json()["errors"]


def test_it_names_json_nested_too_deeply_to_read(client):
    response = post_json(client, "/api/v1/compare", "[" * 100_000 + "]" * 100_000)

    message = assert_error(response, 422, "(body)")
    assert message == "nests lists and objects more than 20 levels deep"


@pytest.mark.parametrize("url", POST_URLS)
@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""],
)
def test_it_refuses_a_body_that_is_not_declared_as_json(client, url, content_type, scenario_data):
    response = client.post(url, json.dumps(scenario_data), content_type=content_type)

    assert "application/json" in assert_error(response, 400, "(request)")


@pytest.mark.parametrize("url", POST_URLS)
@pytest.mark.parametrize("body", ["", "   \n"])
def test_it_refuses_an_empty_body(client, url, body):
    # The test client drops the content type of an empty body; a real client does not.
    response = post_json(client, url, body, CONTENT_TYPE="application/json")

    assert "empty" in assert_error(response, 400, "(body)")


@pytest.mark.parametrize("url", POST_URLS)
def test_it_asks_for_a_content_length_instead_of_a_chunked_body(client, url):
    # What Django sees of a chunked request: no Content-Length, so no body.
    response = client.generic(
        "POST", url, b"", CONTENT_TYPE="application/json", HTTP_TRANSFER_ENCODING="chunked"
    )

    assert "Content-Length" in assert_error(response, 411, "(request)")


@pytest.mark.parametrize("url", POST_URLS)
@pytest.mark.parametrize("body", ["{", "{'a': 1}", "nul", '{"a": 1} x', b"\xff\xfe{}"])
def test_it_refuses_malformed_json(client, url, body):
    response = post_json(client, url, body)

    assert_error(response, 400, "(input)")


def test_it_refuses_a_number_too_long_to_read(client):
    response = post_json(client, "/api/v1/compare", '{"horizon_months": ' + "9" * 5000 + "}")

    assert "too long" in assert_error(response, 400, "(input)")


@pytest.mark.parametrize("url", POST_URLS)
def test_it_answers_a_wrong_method_with_405(client, url):
    response = client.get(url)

    assert response.status_code == 405
    assert "POST" in response["Allow"]


def test_a_json_content_type_with_a_charset_is_accepted(client, scenario_data):
    response = client.post(
        "/api/v1/compare",
        json.dumps(scenario_data),
        content_type="application/json; charset=utf-8",
    )

    assert response.status_code == 200


@pytest.mark.parametrize(
    ("url", "method"),
    [
        *((url, method) for url in POST_URLS for method in ("get", "put", "patch")),
        # GET lists the caller's saved scenarios (an account's; see test_scenarios_teams)
        ("/api/v1/scenarios", "put"),
        ("/api/v1/scenarios", "patch"),
    ],
)
def test_a_wrong_method_is_a_405_in_the_api_error_shape(client, url, method):
    response = getattr(client, method)(url)

    message = assert_error(response, 405, "(request)")
    assert method.upper() in message and "POST" in message
    assert "POST" in response["Allow"]


@pytest.mark.parametrize("url", ["/api/v1/nope", "/api/v1/compare/", "/api/v1/compare/batch/x"])
@pytest.mark.parametrize("method", ["get", "post"])
def test_an_unknown_api_path_is_a_404_in_the_api_error_shape(client, url, method):
    response = getattr(client, method)(url)

    assert "endpoint" in assert_error(response, 404, "(request)")


def test_a_missing_saved_scenario_keeps_its_own_404_message(client, db):
    response = client.get("/api/v1/scenarios/00000000-0000-4000-8000-000000000000")

    assert assert_error(response, 404, "id") == (
        "“00000000-0000-4000-8000-000000000000” is not a saved scenario you can open."
    )
