"""The guide, checked: verdict rules, and every verdict's figures equal the engine's."""

import datetime
import re
from html import unescape

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from numpy.testing import assert_allclose

from costmodel import compare
from webapp.catalog.models import (
    Benchmark,
    BuildPreset,
    CloudOffering,
    GpuModel,
    HostingOption,
    Part,
    PartPrice,
    Tariff,
)
from webapp.catalog.resolver import resolve
from webapp.planner import guide
from webapp.planner.permalink import decode

CLAIM_KEYS = [
    "server-4x4090",
    "server-4060ti",
    "tidal",
    "short-projects",
    "resnet50-throughput",
    "speedups",
]


@pytest.fixture(autouse=True)
def empty_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def catalog(db):
    call_command("load_catalog", verbosity=0)


@pytest.fixture(scope="module")
def shipped(django_db_setup, django_db_blocker):
    """The guide checked once on the shipped catalog, with each case re-resolved on its own.

    Computed once per module (checking resolves ~60 scenarios) inside a
    transaction that is rolled back, so no test sees the rows.
    """
    with django_db_blocker.unblock(), transaction.atomic():
        call_command("load_catalog", verbosity=0)
        claims = {claim.key: claim for claim in guide.check_guide()}
        resolved = {
            id(case): resolve(case.selection)
            for claim in claims.values()
            for check in claim.checks
            for case in check.cases
        }
        transaction.set_rollback(True)
    return claims, resolved


@pytest.fixture
def claims(shipped):
    return shipped[0]


@pytest.fixture
def resolved(shipped):
    return shipped[1]


def _row(item):
    keys = ("role", "model", "natural_key", "fields", "amount", "currency", "converted_amount")
    return {k: item.get(k) or None for k in keys}


def all_cases(claims):
    return [case for claim in claims.values() for check in claim.checks for case in check.cases]


# --- verdict rules ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("verdicts", "overall"),
    [
        (["holds", "holds"], "holds"),
        (["does_not_hold", "does_not_hold"], "does_not_hold"),
        (["holds", "does_not_hold"], "partly"),
        (["partly"], "partly"),
        (["holds", "not_checkable"], "holds"),
        (["not_checkable"], "not_checkable"),
        ([], "not_checkable"),
    ],
)
def test_it_combines_verdicts(verdicts, overall):
    assert guide.combine(verdicts) == overall


@pytest.mark.parametrize(
    ("value", "verdict"),
    [
        (150_000, "holds"),
        (200_000, "holds"),
        (209_000, "holds"),  # "about": within 5 %
        (211_000, "partly"),
        (240_000, "partly"),
        (241_000, "does_not_hold"),
        (120_000, "partly"),
        (119_000, "does_not_hold"),
    ],
)
def test_a_price_range_holds_within_5_percent_and_partly_within_20(value, verdict):
    assert guide.range_verdict(value, 150_000, 200_000, guide.PRICE_RANGE_TOLERANCE) == verdict


@pytest.mark.parametrize(
    ("break_even_month", "verdict"),
    [(0.0, "holds"), (12.0, "holds"), (12.01, "partly"), (36.0, "partly"), (None, "does_not_hold")],
)
def test_buying_beats_renting_beyond_a_year_needs_payback_within_12_months(
    break_even_month, verdict
):
    assert guide.payback_within_a_year_verdict(break_even_month, 36) == verdict


@pytest.mark.parametrize(
    ("break_even_month", "verdict"),
    [(3.99, "partly"), (4.0, "holds"), (9.0, "holds"), (9.01, "partly"), (None, "does_not_hold")],
)
def test_about_six_months_means_4_to_9(break_even_month, verdict):
    assert guide.about_months_verdict(break_even_month, 6) == verdict


@pytest.mark.parametrize(
    ("savings", "break_even_month", "verdict"),
    [
        (-1.0, None, "holds"),
        (-1.0, 37.0, "holds"),
        (1.0, None, "partly"),  # renting cheaper in cash, building cheaper once resold
        (1.0, 2.0, "does_not_hold"),
        (-1.0, 2.0, "partly"),
    ],
)
def test_renting_is_cheaper_on_both_cash_and_net_of_resale(savings, break_even_month, verdict):
    assert guide.renting_cheaper_verdict(savings, break_even_month, 36) == verdict


# --- against the engine, on the shipped catalog -------------------------------------------------


@pytest.mark.django_db
def test_every_claim_of_the_guide_is_checked(claims):
    assert list(claims) == CLAIM_KEYS
    for claim in claims.values():
        assert claim.checks
        assert claim.verdict == guide.combine([c.verdict for c in claim.checks])
    assert claims["speedups"].verdict == "not_checkable"


