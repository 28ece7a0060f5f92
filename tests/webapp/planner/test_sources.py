"""The catalog rows table is rendered once per provenance and language, and is the same
table a fresh rendering gives."""

import pytest
from django.template.loader import render_to_string
from django.utils import translation

from webapp.catalog.resolver import resolve_data
from webapp.planner import sources
from webapp.planner.permalink import decode, encode

SELECTION = {
    "preset": "entry-rtx4090",
    "cloud_offering": "aliyun-gn7e-c16g1-4xlarge",
    "tariff": "cn-business-average",
    "hosting": "office-deskside",
    "benchmark": "resnet50-fp16",
    "workload": {"kind": "steady", "utilization": 0.6},
    "horizon_months": 36,
    "currency": "CNY",
}


@pytest.fixture
def provenance(shipped_catalog):
    return resolve_data(SELECTION).provenance


def fresh(provenance):
    items = [sources.shown_item(item) for item in provenance]
    return render_to_string("planner/includes/provenance_table.html", {"provenance": items})


def test_the_memo_gives_what_a_fresh_rendering_gives_in_each_language(provenance):
    sources._rendered.cache_clear()
    for language in ("en", "zh-hans", "en"):
        with translation.override(language):
            assert sources.provenance_table(provenance) == fresh(provenance)
    with translation.override("zh-hans"):
        assert "所用目录记录" in sources.provenance_table(provenance)
    with translation.override("en"):
        assert "Catalog rows used" in sources.provenance_table(provenance)


def test_pages_of_other_utilizations_show_the_table_a_fresh_rendering_gives(client, provenance):
    from costmodel import parse_scenario

    scenario = resolve_data(SELECTION).scenario.model_dump(mode="json")
    with translation.override("en"):
        expected = fresh(decode(encode(parse_scenario(scenario), provenance)).provenance)
    for utilization in (0.1, 0.5, 0.9):
        scenario["workload"]["utilization"] = utilization
        code = encode(parse_scenario(scenario), provenance, [], SELECTION)
        html = client.get(f"/r/{code}", HTTP_ACCEPT_LANGUAGE="en").content.decode()
        assert 'class="provenance-table"' in html
        assert expected in html


def test_a_scenario_without_catalog_rows_has_no_table():
    assert sources.provenance_table([]) == ""


def test_a_catalog_results_page_needs_no_database_query_once_a_worker_is_warm(
    client, provenance, django_assert_num_queries
):
    # The compared names are looked up once (and the catalog's version read once); the next
    # page of another utilization is rendered from memory: no query, so under the ASGI
    # worker no database connection either.
    from costmodel import parse_scenario

    scenario = resolve_data(SELECTION).scenario.model_dump(mode="json")
    codes = []
    for utilization in (0.2, 0.7):
        scenario["workload"]["utilization"] = utilization
        codes.append(encode(parse_scenario(scenario), provenance, [], SELECTION))
    assert client.get(f"/r/{codes[0]}").status_code == 200
    with django_assert_num_queries(0):
        page = client.get(f"/r/{codes[1]}")
    assert page.status_code == 200
    assert "RTX 4090" in page.content.decode()  # the compared names, from the catalog


USD_SELECTION = {
    **SELECTION,
    "preset": "cluster-4x-hgx-h100",
    "cloud_offering": "gcp-a3-highgpu-8g-commit-3y",
    "currency": "USD",
}


def test_the_chinese_table_names_catalog_rows_and_generated_notes_in_chinese(shipped_catalog):
    from webapp.catalog.models import BuildPreset, Part

    provenance = resolve_data(USD_SELECTION).provenance
    with translation.override("zh-hans"):
        table = sources.provenance_table(provenance)
    preset = BuildPreset.objects.get(slug="cluster-4x-hgx-h100")
    assert preset.name_zh and preset.name_zh in table and preset.name not in table
    for part in Part.objects.filter(preset_lines__preset=preset).exclude(name_zh=""):
        assert part.name_zh in table, part.slug
    assert "× 扩展效率 0.940（8 块 GPU）" in table
    assert "同一实例的按需价格" in table
    for english in (
        "scaling efficiency",
        "W load",
        "on-demand sibling",
        "gcp-a3-highgpu-8g-commit-3y",
        "ceil(",
        "build.capex",
        "Feeds",
        "The day&#x27;s fixing",
    ):
        assert english not in table, english
    assert "用于" in table and "满载功耗" in table  # the fields fed, by their labels
    # an exchange rate's source is a citation, shown as published (as a price's is)


