"""The guide, checked, on the shipped catalog: every verdict follows its rule from the engine's
figures, every figure is the engine's for the same resolved scenario, one batch runs them all."""

import datetime
import re
from html import unescape

import pytest
from django.core.cache import caches
from django.db import transaction
from django.urls import reverse
from django.utils import translation
from numpy.testing import assert_allclose

from costmodel import SteadyWorkload, compare
from costmodel.decision import REFERENCE_UTILIZATION, decide, verdict_measure
from costmodel.sensitivity import utilization_sweep
from tests import catalog_once
from webapp.advisor import guide
from webapp.advisor.claims import CLAIMS, PAYBACK_MONTHS
from webapp.catalog import selectors
from webapp.catalog.models import BuildPreset, CloudOffering, GpuThroughput, PresetPart
from webapp.catalog.resolver import resolve
from webapp.formatting import money
from webapp.planner.permalink import decode

# The guide checked on the shipped catalog is computed once per module (``shipped``): one xdist
# worker runs the whole module, so that the other never computes it a second time.
pytestmark = pytest.mark.xdist_group("guide")

# The tests of the guide's figures and verdicts (marked reads_only) read what ``shipped``
# computed and write nothing: the engine's figures for a resolved scenario cannot depend on the
# database the catalog was read from, so the PostgreSQL pass of `make test` leaves them, and
# ``shipped`` with them, out. The guide's own reads of the catalog (the runner, the pages,
# their caching) run on both. (They keep the django_db mark: it is what has pytest-django set up
# the database ``shipped`` reads, also when they run alone.)

CLAIM_KEYS = [
    "server-4x4090",
    "cluster-h100",
    "server-4060ti",
    "tidal",
    "short-projects",
    "resnet50-throughput",
    "speedups",
]


@pytest.fixture(scope="module")
def shipped(django_db_setup, django_db_blocker):
    """The guide checked once on the shipped catalog, and each case worked out on its own:
    resolved again, compared alone, and decided from the engine's own utilization sweep.

    Computed once per module inside a transaction that is rolled back, so no test sees
    the rows.
    """
    with django_db_blocker.unblock(), transaction.atomic(), translation.override("en"):
        catalog_once.restore()  # what load_catalog writes, read once per session
        checked = guide.check_guide()
        alone = {}
        for case in all_cases(checked):
            resolution = resolve(case.selection)
            scenario = resolution.scenario.model_copy(update={"name": case.label[:200]})
            result = compare(scenario)
            alone[id(case)] = {
                "resolution": resolution,
                "scenario": scenario,
                "result": result,
                "decision": decide(
                    scenario, result, utilization_sweep(scenario, measure=verdict_measure(scenario))
                ),
                "offering": CloudOffering.objects.select_related(
                    "gpu_model", "on_demand_sibling"
                ).get(slug=case.selection.cloud_offering),
            }
        measured = GpuThroughput.objects.get(
            gpu_model__slug="rtx-4090", benchmark__slug="resnet50-fp16"
        ).measured_value
        transaction.set_rollback(True)
    return checked, alone, float(measured)


@pytest.fixture
def checked(shipped):
    return shipped[0]


@pytest.fixture
def alone(shipped):
    return shipped[1]


def claims_of(checked):
    return {claim.spec.key: claim for claim in checked.claims}


def checks_of(checked):
    return {
        (claim.spec.key, check.spec.key): check
        for claim in checked.claims
        for check in claim.checks
    }


def all_cases(checked):
    cases = [case for claim in checked.claims for check in claim.checks for case in check.cases]
    return cases + [case.on_demand for case in cases if case.on_demand is not None]


def by_hand(code, rule, figures):
    """Each rule's verdict worked out again from the engine's figures of the case alone."""
    result = figures["result"]
    savings, break_even = result["savings"], result["break_even_month"]
    horizon = figures["scenario"].horizon_months
    if code == "buying_beats_renting_beyond":
        if savings <= 0:
            return "does_not_hold"
        return "holds" if break_even is not None and break_even <= rule.months else "partly"
    if code == "pays_back_after_about":
        if break_even is None:
            return "does_not_hold"
        return "holds" if rule.months / 1.5 <= break_even <= rule.months * 1.5 else "partly"
    if code == "renting_cheaper":
        cash = break_even is None or break_even > horizon
        net = savings <= 0
        return {(True, True): "holds", (False, False): "does_not_hold"}.get((cash, net), "partly")
    if code == "price_within":
        capex = figures["scenario"].build.capex
        if rule.low * 0.95 <= capex <= rule.high * 1.05:
            return "holds"
        return "partly" if rule.low * 0.8 <= capex <= rule.high * 1.2 else "does_not_hold"
    raise AssertionError(code)


