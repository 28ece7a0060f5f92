"""``POST /api/v1/usage``: a file's text in, GPU-hours per month out, bad files a 422 naming
the line, in the API's one error shape."""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path

import numpy as np
import pytest
from django.test import override_settings
from numpy.testing import assert_allclose

from tests.webapp.api.conftest import post_json

FIXTURES = Path(__file__).resolve().parents[2] / "costmodel" / "usage_fixtures"
URL = "/api/v1/usage"


def body(format: str, name: str) -> dict:
    return {"format": format, "content": (FIXTURES / name).read_text(encoding="utf-8")}


def errors(response, status: int) -> list[dict]:
    assert response.status_code == status
    assert response["Content-Type"].startswith("application/json")
    return response.json()["errors"]


def test_it_reads_an_nvidia_smi_log(client):
    response = post_json(client, URL, body("nvidia-smi", "nvidia-smi.csv"))

    assert response.status_code == 200
    answer = response.json()
    assert list(answer) == [
        "months",
        "gpu_hours",
        "observed_hours",
        "gpus",
        "gpu_models",
        "notices",
        "warnings",
    ]
    assert answer["months"] == ["2026-10", "2026-11"]
    # the fixture's hand computation (tests/costmodel/test_usage.py)
    assert_allclose(answer["gpu_hours"], [5.0, 3.4 + 0.8 * 80 / 60], rtol=1e-12)
    assert answer["gpus"] == 4


def test_it_gives_each_notice_as_data_and_as_the_english_sentence_it_always_had(client):
    response = post_json(
        client, URL, body("nvidia-smi", "nvidia-smi.csv"), HTTP_ACCEPT_LANGUAGE="zh-hans"
    )

    answer = response.json()
    assert [n["code"] for n in answer["notices"]] == [
        "row_skipped",
        "gap",
        "month_partly_observed",
        "month_partly_observed",
    ]
    assert answer["notices"][0] == {
        "code": "row_skipped",
        "line": 16,
        "reason": "unreadable_utilization",
        "field_count": None,
        "expected_field_count": None,
    }
    assert answer["notices"][1]["gpu"] == {"host": None, "log": 2, "index": "1"}
    assert answer["notices"][2] == {
        "code": "month_partly_observed",
        "month": "2026-10",
        "observed_hours": 2.0,
        "month_hours": 744.0,
    }
    # the sentences the API gave before the notices existed, in English whatever the
    # request's language: clients that read them keep working
    assert answer["warnings"] == [
        "line 16: skipped, unreadable utilization",
        "gap of 1.00 h without samples of log 2 GPU 1 after line 77 (not observed)",
        "2026-10: partly observed, 2.0 of 744 hours",
        "2026-11: partly observed, 2.0 of 720 hours",
    ]


def test_a_cloud_bill_takes_the_gpus_per_instance_from_the_catalog(client, catalog):
    response = post_json(client, URL, body("aws-cur", "aws-cur.csv"))

    answer = response.json()
    # p4d.24xlarge has 8 A100 40GB in the shipped catalog: 2 h and 0.5 h × 8
    assert_allclose(answer["gpu_hours"], [16.0, 4.0], rtol=1e-12)
    assert answer["gpu_models"] == ["NVIDIA A100 40GB SXM4"]
    assert answer["warnings"][0].startswith("m5.xlarge: 2 instance-hours not counted")


def test_a_bad_file_is_a_422_on_content_naming_the_line(client):
    content = "2026/11/02 10:00:00, 0, 10\n2026/11/02 10:05:00, 0, 140\n"

    response = post_json(client, URL, {"format": "nvidia-smi", "content": content})

    assert errors(response, 422) == [
        {"field": "content", "message": "line 2: utilization 140 % is outside 0–100"}
    ]


def test_a_job_of_more_gpus_than_any_machine_is_a_422_naming_line_and_field(client):
    content = (
        "JobID|Start|End|AllocTRES\n"
        "1|2026-10-01T00:00:00|2026-10-01T01:00:00|gres/gpu=99999999999999999999999\n"
    )

    response = post_json(client, URL, {"format": "slurm-sacct", "content": content})

    assert errors(response, 422) == [
        {
            "field": "content",
            "message": "line 2: AllocTRES gres/gpu=99999999999999999999999 is more GPUs than "
            "any machine holds (at most 1,000,000 per job): correct the export or leave the "
            "job out",
        }
    ]


@pytest.mark.parametrize("content", ["", "   \n"])
def test_an_empty_file_is_a_422(client, content):
    response = post_json(client, URL, {"format": "slurm-sacct", "content": content})

    assert errors(response, 422) == [{"field": "content", "message": "is empty"}]


def test_binary_content_is_a_422(client):
    response = post_json(client, URL, {"format": "nvidia-smi", "content": "PK\u0003\u0004\u0000"})

    assert errors(response, 422)[0]["field"] == "content"


