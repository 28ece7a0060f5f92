"""Training jobs in the planner: described runs become the engine's jobs workload, the page shows
the engine's time to result, and a model the box cannot hold is refused with a preset that can."""

import io
import zipfile
from urllib.parse import parse_qs, urlsplit

import pytest
from django.urls import reverse

from costmodel import compare
from costmodel.training import (
    DEFAULT_MFU,
    dataset_reference_gpu_hours,
    transformer_reference_gpu_hours,
)
from webapp import formatting
from webapp.scenarios.models import SavedScenario

from .helpers import link_of
from .test_planner_form import form_data

# Pages built from the shipped catalog, checked for their figures and words: these tests read
# the database and write nothing (tests/conftest.py fails one that writes), so they run once, in
# the SQLite pass; the few that save or cache are marked database and run on PostgreSQL too.
pytestmark = pytest.mark.reads_only

HOME = reverse("planner:home")
BUDGET = "budget-rtx4060ti"  # 1 × RTX 4060 Ti 16GB


def jobs_data(client, *rows, **changes):
    """The form as opened, with a training jobs workload of ``rows`` (dicts keyed like
    ``parameters_billion``), on the budget box, the ResNet-50 benchmark, an on-demand offering."""
    chosen = {
        "preset": BUDGET,
        "workload_kind": "jobs",
        "benchmark": "resnet50-fp16",
        "cloud_offering": "aws-p4de-24xlarge",
    }
    data = form_data(client, **{**chosen, **changes})
    for i, row in enumerate(rows, start=1):
        data.update({f"job_{key}_{i}": value for key, value in row.items()})
    return data


ADAPTER_7B = {
    "name": "7B adapter fine-tune",
    "kind": "transformer",
    "parameters_billion": "7",
    "tokens_billion": "2",
    "method": "adapter",
    "precision": "int8",
    "runs": "2",
}
FULL_7B = {**ADAPTER_7B, "name": "7B full fine-tune", "method": "full", "precision": "bf16"}
IMAGENET = {
    "name": "ResNet-50 on ImageNet",
    "kind": "dataset",
    "samples": "1281167",
    "epochs": "90",
    "runs": "1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0",
}
ONE_A100_80GB = {"cloud_offering": "runpod-a100-80gb-community"}
"""An instance of one 80 GB GPU: too small for a 7B full fine-tune (159.5 GB)."""
TYPED = {"name": "Evaluation sweep", "kind": "gpu_hours", "reference_gpu_hours": "120", "runs": "4"}


def test_described_jobs_become_the_engines_jobs_workload(client, shipped_catalog):
    response = client.post(HOME, jobs_data(client, ADAPTER_7B, IMAGENET, TYPED))
    assert response.status_code == 302, response.context["form"].errors
    workload = link_of(response["Location"]).scenario.workload
    assert workload.kind == "jobs"
    adapter, imagenet, typed = workload.jobs
    # the reference GPU of the benchmark is the A100 80GB PCIe: 312 TFLOPS, 1 527 images/s
    assert adapter.name == "7B adapter fine-tune"
    assert adapter.reference_gpu_hours == pytest.approx(
        transformer_reference_gpu_hours(7e9, 2e9, "adapter", 312.0, DEFAULT_MFU), rel=1e-12
    )
    assert adapter.reference_gpu_hours == pytest.approx(124.64, abs=0.005)  # the methodology's
    assert adapter.runs_per_month == 2
    assert imagenet.reference_gpu_hours == pytest.approx(
        dataset_reference_gpu_hours(1281167, 90, 1527.0), rel=1e-12
    )
    assert imagenet.runs_per_month == [1, 0, 0] * 4
    assert (typed.reference_gpu_hours, typed.runs_per_month) == (120, 4)