def combined(verdicts):
    seen = {v for v in verdicts if v != "not_checkable"}
    if not seen:
        return "not_checkable"
    return seen.pop() if len(seen) == 1 and seen <= {"holds", "does_not_hold"} else "partly"


# --- every claim, from the engine ----------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.reads_only
def test_every_claim_of_the_guide_is_checked_in_order(checked):
    assert [claim.spec.key for claim in checked.claims] == CLAIM_KEYS
    for claim in checked.claims:
        assert claim.checks
        assert claim.verdict == combined([check.verdict for check in claim.checks])
    assert claims_of(checked)["speedups"].verdict == "not_checkable"


@pytest.mark.django_db
@pytest.mark.reads_only
def test_each_figure_is_the_engines_for_the_same_resolved_scenario(checked, alone):
    cases = [case for case in all_cases(checked) if case.summary is not None]
    assert len(cases) > 80
    for case in cases:
        expected = alone[id(case)]["result"]
        assert case.scenario == alone[id(case)]["scenario"]
        for key in ("savings", "break_even_month", "break_even_utilization"):
            if expected[key] is None:
                assert case.summary[key] is None, (case.label, key)
            else:
                assert_allclose(case.summary[key], expected[key], rtol=1e-9, err_msg=case.label)
        for side, figure in (("build", "total_net"), ("build", "total"), ("rent", "total")):
            assert_allclose(case.summary[side][figure], expected[side][figure], rtol=1e-9)


@pytest.mark.django_db
@pytest.mark.reads_only
def test_each_decision_is_the_one_the_engines_sweep_gives(checked, alone):
    computed = [case for case in all_cases(checked) if case.summary is not None]
    assert len(computed) > 80
    for case in computed:
        assert case.decision is not None, case.label  # every computed case is decided
        expected = alone[id(case)]["decision"]
        got = case.decision
        assert got.recommendation == expected.recommendation, case.label
        assert got.resale_decides == expected.resale_decides, case.label
        assert got.build_when_busier == expected.build_when_busier, case.label
        assert got.late_payback == expected.late_payback, case.label
        assert_allclose(got.reference_savings, expected.reference_savings, rtol=1e-9)


@pytest.mark.django_db
@pytest.mark.reads_only
def test_each_case_verdict_follows_its_rule_from_the_engine_figures(checked, alone):
    judged = 0
    for check in checks_of(checked).values():
        code, rule = check.spec.rule.code, check.spec.rule
        for case in check.cases:
            if code in ("hourly_beats_reservation", "throughput_within", "not_from_cost_data"):
                continue
            assert case.verdict == by_hand(code, rule, alone[id(case)]), case.label
            judged += 1
        assert check.verdict == combined([case.verdict for case in check.cases]), check.spec.key
    assert judged > 80


@pytest.mark.django_db
@pytest.mark.reads_only
def test_each_case_links_to_a_permalink_of_exactly_its_scenario(checked, alone):
    for case in all_cases(checked):
        assert case.url, case.label
        code = case.url.rstrip("/").rsplit("/", 1)[-1]
        assert case.url == reverse("planner:results", args=[code])
        link = decode(code)
        assert link.scenario == alone[id(case)]["scenario"]
        assert link.selection == case.selection.model_dump(mode="json")
        # The link carries the rows the resolver used (stored compactly: empty keys dropped).
        keys = ("role", "model", "natural_key", "fields", "amount", "currency", "converted_amount")
        rows = [{k: p.get(k) or None for k in keys} for p in link.provenance]
        expected = alone[id(case)]["resolution"].provenance
        assert rows == [{k: p.get(k) or None for k in keys} for p in expected]