def test_an_unknown_format_names_the_field(client):
    response = post_json(client, URL, {"format": "excel", "content": "x"})

    [problem] = errors(response, 422)
    assert problem["field"] == "format"
    assert "nvidia-smi, dcgm-prometheus, slurm-sacct, aws-cur" in problem["message"]


def test_a_missing_content_and_an_unknown_field_are_named(client):
    response = post_json(client, URL, {"format": "nvidia-smi", "file": "x"})

    fields = {e["field"] for e in errors(response, 422)}
    assert fields == {"content", "file"}


def test_a_body_that_is_not_json_is_a_400(client):
    response = post_json(client, URL, "{not json")

    assert errors(response, 400)[0]["field"] == "(body)"


def test_a_log_of_thousands_of_timestamps_is_not_taken_for_thousands_of_keys(client):
    # every timestamp holds two colons: 2 000 samples, 4 000 colons, all inside one string
    times = np.datetime64("2026-11-02T00:00:00") + np.arange(2000) * np.timedelta64(60, "s")
    log = "".join(f"{t}, 0, 50\n" for t in np.datetime_as_string(times))

    response = post_json(client, URL, {"format": "nvidia-smi", "content": log})

    assert response.status_code == 200, response.content
    # 2 000 samples of 60 s at 50 %
    assert_allclose(sum(response.json()["gpu_hours"]), 2000 * 60 / 3600 * 0.5, rtol=1e-12)


def test_a_body_of_more_keys_than_the_limit_is_still_refused(client):
    extra = ", ".join(f'"k{i}": "10:00:00"' for i in range(1500))
    body = '{"format": "nvidia-smi", "content": "x", ' + extra + "}"

    assert errors(post_json(client, URL, body), 413) == [
        {"field": "(body)", "message": "holds more than 1000 keys"}
    ]


def test_a_body_over_the_limit_is_refused_up_front_naming_the_limit(client):
    with override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000):
        response = post_json(client, URL, {"format": "nvidia-smi", "content": "x" * 2000})

    [problem] = errors(response, 413)
    assert "1000 bytes" in problem["message"]


def test_the_endpoint_and_its_request_are_in_the_openapi_document(client):
    document = client.get("/api/v1/openapi.json").json()

    operation = document["paths"]["/api/v1/usage"]["post"]
    assert operation["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/UsageRequest"
    }
    request = document["components"]["schemas"]["UsageRequest"]
    assert request["properties"]["format"]["enum"] == [
        "nvidia-smi",
        "dcgm-prometheus",
        "slurm-sacct",
        "aws-cur",
        "focus",
    ]
    assert set(operation["responses"]) >= {"200", "413", "422"}
    assert operation["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/UsageAnswer"
    }
    schemas = document["components"]["schemas"]
    answer = schemas["UsageAnswer"]
    assert {"observed_hours", "warnings", "notices"} <= set(answer["properties"])
    notices = answer["properties"]["notices"]["items"]
    assert notices["discriminator"]["propertyName"] == "code"
    assert set(notices["discriminator"]["mapping"]) == {
        "row_skipped",
        "more_rows_skipped",
        "gap",
        "more_gaps",
        "single_sample_gpus",
        "samples_skipped",
        "jobs_without_gpu",
        "gpus_without_utilization",
        "mig_gpus_skipped",
        "job_steps_skipped",
        "unfinished_jobs_skipped",
        "instance_type_unknown",
        "month_not_observed",
        "month_partly_observed",
    }
    row = schemas["RowSkipped"]
    assert row["properties"]["reason"]["enum"] == [
        "field_count",
        "unreadable_timestamp",
        "unreadable_utilization",
        "unreadable_date_or_amount",
    ]
    assert {"code", "line", "reason"} <= set(row["required"])
    assert json.dumps(schemas["Gap"]).count("GpuRef") == 1


def test_content_nested_100_000_deep_is_a_422_naming_the_place_not_a_500(client):
    response = post_json(client, URL, {"format": "dcgm-prometheus", "content": "[" * 100_000})

    [problem] = errors(response, 422)
    assert problem["field"] == "content"
    assert problem["message"].startswith("line 1 column 33: nested more than 32 levels deep")


def test_a_400_digit_sample_value_is_a_422_naming_the_place(client):
    content = (
        '{"status": "success", "data": {"resultType": "matrix", "result": '
        '[{"metric": {"__name__": "DCGM_FI_DEV_GPU_UTIL"}, "values": [[1730419200, '
        + "9" * 400
        + "]]}]}}"
    )
    response = post_json(client, URL, {"format": "dcgm-prometheus", "content": content})

    [problem] = errors(response, 422)
    assert problem["field"] == "content"
    # the number starts after the 139 characters before it
    assert problem["message"].startswith("line 1 column 140: a number too long or too large")


