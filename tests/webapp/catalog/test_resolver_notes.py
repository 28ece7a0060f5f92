"""The resolver's notes are codes with figures, put into words in the page's language: the
time-of-use mean, the resale fit (or why there is none) and the committed count's reason."""

import datetime

import pytest
from django.utils import translation
from django.utils.translation import gettext

from webapp.catalog.resale import FitRefused, fit_retention
from webapp.catalog.resolver import resolve_data
from webapp.catalog.resolver.notes import NOTES, note_text
from webapp.planner import sources

TODAY = datetime.date(2026, 12, 7)

CNY_TIME_OF_USE = {
    "preset": "entry-rtx4090",
    "cloud_offering": "aliyun-gn7e-c16g1-4xlarge",
    "tariff": "cn-guangdong-commercial-tou",
    "hosting": "office-deskside",
    "benchmark": "resnet50-fp16",
    "workload": {"kind": "steady", "utilization": 0.6},
    "horizon_months": 36,
    "currency": "CNY",
}
USD_COMMITMENT = {
    "preset": "cluster-4x-hgx-h100",
    "cloud_offering": "gcp-a3-highgpu-8g-commit-3y",
    "tariff": "us-va-commercial",
    "hosting": "us-colo-wholesale",
    "benchmark": "bert-large-fp16",
    "workload": {"kind": "steady", "utilization": 0.5},
    "horizon_months": 36,
    "currency": "USD",
    "as_of": TODAY.isoformat(),
}


def _item(selection, role):
    provenance = resolve_data(selection).provenance
    return next(item for item in provenance if item["role"] == role)


def _shown(item, language):
    with translation.override(language):
        return sources.shown_item(item)["note"]


def _codes(item):
    return [n["code"] for n in item["notes"]]


def test_the_time_of_use_mean_is_noted_with_each_period_in_both_languages(shipped_catalog):
    item = _item(CNY_TIME_OF_USE, "electricity")
    assert _codes(item) == ["time_of_use"] + ["time_of_use_period"] * 3
    assert item["notes"][0]["params"] == {"periods": 3, "hours": "24"}
    periods = {n["params"]["period"]: n["params"] for n in item["notes"][1:]}
    assert set(periods) == {"flat", "peak", "valley"}
    # the stored English, for readers of the JSON
    assert item["note"].startswith("hour-weighted mean of 3 time-of-use periods over 24 h; ")
    peak = periods["peak"]
    assert f"peak {peak['hours']} h × {peak['price']}" in item["note"]
    assert _shown(item, "en") == item["note"]
    chinese = _shown(item, "zh-hans")
    assert chinese.startswith("3 个分时时段按小时加权的平均值，共 24 小时")
    assert f"峰段 {peak['hours']} 小时 × {peak['price']}" in chinese
    assert "hour-weighted" not in chinese and "peak" not in chinese


def test_the_resale_fit_is_noted_with_its_figures_in_both_languages(shipped_catalog):
    item = _item({**USD_COMMITMENT, "cloud_offering": "aws-p5-48xlarge"}, "resale retention")
    assert _codes(item) == ["resale_fit"]
    params = item["notes"][0]["params"]
    assert params["gpu"] == "h100-sxm5" and params["count"] == 5 and params["currency"]
    assert params["retention"] == "0.677"
    assert item["note"].startswith("fitted from 5 used-price observation(s) of h100-sxm5")
    assert _shown(item, "en") == item["note"]
    chinese = _shown(item, "zh-hans")
    assert chinese.startswith("由 h100-sxm5 的 5 条二手价格观测")
    assert chinese.endswith("每年 0.677") and "fitted" not in chinese


def test_without_a_fit_the_stated_figure_is_noted_with_the_reason_in_both_languages(
    shipped_catalog,
):
    selection = {**USD_COMMITMENT, "preset": "multi-4x-a100-80gb", "cloud_offering": None}
    item = _item({k: v for k, v in selection.items() if v}, "resale retention")
    assert _codes(item) == ["resale_stated", "fit_too_few"]
    assert item["note"].startswith("the preset's stated figure (no fit for a100-80gb-pcie); ")
    assert "a fit needs at least 3" in item["note"]
    chinese = _shown(item, "zh-hans")
    assert chinese.startswith("预设给出的数值（a100-80gb-pcie 没有可用的拟合）")
    assert "拟合至少需要 3 条" in chinese and "stated" not in chinese


@pytest.mark.parametrize(
    ("ages", "prices", "code"),
    [
        ([1, 2], [10, 5], "too_few"),
        ([1, 2, 3], [10, 0, 5], "not_positive"),
        ([2, 2, 2], [10, 9, 8], "one_age"),
        ([0, 1, 2], [10, 20, 40], "gains"),
        ([0, 1, 2], [1000, 10, 0.1], "loses"),
    ],
)
def test_every_refusal_of_the_fit_has_a_note_in_both_languages(ages, prices, code):
    with pytest.raises(FitRefused) as refused:
        fit_retention(ages, prices)
    assert refused.value.code == code
    notes = [{"code": f"fit_{code}", "params": refused.value.params}]
    assert note_text(notes, translate=False) == str(refused.value)  # the same English
    with translation.override("zh-hans"):
        chinese = note_text(notes)
    assert chinese != str(refused.value)
    assert not any(word in chinese for word in ("observation", "retention", "price"))


def test_the_committed_count_is_noted_as_a_code_and_said_in_the_page_language(shipped_catalog):
    item = _item({**USD_COMMITMENT, "committed_instances": None}, "committed instances")
    [note] = item["notes"]
    assert note["code"] in ("commit_cheapest", "commit_none_cheapest", "commit_no_work")
    assert note["params"]["months"] == 36
    assert "cheapest" in item["note"]
    assert _shown(item, "en") == item["note"]
    chinese = _shown(item, "zh-hans")
    assert "最便宜" in chinese and "cheapest" not in chinese
    # the form's hint is the same note, in the language of the request that resolved it
    with translation.override("zh-hans"):
        defaulted = resolve_data({**USD_COMMITMENT, "committed_instances": None}).defaulted
    [reason] = [d.reason for d in defaulted if d.field == "committed_instances"]
    assert reason == chinese


def test_every_note_has_its_chinese():
    with translation.override("zh-hans"):
        plain = {code: words for code, words in NOTES.items() if isinstance(words, str)}
        untranslated = [code for code, words in plain.items() if gettext(words) == words]
    assert untranslated == []
