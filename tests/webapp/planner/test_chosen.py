"""The results page's "Chosen for you": each choice a plan left to the catalog, the row or
value it used and why, in the page's language; on permalinks old and new, saved scenarios and
in the finance zip."""

import re
from html import unescape

import pytest
from django.urls import reverse
from django.utils import translation

from webapp import formatting
from webapp.catalog.models import BuildPreset, CloudOffering, HostingOption, Tariff
from webapp.catalog.resolver import parse_selection, resolve, resolve_data
from webapp.planner.fields import BY_PATH
from webapp.planner.permalink import encode
from webapp.planner.ranking import best_rent
from webapp.scenarios.models import SavedScenario

from .helpers import code_of, link_of
from .test_export import unzip
from .test_planner_form import form_data

# Pages built from the shipped catalog, checked for their figures and words: these tests read
# the database and write nothing (tests/conftest.py fails one that writes), so they run once, in
# the SQLite pass; the few that save or cache are marked database and run on PostgreSQL too.
pytestmark = pytest.mark.reads_only

HOME = reverse("planner:home")
CLUSTER = "cluster-4x-hgx-h100"
ROW_CHOICES = ("cloud_offering", "tariff", "hosting")
COMMITMENT = "gcp-a3-highgpu-8g-commit-3y"
ROW = re.compile(
    r'<tr data-chosen="([^"]+)"><th scope="row">(.*?)</th><td>(.*?)</td><td>(.*?)</td></tr>',
    re.S,
)
SECTION = re.compile(r'<section class="card chosen-for-you".*?</section>', re.S)


def chosen_rows(html: str) -> dict[str, tuple[str, str, str]]:
    """``field → (label, value, reason)`` of the page's "Chosen for you" table, in order."""
    section = SECTION.search(html)
    if section is None:
        return {}
    rows = ROW.findall(section.group(0))
    return {field: (unescape(a), unescape(b), unescape(c)) for field, a, b, c in rows}


