"""``/compare`` with a jobs workload: the version-3 examples over HTTP, and 422s naming the job."""

import json
from pathlib import Path

import pytest

from tests.webapp.api.conftest import post_json

URL = "/api/v1/compare"
V3 = Path(__file__).resolve().parents[2] / "costmodel" / "examples" / "v3"
EXPECTED = json.loads((V3 / "expected.json").read_text())


def example(name: str) -> dict:
    return json.loads((V3 / name).read_text())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_it_answers_the_published_figures_and_the_jobs_block(client, name):
    response = post_json(client, URL, example(name))

    assert response.status_code == 200, response.content
    result, expected = response.json(), EXPECTED[name]
    assert result["savings"] == pytest.approx(expected["savings"], rel=1e-9)
    assert result["break_even_month"] == pytest.approx(expected["break_even_month"], rel=1e-9)
    assert result["rent"]["present_value"] == pytest.approx(
        expected["rent_present_value"], rel=1e-9
    )
    assert [job["name"] for job in result["jobs"]] == [job["name"] for job in expected["jobs"]]
    for got, want in zip(result["jobs"], expected["jobs"], strict=True):
        assert got["build_hours_per_run"] == pytest.approx(want["build_hours_per_run"])
        assert got["rent_instance_hours_per_run"] == pytest.approx(
            want["rent_instance_hours_per_run"]
        )


def test_bad_jobs_are_a_422_naming_each_field(client):
    data = example("jobs-lora-4090-vs-a100.json")
    data["workload"]["jobs"][0]["reference_gpu_hours"] = 0
    data["workload"]["jobs"][1]["runs_per_month"] = []

    response = post_json(client, URL, data)

    assert response.status_code == 422
    assert [e["field"] for e in response.json()["errors"]] == [
        "workload.jobs.0.reference_gpu_hours",
        "workload.jobs.1.runs_per_month",
    ]


def test_an_empty_job_list_and_a_month_above_eight_boxes_are_422s(client):
    data = example("jobs-lora-4090-vs-a100.json")
    data["workload"]["jobs"] = []
    assert post_json(client, URL, data).json()["errors"][0]["field"] == "workload.jobs"

    data = example("jobs-lora-4090-vs-a100.json")
    data["workload"]["jobs"][0]["runs_per_month"] = [2, 2, 40]
    response = post_json(client, URL, data)
    assert response.status_code == 422
    [error] = response.json()["errors"]
    assert error["field"] == "workload.jobs"
    assert error["message"].startswith("month 3 asks for")


def test_the_openapi_document_describes_the_jobs_workload(client):
    schemas = client.get("/api/v1/openapi.json").json()["components"]["schemas"]

    assert set(schemas["JobsWorkload"]["properties"]) == {"kind", "jobs"}
    assert set(schemas["Job"]["properties"]) == {
        "name",
        "reference_gpu_hours",
        "runs_per_month",
        "memory_gb",
    }
    assert "jobs" in schemas["CompareResult"]["properties"]
