"""The "Use measured usage" pages through the test client: upload, months, profile, verdict."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from numpy.testing import assert_allclose

from webapp.catalog.models import GpuThroughput
from webapp.planner.fields import DEFAULT_COST_OF_CAPITAL
from webapp.planner.permalink import decode
from webapp.scenarios.models import SavedScenario

# Pages built from the shipped catalog, checked for their figures and words: these tests read
# the database and write nothing (tests/conftest.py fails one that writes), so they run once, in
# the SQLite pass; the few that save or cache are marked database and run on PostgreSQL too.
pytestmark = pytest.mark.reads_only

FIXTURES = Path(__file__).resolve().parents[2] / "costmodel" / "usage_fixtures"
URL = "/usage/"


def upload(client, format: str, content: bytes, name: str = "log.csv"):
    return client.post(URL, {"format": format, "file": SimpleUploadedFile(name, content)})


def fixture_bytes(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def hidden_usage(response) -> str:
    return re.search(r'name="usage" value="(?P<value>[^"]+)"', response.content.decode())["value"]


def test_the_planner_links_to_the_page_and_it_states_the_size_limit(client, shipped_catalog):
    home = client.get("/")
    assert 'href="/usage/"' in home.content.decode()

    page = client.get(URL).content.decode()
    assert "Files up to 16 MB" in page


def test_a_log_shows_its_months_and_preselects_the_gpu_it_names(client, shipped_catalog):
    response = upload(client, "nvidia-smi", fixture_bytes("nvidia-smi.csv"))

    assert response.status_code == 200
    page = response.content.decode()
    assert "4 GPUs seen" in page
    assert 'id="usage-data"' in page
    chart = response.context["chart"]
    assert chart["months"] == ["2026-10", "2026-11"]
    assert_allclose(chart["gpu_hours"], [5.0, 3.4 + 0.8 * 80 / 60], rtol=1e-12)
    assert response.context["form"].initial["measured_gpu"] == "rtx-4090"
    assert "line 16: skipped, unreadable utilization" in page


def test_a_chinese_upload_shows_its_notes_in_chinese(client, shipped_catalog):
    response = client.post(
        URL,
        {
            "format": "nvidia-smi",
            "file": SimpleUploadedFile("log.csv", fixture_bytes("nvidia-smi.csv")),
        },
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )

    assert response.status_code == 200
    page = response.content.decode()
    notes = re.search(r'<details id="usage-warnings".*?</details>', page, re.S)[0]
    assert "关于文件的 4 条说明" in notes
    assert "第 16 行：已跳过，利用率无法读取" in notes
    assert "第 2 段日志的 GPU 1 在第 77 行之后有 1.00 小时没有采样（未观测）" in notes
    assert "2026-10：部分观测，744 小时中观测了 2.0 小时" in notes
    assert "2026-11：部分观测，720 小时中观测了 2.0 小时" in notes
    for english in ("line", "skipped", "unreadable", "gap of", "observed", "hours", 'lang="en"'):
        assert english not in notes


def test_the_profile_and_its_verdict_follow_from_the_measured_gpu_hours(client, shipped_catalog):
    months = upload(client, "slurm-sacct", fixture_bytes("slurm-sacct.txt"), "sacct.txt")
    response = client.post(
        "/usage/profile",
        {
            "usage": hidden_usage(months),
            "measured_gpu": "rtx-4090",
            "growth_percent": "0",
            "preset": "entry-rtx4090",
            "benchmark": "resnet50-fp16",
            "cloud_offering": "aliyun-gn7e-c16g1-4xlarge",
            "currency": "CNY",
            "horizon_months": "24",
        },
    )

    assert response.status_code == 200
    link = decode(response.context["results_url"].removeprefix("/r/"))
    profile = link.scenario.workload.monthly_utilization
    # The plan starts in December 2026 (after the log's November). The RTX 4090 measured
    # is the box's own GPU, so u = GPU-hours scaled to the whole month / (GPUs × 730).
    # October, fully observed: 404 / 730 (plan month 11, 2027-10).
    gpus = link.scenario.build.gpu_count
    assert_allclose(profile[10], 404 / (gpus * 730), rtol=1e-9)
    # September: 124 GPU-h in 62 of 720 h → 1 440 over the month (plan month 10).
    assert_allclose(profile[9], 124 * 720 / 62 / (gpus * 730), rtol=1e-9)
    # November: 48 GPU-h in 48 of 720 h → 720 (plan month 12).
    assert_allclose(profile[11], 720 / (gpus * 730), rtol=1e-9)
    # The nine other months: the average of the three.
    average = (profile[9] + profile[10] + profile[11]) / 3
    assert_allclose(profile[:9], [average] * 9, rtol=1e-9)
    assert response.context["any_filled"]

    results = client.get(response.context["results_url"]).content.decode()
    assert "Measured usage: Slurm accounting" in results


def test_the_measured_gpus_throughput_converts_the_work(client, shipped_catalog):
    months = upload(client, "slurm-sacct", fixture_bytes("slurm-sacct.txt"), "sacct.txt")
    data = {
        "usage": hidden_usage(months),
        "measured_gpu": "a100-80gb-pcie",
        "preset": "entry-rtx4090",
        "benchmark": "resnet50-fp16",
        "cloud_offering": "aliyun-gn7e-c16g1-4xlarge",
        "currency": "CNY",
        "horizon_months": "24",
    }
    response = client.post("/usage/profile", data)

    link = decode(response.context["results_url"].removeprefix("/r/"))
    a100 = GpuThroughput.objects.get(
        gpu_model__slug="a100-80gb-pcie", benchmark__slug="resnet50-fp16"
    )
    build = link.scenario.build
    expected = (
        404 * float(a100.relative_throughput) / (build.gpu_count * build.gpu_throughput * 730)
    )
    assert_allclose(link.scenario.workload.monthly_utilization[10], expected, rtol=1e-9)


def test_growth_compounds_from_the_measured_month(client, shipped_catalog):
    months = upload(client, "slurm-sacct", fixture_bytes("slurm-sacct.txt"), "sacct.txt")
    data = {
        "usage": hidden_usage(months),
        "measured_gpu": "rtx-4090",
        "preset": "entry-rtx4090",
        "benchmark": "resnet50-fp16",
        "cloud_offering": "aliyun-gn7e-c16g1-4xlarge",
        "currency": "CNY",
        "horizon_months": "24",
    }
    flat = client.post("/usage/profile", {**data, "growth_percent": "0"})
    grown = client.post("/usage/profile", {**data, "growth_percent": "50"})

    def profile(response):
        return decode(response.context["results_url"].removeprefix("/r/")).scenario.workload

    # October 2026 lands on October 2027: twelve months of 50 % growth
    assert_allclose(
        profile(grown).monthly_utilization[10],
        profile(flat).monthly_utilization[10] * 1.5,
        rtol=1e-9,
    )


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "The file could not be read: is empty"),
        (b"PK\x03\x04\x00zip archive", "line 1: is not text"),
        (b"2026/11/02 10:00:00, 0, 10\n2026/11/02 10:05:00, 0, 140\n", "line 2: utilization 140"),
        (
            b"2026/11/02 10:05:00, 0, 10\n2026/11/02 10:00:00, 0, 10\n",
            "line 2: timestamp is earlier",
        ),
    ],
)
def test_a_bad_file_is_explained_beside_the_field(client, shipped_catalog, content, expected):
    response = upload(client, "nvidia-smi", content)

    assert response.status_code == 400
    assert expected in response.content.decode()


def test_a_bad_file_is_explained_in_chinese(client, shipped_catalog):
    content = b"2026/11/02 10:00:00, 0, 10\n2026/11/02 10:05:00, 0, 140\n"
    response = client.post(
        URL,
        {"format": "nvidia-smi", "file": SimpleUploadedFile("log.csv", content)},
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )

    assert response.status_code == 400
    [message] = response.context["upload"].errors["file"]
    assert message == "无法读取该文件：第 2 行：利用率 140 % 超出 0–100 的范围"


def test_absurd_gpus_are_refused_on_upload_not_sent_on_to_ask_for_a_bigger_box(
    client, shipped_catalog
):
    text = (
        b"JobID|Start|End|AllocTRES\n"
        b"1|2026-10-01T00:00:00|2026-10-01T01:00:00|gres/gpu=99999999999999999999999\n"
    )
    response = client.post(
        URL,
        {"format": "slurm-sacct", "file": SimpleUploadedFile("sacct.txt", text)},
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )

    assert response.status_code == 400
    [message] = response.context["upload"].errors["file"]
    assert message == (
        "无法读取该文件：第 2 行：AllocTRES gres/gpu=99999999999999999999999 的 GPU 数超过任何"
        "机器所能容纳的数量（每个作业最多 1,000,000 块）：请更正导出的数据，或删去该作业"
    )


def test_sacct_without_alloctres_names_the_line(client, shipped_catalog):
    text = b"JobID|Start|End|AllocCPUS\n1|2026-10-01T00:00:00|2026-10-01T01:00:00|4\n"
    response = upload(client, "slurm-sacct", text)

    assert response.status_code == 400
    assert "line 1: the header has no alloctres column" in response.content.decode()


def test_a_file_in_another_format_is_explained(client, shipped_catalog):
    response = upload(client, "dcgm-prometheus", fixture_bytes("aws-cur.csv"))

    assert response.status_code == 400
    assert "is not JSON" in response.content.decode()


def test_an_upload_over_the_limit_is_refused_naming_the_limit(client, shipped_catalog):
    with override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1024 * 1024):
        response = upload(client, "nvidia-smi", b"x" * (2 * 1024 * 1024))

    assert response.status_code == 413
    assert "larger than the limit of 1 MB" in response.content.decode()


def test_altered_months_are_refused(client, shipped_catalog):
    response = client.post(
        "/usage/profile",
        {
            "usage": "tampered",
            "measured_gpu": "rtx-4090",
            "preset": "entry-rtx4090",
            "benchmark": "resnet50-fp16",
            "cloud_offering": "aliyun-gn7e-c16g1-4xlarge",
            "currency": "CNY",
            "horizon_months": "24",
        },
    )

    assert response.status_code == 400
    assert "upload the file again" in response.content.decode()


def test_the_page_in_chinese(client, shipped_catalog):
    response = client.get(URL, HTTP_ACCEPT_LANGUAGE="zh-hans")

    assert "使用实测用量" in response.content.decode()


def row_used(link, role: str) -> str:
    """The slug of the catalog row a plan used in ``role``."""
    [item] = [item for item in link.provenance if item["role"] == role]
    return item["natural_key"][0]


def test_the_tariff_and_hosting_are_left_to_the_catalog_and_the_page_says_what_it_chose(
    client, shipped_catalog
):
    months = upload(client, "slurm-sacct", fixture_bytes("slurm-sacct.txt"), "sacct.txt")
    data = {
        "usage": hidden_usage(months),
        "measured_gpu": "rtx-4090",
        "preset": "entry-rtx4090",
        "benchmark": "resnet50-fp16",
        "cloud_offering": "aliyun-gn7e-c16g1-4xlarge",
        "horizon_months": "24",
    }
    for currency, tariff in (("CNY", "cn-business-average"), ("USD", "us-va-commercial")):
        response = client.post("/usage/profile", {**data, "currency": currency})
        link = decode(response.context["results_url"].removeprefix("/r/"))
        assert link.selection["tariff"] is None and link.selection["hosting"] is None
        assert row_used(link, "electricity") == tariff  # the currency's region
        html = response.content.decode()
        assert 'id="chosen-for-you"' in html and 'data-chosen="tariff"' in html
        assert f'href="/?from={response.context["results_url"][3:]}"' in html  # to change them
    # a multi-GPU server runs in colocation, as the planner would place it, not at a desk
    response = client.post(
        "/usage/profile", {**data, "preset": "multi-4x-rtx4090", "currency": "USD"}
    )
    link = decode(response.context["results_url"].removeprefix("/r/"))
    assert row_used(link, "hosting") == "us-colo-wholesale"
    assert link.scenario.build.hosting_monthly > 0


def test_more_work_than_eight_boxes_asks_for_a_bigger_box(client, shipped_catalog):
    # The bill: 8 A100s busy for the 2 observed hours of October, scaled to the whole
    # month, is about 9.6 RTX 4090 boxes' work: refused beside the box, not computed.
    months = upload(client, "aws-cur", fixture_bytes("aws-cur.csv"), "cur.csv")
    response = client.post(
        "/usage/profile",
        {
            "usage": hidden_usage(months),
            "measured_gpu": "a100-40gb-sxm4",
            "preset": "entry-rtx4090",
            "benchmark": "resnet50-fp16",
            "cloud_offering": "aliyun-gn7e-c16g1-4xlarge",
            "currency": "CNY",
            "horizon_months": "24",
        },
    )

    assert response.status_code == 400
    assert "choose a bigger box" in str(response.context["form"].errors["preset"])


def test_more_work_than_eight_boxes_is_explained_in_chinese(client, shipped_catalog):
    months = upload(client, "aws-cur", fixture_bytes("aws-cur.csv"), "cur.csv")
    response = client.post(
        "/usage/profile",
        {
            "usage": hidden_usage(months),
            "measured_gpu": "a100-40gb-sxm4",
            "preset": "entry-rtx4090",
            "benchmark": "resnet50-fp16",
            "cloud_offering": "aliyun-gn7e-c16g1-4xlarge",
            "currency": "CNY",
            "horizon_months": "24",
        },
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )

    assert response.status_code == 400
    [message] = response.context["form"].errors["preset"]
    assert message.startswith("某个月的工作量超过八台这种机器的产能：请选择更大的机器（")
    assert re.search(r"（\d{4}-\d\d 需要 [\d.]+ 台机器的工作量，超过 8 台）。$", message), message


def cluster_plan_from_the_bill(client, months) -> str:
    """The permalink code of the 2-node H100 cluster planned from the uploaded AWS bill."""
    profile = client.post(
        "/usage/profile",
        {
            "usage": hidden_usage(months),
            "measured_gpu": "a100-40gb-sxm4",
            "preset": "cluster-2x-hgx-h100",
            "benchmark": "resnet50-fp16",
            "cloud_offering": "aws-p4d-24xlarge",
            "currency": "USD",
            "horizon_months": "24",
        },
    )
    return profile.context["results_url"].removeprefix("/r/")


@pytest.mark.database  # it writes: on both databases
def test_a_saved_plan_keeps_the_source_of_its_workload(client, shipped_catalog):
    months = upload(client, "aws-cur", fixture_bytes("aws-cur.csv"), "cur.csv")
    assert months.status_code == 200
    # the bill names the catalog's GPU of a p4d.24xlarge: it is pre-selected
    assert months.context["form"].initial["measured_gpu"] == "a100-40gb-sxm4"
    code = cluster_plan_from_the_bill(client, months)

    saved = client.post("/saved/new", {"code": code, "name": "from our bill"}, follow=True)

    assert saved.status_code == 200
    assert "Measured usage: AWS Cost and Usage Report (CSV), 2026-10 to 2026-11, 8 GPUs" in (
        saved.content.decode()
    )


@pytest.mark.database  # it writes: on both databases
def test_a_rerun_at_todays_prices_still_says_the_workload_was_measured(client, shipped_catalog):
    months = upload(client, "aws-cur", fixture_bytes("aws-cur.csv"), "cur.csv")
    code = cluster_plan_from_the_bill(client, months)
    client.post("/saved/new", {"code": code, "name": "from our bill"})
    saved = SavedScenario.objects.get(name="from our bill")

    rerun = client.post(f"/saved/{saved.pk}/rerun", follow=True)

    assert rerun.status_code == 200
    new = SavedScenario.objects.exclude(pk=saved.pk).get()
    assert rerun.redirect_chain[-1][0] == f"/saved/{new.pk}/"
    label = "Measured usage: AWS Cost and Usage Report (CSV), 2026-10 to 2026-11, 8 GPUs"
    assert label in rerun.content.decode()
    [source] = [item for item in new.provenance if item["role"] == "measured usage"]
    assert source["fields"] == ["workload.monthly_utilization"]
    assert source["source"] == "the uploaded file (not kept)"
    # the workload itself is the saved one; only the prices were looked up again
    assert new.scenario["workload"] == saved.scenario["workload"]


def test_the_planner_opens_prefilled_with_the_profile(client, shipped_catalog):
    months = upload(client, "slurm-sacct", fixture_bytes("slurm-sacct.txt"), "sacct.txt")
    profile = client.post(
        "/usage/profile",
        {
            "usage": hidden_usage(months),
            "measured_gpu": "rtx-4090",
            "preset": "multi-4x-rtx4090",
            "benchmark": "resnet50-fp16",
            "cloud_offering": "aliyun-gn7e-c16g1-4xlarge",
            "currency": "CNY",
            "horizon_months": "24",
        },
    )
    link = decode(profile.context["results_url"].removeprefix("/r/"))

    planner = client.get(profile.context["planner_url"])

    form = planner.context["form"]
    assert form.initial["workload_kind"] == "profile"
    assert form.initial["preset"] == "multi-4x-rtx4090"
    shown = [form.initial[f"profile_percent_{i}"] for i in range(1, 13)]
    assert_allclose(shown, [u * 100 for u in link.scenario.workload.monthly_utilization])


def test_a_usd_plan_from_measured_usage_rents_and_discounts_as_the_planner_would(
    client, shipped_catalog
):
    # the cloud offering is left to the catalog (it fits the currency), and the present
    # values use the planner's cost of capital, not 0 %
    months = upload(client, "aws-cur", fixture_bytes("aws-cur.csv"), "cur.csv")
    profile = client.post(
        "/usage/profile",
        {
            "usage": hidden_usage(months),
            "measured_gpu": "a100-40gb-sxm4",
            "preset": "cluster-2x-hgx-h100",
            "benchmark": "resnet50-fp16",
            "cloud_offering": "",
            "currency": "USD",
            "horizon_months": "24",
        },
    )
    assert profile.status_code == 200
    link = decode(profile.context["results_url"].removeprefix("/r/"))
    assert link.selection["cloud_offering"] is None
    rate = next(item for item in link.provenance if item["role"] == "cloud rate")
    # the best way to rent this work in the plan's market (webapp.planner.ranking), not the
    # resolver's regional default
    ranked = next(i for i in link.provenance if i["role"] == "cloud offering ranking")
    assert rate["natural_key"][0] == ranked["offering"]
    assert rate["currency"] == "USD"
    assert link.scenario.discount_rate_per_year == DEFAULT_COST_OF_CAPITAL
    chosen = {item.field: item for item in profile.context["chosen"]}
    assert "cloud_offering" in chosen


def test_a_gzip_log_is_read_like_the_log(client, shipped_catalog):
    response = upload(
        client, "nvidia-smi", gzip.compress(fixture_bytes("nvidia-smi.csv")), "log.csv.gz"
    )

    assert response.status_code == 200
    # the fixture's hand computation (tests/costmodel/test_usage.py)
    assert_allclose(response.context["usage"].gpu_hours, [5.0, 3.4 + 0.8 * 80 / 60], rtol=1e-12)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"[" * 100_000, "line 1 column 33: nested more than 32 levels deep"),
        (
            b'{"data": {"resultType": "matrix", "result": [{"metric": {"__name__": '
            b'"DCGM_FI_DEV_GPU_UTIL"}, "values": [[1, ' + b"9" * 400 + b"]]}]}}",
            "line 1 column 110: a number too long or too large to read",
        ),
    ],
)
def test_unbounded_json_is_explained_not_a_500(client, shipped_catalog, content, expected):
    response = upload(client, "dcgm-prometheus", content, "answer.json")

    assert response.status_code == 400
    assert expected in response.content.decode()


def test_a_gzip_bomb_is_refused_at_the_upload_limit(client, shipped_catalog):
    with override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1024 * 1024):
        response = upload(client, "nvidia-smi", gzip.compress(b"0" * (3 * 1024 * 1024)))

    assert response.status_code == 400
    assert "inflates to more than the limit of 1,048,576 bytes" in response.content.decode()


def test_a_headerless_export_reads_with_the_fields_named_on_the_page(client, shipped_catalog):
    response = client.post(
        URL,
        {
            "format": "slurm-sacct",
            "columns": "xdmod",
            "file": SimpleUploadedFile("slurm.log", fixture_bytes("xdmod-sacct.log")),
        },
    )

    assert response.status_code == 200
    # hand computation in tests/costmodel/test_usage_slurm.py
    assert len(response.context["usage"].months) == 15


def test_a_field_order_missing_a_field_is_explained_beside_it(client, shipped_catalog):
    response = client.post(
        URL,
        {
            "format": "slurm-sacct",
            "columns": "jobid,start",
            "file": SimpleUploadedFile("slurm.log", b"1|2026-10-01T00:00:00\n"),
        },
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )

    assert response.status_code == 400
    assert response.context["upload"].errors["columns"] == [
        "缺少 end, alloctres：请按 sacct 输出的顺序列出字段（即其 --format），或使用预设：xdmod"
    ]