@pytest.mark.django_db
def test_each_verdicts_figures_equal_the_engines_for_the_same_resolved_scenario(claims, resolved):
    cases = [c for c in all_cases(claims) if c.result is not None]
    assert len(cases) > 20
    for case in cases:
        scenario = resolved[id(case)].scenario.model_copy(update={"name": case.label[:200]})
        expected = compare(scenario)
        assert case.result["scenario"] == expected["scenario"]
        for key in ("savings", "break_even_month", "break_even_utilization"):
            if expected[key] is None:
                assert case.result[key] is None, (case.label, key)
            else:
                assert_allclose(case.result[key], expected[key], rtol=1e-9, err_msg=case.label)


@pytest.mark.django_db
def test_each_case_links_to_a_permalink_of_exactly_its_scenario(claims, resolved):
    for case in all_cases(claims):
        assert case.url, case.label
        code = case.url.rstrip("/").rsplit("/", 1)[-1]
        assert case.url == reverse("planner:results", args=[code])
        link = decode(code)
        assert link.scenario.model_dump(mode="json") == case.result["scenario"]
        # The link carries the rows the resolver used (stored compactly: empty keys dropped).
        assert [_row(p) for p in link.provenance] == [
            _row(p) for p in resolved[id(case)].provenance
        ]
        assert link.selection == case.selection.model_dump(mode="json")


@pytest.mark.django_db
def test_each_case_verdict_follows_its_rule_from_the_engine_figures(claims):
    server = claims["server-4x4090"].checks[1]
    for case in server.cases:
        expected = guide.payback_within_a_year_verdict(case.result["break_even_month"], 36)
        assert case.verdict == expected
    for case in claims["tidal"].checks[0].cases:
        r = case.result
        assert case.verdict == guide.renting_cheaper_verdict(
            r["savings"], r["break_even_month"], 36
        )
    for case in claims["server-4060ti"].checks[1].cases:
        assert case.verdict == guide.about_months_verdict(case.result["break_even_month"], 6)


@pytest.mark.django_db
def test_the_price_claims_compare_the_resolved_capex(claims, resolved):
    price = claims["server-4x4090"].checks[0]
    capex = resolved[id(price.cases[0])].scenario.build.capex
    assert price.figures["capex"] == capex
    assert price.verdict == guide.range_verdict(capex, 150_000, 200_000, 0.2)


@pytest.mark.django_db
def test_the_throughput_claim_uses_the_catalogs_measured_figure(claims):
    check = claims["resnet50-throughput"].checks[0]
    assert check.figures["measured"] == 1301.0
    assert check.verdict == "does_not_hold"
    assert "1,301" in check.finding


@pytest.mark.django_db
def test_short_projects_compare_on_demand_offerings_only(claims, catalog):
    for check in claims["short-projects"].checks:
        assert check.cases
        for case in check.cases:
            offering = CloudOffering.objects.get(slug=case.selection.cloud_offering)
            assert offering.pricing_mode == "on-demand"


@pytest.mark.django_db
def test_a_claim_the_catalog_cannot_supply_is_not_checkable_rather_than_failing(catalog):
    BuildPreset.objects.filter(slug=guide.MULTI_PRESET).delete()
    claims = {claim.key: claim for claim in guide.check_guide()}
    server = claims["server-4x4090"]
    assert server.verdict == "not_checkable"
    price_case = server.checks[0].cases[0]
    assert price_case.result is None and price_case.url is None
    assert "catalog lacks" in price_case.summary
    assert "preset" in price_case.summary
    assert claims["tidal"].verdict != "not_checkable"


@pytest.mark.django_db
def test_with_no_cloud_offerings_the_buy_vs_rent_claims_say_what_is_missing(catalog):
    CloudOffering.objects.all().delete()
    claims = {claim.key: claim for claim in guide.check_guide()}
    assert claims["tidal"].verdict == "not_checkable"
    assert "cloud offerings" in claims["tidal"].checks[0].finding


@pytest.mark.django_db
def test_a_date_before_any_price_makes_everything_not_checkable_without_error(catalog):
    claims = guide.check_guide(as_of=datetime.date(2000, 1, 1))
    for claim in claims:
        if claim.key != "resnet50-throughput":
            assert claim.verdict == "not_checkable", claim.key