def test_the_results_page_shows_the_engines_time_to_result(client, shipped_catalog):
    response = client.post(HOME, jobs_data(client, ADAPTER_7B, TYPED))
    scenario = link_of(response["Location"]).scenario
    page = client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="en")
    html = page.content.decode()
    engine = compare(scenario)  # the engine's answer for the very scenario of the page
    for i, job in enumerate(engine["jobs"]):
        row = html[html.index(f'<tr data-job="{i}"') :]
        row = row[: row.index("</tr>")]
        assert job["name"] in row
        assert formatting.number(job["build_hours_per_run"], 1) in row
        assert formatting.number(job["rent_instance_hours_per_run"], 1) in row
    savings = html[html.index('id="figure-savings"') :]
    savings = savings[savings.index(">") + 1 : savings.index("</dd>")]
    assert savings == formatting.money(engine["savings"], scenario.currency)


def test_a_model_that_fits_nothing_the_plan_may_use_is_refused_with_the_preset_that_can(
    client, shipped_catalog
):
    data = jobs_data(client, FULL_7B, **ONE_A100_80GB)
    response = client.post(HOME, data, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200  # no plan, no results page
    form = response.context["form"]
    # 7 B × 18 bytes × 1.25 + 2 GB = 159.5 GB (the advisor's rule) against 1 × 16 GB
    [message] = form.errors["job_parameters_billion_1"]
    assert "needs about 159.5 GB" in message and "this box has 16 GB" in message
    assert "the cloud instance 80 GB. Nothing this plan may use holds it." in message
    # no offering of the China market holds it (all of one GPU): none is named
    assert form.memory_refusal["offering"] is None
    offer = form.memory_refusal["offer"]
    assert offer["slug"] == "multi-8x-rtx4090"  # 8 × 24 GB, the least memory that holds it
    html = response.content.decode()
    assert 'id="memory-next-preset"' in html

    reopened = client.get(offer["url"]).context["form"]
    assert reopened.initial["preset"] == "multi-8x-rtx4090"
    assert reopened.initial["workload_kind"] == "jobs"
    assert reopened.initial["job_parameters_billion_1"] == 7
    assert reopened.initial["job_method_1"] == "full"
    query = parse_qs(urlsplit(offer["url"]).query)
    assert "csrfmiddlewaretoken" not in query and "build__capex" not in query


QUARTERLY_FULL_7B = {**FULL_7B, "name": "7B full fine-tune", "runs": "1, 0, 0" + ", 1, 0, 0" * 3}
LORA_7B = {**ADAPTER_7B, "name": "7B LoRA"}


def test_a_job_the_box_cannot_hold_is_rented_by_the_build_plan_in_words(client, shipped_catalog):
    data = jobs_data(
        client,
        LORA_7B,
        QUARTERLY_FULL_7B,
        preset="multi-4x-rtx4090",  # 4 × 24 GB = 96 GB
        currency="USD",
        cloud_offering="lambda-8x-a100-80gb-sxm4",  # 8 × 80 GB = 640 GB
    )
    response = client.post(HOME, data, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 302, response.context["form"].errors
    scenario = link_of(response["Location"]).scenario
    lora, full = scenario.workload.jobs
    assert full.memory_gb == pytest.approx(159.5) and lora.memory_gb < 96
    assert scenario.build.gpu_memory_gb == 24 and scenario.rent.gpu_memory_gb == 80
    engine = compare(scenario)
    assert [job["placement"] for job in engine["jobs"]] == ["box", "rent"]
    assert sum(engine["build"]["offload"]) > 0  # the build plan pays for the rented runs
    html = client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<tr data-job="1" data-placement="rent">' in html
    assert '<tr data-job="0" data-placement="box">' in html
    assert (
        "“7B full fine-tune” is rented: it needs 159.5 GB of GPU memory; this box has 96 GB."
        in html.replace("&ldquo;", "“").replace("&rdquo;", "”")
    )
    assert "data-verdict=" in html
    zh = client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "改为租用：它需要 159.5 GB 显存，这台机器只有 96 GB" in zh


def test_the_same_run_on_the_offered_preset_gets_a_verdict(client, shipped_catalog):
    response = client.post(HOME, jobs_data(client, FULL_7B, preset="multi-8x-rtx4090"))
    assert response.status_code == 302, response.context["form"].errors


def test_an_adapter_run_with_8_bit_base_weights_fits_the_budget_box(client, shipped_catalog):
    bf16 = client.post(HOME, jobs_data(client, {**ADAPTER_7B, "precision": "bf16"}))
    # 19.5 GB: more than the 16 GB box holds, so the build plan rents it
    [job] = link_of(bf16["Location"]).scenario.workload.jobs
    assert job.memory_gb == pytest.approx(19.5)
    assert compare(link_of(bf16["Location"]).scenario)["jobs"][0]["placement"] == "rent"
    int8 = client.post(HOME, jobs_data(client, ADAPTER_7B))  # 7 × 1 × 1.25 + 2 < 12 GB floor
    assert compare(link_of(int8["Location"]).scenario)["jobs"][0]["placement"] == "box"


@pytest.mark.parametrize(
    ("row", "field", "message"),
    [
        ({**ADAPTER_7B, "runs": "1, 2"}, "job_runs_1", "or twelve separated by commas"),
        ({**ADAPTER_7B, "runs": ""}, "job_runs_1", "or twelve separated by commas"),
        ({**ADAPTER_7B, "tokens_billion": ""}, "job_tokens_billion_1", "for this kind of job"),
        ({**ADAPTER_7B, "parameters_billion": "0"}, "job_parameters_billion_1", "above 0"),
        ({**IMAGENET, "epochs": ""}, "job_epochs_1", "for this kind of job"),
    ],
)
def test_a_job_typed_wrong_is_named_beside_its_field(client, shipped_catalog, row, field, message):
    response = client.post(HOME, jobs_data(client, row), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    assert message in " ".join(response.context["form"].errors[field])


def test_a_jobs_workload_needs_a_job(client, shipped_catalog):
    response = client.post(HOME, jobs_data(client), HTTP_ACCEPT_LANGUAGE="en")
    assert response.context["form"].errors["job_name_1"] == ["Describe at least one job."]


def test_changing_the_inputs_reopens_the_jobs_as_described(client, shipped_catalog):
    response = client.post(HOME, jobs_data(client, ADAPTER_7B, IMAGENET))
    code = urlsplit(response["Location"]).path.rstrip("/").rsplit("/", 1)[-1]
    form = client.get(HOME, {"from": code}).context["form"]
    assert form.initial["workload_kind"] == "jobs"
    assert form.initial["job_name_1"] == "7B adapter fine-tune"
    assert form.initial["job_precision_1"] == "int8"
    assert form.initial["job_kind_2"] == "dataset"
    assert form.initial["job_runs_2"] == "1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0"
    # sent back as shown, it is the same plan
    again = client.post(HOME, form_data_of(form))
    assert link_of(again["Location"]).scenario == link_of(response["Location"]).scenario


def form_data_of(form) -> dict:
    data = {}
    for name, field in form.fields.items():
        value = form.initial.get(name, field.initial)
        if value is None or value is False:
            continue
        data[name] = "on" if value is True else value
    return data


def test_a_jobs_plan_with_a_commitment_commits_to_the_engines_cheapest_count(
    client, shipped_catalog
):
    from costmodel.commitment import commitment_table

    data = jobs_data(
        client, {**ADAPTER_7B, "runs": "4"}, cloud_offering="gcp-a3-highgpu-1g-commit-1y"
    )
    response = client.post(HOME, data)
    assert response.status_code == 302, response.context["form"].errors
    scenario = link_of(response["Location"]).scenario
    assert scenario.workload.kind == "jobs"
    best = commitment_table(scenario)["best_committed_instances"]
    assert scenario.rent.committed_instances == best
    answer = client.get(reverse("planner:committed-default"), data).json()
    assert answer["committed_instances"] == best


def test_more_runs_than_eight_boxes_do_are_refused_in_words(client, shipped_catalog):
    response = client.post(
        HOME, jobs_data(client, {**ADAPTER_7B, "runs": "40"}), HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    [message] = response.context["form"].errors["workload_kind"]
    assert message.startswith("第 1 个月")  # the engine's code and figures, worded here
    assert "8" in message


@pytest.mark.database  # it writes: on both databases
def test_a_jobs_plan_has_its_csv_analysis_and_scenario_json(client, shipped_catalog):
    response = client.post(HOME, jobs_data(client, ADAPTER_7B, IMAGENET))
    code = urlsplit(response["Location"]).path.rstrip("/").rsplit("/", 1)[-1]
    scenario = link_of(response["Location"]).scenario
    csv = client.get(reverse("planner:results-csv", args=[code]))
    assert csv.status_code == 200
    finance = client.get(reverse("planner:results-zip", args=[code]), HTTP_ACCEPT_LANGUAGE="en")
    with zipfile.ZipFile(io.BytesIO(finance.content)) as archive:
        assumptions = archive.read("assumptions.csv").decode("utf-8-sig")
    assert "Workload,training jobs" in assumptions  # the workload, in words
    analysis = client.get(reverse("planner:results-analysis", args=[code]))
    assert analysis.status_code == 200
    rerun = client.get(reverse("planner:results-scenario", args=[code])).json()
    assert compare(scenario)["savings"] == pytest.approx(
        client.post(
            "/api/v1/compare",
            rerun,
            content_type="application/json",
        ).json()["savings"],
        rel=1e-12,
    )


def test_without_the_catalog_a_transformer_job_asks_for_gpu_hours(client, shipped_catalog):
    data = jobs_data(client, ADAPTER_7B)
    data.pop("use_catalog")
    response = client.post(HOME, data, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    [message] = response.context["form"].errors["job_kind_1"]
    assert "describe this job in reference GPU-hours" in message
    typed_data = jobs_data(client, TYPED)
    typed_data.pop("use_catalog")
    typed = client.post(HOME, typed_data)
    assert typed.status_code == 302, typed.context["form"].errors


def test_a_custom_box_holds_what_its_gpu_cards_hold_together(client, shipped_catalog):
    parts = {
        "part__gpu-rtx-4090": "2",
        "part__cpu-desktop-16c": "1",
        "part__psu-silverstone-hela-2050": "1",
    }
    data = jobs_data(
        client, FULL_7B, box="custom", scaling_efficiency="90", **parts, **ONE_A100_80GB
    )
    data.pop("preset")
    response = client.post(HOME, data, HTTP_ACCEPT_LANGUAGE="en")
    [message] = response.context["form"].errors["job_parameters_billion_1"]
    assert "needs about 159.5 GB" in message and "this box has 48 GB" in message  # 2 × 24 GB
    small = {**FULL_7B, "parameters_billion": "1.5"}  # 1.5 × 18 × 1.25 + 2 = 35.75 GB
    data.update({f"job_{key}_1": value for key, value in small.items()})
    assert client.post(HOME, data).status_code == 302


def test_the_refusal_speaks_chinese_to_a_chinese_browser(client, shipped_catalog):
    data = jobs_data(client, FULL_7B, **ONE_A100_80GB)
    response = client.post(HOME, data, HTTP_ACCEPT_LANGUAGE="zh-hans")
    html = response.content.decode()
    assert "训练约需 159.5 GB 显存；这台机器有 16 GB，云实例有 80 GB" in html
    assert "用这个预设打开规划器" in html


@pytest.mark.database  # it writes: on both databases
def test_a_rerun_at_todays_prices_keeps_what_the_jobs_were(client, shipped_catalog):
    response = client.post(HOME, jobs_data(client, ADAPTER_7B, TYPED))
    code = response["Location"].removeprefix("/r/")
    client.post(reverse("planner:save"), {"code": code, "name": "two jobs"})
    old = SavedScenario.objects.get()

    client.post(reverse("planner:saved-rerun", args=[old.pk]))

    new = SavedScenario.objects.exclude(pk=old.pk).get()
    roles = {"training job", "reference GPU peak"}
    kept = [item for item in new.provenance if item["role"] in roles]
    assert [item["label"] for item in kept] == [
        item["label"] for item in old.provenance if item["role"] in roles
    ]
    assert [item["label"] for item in kept if item["role"] == "training job"] == [
        "7B adapter fine-tune",
        "Evaluation sweep",
    ]
    # the catalog's rows are looked up again, not copied beside the new ones
    assert len(new.provenance) == len(old.provenance)
    # the memory the adapter job needs of the box's, checked when planned, is still shown
    page = client.get(reverse("planner:saved-detail", args=[new.pk]), HTTP_ACCEPT_LANGUAGE="en")
    assert "about 12 GB of 16 GB" in page.content.decode()