def page(client, url: str, language: str = "en") -> str:
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def submit(client, **changes) -> str:
    """The results URL of the planner form submitted with ``changes`` (tariff and hosting
    stay as the form offers them: left to the catalog)."""
    response = client.post(HOME, form_data(client, **changes), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 302, response.context["form"].errors
    return response["Location"]


def resolver_reasons(selection: dict, language: str) -> dict[str, str]:
    """What the resolver says about the selection's defaults, in ``language``."""
    with translation.override(language):
        return {d.field: d.reason for d in resolve(parse_selection(selection)).defaulted}


# --- from the form -------------------------------------------------------------------------


def test_a_usd_cluster_left_to_the_catalog_lists_its_tariff_hosting_and_count(
    client, shipped_catalog
):
    url = submit(client, preset=CLUSTER, currency="USD", cloud_offering=COMMITMENT)
    link = link_of(url)
    assert link.selection["tariff"] is None and link.selection["hosting"] is None
    assert link.selection["committed_instances"] is None
    html = page(client, url)
    rows = chosen_rows(html)
    assert list(rows) == ["tariff", "hosting", "committed_instances"]
    build = link.scenario.build
    with translation.override("en"):
        price = formatting.money(build.electricity_price_per_kwh, "USD", 4)
        fee = formatting.money(build.hosting_monthly, "USD")
    label, value, reason = rows["tariff"]
    assert label == "Electricity tariff"
    tariff = Tariff.objects.filter(slug="us-va-commercial").latest("effective_date")
    assert value == f"{tariff.name} ({price} per kWh)"
    assert reason.startswith("a USD plan runs in the US: Virginia's commercial tariff (EIA)")
    label, value, reason = rows["hosting"]
    assert label == "Hosting"
    colocation = HostingOption.objects.filter(slug="us-colo-wholesale").latest("effective_date")
    assert value == f"{colocation.name} ({fee} per month, PUE {colocation.pue})"
    assert reason.startswith(
        "US wholesale colocation billed per kW (CBRE), with the Uptime Institute's average PUE"
    )
    assert BuildPreset.objects.get(slug=CLUSTER).hosting_rationale in reason
    label, value, reason = rows["committed_instances"]
    assert label == "Committed instances"
    assert value == str(link.scenario.rent.committed_instances)
    assert "is the cheapest" in reason or "are the cheapest" in reason
    # the resolver's own words, not the page's
    said = resolver_reasons(link.selection, "en")
    assert {field: row[2] for field, row in rows.items()} == said
    section = SECTION.search(html).group(0)
    assert 'href="#change-inputs"' in section and 'id="change-inputs"' in html


def test_a_usd_plan_that_leaves_offering_tariff_and_hosting_to_the_catalog_lists_all_three(
    client, shipped_catalog
):
    form = client.get(HOME, HTTP_ACCEPT_LANGUAGE="en").context["form"]
    assert [form.initial.get(n, form.fields[n].initial) for n in ROW_CHOICES] == ["", "", ""]
    url = submit(client, preset="entry-rtx4090", currency="USD")
    link = link_of(url)
    assert [link.selection[name] for name in ROW_CHOICES] == [None, None, None]
    rows = chosen_rows(page(client, url))
    assert list(rows) == list(ROW_CHOICES)
    # the offering left to the catalog is the best way to rent this work in the US market
    best = best_rent(link.scenario, link.selection)
    assert best is not None
    offering = CloudOffering.objects.get(slug=best[0])
    assert offering.region != "China (mainland)"
    assert rows["cloud_offering"][:2] == ("Cloud offering", offering.localized_name("en"))
    assert rows["cloud_offering"][2].startswith(
        "the cheapest way to rent this work, by present value, of the "
    )
    assert rows["tariff"][1].startswith(
        Tariff.objects.filter(slug="us-va-commercial").latest("effective_date").name
    )
    office = HostingOption.objects.filter(slug="office-deskside").latest("effective_date")
    assert rows["hosting"][1].startswith(office.name)
    assert rows["hosting"][2].startswith("desk-side in an office: no fee, no cooling overhead")
    assert "Alibaba" not in link.scenario.name  # renting in the plan's market


def test_a_committed_count_no_longer_the_cheapest_for_the_typed_figures_says_so(
    client, shipped_catalog
):
    # a committed rate typed far above the catalog's: committing to anything is dearer now
    url = submit(
        client,
        preset=CLUSTER,
        currency="USD",
        cloud_offering=COMMITMENT,
        rent__committed_hourly_rate="10000",
    )
    link = link_of(url)
    assert "rent.committed_hourly_rate" in link.overrides
    assert link.scenario.rent.committed_instances > 0  # the catalog's cheapest, at its prices
    rows = chosen_rows(page(client, url))
    assert rows["committed_instances"][1] == str(link.scenario.rent.committed_instances)
    assert rows["committed_instances"][2] == (
        "the cheapest count for these choices when this plan was made (prices as of "
        f"{link.selection['as_of']}); with the figures this plan uses, the cheapest is 0"
    )


def test_a_cny_plan_on_the_chinese_page_names_rows_and_reasons_in_chinese(client, shipped_catalog):
    url = submit(client, preset="multi-4x-rtx4090", currency="CNY")
    html = page(client, url, "zh-hans")
    assert "为你选定的项" in html
    rows = chosen_rows(html)
    assert list(rows) == ["cloud_offering", "tariff", "hosting"]
    label, value, reason = rows["cloud_offering"]
    assert label == "云实例"
    # the cheapest China-market offering that can do the work, not the default A100 at ¥34.74
    best, weighed = best_rent(link_of(url).scenario, link_of(url).selection)
    assert value == CloudOffering.objects.get(slug=best).name_zh
    assert best != "aliyun-gn7e-c16g1-4xlarge" and weighed == 4
    assert reason.startswith("按现值计算，是本市场能完成这项工作的 4 个云产品中租用最便宜的方式")
    label, value, reason = rows["tariff"]
    assert label == "电价"
    # the colocation's fee includes power: the tariff is named, its price not used
    assert (
        value == Tariff.objects.filter(slug="cn-business-average").latest("effective_date").name_zh
    )
    assert reason == "人民币方案在中国运行：全国平均工商业电价"
    label, value, reason = rows["hosting"]
    assert label == "托管"
    assert value.startswith(
        HostingOption.objects.filter(slug="cn-colo-all-in").latest("effective_date").name_zh + "（"
    )
    assert value.endswith("，PUE 1.50）")
    assert reason.startswith("国内机房托管，按千瓦计费（含电费），PUE 1.5 —— ")
    assert "a CNY plan" not in html and "colocation in China" not in html
    # the same plan in English: the reasons follow the page, not the language it was made in
    english = chosen_rows(page(client, url, "en"))
    assert english["tariff"][2] == "a CNY plan runs in China: the national average business tariff"


def test_a_plan_that_names_every_choice_lists_nothing(client, shipped_catalog):
    url = submit(
        client,
        preset=CLUSTER,
        currency="USD",
        cloud_offering=COMMITMENT,
        committed_instances="2",
        tariff="us-ca-commercial",
        hosting="us-colo-wholesale",
    )
    html = page(client, url)
    assert link_of(url).scenario.rent.committed_instances == 2
    assert 'id="chosen-for-you"' not in html and "Chosen for you" not in html
    zipped = client.get(reverse("planner:results-zip", args=[code_of(url)]))
    assert "chosen_for_you.csv" not in unzip(zipped.content)


def test_a_scenario_typed_without_the_catalog_lists_nothing(client, permalink):
    assert 'id="chosen-for-you"' not in page(client, reverse("planner:results", args=[permalink]))


CUSTOM_PARTS = {
    "part__gpu-rtx-4090": "2",
    "part__cpu-desktop-16c": "1",
    "part__psu-silverstone-hela-2050": "1",
}


def custom_box(client, **changes) -> str:
    data = form_data(client, box="custom", scaling_efficiency="90", **CUSTOM_PARTS, **changes)
    data.pop("preset")
    response = client.post(HOME, data, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 302, response.context["form"].errors
    return response["Location"]


def test_a_custom_parts_list_lists_the_running_costs_it_was_given(client, shipped_catalog):
    url = custom_box(client)
    rows = chosen_rows(page(client, url))
    running = [
        "build.maintenance_rate_per_year",
        "build.residual_value_retention_per_year",
        "build.ops_monthly",
        "build.useful_life_months",
    ]
    assert list(rows) == ["cloud_offering", "tariff", "hosting", *running]
    with translation.override("en"):
        labels = {path: str(BY_PATH[path].label) for path in running}
    assert {path: rows[path][0] for path in running} == labels
    assert rows["build.maintenance_rate_per_year"][1] == "5.0 %"
    assert rows["build.residual_value_retention_per_year"][1] == "70.0 %"
    assert rows["build.useful_life_months"][1] == "none"
    for path in running:
        assert rows[path][2].startswith("a custom box has no preset: "), path
    # a box of cards without a GPU server is a desk-side box
    assert rows["hosting"][1].startswith(
        HostingOption.objects.filter(slug="office-deskside").latest("effective_date").name
    )
    assert "without a GPU server is a desk-side box" in rows["hosting"][2]
    chinese = chosen_rows(page(client, url, "zh-hans"))
    assert chinese["build.useful_life_months"][1] == "无"
    assert chinese["build.maintenance_rate_per_year"][2].startswith("自定义配置没有预设")


def test_a_running_cost_the_user_typed_is_not_listed(client, shipped_catalog):
    url = custom_box(client, build__maintenance_rate_per_year="8")
    link = link_of(url)
    assert link.overrides == ["build.maintenance_rate_per_year"]
    rows = chosen_rows(page(client, url))
    assert "build.maintenance_rate_per_year" not in rows
    assert "build.residual_value_retention_per_year" in rows


# --- saved scenarios, older links, the zip -------------------------------------------------


@pytest.mark.database  # it writes: on both databases
def test_a_saved_scenario_shows_the_same_list(client, shipped_catalog):
    url = submit(client, preset=CLUSTER, currency="USD", cloud_offering=COMMITMENT)
    client.post(reverse("planner:save"), {"code": code_of(url), "name": "cluster"})
    saved = SavedScenario.objects.get()
    assert saved.selection["tariff"] is None
    for language in ("en", "zh-hans"):
        on_link = SECTION.search(page(client, url, language)).group(0)
        detail = page(client, reverse("planner:saved-detail", args=[saved.pk]), language)
        assert SECTION.search(detail).group(0) == on_link


SELECTION = {
    "preset": CLUSTER,
    "cloud_offering": None,
    "committed_instances": None,
    "tariff": None,
    "hosting": None,
    "benchmark": "resnet50-fp16",
    "workload": {"kind": "steady", "utilization": 0.3},
    "horizon_months": 36,
    "currency": "USD",
    "as_of": "2026-12-01",
}


def old_link() -> str:
    """A permalink as the planner made them before this page listed defaults: the scenario,
    provenance and selection (empty choices as None), nothing else."""
    resolution = resolve_data({k: v for k, v in SELECTION.items() if v is not None})
    return encode(resolution.scenario, resolution.provenance, [], SELECTION)


def test_an_older_permalink_lists_what_its_catalog_chose(client, shipped_catalog):
    url = reverse("planner:results", args=[old_link()])
    rows = chosen_rows(page(client, url))
    assert list(rows) == ["cloud_offering", "tariff", "hosting"]
    offering = CloudOffering.objects.get(slug="azure-nc24ads-a100-v4")
    assert rows["cloud_offering"] == (
        "Cloud offering",
        offering.localized_name("en"),
        "a USD plan rents in the US market: Azure's on-demand instance of the reference GPU "
        "(one A100 80GB)",
    )
    chinese = chosen_rows(page(client, url, "zh-hans"))
    assert chinese["cloud_offering"][:2] == ("云实例", offering.name_zh)
    assert chinese["cloud_offering"][2].startswith("美元方案在美国市场租用")


@pytest.mark.database  # it writes: on both databases
def test_a_default_the_catalog_has_changed_since_is_said_to_be_the_default_of_then(
    client, shipped_catalog
):
    code = old_link()
    BuildPreset.objects.filter(slug=CLUSTER).update(hosting_kind="office")  # a catalog edit
    rows = chosen_rows(page(client, reverse("planner:results", args=[code])))
    _label, value, reason = rows["hosting"]
    assert value.startswith(
        HostingOption.objects.filter(slug="us-colo-wholesale").latest("effective_date").name
    )
    assert reason == (
        "the catalog's default for these choices when this plan was made (prices as of "
        "2026-12-01); it has changed since"
    )
    assert rows["tariff"][2].startswith("a USD plan runs in the US")  # still today's default


def test_the_finance_zip_lists_what_was_chosen_with_its_reasons(client, shipped_catalog):
    url = submit(client, preset=CLUSTER, currency="USD", cloud_offering=COMMITMENT)
    rows = chosen_rows(page(client, url))
    response = client.get(
        reverse("planner:results-zip", args=[code_of(url)]), HTTP_ACCEPT_LANGUAGE="en"
    )
    table = unzip(response.content)["chosen_for_you.csv"]
    assert table[0] == ["Input", "Used", "Why"]
    assert table[1:] == [list(row) for row in rows.values()]