def test_the_key_bound_applies_to_the_content_as_well_as_the_body(client):
    content = "[" + ",".join(['{"k": 1}'] * 60_000) + "]"
    response = post_json(client, URL, {"format": "dcgm-prometheus", "content": content})

    [problem] = errors(response, 422)
    assert problem["message"].startswith("holds 60,000 keys, more than the limit of 50,000")


def test_a_gzip_file_in_base64_is_read(client):
    data = gzip.compress((FIXTURES / "nvidia-smi.csv").read_bytes())
    content = base64.b64encode(data).decode()

    response = post_json(
        client, URL, {"format": "nvidia-smi", "content": content, "encoding": "base64"}
    )

    assert response.status_code == 200, response.content
    # the fixture's hand computation (tests/costmodel/test_usage.py)
    assert_allclose(response.json()["gpu_hours"], [5.0, 3.4 + 0.8 * 80 / 60], rtol=1e-12)


def test_a_gzip_bomb_is_refused_at_the_body_limit(client):
    content = base64.b64encode(gzip.compress(b"0" * 3_000_000)).decode()
    with override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1_000_000):
        response = post_json(
            client, URL, {"format": "nvidia-smi", "content": content, "encoding": "base64"}
        )

    [problem] = errors(response, 422)
    assert problem["message"].startswith(
        "the gzip archive inflates to more than the limit of 1,000,000 bytes"
    )


def test_content_that_is_not_base64_is_named(client):
    response = post_json(
        client, URL, {"format": "nvidia-smi", "content": "not base64!", "encoding": "base64"}
    )

    assert errors(response, 422) == [
        {"field": "content", "message": "is not base64 (encoding is base64)"}
    ]


def test_headerless_sacct_reads_with_the_field_order_given(client):
    content = (FIXTURES / "xdmod-sacct.log").read_text(encoding="utf-8")
    response = post_json(
        client, URL, {"format": "slurm-sacct", "content": content, "columns": "xdmod"}
    )

    assert response.status_code == 200, response.content
    # hand computation in tests/costmodel/test_usage_slurm.py: 15 months, no GPU-hours
    answer = response.json()
    assert len(answer["months"]) == 15
    assert {"code": "jobs_without_gpu", "count": 3} in answer["notices"]


def test_a_field_order_without_a_needed_field_is_a_422_on_columns(client):
    response = post_json(
        client,
        URL,
        {"format": "slurm-sacct", "content": "1|2026-10-01|x\n", "columns": "jobid,start"},
    )

    [problem] = errors(response, 422)
    assert problem["field"] == "columns"
    assert problem["message"].startswith("has no end, alloctres")


def test_a_headerless_nvidia_smi_log_reads_with_its_field_list(client):
    content = (FIXTURES / "omniopt-nvidia-smi-noheader.csv").read_text(encoding="utf-8")
    fields = "timestamp,name,pci.bus_id,driver_version,pstate,pcie.link.gen.max,"
    fields += "pcie.link.gen.current,temperature.gpu,utilization.gpu,utilization.memory,"
    fields += "memory.total,memory.free,memory.used"

    response = post_json(
        client, URL, {"format": "nvidia-smi", "content": content, "columns": fields}
    )

    assert response.status_code == 200, response.content
    # hand computation in tests/costmodel/test_usage_nvidia_smi.py: 1.31067 GPU-seconds
    assert_allclose(response.json()["gpu_hours"], [1.31067 / 3600], rtol=1e-6)
    assert response.json()["gpus"] == 3


def test_a_focus_bill_takes_every_providers_gpus_per_instance_from_the_catalog(client, catalog):
    # an Azure row in FOCUS: 24 h of Standard_NC24ads_A100_v4 (1 A100 in the shipped
    # catalog) and an AWS row: 2 h of p4d.24xlarge (8 A100 40GB) → 24 + 16 GPU-h
    content = (
        "ChargePeriodStart,ChargePeriodEnd,ChargeCategory,ConsumedQuantity,ConsumedUnit,"
        "ChargeDescription\n"
        "2026-10-01T00:00:00+00:00,2026-10-02T00:00:00+00:00,Usage,24,Hours,"
        "Virtual Machines NCads A100 v4 Series - NC24ads A100 v4 - US East\n"
        "2026-10-03T00:00:00Z,2026-10-03T02:00:00Z,Usage,2,Hours,"
        "$32.77 per On Demand Linux p4d.24xlarge Instance Hour\n"
    )
    response = post_json(client, URL, {"format": "focus", "content": content})

    assert response.status_code == 200, response.content
    assert_allclose(response.json()["gpu_hours"], [24.0 + 16.0], rtol=1e-12)
