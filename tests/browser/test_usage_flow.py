"""A person uploads a GPU log, gets the profile it implies and the verdict, in both languages."""

from __future__ import annotations

from pathlib import Path

import pytest

from costmodel import compare
from tests.browser.conftest import margins_plotly_grew
from webapp.planner.permalink import decode

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LOG = Path(__file__).resolve().parents[1] / "costmodel" / "usage_fixtures" / "nvidia-smi.csv"
NOTE_EN = "line 16: skipped, unreadable utilization"
NOTE_ZH = "第 16 行：已跳过，利用率无法读取"


def upload_and_plan(page, screenshot, shot: str, note: str) -> None:
    """From the upload form to the results page, by the fields' ids (any language); ``note``
    is the first note on the file, in the page's language; ``shot`` names the profile's
    screenshot."""
    page.locator("#id_format").select_option("nvidia-smi")
    page.locator("#id_file").set_input_files(str(LOG))
    page.locator("#usage-read").click()
    page.wait_for_selector("#chart-usage[data-rendered='true'] .main-svg")
    assert margins_plotly_grew(page) == {}
    assert page.locator("#usage-warnings li").first.inner_text() == note
    # The log names "NVIDIA GeForce RTX 4090": the catalog's RTX 4090 is pre-selected.
    assert page.locator("#id_measured_gpu").input_value() == "rtx-4090"
    page.locator("#id_growth_percent").fill("10")
    page.locator("#id_preset").select_option("entry-rtx4090")
    page.locator("#id_cloud_offering").select_option("aliyun-gn7e-c16g1-4xlarge")
    page.locator("#usage-make-profile").click()
    page.wait_for_selector("#usage-profile")
    assert page.locator(".profile-table tbody tr").count() == 12
    screenshot(page, shot, full_page=True)
    page.locator("#usage-results").click()
    page.wait_for_url("**/r/**")


def test_a_person_turns_a_gpu_log_into_a_verdict(page, live_server, shipped_catalog, screenshot):
    page.goto(live_server.url + "/")
    page.get_by_role("link", name="Use measured usage").click()
    page.wait_for_url("**/usage/")
    assert "Files up to 16 MB" in page.locator("#usage-upload").inner_text()
    upload_and_plan(page, screenshot, "usage-profile-en", NOTE_EN)

    link = decode(page.url.split("/r/", 1)[1])
    assert link.scenario.workload.kind == "profile"
    assert len(link.scenario.workload.monthly_utilization) == 12
    assert page.locator("#headline-sentence").inner_text()
    inputs = page.locator(".inputs-table").inner_text()
    assert "Measured usage: nvidia-smi log (CSV), 2026-10 to 2026-11, 4 GPUs" in inputs
    # the figures shown are the engine's for that profile
    assert compare(link.scenario)["savings"] is not None
    screenshot(page, "usage-results-en", full_page=True)
    page.watch.assert_clean()


def test_the_same_in_chinese(browser, live_server, shipped_catalog, screenshot):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
    page = context.new_page()
    page.set_default_timeout(20_000)
    try:
        page.goto(live_server.url + "/usage/")
        assert page.locator("html").get_attribute("lang") == "zh-hans"
        assert page.locator("h1").inner_text() == "使用实测用量"
        upload_and_plan(page, screenshot, "usage-profile-zh-hans", NOTE_ZH)
        assert page.locator("#headline-sentence").inner_text()
        assert "实测用量：nvidia-smi 日志（CSV）" in page.locator(".inputs-table").inner_text()
        screenshot(page, "usage-results-zh-hans", full_page=True)
    finally:
        context.close()


def test_a_file_over_the_limit_is_refused_before_it_is_sent(
    page, live_server, shipped_catalog, settings
):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
    page.goto(live_server.url + "/usage/")
    assert "Files up to 1 MB" in page.locator("#usage-upload").inner_text()
    posts: list[str] = []
    page.on(
        "request", lambda request: posts.append(request.url) if request.method == "POST" else None
    )
    page.locator("#id_file").set_input_files(
        {"name": "big.csv", "mimeType": "text/csv", "buffer": b"0" * (2 * 1024 * 1024)}
    )
    refused = page.locator("#usage-too-large")
    assert refused.is_visible()
    assert "larger than the limit of 1 MB" in refused.inner_text()
    page.locator("#usage-read").click()
    page.wait_for_timeout(300)
    assert posts == []
