"""The catalog rows table is rendered once per provenance and language, and is the same
table a fresh rendering gives."""

import pytest
from django.template.loader import render_to_string
from django.utils import translation

from webapp.catalog.resolver import resolve_data
from webapp.planner import sources
from webapp.planner.fields import fed_fields
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
    items = [{**item, "feeds": fed_fields(item)} for item in provenance]
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