# --- the page -----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_guide_page_lists_every_claim_with_verdicts_and_links(client, catalog):
    response = client.get(reverse("planner:guide"))
    assert response.status_code == 200
    html = response.content.decode()
    for key in CLAIM_KEYS:
        assert f'id="claim-{key}"' in html
    assert "150 000 – 200 000 CNY" in html
    assert html.count('href="/r/') >= 20
    assert "have no NVLink" in html or "has no NVLink" in html


@pytest.mark.django_db
def test_the_guide_page_renders_on_an_empty_catalog(client):
    response = client.get(reverse("planner:guide"))
    assert response.status_code == 200
    assert "not checkable" in response.content.decode()


@pytest.mark.django_db
def test_the_guide_page_refuses_post(client):
    assert client.post(reverse("planner:guide")).status_code == 405


@pytest.mark.django_db
def test_the_page_reuses_its_checks_until_the_catalog_changes(client, catalog):
    url = reverse("planner:guide")
    client.get(url)
    with CaptureQueriesContext(connection) as queries:
        again = client.get(url)
    assert again.status_code == 200
    assert len(queries) <= len(guide._FINGERPRINT_MODELS) + 5
    CloudOffering.objects.filter(slug__contains="rtx-4090").delete()
    with CaptureQueriesContext(connection) as queries:
        changed = client.get(url)
    assert len(queries) > 100
    assert changed.content != again.content


@pytest.mark.django_db
def test_editing_a_price_in_place_refreshes_the_cached_page(client, catalog):
    url = reverse("planner:guide")
    before = client.get(url).content.decode()
    assert "¥165,329" in before
    price = PartPrice.objects.filter(part__slug="chassis-4u-4gpu").latest("effective_date")
    price.amount += 1000
    price.save()
    after = client.get(url).content.decode()
    assert "¥166,329" in after


@pytest.mark.django_db
def test_the_guide_page_renders_in_chinese_too(client, catalog):
    response = client.get(reverse("planner:guide"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.status_code == 200
    assert response.headers["Content-Language"] == "zh-hans"


BADGE_TONES = {
    "holds": "badge-good",
    "partly": "badge-warn",
    "does_not_hold": "badge-bad",
    "not_checkable": "badge-neutral",
}
BADGE = re.compile(r'<span class="badge (badge-\w+)[^"]*" data-verdict="(\w+)">([^<]+)</span>')


def _visible_text(html: str) -> str:
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return unescape(re.sub(r"<[^>]+>", " ", body))


@pytest.mark.django_db
def test_the_guide_page_opens_with_every_verdict_as_a_badge_in_words(client, catalog):
    html = client.get(reverse("planner:guide")).content.decode()

    summary = html.index('class="card verdict-summary"')
    assert summary < html.index('id="claim-server-4x4090"')
    rows = re.findall(r'<tr data-claim="([^"]+)">(.*?)</tr>', html, flags=re.S)
    assert [key for key, _ in rows] == CLAIM_KEYS
    verdicts = {claim.key: claim.verdict for claim in guide.cached_check_guide()}
    for key, row in rows:
        assert f'href="#claim-{key}"' in row
        tone, verdict, text = BADGE.search(row).groups()
        assert verdict == verdicts[key]
        assert text == str(guide.VERDICT_LABELS[verdict])  # the verdict in words, not colour only
        assert tone == BADGE_TONES[verdict]
    assert {tone for tone, _, _ in BADGE.findall(html)} == set(BADGE_TONES.values())


@pytest.mark.django_db
def test_the_guide_page_folds_the_scenarios_behind_each_verdict(client, catalog):
    html = client.get(reverse("planner:guide")).content.decode()

    folded = re.findall(r"<details>(.*?)</details>", html, flags=re.S)
    checks_with_cases = [c for claim in guide.cached_check_guide() for c in claim.checks if c.cases]
    assert len(folded) == len(checks_with_cases) == html.count('class="guide-cases')
    assert all('class="guide-cases' in block for block in folded)
    assert "<details open" not in html
    assert sum(block.count('href="/r/') for block in folded) == html.count('href="/r/') >= 20


@pytest.mark.django_db
def test_the_guide_page_names_catalog_rows_never_by_slug(client, catalog):
    text = _visible_text(client.get(reverse("planner:guide")).content.decode())

    slugs = {
        slug
        for model in (Benchmark, BuildPreset, CloudOffering, GpuModel, HostingOption, Part, Tariff)
        for slug in model.objects.values_list("slug", flat=True)
    }
    assert "resnet50-fp16" in slugs
    shown = [s for s in slugs if re.search(rf"(?<![\w.-]){re.escape(s)}(?![\w-])", text)]
    assert not shown, shown
    assert "ResNet-50 training, FP16" in text
    assert "gpu_throughput" not in text
