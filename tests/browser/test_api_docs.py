"""The interactive API docs load from this origin only, under the CSP, and can call the API."""

import json
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EXAMPLE = (
    Path(__file__).resolve().parents[1] / "costmodel" / "examples" / "steady-4090-vs-a100.json"
)


def test_the_api_docs_render_and_try_out_compare_without_leaving_the_origin(page, live_server):
    page.goto(live_server.url + "/api/v1/docs")

    page.wait_for_selector(".swagger-ui .info .title")
    assert "Build or rent GPUs" in page.inner_text(".swagger-ui .info .title")
    operation = page.locator("#operations-compare-webapp_api_compare_compare_one")
    operation.locator(".opblock-summary").click()
    operation.get_by_role("button", name="Try it out").click()
    operation.locator("textarea.body-param__text").fill(EXAMPLE.read_text())
    operation.get_by_role("button", name="Execute").click()

    status = operation.locator(".live-responses-table tr.response .response-col_status").first
    status.wait_for()
    assert status.inner_text().strip().startswith("200")
    body = json.loads(
        operation.locator(".live-responses-table tr.response .microlight").first.inner_text()
    )
    assert abs(body["break_even_month"] - 2.6717) < 1e-4
    page.watch.assert_clean()
