"""Every way to do this work: a catalog plan's box, the presets near it and every offering of
its market ranked by present value (the engine's options operation), each row its own page."""

from __future__ import annotations

import datetime
import re

import pytest
from django.urls import reverse

from costmodel.options import options, parse_options
from costmodel.projection import job_times
from webapp import formatting
from webapp.catalog.selectors import CatalogSnapshot
from webapp.planner import market
from webapp.planner.permalink import decode
from webapp.planner.ranking import candidates

from .helpers import code_of, link_of
from .test_jobs import ADAPTER_7B, FULL_7B, jobs_data


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
    answer = options(parse_options(chosen.request, bounded=False))
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


def unable_offerings(html: str) -> set[str]:
    """The offerings the ranking lists as unable to do the work."""
    return set(re.findall(r'<li data-offering="([^"]+)" data-preset="" data-infeasible', html))


def ranked_offerings(html: str) -> set[str]:
    """Every offering the ranking names: ranked as a rent plan or listed as unable to do it."""
    return {r["offering"] for r in rows_of(html) if r["kind"] == "rent"} | unable_offerings(html)


@pytest.mark.parametrize("all_markets", [True, False])
def test_every_market_at_the_dated_exchange_rate(client, shipped_catalog, all_markets):
    """A CNY 4 × RTX 4090 plan with its offering left to the catalog: with "every market" ticked
    its ranking weighs the offerings priced in dollars too, converted at the exchange rate in
    effect on the plan's date (named with its date and source); unticked, only the China
    market's."""
    data = jobs_data(
        client, ADAPTER_7B, preset="multi-4x-rtx4090", currency="CNY", cloud_offering=""
    )
    if all_markets:
        data["all_markets"] = "on"
    response = client.post(reverse("planner:home"), data)
    assert response.status_code == 302, response.context["form"].errors
    link = link_of(response["Location"])
    assert link.selection["all_markets"] is all_markets  # kept in the permalink
    html = client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="en").content.decode()
    day = datetime.date.fromisoformat(link.selection["as_of"])
    catalog = CatalogSnapshot(day)
    priced = {slug: o for slug, o in catalog.offerings.items() if catalog.rate(o) is not None}
    china = {slug for slug, o in priced.items() if o.region == "China (mainland)"}
    listed = ranked_offerings(html)
    fx = catalog.fx_rate("USD", "CNY")
    assert fx is not None
    if not all_markets:
        assert listed == china
        assert 'data-markets="one"' in html and 'id="ranking-fx"' not in html
        return
    assert listed == set(priced) and listed > china  # every market's offerings
    # the dollar prices converted at the dated rate, the rate named with its date and source
    chosen = candidates(link.scenario, link.selection)
    assert chosen is not None and chosen.all_markets
    converted = 0
    for rent in chosen.request["rents"]:
        offering = priced[rent["name"]]
        rate = catalog.rate(offering)
        if rate.currency == "USD":
            expected = float(rate.hourly_rate * fx.multiplier("USD"))
            key = "committed_hourly_rate" if offering.is_commitment else "hourly_rate"
            assert rent["rent"][key] == pytest.approx(expected, rel=1e-9)
            converted += 1
    assert converted > 0
    note = re.search(r'<li data-fx="(\w+)-(\w+)">(.*?)</li>', html, re.S)
    assert note is not None and (note.group(1), note.group(2)) == (
        fx.base_currency,
        fx.quote_currency,
    )
    assert f"the rate of {fx.effective_date.isoformat()}" in note.group(3)
    assert f"{fx.rate:.4f}" in note.group(3).replace(",", "")
    assert str(fx.source) in html.replace("&#x27;", "'").replace("&amp;", "&")
    assert f"in effect on {day.isoformat()}" in html
    # "Chosen for you" names the best rent plan of every market, the one the page compares
    best = next(r for r in rows_of(html) if r["kind"] == "rent")["offering"]
    assert link.scenario.rent.hourly_rate == next(
        r["rent"]["hourly_rate"] for r in chosen.request["rents"] if r["name"] == best
    )
    assert "offerings of every market that can do it" in html
    # kept in a saved scenario and in the form reopened from the link
    from webapp.scenarios.models import SavedScenario

    client.post(reverse("planner:save"), {"code": code_of(response["Location"]), "name": "x"})
    assert SavedScenario.objects.get().selection["all_markets"] is True
    reopened = client.get(reverse("planner:home"), {"from": code_of(response["Location"])})
    assert reopened.context["form"]["all_markets"].value() is True


