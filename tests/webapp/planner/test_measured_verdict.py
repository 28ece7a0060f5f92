"""Measured usage that knows how little it knows: the box the file shows, the days measured and
the months filled by repetition on the results page, at best "uncertain" under 14 days, and
utilization ranges widened with the share of filled months."""

from __future__ import annotations

import datetime
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from costmodel.decision import MIN_OBSERVED_DAYS
from costmodel.ranges import measured_utilization_factors
from webapp.decided import decided
from webapp.planner.permalink import decode

URL = "/usage/"


def nvidia_smi(gpus: int, days: float, busy: int = 90) -> bytes:
    """An nvidia-smi log of ``gpus`` RTX 4090s sampled every 10 minutes for ``days``."""
    start = datetime.datetime(2026, 9, 1)
    lines = ["timestamp, index, name, utilization.gpu [%]"]
    for step in range(int(days * 24 * 6)):
        stamp = (start + datetime.timedelta(minutes=10 * step)).strftime("%Y/%m/%d %H:%M:%S.000")
        lines += [f"{stamp}, {i}, NVIDIA GeForce RTX 4090, {busy} %" for i in range(gpus)]
    return ("\n".join(lines) + "\n").encode()


def upload(client, content: bytes):
    file = SimpleUploadedFile("log.csv", content)
    return client.post(URL, {"format": "nvidia-smi", "file": file}, HTTP_ACCEPT_LANGUAGE="en")


def hidden_usage(response) -> str:
    return re.search(r'name="usage" value="(?P<value>[^"]+)"', response.content.decode())["value"]


def profile(client, months, preset: str, language: str = "en"):
    return client.post(
        "/usage/profile",
        {
            "usage": hidden_usage(months),
            "measured_gpu": "rtx-4090",
            "growth_percent": "0",
            "preset": preset,
            "benchmark": "resnet50-fp16",
            "cloud_offering": "aliyun-gn7e-c16g1-4xlarge",
            "currency": "CNY",
            "horizon_months": "36",
        },
        HTTP_ACCEPT_LANGUAGE=language,
    )


def test_four_4090s_in_the_file_offer_the_4_x_4090_preset(client, shipped_catalog):
    months = upload(client, nvidia_smi(4, 1))
    form = months.context["form"]
    assert form.initial["measured_gpu"] == "rtx-4090"
    assert form.initial["preset"] == "multi-4x-rtx4090"  # not the catalog's first preset


def test_two_4090s_offer_a_custom_box_of_those_gpus(client, shipped_catalog):
    months = upload(client, nvidia_smi(2, 1))
    form = months.context["form"]
    assert form.initial["preset"] == "custom"
    label = dict(form.fields["preset"].choices)["custom"]
    assert label.startswith("A custom box of the file's GPUs: 2 × ") and "4090" in label
    response = profile(client, months, "custom")
    assert response.status_code == 200, response.context["form"].errors
    link = decode(response.context["results_url"].removeprefix("/r/"))
    assert link.scenario.build.gpu_count == 2
    cards = link.selection["parts"][0]
    assert cards["quantity"] == 2 and "4090" in cards["part"]
    assert len(link.selection["parts"]) > 1  # and the rest of a box around them


def test_two_days_of_samples_are_at_best_uncertain_and_the_page_says_how_little_is_known(
    client, shipped_catalog
):
    months = upload(client, nvidia_smi(4, 2, busy=100))
    response = profile(client, months, "multi-4x-rtx4090")
    code = response.context["results_url"].removeprefix("/r/")
    link = decode(code)
    measured = next(i for i in link.provenance if i.get("role") == "measured usage")
    assert measured["observed_days"] == pytest.approx(2.0, abs=0.01)
    assert measured["filled_months"] == 11 and measured["profile_months"] == 12
    one = decided(link.scenario, link.ranges, link.provenance)
    assert one.decision.observed_days < MIN_OBSERVED_DAYS
    assert one.decision.verdict == "uncertain"
    # the same plan without the measurement's record is decided on its figures alone
    plain = decided(link.scenario, link.ranges)
    assert plain.decision.observed_days is None and not plain.decision.too_little_measured

    html = client.get(f"/r/{code}", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'data-verdict="uncertain"' in html
    assert "rest on 2.0 days of measured usage, fewer than the 14 a pattern needs" in html
    assert "Measured usage: 2.0 days observed; 11 of the profile&#x27;s 12 months" in html
    assert 'data-observed-days="2.0"' in html and 'data-filled-months="11"' in html
    # every month of the profile has its utilization range, widened for 11 of 12 filled
    low, high = measured_utilization_factors(11 / 12)
    assert 'data-field="workload.monthly_utilization.0"' in html
    u = link.scenario.workload.monthly_utilization[0]
    r = next(r for r in one.ranges if r.path == "workload.monthly_utilization.0")
    assert (r.low, r.mode) == (pytest.approx(u * low), u)
    assert r.high == pytest.approx(min(8.0, u * high))
    zh = client.get(f"/r/{code}", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "共观测 2.0 天" in zh and "难以判断" in zh


def test_three_weeks_of_samples_are_decided_on_the_figures(client, shipped_catalog):
    months = upload(client, nvidia_smi(4, 21, busy=100))
    response = profile(client, months, "multi-4x-rtx4090")
    link = decode(response.context["results_url"].removeprefix("/r/"))
    one = decided(link.scenario, link.ranges, link.provenance)
    assert one.decision.observed_days == pytest.approx(21.0, abs=0.01)
    assert not one.decision.too_little_measured
