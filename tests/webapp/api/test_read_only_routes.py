"""The API's index, its OpenAPI document and its docs only read: any other method is a 405
in the API's error shape, even from a client without a CSRF token (as every API client is),
never Django's HTML CSRF page."""

import pytest
from django.test import Client

READ_ONLY = ["/api/v1/", "/api/v1/openapi.json", "/api/v1/docs"]


@pytest.fixture
def api_client() -> Client:
    return Client(enforce_csrf_checks=True)


@pytest.mark.parametrize("url", READ_ONLY)
@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_a_write_method_is_a_json_405(api_client, url, method):
    response = getattr(api_client, method)(url)

    assert response.status_code == 405
    assert response["Content-Type"].startswith("application/json")
    assert response["Allow"] == "GET, HEAD"
    [problem] = response.json()["errors"]
    assert problem["field"] == "(request)" and method.upper() in problem["message"]


def test_the_index_names_the_description_and_the_docs_and_both_are_served(api_client):
    index = api_client.get("/api/v1/")

    assert index.status_code == 200
    assert index.json() == {"openapi": "/api/v1/openapi.json", "docs": "/api/v1/docs"}
    assert api_client.get(index.json()["openapi"]).json()["info"]["title"]
    assert api_client.get(index.json()["docs"]).status_code == 200