def test_time_to_result_per_job_is_the_engines_for_each_row(client, shipped_catalog):
    """Each row's "time to result per job" is the engine's job times of that row's own plan
    (the one its link opens): wall hours of a run on the box where the plan places it there,
    instance-hours of a run on the offering where it is rented."""
    data = jobs_data(
        client, ADAPTER_7B, FULL_7B, preset="multi-4x-rtx4090", currency="USD", cloud_offering=""
    )
    response = client.post(reverse("planner:home"), data)
    assert response.status_code == 302, response.context["form"].errors
    html = client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="en").content.decode()
    section = html.split('id="every-way"')[1].split("</section>")[0]
    rows = re.findall(
        r'<tr data-rank="\d+" data-kind="(\w+)".*?<a href="([^"]+)">.*?</th>'
        r"<td>[^<]*</td><td>[^<]*</td><td>([^<]*)</td>",
        section,
        re.S,
    )
    assert len(rows) == len(rows_of(html)) > 2
    placed = set()
    for kind, url, times in rows:
        opened = client.get(url.replace("&amp;", "&"))
        assert opened.status_code == 302
        plan = decode(code_of(opened["Location"])).scenario
        expected = []
        for job in job_times(plan):
            on_box = kind == "build" and job["placement"] == "box"
            hours = job["build_hours_per_run"] if on_box else job["rent_instance_hours_per_run"]
            expected.append(f"{job['name']}: {formatting.number(hours, 1)} h")
            placed.add((kind, job["name"], on_box))
        assert times == "; ".join(expected)
    # the 96 GB box holds the adapter run and rents the full fine-tune
    assert ("build", ADAPTER_7B["name"], True) in placed
    assert ("build", FULL_7B["name"], False) in placed


def test_a_cny_plan_rents_the_7b_full_fine_tune_abroad_only_with_every_market(
    client, shipped_catalog
):
    """No China-market instance holds the 7B full fine-tune's 159.5 GB, so the CNY plan is
    refused naming the field; with every market weighed it is rented on an instance of
    another market that holds it."""
    data = jobs_data(
        client, ADAPTER_7B, FULL_7B, preset="multi-4x-rtx4090", currency="CNY", cloud_offering=""
    )
    refused = client.post(reverse("planner:home"), data)
    assert refused.status_code == 200
    assert "159.5 GB" in refused.context["form"].errors["job_parameters_billion_2"][0]
    data["all_markets"] = "on"
    response = client.post(reverse("planner:home"), data)
    assert response.status_code == 302, response.context["form"].errors
    link = link_of(response["Location"])
    catalog = CatalogSnapshot(datetime.date.fromisoformat(link.selection["as_of"]))
    rented = catalog.offerings[chosen_offering(link)]
    assert rented.region != "China (mainland)"
    assert rented.gpu_count * rented.gpu_model.vram_gb >= 159.5


def chosen_offering(link) -> str:
    """The offering the plan rents (the ranking's choice, from its provenance)."""
    return next(
        str(item["natural_key"][0]) for item in link.provenance if item.get("role") == "cloud rate"
    )


def test_a_price_recorded_after_a_ranking_makes_a_new_ranking(client, shipped_catalog):
    """The ranking is cached, but never across a catalog change: a new rate for one of the
    market's offerings shows in the next ranking of the same plan."""
    from webapp.catalog.models import CloudRate
    from webapp.planner.ranking import ranked

    data = jobs_data(client, ADAPTER_7B, preset="multi-4x-rtx4090", currency="CNY")
    response = client.post(reverse("planner:home"), data)
    assert response.status_code == 302, response.context["form"].errors
    link = link_of(response["Location"])
    rented = "cn-market-rtx-3090"

    def total_of(slug: str) -> float:
        found = ranked(link.scenario, link.selection)
        assert found is not None
        (plan,) = [p for p in found[1]["plans"] if p["kind"] == "rent" and p["rent"] == slug]
        return float(plan["present_value"])

    before = total_of(rented)
    rate = CloudRate.objects.filter(offering__slug=rented).order_by("-effective_date").first()
    rate.hourly_rate = rate.hourly_rate * 2
    rate.save()
    after = total_of(rented)
    assert after > before * 1.5  # the doubled rate, not the cached ranking


