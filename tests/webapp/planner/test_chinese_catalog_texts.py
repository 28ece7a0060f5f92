"""The catalog's own prose on a Chinese results page, its exports and the planner form: each
note, rationale and explanatory source of the rows a plan uses in the row's Chinese (English
on an English page); English where a row has no Chinese, and where an old permalink stored an
English the row no longer holds."""

import io
import json
import re
import zipfile

import pytest
from django.urls import reverse

from webapp.catalog.fixtures_io import FIXTURES_DIR
from webapp.catalog.models import BuildPreset

from .test_chinese_pages import csv_text, visible
from .test_planner_form import HOME, form_data

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}

PLANS = [
    {"preset": "multi-4x-rtx4090", "currency": "CNY"},
    {"preset": "cluster-4x-hgx-h100", "currency": "USD"},
    {"preset": "entry-rtx4090", "cloud_offering": "vastai-a100-80gb", "currency": "CNY"},
]

RATIONALE = "Maintenance 8 %/yr: Llama 3 training saw ~9 % of GPUs fail per GPU-year"
RATIONALE_ZH = "维护每年 8 %：Llama 3 训练中，持续负载下每 GPU 年约有 9 % 的 GPU 出故障"
# The preset's useful-life source (its resale retention now comes from observed used prices,
# whose sources are titles and URLs shown as published).
LIFE = "No public depreciation schedule for GeForce cards"
LIFE_ZH = "GeForce 显卡没有公开的折旧年限"
HOSTING = "A multi-GPU server draws several kW under load"
HOSTING_ZH = "多 GPU 服务器满载功耗达数 kW"


def words(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def shipped_texts() -> dict[str, str]:
    """Every explanatory text of the shipped fixtures long enough not to occur by chance
    inside other words (20 characters or more), English → Chinese (from the files)."""
    pairs = {}
    for path in sorted(FIXTURES_DIR.glob("*.json")):
        for row in json.loads(path.read_text(encoding="utf-8")):
            for name, value in row["fields"].items():
                english = row["fields"].get(name.removesuffix("_zh"))
                if name.endswith("_zh") and name != "name_zh" and value and len(english) >= 20:
                    pairs[words(english)] = words(value)
    return pairs


def text_of(response) -> str:
    return words(visible(response.content.decode()))


def results(client, plan: dict, language: dict) -> tuple[str, str]:
    """The permalink code of the plan, submitted in ``language``, and its page's visible text."""
    response = client.post(HOME, form_data(client, **plan), **language)
    assert response.status_code == 302, plan
    page = client.get(response["Location"], **language)
    return response["Location"].removeprefix("/r/"), text_of(page)


@pytest.mark.django_db
def test_a_chinese_results_page_shows_the_chinese_of_every_catalog_text_it_uses(
    client, shipped_catalog
):
    texts = shipped_texts()
    for plan in PLANS:
        _code, english_page = results(client, plan, EN)
        _code, chinese_page = results(client, plan, ZH)
        used = [english for english in texts if english in english_page]
        assert len(used) >= 3, (plan, used)  # notes of prices, rates, presets, FX
        for english in used:
            assert texts[english] in chinese_page, (plan, english)
            assert english not in chinese_page, (plan, english)
        assert not [zh for zh in texts.values() if zh in english_page], plan


@pytest.mark.django_db
def test_the_preset_rationale_and_sources_read_in_chinese_on_a_chinese_page(
    client, shipped_catalog
):
    _code, chinese_page = results(client, PLANS[0], ZH)
    _code, english_page = results(client, PLANS[0], EN)
    for english, chinese in ((RATIONALE, RATIONALE_ZH), (LIFE, LIFE_ZH)):
        assert chinese in chinese_page and english not in chinese_page
        assert english in english_page and chinese not in english_page


@pytest.mark.django_db
def test_a_row_without_chinese_shows_its_english_on_a_chinese_page(client, shipped_catalog):
    preset = BuildPreset.objects.get(slug="multi-4x-rtx4090")
    preset.useful_life_source_zh = ""
    preset.save()  # as the admin saves it
    _code, chinese_page = results(client, PLANS[0], ZH)
    assert LIFE in chinese_page
    assert RATIONALE_ZH in chinese_page  # its other texts still in Chinese


@pytest.mark.django_db
def test_an_old_permalink_shows_the_english_it_stored_when_the_row_says_otherwise_now(
    client, shipped_catalog
):
    code, _page = results(client, PLANS[0], ZH)
    preset = BuildPreset.objects.get(slug="multi-4x-rtx4090")
    preset.defaults_rationale = "Maintenance 6 %/yr: revised after a year of tickets."
    preset.save()  # the English changed; the Chinese is still that of the old text
    page = text_of(client.get(reverse("planner:results", args=[code]), **ZH))
    assert RATIONALE in page  # what the link was made from, as stored
    assert RATIONALE_ZH not in page  # not the translation of a text the row no longer holds
    assert LIFE_ZH in page  # the useful-life source is unchanged: still in Chinese


@pytest.mark.django_db
def test_the_finance_tables_name_the_sources_in_the_language_of_the_request(
    client, shipped_catalog
):
    code, _page = results(client, PLANS[0], ZH)
    url = reverse("planner:results-zip", args=[code])
    for language, shown, hidden in ((ZH, LIFE_ZH, LIFE), (EN, LIFE, LIFE_ZH)):
        with zipfile.ZipFile(io.BytesIO(client.get(url, **language).content)) as archive:
            text = words(" ".join(csv_text(archive.read(name)) for name in archive.namelist()))
        assert shown in text and hidden not in text, language


@pytest.mark.django_db
def test_the_planner_form_gives_the_presets_hosting_rationale_in_the_page_language(
    client, shipped_catalog
):
    chinese = text_of(client.get(HOME, {"preset": "multi-4x-rtx4090"}, **ZH))
    english = text_of(client.get(HOME, {"preset": "multi-4x-rtx4090"}, **EN))
    assert HOSTING_ZH in chinese and HOSTING not in chinese
    assert HOSTING in english and HOSTING_ZH not in english