@pytest.mark.django_db
@pytest.mark.reads_only
def test_each_decision_weighs_its_own_scenario_at_the_reference_utilization(checked):
    decided = [case for case in all_cases(checked) if case.decision is not None]
    assert len(decided) > 80
    for case in decided:
        steady = SteadyWorkload(kind="steady", utilization=REFERENCE_UTILIZATION)
        at_reference = case.scenario.model_copy(update={"workload": steady})
        expected = compare(at_reference)["savings"]
        assert_allclose(case.decision.reference_savings, expected, rtol=1e-9, err_msg=case.label)


@pytest.mark.django_db
def test_a_cold_guide_page_reads_the_catalog_in_at_most_100_queries(
    client, catalog, django_assert_max_num_queries
):
    caches["shared"].clear()
    selectors.forget_catalog_version()
    with django_assert_max_num_queries(100):
        response = client.get(reverse("advisor:guide"), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    # cold: the page checked the cases it links to, it did not read them from a cache
    assert response.content.decode().count(reverse("planner:results", args=["x"])[:-1]) > 80


# --- the claims re-run with the new presets and pricing modes ------------------------------------


@pytest.mark.django_db
@pytest.mark.reads_only
def test_the_cluster_is_checked_against_8_gpu_h100_nodes_in_every_pricing_mode(checked, alone):
    cluster = claims_of(checked)["cluster-h100"]
    seen = set()
    for check in cluster.checks:
        assert check.cases
        for case in check.cases:
            offering = alone[id(case)]["offering"]
            scenario = alone[id(case)]["scenario"]
            assert case.selection.preset == "cluster-4x-hgx-h100"
            assert "H100" in offering.gpu_model.name and offering.gpu_count == 8
            assert case.url and case.summary is not None
            seen.add(
                (offering.pricing_mode, scenario.horizon_months, scenario.workload.utilization)
            )
    modes = {"on-demand", "spot", "commit-1y", "commit-3y"}
    assert {(m, h, u) for m in modes for h in (36, 60) for u in (0.5, 0.9)} <= seen


@pytest.mark.django_db
@pytest.mark.reads_only
def test_the_cluster_at_high_use_pays_back_within_a_year_only_where_the_engine_says_so(
    checked, alone
):
    check = checks_of(checked)[("cluster-h100", "high-3y")]
    for case in check.cases:
        figures = alone[id(case)]["result"]
        within_a_year = (
            figures["break_even_month"] is not None
            and figures["break_even_month"] <= PAYBACK_MONTHS
        )
        assert (case.verdict == "holds") == (within_a_year and figures["savings"] > 0)


@pytest.mark.django_db
@pytest.mark.reads_only
def test_buying_beyond_a_year_is_also_checked_against_1_year_reservations(checked, alone):
    check = checks_of(checked)[("server-4x4090", "payback-reserved")]
    assert check.cases
    for case in check.cases:
        offering = alone[id(case)]["offering"]
        scenario = alone[id(case)]["scenario"]
        assert offering.pricing_mode == "commit-1y" and offering.gpu_count == 1
        assert scenario.rent.committed_instances >= 1
        assert scenario.rent.commitment_term_months == 12
        # Hours beyond the reservation at the on-demand sibling's rate.
        roles = [p["role"] for p in alone[id(case)]["resolution"].provenance]
        assert "overflow rate" in roles


@pytest.mark.django_db
@pytest.mark.reads_only
def test_hourly_billing_is_compared_with_a_reservation_of_the_same_instance(checked, alone):
    for key in ("short-vs-reserved", "fluctuating-vs-reserved"):
        check = checks_of(checked)[("short-projects", key)]
        assert check.cases
        for case in check.cases:
            offering = alone[id(case)]["offering"]
            assert offering.is_commitment
            # One instance reserved: the resolver's default, the cheapest count, would
            # reserve none for a short project and compare hourly billing with itself.
            assert alone[id(case)]["scenario"].rent.committed_instances == 1
            twin = case.on_demand
            assert twin.selection.cloud_offering == offering.on_demand_sibling.slug
            assert twin.selection.workload == case.selection.workload
            reserved = alone[id(case)]["result"]["rent"]["total"]
            hourly = alone[id(twin)]["result"]["rent"]["total"]
            assert case.verdict == ("holds" if hourly < reserved else "does_not_hold")
            assert twin.url and twin.url != case.url


@pytest.mark.django_db
@pytest.mark.reads_only
def test_tidal_work_reserved_instead_reserves_one_instance(checked, alone):
    check = checks_of(checked)[("tidal", "reserved")]
    assert check.cases
    for case in check.cases:
        assert alone[id(case)]["offering"].is_commitment
        scenario = alone[id(case)]["scenario"]
        assert scenario.rent.committed_instances == 1
        assert scenario.rent.commitment_term_months == 12


@pytest.mark.django_db
@pytest.mark.reads_only
def test_short_projects_and_fluctuating_demand_compare_on_demand_offerings_only(checked, alone):
    for key in ("short", "fluctuating"):
        for case in checks_of(checked)[("short-projects", key)].cases:
            assert alone[id(case)]["offering"].pricing_mode == "on-demand"


@pytest.mark.django_db
@pytest.mark.reads_only
def test_the_price_claims_compare_the_resolved_capex(checked, alone):
    for claim, low, high in (("server-4x4090", 150_000, 200_000), ("server-4060ti", 6_000, 8_000)):
        check = checks_of(checked)[(claim, "price")]
        (case,) = check.cases
        capex = alone[id(case)]["resolution"].scenario.build.capex
        assert case.scenario.build.capex == capex
        assert (check.spec.rule.low, check.spec.rule.high) == (low, high)
        assert check.verdict == by_hand("price_within", check.spec.rule, alone[id(case)])


@pytest.mark.django_db
@pytest.mark.reads_only
def test_the_throughput_claim_uses_the_catalogs_measured_figure(checked, shipped):
    measured = shipped[2]
    check = checks_of(checked)[("resnet50-throughput", "measured")]
    assert check.measured["value"] == measured
    inside = 300 * 0.95 <= measured <= 500 * 1.05
    near = 300 * 0.8 <= measured <= 500 * 1.2
    assert check.verdict == ("holds" if inside else "partly" if near else "does_not_hold")


# --- what the catalog lacks ---------------------------------------------------------------------


@pytest.mark.django_db
def test_a_claim_the_catalog_cannot_supply_is_not_checkable_rather_than_failing(catalog):
    BuildPreset.objects.filter(slug="multi-4x-rtx4090").delete()
    claims = claims_of(guide.check_guide())
    server = claims["server-4x4090"]
    assert [c.verdict for c in server.checks][:3] == ["not_checkable"] * 3
    price_case = server.checks[0].cases[0]
    assert price_case.summary is None and price_case.url is None
    assert "preset" in price_case.problem
    assert claims["tidal"].verdict != "not_checkable"


@pytest.mark.django_db
def test_with_no_cloud_offerings_the_buy_vs_rent_claims_say_what_is_missing(client, catalog):
    CloudOffering.objects.all().delete()
    claims = claims_of(guide.check_guide())
    assert claims["tidal"].verdict == "not_checkable"
    assert claims["cluster-h100"].verdict == "not_checkable"
    html = client.get("/guide/").content.decode()
    assert "the catalog lacks cloud offerings of this class" in html


@pytest.mark.django_db
def test_a_date_before_any_price_makes_everything_not_checkable_without_error(catalog):
    checked = guide.check_guide(as_of=datetime.date(2000, 1, 1))
    for claim in checked.claims:
        if claim.spec.key != "resnet50-throughput":
            assert claim.verdict == "not_checkable", claim.spec.key


@pytest.mark.django_db
def test_the_runner_takes_any_claims_given_as_data(catalog):
    from webapp.advisor.claims import ENTRY_BOX, GEFORCE_40, Check, Claim, steady
    from webapp.advisor.verdicts import RentingCheaper

    claim = Claim(
        key="made-up",
        title="A made-up claim",
        text="An idle box is cheaper to rent.",
        checks=(
            Check(
                key="idle",
                question="Idle?",
                rule=RentingCheaper(),
                setup=ENTRY_BOX,
                scenario="RTX 4090 box, 5 % busy",
                offerings=(GEFORCE_40,),
                workload=steady(0.05),
                horizon_months=24,
            ),
        ),
    )
    (result,) = guide.check_guide([claim]).claims
    (check,) = result.checks
    slugs = set(
        CloudOffering.objects.filter(gpu_model__name__contains="RTX 4090").values_list(
            "slug", flat=True
        )
    )
    assert {case.selection.cloud_offering for case in check.cases} == slugs
    for case in check.cases:
        assert case.scenario.horizon_months == 24
        assert case.scenario.workload.utilization == 0.05
        assert case.verdict in {"holds", "partly", "does_not_hold"}


# --- the page -------------------------------------------------------------------------------------


BADGE_TONES = {
    "holds": "badge-good",
    "partly": "badge-warn",
    "does_not_hold": "badge-bad",
    "not_checkable": "badge-neutral",
}
BADGE_WORDS = {
    "holds": "holds",
    "partly": "partly holds",
    "does_not_hold": "does not hold",
    "not_checkable": "not checkable from cost data",
}
BADGE = re.compile(r'<span class="badge (badge-\w+)[^"]*" data-verdict="(\w+)">([^<]+)</span>')


def visible_text(html: str) -> str:
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", body)))


@pytest.mark.django_db
def test_the_guide_page_lists_every_claim_with_verdicts_badges_and_links(client, catalog):
    response = client.get(reverse("advisor:guide"))
    assert response.status_code == 200
    html = response.content.decode()
    verdicts = {claim.spec.key: claim.verdict for claim in guide.cached_check_guide().claims}

    rows = re.findall(r'<tr data-claim="([^"]+)">(.*?)</tr>', html, flags=re.S)
    assert [key for key, _ in rows] == CLAIM_KEYS
    assert html.index('class="card verdict-summary"') < html.index('id="claim-server-4x4090"')
    for key, row in rows:
        assert f'href="#claim-{key}"' in row
        tone, verdict, words = BADGE.search(row).groups()
        assert (verdict, words, tone) == (verdicts[key], BADGE_WORDS[verdict], BADGE_TONES[verdict])
        assert f'id="claim-{key}"' in html
    assert "150 000 – 200 000 CNY" in html
    assert html.count('href="/r/') >= 80
    assert "has no NVLink" in html


@pytest.mark.django_db
def test_the_guide_page_folds_the_scenarios_behind_each_verdict(client, catalog):
    html = client.get(reverse("advisor:guide")).content.decode()
    folded = re.findall(r"<details>(.*?)</details>", html, flags=re.S)
    with_cases = [c for claim in guide.cached_check_guide().claims for c in claim.checks if c.cases]
    assert len(folded) == len(with_cases) == html.count('class="guide-cases')
    assert "<details open" not in html
    assert sum(block.count('href="/r/') for block in folded) == html.count('href="/r/')


@pytest.mark.django_db
def test_the_guide_page_names_catalog_rows_never_by_slug(client, catalog):
    text = visible_text(client.get(reverse("advisor:guide")).content.decode())
    slugs = {
        slug
        for model in (BuildPreset, CloudOffering)
        for slug in model.objects.values_list("slug", flat=True)
    } | {"resnet50-fp16", "bert-large-fp16"}
    shown = [s for s in slugs if re.search(rf"(?<![\w.-]){re.escape(s)}(?![\w-])", text)]
    assert not shown, shown
    assert "ResNet-50 training, FP16" in text
    assert "Multi-GPU: 4 × RTX 4090 dual-Xeon server" in text


@pytest.mark.django_db
def test_the_guide_page_shows_each_cases_engine_figures(client, catalog):
    html = client.get(reverse("advisor:guide")).content.decode()
    checked = guide.cached_check_guide()
    for case in checks_of(checked)[("cluster-h100", "high-3y")].cases:
        assert money(case.summary["savings"], "CNY", 0) in html
        assert money(case.summary["rent"]["total"], "CNY", 0) in html


@pytest.mark.django_db
def test_the_guide_page_renders_on_an_empty_catalog(client):
    response = client.get(reverse("advisor:guide"))
    assert response.status_code == 200
    assert "not checkable" in response.content.decode()


@pytest.mark.django_db
def test_the_guide_page_refuses_post(client):
    assert client.post(reverse("advisor:guide")).status_code == 405


@pytest.mark.django_db
def test_the_guide_page_reads_in_chinese_with_the_catalogs_chinese_names(client, catalog):
    response = client.get(reverse("advisor:guide"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.status_code == 200
    assert response.headers["Content-Language"] == "zh-hans"
    text = visible_text(response.content.decode())
    assert "指南核验" in text
    for offering in CloudOffering.objects.filter(gpu_model__name__contains="H100", gpu_count=8):
        assert offering.name_zh and offering.name_zh in text
    cluster = BuildPreset.objects.get(slug="multi-4x-rtx4090")
    assert cluster.name_zh in text
    for english in (
        "Buying beats renting when training runs",
        "Against 6 cloud offerings",
        "Pays back after",
        "savings of building",
        "partly holds",
        "(on-demand)",
    ):
        assert english not in text, english


# --- the cache ------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_page_reuses_its_checks_until_the_catalog_changes(client, catalog, monkeypatch):
    runs = []
    real_check_guide = guide.check_guide
    monkeypatch.setattr(guide, "check_guide", lambda: runs.append(1) or real_check_guide())
    url = reverse("advisor:guide")

    first = visible_text(client.get(url).content.decode())
    again = visible_text(client.get(url).content.decode())
    assert (len(runs), again) == (1, first)

    CloudOffering.objects.filter(slug__contains="rtx-4090").delete()
    changed = visible_text(client.get(url).content.decode())
    assert len(runs) == 2
    assert changed != first
    client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert len(runs) == 3  # each language has its own copy


@pytest.mark.django_db
def test_editing_a_price_in_place_refreshes_the_cached_page(client, catalog):
    url = reverse("advisor:guide")
    price_check = CLAIMS[0].checks[0]
    line = PresetPart.objects.get(
        preset__slug=price_check.setup.preset, part__slug="chassis-4u-4gpu"
    )
    price = line.part.prices.latest("effective_date")
    assert price.currency == "CNY"
    capex = checks_of(guide.check_guide())[("server-4x4090", "price")].cases[0].scenario.build.capex
    assert money(capex, "CNY", 0) in client.get(url).content.decode()

    price.amount += 1000
    price.save()

    after = client.get(url).content.decode()
    assert money(capex + 1000 * line.quantity, "CNY", 0) in after


@pytest.mark.django_db
def test_a_guide_one_worker_checked_serves_the_others(catalog, monkeypatch):
    # Workers share the database cache, not their local-memory ones: clearing the
    # local cache stands for a request that reaches another worker.
    from django.core.cache import caches

    checks = []
    real = guide.check_guide
    monkeypatch.setattr(guide, "check_guide", lambda: checks.append(1) or real())
    caches["shared"].clear()
    first = guide.cached_check_guide()
    caches["default"].clear()
    assert guide.cached_check_guide() == first
    assert len(checks) == 1


@pytest.mark.django_db
@pytest.mark.reads_only
def test_a_case_with_a_cost_of_capital_is_decided_in_present_value_like_its_results_page(
    checked,
):
    """With a cost of capital the guide's conditions (break-even utilization, savings at the
    reference utilization) are in present value, the measure its verdict is decided on, and
    the decision is the one the planner's results page takes (webapp.decided)."""
    from webapp.decided import decided

    source = next(case for case in all_cases(checked) if case.scenario is not None)
    scenario = source.scenario.model_copy(update={"discount_rate_per_year": 0.2})
    case = guide.Case(
        label=source.label, offering=source.offering, selection=source.selection,
        scenario=scenario, provenance=source.provenance,
    )  # fmt: skip
    guide.run_in_one_batch([case])
    page = decided(scenario).decision
    assert case.decision is not None
    assert case.decision.conditions_in_present_value
    assert case.decision.recommendation == page.recommendation
    assert case.decision.build_when_busier == page.build_when_busier
    if page.break_even_utilization is None:
        assert case.decision.break_even_utilization is None
    else:
        assert_allclose(case.decision.break_even_utilization, page.break_even_utilization)
    assert_allclose(case.decision.reference_savings, page.reference_savings, rtol=1e-9)
