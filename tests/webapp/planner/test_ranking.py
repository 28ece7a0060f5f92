"""Every way to do this work: a catalog plan's box, the presets near it and every offering of
its market ranked by present value (the engine's options operation), each row its own page."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from costmodel.options import options, parse_options
from webapp.planner.permalink import decode
from webapp.planner.ranking import candidates

from .helpers import link_of
from .test_jobs import ADAPTER_7B, jobs_data


def rows_of(html: str) -> list[dict[str, str]]:
    section = html.split('id="every-way"')[1].split("</section>")[0]
    return [
        dict(zip(("rank", "kind", "offering", "preset"), found, strict=True))
        for found in re.findall(
            r'<tr data-rank="(\d+)" data-kind="(\w+)" data-offering="([^"]*)" '
            r'data-preset="([^"]*)"',
            section,
        )
    ]


def test_a_cny_4090_plan_ranks_every_china_offering_by_present_value(client, shipped_catalog):
    data = jobs_data(client, ADAPTER_7B, preset="multi-4x-rtx4090", currency="CNY")
    data["cloud_offering"] = "aliyun-gn7e-c16g1-4xlarge"  # typed: kept, the ranking still shows
    response = client.post(reverse("planner:home"), data)
    assert response.status_code == 302, response.context["form"].errors
    link = link_of(response["Location"])
    assert link.selection["cloud_offering"] == "aliyun-gn7e-c16g1-4xlarge"
    html = client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="en").content.decode()
    rows = rows_of(html)
    chosen = candidates(link.scenario, link.selection)
    answer = options(parse_options(chosen.request))
    # the engine's order, every plan a row
    assert [(r["kind"], r["offering"]) for r in rows] == [
        (p["kind"], p["rent"]) for p in answer["plans"]
    ]
    china = {"aliyun-gn7e-c16g1-4xlarge", "cn-market-a800-80gb", "cn-market-rtx-3090",
             "cn-market-rtx-4090"}  # fmt: skip
    listed = {r["offering"] for r in rows if r["kind"] == "rent"} | set(
        re.findall(r'<li data-offering="([^"]+)" data-preset="" data-infeasible', html)
    )
    assert listed == china  # every offering of the China market, no other
    assert any(r["preset"] == "multi-4x-rtx4090" for r in rows)  # the plan's own box
    assert "data-this-box" in html
    # each row opens its own results page
    first = re.search(r'data-rank="1".*?<a href="([^"]+)"', html, re.S).group(1)
    opened = client.get(first.replace("&amp;", "&"))
    assert opened.status_code == 302
    assert (
        decode(opened["Location"].removeprefix("/r/")).selection["cloud_offering"]
        == rows[0]["offering"]
    )


def test_a_plan_typed_without_the_catalog_has_no_ranking(client, scenario):
    from webapp.planner.permalink import encode

    html = client.get(reverse("planner:results", args=[encode(scenario)])).content.decode()
    assert 'id="every-way"' not in html


@pytest.mark.parametrize("currency", ["CNY", "USD"])
def test_utilization_work_is_rented_only_on_gpus_with_the_boxs_memory(
    client, shipped_catalog, currency
):
    from .test_planner_form import form_data

    data = form_data(client, preset="multi-4x-a100-80gb", currency=currency)
    response = client.post(reverse("planner:home"), data)
    assert response.status_code == 302, response.context["form"].errors
    link = link_of(response["Location"])
    chosen = candidates(link.scenario, link.selection)
    assert chosen is not None
    for slug in chosen.memory_refused:  # fewer than 80 GB per GPU: listed, not ranked
        assert chosen.offerings[slug].gpu_model.vram_gb < 80
    assert all(r["name"] not in chosen.memory_refused for r in chosen.request["rents"])