def test_an_exchange_rate_is_shown_to_six_significant_digits():
    assert sources.rate_shown("0.1431782712655527397162206664") == "0.143178"
    assert sources.rate_shown("6.9843") == "6.9843"
    assert sources.rate_shown(None) == ""


def test_an_english_table_keeps_the_catalogs_english_names(shipped_catalog):
    from webapp.catalog.models import BuildPreset

    provenance = resolve_data(USD_SELECTION).provenance
    with translation.override("en"):
        table = sources.provenance_table(provenance)
    assert BuildPreset.objects.get(slug="cluster-4x-hgx-h100").name in table
    assert "× scaling efficiency 0.940 for 8 GPUs" in table
    assert "Purchase price of the box" in table


@pytest.mark.parametrize("planned_in", ["en", "zh-hans"])
def test_the_chinese_table_names_the_cloud_offering_in_chinese_whatever_language_planned_it(
    shipped_catalog, planned_in
):
    """An offering's catalog label carries its pricing mode in the language of the moment it
    was resolved ("(on-demand)" or "(按需)"); the Chinese table shows its Chinese name."""
    from webapp.catalog.models import CloudOffering

    offering = CloudOffering.objects.get(slug="azure-nc24ads-a100-v4")
    with translation.override(planned_in):
        provenance = resolve_data({**USD_SELECTION, "cloud_offering": offering.slug}).provenance
    with translation.override("zh-hans"):
        table = sources.provenance_table(provenance)
    assert offering.name_zh and offering.name_zh in table
    assert "(on-demand)" not in table and "(按需)" not in table


def _item(provenance, role):
    return next(item for item in provenance if item.get("role") == role)


def test_the_resolver_writes_its_notes_as_codes_and_the_page_words_them_in_each_language(
    shipped_catalog,
):
    item = _item(resolve_data(USD_SELECTION).provenance, "build throughput")
    assert item["notes"][0] == {"code": "scaling", "params": {"efficiency": "0.940", "gpus": 8}}
    # readers of the JSON (the API, old clients) keep the English words
    assert item["note"].startswith("× scaling efficiency 0.940 for 8 GPUs")
    with translation.override("en"):
        assert sources.shown_item(item)["note"].startswith("× scaling efficiency 0.940 for 8 GPUs")
    with translation.override("zh-hans"):
        assert sources.shown_item(item)["note"].startswith("× 扩展效率 0.940（8 块 GPU）")


def _as_before_the_codes(provenance):
    """A provenance as permalinks made before the notes were codes stored it."""
    return [{k: v for k, v in item.items() if k != "notes"} for item in provenance]


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_an_old_permalink_with_english_notes_still_opens_and_shows_them_as_stored(
    client, shipped_catalog, language
):
    from costmodel import parse_scenario

    resolution = resolve_data(USD_SELECTION)
    old = _as_before_the_codes(resolution.provenance)
    english = _item(old, "build throughput")["note"]
    assert "scaling efficiency" in english
    code = encode(parse_scenario(resolution.scenario.model_dump(mode="json")), old)
    page = client.get(f"/r/{code}", HTTP_ACCEPT_LANGUAGE=language)
    assert page.status_code == 200
    html = page.content.decode()
    assert 'class="provenance-table"' in html
    assert english.replace("×", "&times;") in html or english in html


def test_a_note_code_this_version_does_not_know_shows_the_stored_english(shipped_catalog):
    item = {**_item(resolve_data(USD_SELECTION).provenance, "build throughput")}
    item["notes"] = [{"code": "from-a-later-version", "params": {}}]
    with translation.override("zh-hans"):
        assert sources.shown_item(item)["note"] == item["note"]