@pytest.mark.parametrize(
    ("utilization", "throughput", "best"),
    [
        # busy, but the box typed five times slower: little work, a commitment lies idle
        ("90", "0.2", "runpod-a100-80gb-community"),
        # a quiet box typed several times faster: enough work to fill the commitment
        ("30", "5", "gcp-a3-highgpu-8g-commit-3y"),
    ],
)
def test_the_offering_is_chosen_for_the_plan_as_typed_not_as_the_catalog_priced_it(
    client, shipped_catalog, utilization, throughput, best
):
    """A value typed over the catalog's (here the box's throughput: the work rented) is part
    of the plan the best offering is chosen for, and of the ranking the page shows."""
    from decimal import Decimal

    from webapp.catalog.models import CloudOffering, CloudRate
    from webapp.planner import chosen
    from webapp.planner.ranking import best_rent

    from .test_chosen import submit

    # a 3-year commitment made cheap by the hour but dear up front: it wins only when the
    # work keeps its committed instance busy
    committed = "gcp-a3-highgpu-8g-commit-3y"
    CloudRate.objects.filter(offering__slug=committed).update(hourly_rate=Decimal("1.0"))
    CloudOffering.objects.filter(slug=committed).update(
        commitment_upfront_per_instance=Decimal("200000"), commitment_upfront_currency="USD"
    )
    plan = {"preset": "cluster-4x-hgx-h100", "currency": "USD", "utilization_percent": utilization}
    as_priced = link_of(submit(client, **plan))
    url = submit(client, **plan, build__gpu_throughput=throughput)
    link = link_of(url)
    assert link.overrides == ["build.gpu_throughput"]
    (picked,) = [p["offering"] for p in link.provenance if p["role"] == chosen.RANKING_ROLE]
    # the catalog-priced plan would rent elsewhere: the typed figure decides
    assert best_rent(as_priced.scenario, as_priced.selection)[0] != best
    assert picked == best == best_rent(link.scenario, link.selection)[0]
    html = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    first_rent = next(r for r in rows_of(html) if r["kind"] == "rent")
    assert first_rent["offering"] == picked  # "Chosen for you" is the ranking's first rent


def test_a_job_the_default_offering_cannot_hold_leaves_the_other_boxes_in_the_ranking(
    client, shipped_catalog
):
    """A USD 4 × RTX 4090 plan with a 7B full fine-tune (159.5 GB) rents it: the presets of its
    tier and the next are ranked too, though the currency's default offering (one 80 GB GPU)
    holds it no more than this box does, and the offerings too small for it are listed as
    unable to do the work, with the reason, not left out."""
    data = jobs_data(
        client, ADAPTER_7B, FULL_7B, preset="multi-4x-rtx4090", currency="USD", cloud_offering=""
    )
    response = client.post(reverse("planner:home"), data)
    assert response.status_code == 302, response.context["form"].errors
    link = link_of(response["Location"])
    html = client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="en").content.decode()
    boxes = {r["preset"] for r in rows_of(html) if r["kind"] == "build"}
    assert len(boxes) > 2 and "multi-4x-rtx4090" in boxes  # this box and other presets
    catalog = CatalogSnapshot(datetime.date.fromisoformat(link.selection["as_of"]))
    offered = market.market_offerings("USD", catalog)
    too_small = {o.slug for o in offered if o.gpu_count * o.gpu_model.vram_gb < 159.5}
    assert too_small and too_small == unable_offerings(html)
    assert ranked_offerings(html) == {o.slug for o in offered}
    assert "memory: a run of this work does not fit its GPUs" in html


def test_the_ranking_of_one_plan_is_not_the_next_plans_of_other_work(client, shipped_catalog):
    """The catalog's side of a ranking is kept for the next plan of the same choices; a plan
    whose job fits few offerings leaves every offering in the ranking of a plan that fits
    them all."""
    choices = {"preset": "multi-4x-rtx4090", "currency": "USD", "cloud_offering": ""}
    big = client.post(reverse("planner:home"), jobs_data(client, ADAPTER_7B, FULL_7B, **choices))
    small = client.post(reverse("planner:home"), jobs_data(client, ADAPTER_7B, **choices))
    assert big.status_code == small.status_code == 302
    in_big = client.get(big["Location"], HTTP_ACCEPT_LANGUAGE="en").content.decode()
    in_small = client.get(small["Location"], HTTP_ACCEPT_LANGUAGE="en").content.decode()
    unable = unable_offerings(in_big)
    assert unable  # too small for the full fine-tune
    rented = {r["offering"] for r in rows_of(in_small) if r["kind"] == "rent"}
    assert unable <= rented  # each ranked for the adapter run alone
    assert ranked_offerings(in_small) == ranked_offerings(in_big)
