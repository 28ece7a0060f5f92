"""The results page of a commitment: the rent side with 0…K committed instances from the engine's
commitment operation, the count used and the cheapest marked, and why that count."""

import re

from django.urls import reverse

from costmodel.commitment import commitment_table
from webapp import formatting

from .helpers import link_of
from .test_planner_form import form_data

HOME = reverse("planner:home")
COMMITMENT = "gcp-a3-highgpu-1g-commit-1y"


def table_rows(html: str) -> dict[int, str]:
    section = html.split('id="commitment-table"', 1)[1].split("</section>", 1)[0]
    return {
        int(count): row
        for count, row in re.findall(r'<tr data-committed="(\d+)"(.*?)</tr>', section, re.S)
    }


def plan(client, **changes):
    location = client.post(HOME, form_data(client, **changes))["Location"]
    html = client.get(location, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    return link_of(location), html


def test_a_typed_count_is_marked_in_the_table_beside_the_cheapest(client, shipped_catalog):
    link, html = plan(
        client,
        preset="multi-4x-rtx4090",
        cloud_offering=COMMITMENT,
        utilization_percent="150",
        committed_instances="3",
    )
    assert link.scenario.rent.committed_instances == 3
    engine = commitment_table(link.scenario, max_instances=3)
    rows = table_rows(html)
    assert sorted(rows) == [0, 1, 2, 3]
    assert "data-chosen" in rows[3] and "this plan" in rows[3]
    best = engine["best_committed_instances"]
    assert [k for k, row in rows.items() if "data-cheapest" in row] == [best]
    for row in engine["rows"]:
        cells = rows[row["committed_instances"]]
        assert formatting.money(row["rent_total"], "CNY") in cells
        assert formatting.money(row["savings"], "CNY") in cells
    note = html.split('id="commitment-note">', 1)[1].split("</p>", 1)[0]
    assert note.startswith("This scenario commits to 3 instances: the count you chose.")
    if best != 3:
        assert f"The cheapest count in present value is {best}." in note
    assert "keeps the count fixed" in note


def test_a_default_count_says_it_is_the_catalogs_default(client, shipped_catalog):
    link, html = plan(
        client, preset="multi-4x-rtx4090", cloud_offering=COMMITMENT, utilization_percent="150"
    )
    chosen = link.scenario.rent.committed_instances
    rows = table_rows(html)
    assert "data-chosen" in rows[chosen]
    assert f"commits to {chosen} instance" in html
    note = html.split('id="commitment-note">', 1)[1].split("</p>", 1)[0]
    assert "the catalog&#x27;s default for these choices" in note, note


def test_an_on_demand_plan_has_no_commitment_table(client, shipped_catalog):
    _link, html = plan(client)
    assert 'id="commitment-table"' not in html
