"""The advisor's cluster tier: cluster presets for jobs beyond one node, and the managed
alternatives, from the shipped catalog."""

import math

import pytest

from costmodel.sizing import AdvisorInput, training_memory_gb
from webapp.advisor.advice import CLUSTER_CLAIM_ANCHOR, advise_from_catalog
from webapp.catalog.models import BuildPreset, PartKind

pytestmark = pytest.mark.django_db


def capacity_gb(preset: BuildPreset) -> float:
    return float(preset.gpu_model.vram_gb * preset.gpu_count)


def clusters():
    return list(BuildPreset.objects.filter(tier="cluster").select_related("gpu_model"))


def boxes():
    return list(BuildPreset.objects.exclude(tier="cluster").select_related("gpu_model"))


def post(client, parameters_billion, language="en"):
    data = {"parameters_billion": str(parameters_billion), "dataset_gb": "500", "precision": "fp16"}
    return client.post("/advisor/", data, HTTP_ACCEPT_LANGUAGE=language)


@pytest.mark.parametrize("parameters_billion", [20.0, 60.0, 101.0])
def test_a_job_beyond_every_box_gets_the_smallest_cluster_that_holds_it(
    catalog, parameters_billion
):
    memory = training_memory_gb(parameters_billion, "fp16")
    assert memory > max(capacity_gb(p) for p in boxes())
    holding = [p for p in clusters() if capacity_gb(p) >= memory]
    expected = min(holding, key=lambda p: (capacity_gb(p), p.slug))

    page = advise_from_catalog(AdvisorInput(parameters_billion=parameters_billion, dataset_gb=0))

    assert page.advice.tier == "cluster"
    assert page.preset == expected
    assert page.planner_url.endswith(f"?preset={expected.slug}")
    assert page.guide_url == f"/guide/#{CLUSTER_CLAIM_ANCHOR}"
    codes = [r.code for r in page.advice.reasons]
    assert {"cluster_beyond_one_box", "cluster_preset_fits", "managed_alternatives"} <= set(codes)
    assert "cluster_too_small" not in [w.code for w in page.advice.warnings]


def test_a_model_above_100_b_goes_to_the_cluster_tier_even_where_memory_alone_would_not(catalog):
    # int8 states: 101 B × 12 × 1.25 + 2 = 1 517 GB, beyond every box either way.
    page = advise_from_catalog(
        AdvisorInput(parameters_billion=101.0, dataset_gb=0, precision="int8")
    )
    band = next(r for r in page.advice.reasons if r.code == "model_size_band")
    assert band.params["tier"] == "cluster"
    assert page.advice.tier == "cluster"


def test_a_job_beyond_the_largest_cluster_is_told_how_many_nodes_it_needs(client, catalog):
    largest = max(clusters(), key=capacity_gb)
    memory = training_memory_gb(175.0, "fp16")
    assert memory > capacity_gb(largest)
    per_node = largest.gpu_model.vram_gb * largest.gpu_count // largest.node_count

    response = post(client, 175)

    page = response.context["page"]
    assert page.preset == largest
    warning = next(w for w in page.advice.warnings if w.code == "cluster_too_small")
    assert warning.params["nodes_needed"] == math.ceil(memory / per_node)
    assert f"about {math.ceil(memory / per_node)} nodes of" in response.content.decode()


def test_the_cluster_power_is_its_gpus_and_parts_in_kw(catalog):
    preset = BuildPreset.objects.get(slug="cluster-4x-hgx-h100")
    watts = preset.gpu_model.board_power_watts * preset.gpu_count + sum(
        line.part.load_power_watts * line.quantity
        for line in preset.lines.select_related("part")
        if line.part.kind not in (PartKind.GPU, PartKind.PSU)
    )

    page = advise_from_catalog(AdvisorInput(parameters_billion=101.0, dataset_gb=0))

    power = next(r for r in page.advice.reasons if r.code == "cluster_power")
    assert power.params == pytest.approx(
        {"peak_kw": watts / 1000, "node_kw": watts / preset.node_count / 1000}, rel=1e-12
    )


def test_the_page_shows_the_cluster_links_it_to_the_planner_and_explains_the_alternatives(
    client, catalog
):
    response = post(client, 101)
    html = response.content.decode()
    page = response.context["page"]

    assert 'data-tier="cluster"' in html
    assert f'data-preset="{page.preset.slug}"' in html
    assert f"{page.preset.node_count} nodes × 8 × NVIDIA H100 80GB SXM5" in html
    assert 'id="advice-plan"' in html
    assert f'href="/guide/#{CLUSTER_CLAIM_ANCHOR}"' in html
    for words in ("managed cluster", "reservation", "operations staff", "spare nodes", "failed"):
        assert words in html, words
    # The planner takes the cluster preset, and the guide has the anchor the link points to.
    planner = client.get(page.planner_url)
    assert planner.status_code == 200
    assert planner.context["form"]["preset"].value() == page.preset.slug
    assert f'id="{CLUSTER_CLAIM_ANCHOR}"' in client.get("/guide/").content.decode()


def test_the_cluster_advice_reads_in_chinese(client, catalog):
    response = post(client, 101, language="zh-hans")
    html = response.content.decode()
    page = response.context["page"]
    assert "推荐档位：大规模集群级" in html
    assert page.preset.name_zh in html
    assert "托管集群" in html
    assert "operations staff" not in html


def test_without_cluster_presets_it_still_recommends_the_cluster_tier_and_renting(client, catalog):
    BuildPreset.objects.filter(tier="cluster").delete()

    response = post(client, 101)

    page = response.context["page"]
    assert (page.advice.tier, page.preset, page.planner_url) == ("cluster", None, None)
    assert "cluster_no_preset" in [r.code for r in page.advice.reasons]
    html = response.content.decode()
    assert 'id="advice-plan"' not in html
    assert "No cluster to price in the catalog" in html
    assert "managed cluster" in html
