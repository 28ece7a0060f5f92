"""What a results page costs the database when nothing is cached yet."""

from django.core.cache import caches
from django.urls import reverse

from webapp.catalog import selectors
from webapp.catalog.resolver import resolve_data
from webapp.planner.permalink import encode

CLUSTER_VS_GCP = {
    "preset": "cluster-4x-hgx-h100",
    "cloud_offering": "gcp-a3-highgpu-8g-commit-3y",
    "benchmark": "resnet50-fp16",
    "workload": {"kind": "steady", "utilization": 0.3},
    "horizon_months": 36,
    "currency": "USD",
}


RANKING_QUERIES = 10
"""The ranking ("Every way to do this work") reads the catalog's snapshot of the plan's day
once per worker and choice of box: one query per kind of row it resolves with (presets, their
lines, parts, part prices, offerings, rates, tariffs, hosting, throughputs, exchange rates)."""


def test_a_cold_results_page_needs_at_most_10_queries_and_the_rankings_snapshot(
    client, shipped_catalog, django_assert_max_num_queries
):
    resolution = resolve_data(CLUSTER_VS_GCP)
    code = encode(resolution.scenario, resolution.provenance, [], CLUSTER_VS_GCP)
    caches["default"].clear()
    selectors.forget_catalog_version()  # as a worker that has not served this catalog yet
    with django_assert_max_num_queries(10 + RANKING_QUERIES):
        response = client.get(reverse("planner:results", args=[code]), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    assert "NVIDIA H100" in response.content.decode()  # the catalog's names were read


def test_a_cold_chinese_results_page_reads_each_kind_of_named_row_once(
    client, shipped_catalog, django_assert_max_num_queries
):
    """Under Chinese the sources table shows the catalog's Chinese names: one query per kind of
    row it names (preset, parts, GPU, offering, tariff, hosting, benchmark), not one per row."""
    resolution = resolve_data(CLUSTER_VS_GCP)
    code = encode(resolution.scenario, resolution.provenance, [], CLUSTER_VS_GCP)
    caches["default"].clear()
    selectors.forget_catalog_version()
    with django_assert_max_num_queries(10 + 7 + RANKING_QUERIES + 3):  # + its Chinese names
        response = client.get(
            reverse("planner:results", args=[code]), HTTP_ACCEPT_LANGUAGE="zh-hans"
        )
    assert response.status_code == 200
    assert "大规模集群：4 台 8 × H100 SXM HGX 服务器" in response.content.decode()  # name_zh
