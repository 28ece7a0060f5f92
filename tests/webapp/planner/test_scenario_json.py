"""A results page's explicit scenario as JSON: rerun through `manage.py compare` or the API, it
gives the page's own figures."""

import io
import json

from django.core.management import call_command
from django.urls import reverse

from costmodel import parse_scenario
from webapp import formatting
from webapp.scenarios.models import SavedScenario

from .test_planner_form import form_data

HOME = reverse("planner:home")


def figure(html: str, element_id: str) -> str:
    return html.split(f'id="{element_id}"', 1)[1].split(">", 1)[1].split("</dd>", 1)[0]


def compare_command(path) -> dict:
    out = io.StringIO()
    call_command("compare", str(path), stdout=out)
    return json.loads(out.getvalue())


def test_the_scenario_json_reruns_through_manage_py_compare_to_the_pages_figures(
    client, shipped_catalog, tmp_path
):
    location = client.post(HOME, form_data(client, utilization_percent="45"))["Location"]
    html = client.get(location, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    url = html.split('id="download-scenario" href="', 1)[1].split('"', 1)[0]
    assert url == location + "/scenario.json"
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    path = tmp_path / "scenario.json"
    path.write_bytes(response.content)

    result = compare_command(path)
    assert result["scenario"]["workload"] == {"kind": "steady", "utilization": 0.45}
    with_currency = result["scenario"]["currency"]
    assert figure(html, "figure-savings") == formatting.money(result["savings"], with_currency)
    months = result["break_even_month"]  # the page words "never" rather than showing a dash
    expected = "not within the horizon" if months is None else formatting.months(months)
    assert figure(html, "figure-break-even-month") == expected
    assert figure(html, "figure-resale") == formatting.money(
        result["build"]["resale_value"], with_currency
    )

    api = client.post("/api/v1/compare", response.content, content_type="application/json")
    assert api.status_code == 200
    assert api.json()["savings"] == result["savings"]


def test_a_saved_scenario_has_its_scenario_json_too(client, shipped_catalog):
    location = client.post(HOME, form_data(client))["Location"]
    code = location.removeprefix("/r/")
    client.post(reverse("planner:save"), {"code": code, "name": "kept"})
    item = SavedScenario.objects.get()
    document = client.get(reverse("planner:saved-scenario", args=[item.pk])).json()
    assert parse_scenario(document) == parse_scenario(item.scenario)
    assert client.get(location + "/scenario.json").json() == document


def test_a_damaged_code_gets_a_json_error_naming_the_code(client, db):
    response = client.get(reverse("planner:results-scenario", args=["not-a-code"]))
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error["field"] == "code"
