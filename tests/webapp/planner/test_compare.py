"""The compare page and the saved list: verdicts from the engine, inputs that differ, amounts in
two currencies converted at the catalog's rate of the scenario's date (or kept apart)."""

import datetime
import re

import pytest
from django.urls import reverse
from django.utils import translation
from numpy.testing import assert_allclose

from costmodel import compare, parse_scenario
from webapp import formatting
from webapp.catalog import selectors
from webapp.catalog.models import FxRate
from webapp.planner.results import results_context
from webapp.planner.services import saved_link
from webapp.planner.verdict import VERDICT_LABELS
from webapp.scenarios.models import SavedScenario
from webapp.scenarios.services import create_saved_scenario

from .helpers import json_script

pytestmark = pytest.mark.django_db

COMPARE = reverse("planner:saved-compare")
SAVED = reverse("planner:saved-list")


def saved(scenario_data, name, session_key="s", as_of=None, **changes):
    data = {**scenario_data, **changes}
    for side in ("build", "rent"):
        if side in changes:
            data[side] = {**scenario_data[side], **changes[side]}
    selection = {"as_of": as_of} if as_of else None
    return create_saved_scenario(
        name=name, scenario=parse_scenario(data), session_key=session_key, selection=selection
    )


def in_dollars(scenario_data, rate):
    """The worked example priced in dollars (every amount ÷ rate)."""
    build = {**scenario_data["build"]}
    for key in ("capex", "electricity_price_per_kwh", "hosting_monthly", "ops_monthly"):
        build[key] = build.get(key, 0.0) / rate
    rent = {**scenario_data["rent"]}
    for key in ("hourly_rate", "fixed_monthly"):
        rent[key] = rent.get(key, 0.0) / rate
    return {"currency": "USD", "build": build, "rent": rent}


def compare_page(client, items, language="en"):
    response = client.get(
        COMPARE, {"ids": [str(i.pk) for i in items]}, HTTP_ACCEPT_LANGUAGE=language
    )
    assert response.status_code == 200
    return response, response.content.decode()


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


# --- mixed currencies ----------------------------------------------------------------------


def test_dollar_amounts_are_shown_in_yuan_at_the_rate_of_the_scenarios_date(
    client, shipped_catalog, scenario_data
):
    day = "2025-02-15"
    row = selectors.fx_rate_on("USD", "CNY", datetime.date.fromisoformat(day))
    assert row is not None and (row.base_currency, row.quote_currency) == ("USD", "CNY")
    yuan = saved(scenario_data, "in yuan", as_of=day)
    dollars = saved(scenario_data, "in dollars", as_of=day, **in_dollars(scenario_data, 7.0))
    _response, html = compare_page(client, [yuan, dollars])

    charts = json_script(html, "compare-data")["charts"]
    assert len(charts) == 1  # one axis, every amount in yuan
    assert charts[0]["axis"] == "Cumulative cost [¥]"
    usd = compare(parse_scenario(dollars.scenario))
    series = charts[0]["series"][1]
    assert (series["currency"], series["converted_from"]) == ("CNY", "USD")
    by_hand = [v * float(row.rate) for v in usd["rent"]["cumulative"]]
    assert_allclose(series["rent"]["cumulative"], by_hand, rtol=1e-12)
    assert (
        charts[0]["series"][0]["rent"]["cumulative"]
        == compare(parse_scenario(yuan.scenario))["rent"]["cumulative"]
    )

    note = text(html.split('id="fx-note"', 1)[1].split("</div>", 1)[0])
    rate = formatting.number(row.rate, 4)
    assert (
        f"“in dollars”: 1 USD = {rate} CNY, the rate of {row.effective_date} in effect on {day}"
        in note
    )
    assert row.source.split(":")[0] in note
    cells = html.split(f'<tr data-saved="{dollars.pk}">')[1].split('data-figure="savings">')[1]
    savings_cell = cells.split("</td>")[0]
    assert formatting.money(usd["savings"], "USD") in savings_cell
    assert "≈ " + formatting.money(usd["savings"] * float(row.rate), "CNY") in savings_cell


def test_the_rate_used_is_the_one_in_effect_on_each_scenarios_own_date(
    client, shipped_catalog, scenario_data
):
    yuan = saved(scenario_data, "in yuan", as_of="2026-02-01")
    early = saved(scenario_data, "early", as_of="2022-06-30", **in_dollars(scenario_data, 7.0))
    late = saved(scenario_data, "late", as_of="2026-02-01", **in_dollars(scenario_data, 7.0))
    _response, html = compare_page(client, [yuan, early, late])
    rates = {
        name: selectors.fx_rate_on("USD", "CNY", datetime.date.fromisoformat(day))
        for name, day in (("early", "2022-06-30"), ("late", "2026-02-01"))
    }
    assert rates["early"].rate != rates["late"].rate
    series = {s["name"]: s for s in json_script(html, "compare-data")["charts"][0]["series"]}
    for name, item in (("early", early), ("late", late)):
        usd = compare(parse_scenario(item.scenario))
        expected = [v * float(rates[name].rate) for v in usd["build"]["cumulative"]]
        assert_allclose(series[name]["build"]["cumulative"], expected, rtol=1e-12)


def test_without_a_rate_each_currency_gets_a_chart_of_its_own(client, db, scenario_data):
    assert not FxRate.objects.exists()
    yuan = saved(scenario_data, "in yuan")
    dollars = saved(scenario_data, "in dollars", **in_dollars(scenario_data, 7.0))
    _response, html = compare_page(client, [yuan, dollars])
    charts = json_script(html, "compare-data")["charts"]
    assert [(c["currency"], c["axis"]) for c in charts] == [
        ("CNY", "Cumulative cost [¥]"),
        ("USD", "Cumulative cost [$]"),
    ]
    assert [[s["name"] for s in c["series"]] for c in charts] == [["in yuan"], ["in dollars"]]
    usd = compare(parse_scenario(dollars.scenario))
    assert charts[1]["series"][0]["build"]["cumulative"] == usd["build"]["cumulative"]
    assert 'id="chart-compare"' in html and 'id="chart-compare-1"' in html
    assert "has no exchange rate for their dates" in html
    assert "≈" not in html.split('id="compare-verdict"')[1].split("</section>")[0]


# --- which option wins, which inputs differ ------------------------------------------------


def test_the_page_says_which_option_wins_from_the_engines_figures(client, db, scenario_data):
    items = [
        saved(scenario_data, f"rate {rate}", rent={"hourly_rate": rate}) for rate in (28.0, 1.0)
    ]
    _response, html = compare_page(client, items)
    results = [compare(parse_scenario(i.scenario)) for i in items]
    assert results[0]["savings"] > 0 > results[1]["savings"]
    best = best_sentence(html)
    assert best == (  # at the example's 8 % cost of capital: in present value, said so
        f"Of these, building saves the most in “rate 28.0”: "
        f"{formatting.money(results[0]['present_value_savings'], 'CNY')} in present value at "
        "8 % a year over 36 months."
    )
    verdicts = html.split('id="compare-verdict"')[1].split("</section>")[0]
    build_line = text(verdicts.split(f'data-saved="{items[0].pk}"')[1].split("</li>")[0])
    rent_line = text(verdicts.split(f'data-saved="{items[1].pk}"')[1].split("</li>")[0])
    # the results page's own headline, worded once
    # (at the example's 8 % cost of capital: in present value, the verdict's measure)
    build_pv = formatting.amount(results[0]["present_value_savings"], "CNY")
    rent_pv = formatting.amount(-results[1]["present_value_savings"], "CNY")
    assert f"Build Build: it saves {build_pv} in present value" in build_line
    assert f"Rent Rent: building would cost {rent_pv} more in present value" in rent_line
    # present values as figures, no second verdict beside the one code
    r = results[1]
    assert (
        f"Present values: build {formatting.money(r['build']['present_value'], 'CNY')}, "
        f"rent {formatting.money(r['rent']['present_value'], 'CNY')}."
    ) in rent_line
    assert "wins" not in rent_line


def test_renting_everywhere_names_the_closest_scenario(client, db, scenario_data):
    items = [
        saved(scenario_data, f"rate {rate}", rent={"hourly_rate": rate}) for rate in (1.0, 0.5)
    ]
    _response, html = compare_page(client, items)
    best = best_sentence(html)
    closest = compare(parse_scenario(items[0].scenario))["present_value_savings"]
    assert "Renting is cheaper in every one of these" in best
    assert f"“rate 1.0”, {formatting.money(-closest, 'CNY')} dearer in present value" in best


def best_sentence(html: str) -> str:
    return text(html.split('id="best-sentence"')[1].split(">", 1)[1].split("</p>")[0]).strip()


def test_the_winner_is_ranked_by_the_verdicts_measure_not_by_cash(client, db, scenario_data):
    # "dear money": more cash savings, but at 40 % a year the box's price now outweighs
    # the cloud bills saved later; "cheap money": less cash, decided at 0 %, in cash
    dear = saved(scenario_data, "dear money", discount_rate_per_year=0.4)
    cheap = saved(
        scenario_data, "cheap money", discount_rate_per_year=0.0, rent={"hourly_rate": 24.0}
    )
    dear_result, cheap_result = (compare(parse_scenario(i.scenario)) for i in (dear, cheap))
    assert dear_result["savings"] > cheap_result["savings"]  # cash would name "dear money"
    assert dear_result["present_value_savings"] < cheap_result["savings"]
    for language, expected in [
        (
            "en",
            f"Of these, building saves the most in “cheap money”: "
            f"{formatting.money(cheap_result['savings'], 'CNY')} over 36 months.",
        ),
        ("zh-hans", "在这些场景中，“cheap money”自建节省最多"),
    ]:
        _response, html = compare_page(client, [dear, cheap], language)
        assert best_sentence(html).startswith(expected)
        assert 'data-ranked-by="savings"' in html  # the winner's verdict is decided in cash
        assert 'id="best-ranked-by"' in html
    # the stored decisions rank the same way: the page agrees with what was saved
    dear.refresh_from_db()
    cheap.refresh_from_db()
    assert cheap.decision_present_value_savings > dear.decision_present_value_savings
    # with both at a cost of capital the sentence says present value, at the winner's rate
    both = saved(scenario_data, "both dear", discount_rate_per_year=0.2)
    _response, html = compare_page(client, [dear, both], "zh-hans")
    assert "“both dear”自建节省最多：按每年 20 % 折现的现值" in best_sentence(html)


def test_amounts_that_are_zero_in_both_currencies_do_not_differ(client, db, scenario_data):
    assert scenario_data["build"]["hosting_monthly"] == scenario_data["build"]["ops_monthly"] == 0
    items = [
        saved(scenario_data, "yuan"),
        saved(scenario_data, "dollars", **in_dollars(scenario_data, 7.0)),
    ]
    _response, html = compare_page(client, items)
    rows = dict(re.findall(r'<tr data-input="([^"]+)"( class="differs")?', html))
    assert rows["build.hosting_monthly"] == rows["build.ops_monthly"] == ""  # 0 is 0 in both
    assert rows["build.capex"] == rows["currency"] == ' class="differs"'


def test_the_inputs_that_differ_are_marked(client, db, scenario_data):
    items = [
        saved(scenario_data, "a"),
        saved(scenario_data, "b", rent={"hourly_rate": 10.0}, horizon_months=24),
    ]
    _response, html = compare_page(client, items)
    rows = dict(re.findall(r'<tr data-input="([^"]+)"( class="differs")?', html))
    assert rows["rent.hourly_rate"] == rows["horizon_months"] == ' class="differs"'
    assert rows["build.capex"] == rows["currency"] == ""
    marked = html.split('data-input="rent.hourly_rate"')[1].split("</tr>")[0]
    assert "differs" in text(marked)
    assert formatting.money(10.0, "CNY") in marked


def test_catalog_choices_are_named_in_the_chinese_interface(client, shipped_catalog):
    home = reverse("planner:home")
    codes = []
    for preset in ("entry-rtx4090", "budget-rtx4060ti"):
        form = client.get(home, {"preset": preset}).context["form"]
        data = {n: form.initial.get(n, f.initial) for n, f in form.fields.items()}
        data = {k: ("on" if v is True else v) for k, v in data.items() if v not in (None, False)}
        codes.append(client.post(home, data)["Location"].removeprefix("/r/"))
    for i, code in enumerate(codes):
        client.post(reverse("planner:save"), {"code": code, "name": f"box {i}"})
    items = list(SavedScenario.objects.order_by("name"))
    _response, html = compare_page(client, items, language="zh-CN")
    from webapp.catalog.models import BuildPreset, CloudOffering

    box = html.split('data-input="box"')[1].split("</tr>")[0]
    for slug in ("entry-rtx4090", "budget-rtx4060ti"):
        name_zh = BuildPreset.objects.get(slug=slug).name_zh
        assert name_zh and name_zh in box
    offering = html.split('data-input="cloud_offering"')[1].split("</tr>")[0]
    # left to the catalog: a CNY plan rents the best China-market way to do its work (the
    # options operation), named as the plan used it
    for item in items:
        used = next(i for i in item.provenance if i.get("role") == "cloud offering ranking")
        assert CloudOffering.objects.get(slug=used["offering"]).name_zh in offering
    assert (
        'class="differs"'
        in html.split('data-input="box"')[0].rsplit("<tr", 1)[1] + 'class="differs"'
    )


def test_choices_left_to_the_catalog_are_named_by_the_rows_the_plans_used(client, shipped_catalog):
    home = reverse("planner:home")
    form = client.get(home).context["form"]
    data = {n: form.initial.get(n, f.initial) for n, f in form.fields.items()}
    data = {k: ("on" if v is True else v) for k, v in data.items() if v not in (None, False)}
    for preset in ("entry-rtx4090", "multi-4x-rtx4090"):
        code = client.post(home, {**data, "preset": preset})["Location"].removeprefix("/r/")
        client.post(reverse("planner:save"), {"code": code, "name": preset})
    items = list(SavedScenario.objects.order_by("name"))
    assert all(item.selection["hosting"] is None for item in items)  # left to the catalog
    _response, html = compare_page(client, items, language="zh-CN")
    from webapp.catalog.models import HostingOption, Tariff

    hosting = html.split('data-input="hosting"')[1].split("</tr>")[0]
    for slug in ("office-deskside", "cn-colo-all-in"):  # a desk-side box, a multi-GPU server
        assert (
            HostingOption.objects.filter(slug=slug).latest("effective_date").name_zh in hosting
        ), slug
    assert hosting.startswith(' class="differs">')
    tariff = html.split('data-input="tariff"')[1].split("</tr>")[0]
    assert (
        Tariff.objects.filter(slug="cn-business-average").latest("effective_date").name_zh in tariff
    )
    assert "—" not in tariff


# --- the saved list ------------------------------------------------------------------------


def test_the_saved_list_shows_each_verdict_and_savings_its_results_page_states(
    client, permalink, scenario_data
):
    client.post(reverse("planner:save"), {"code": permalink, "name": "first"})
    key = client.session.session_key
    saved(scenario_data, "cheap cloud", session_key=key, rent={"hourly_rate": 1.0})
    late = saved(
        scenario_data,
        "late",
        session_key=key,
        workload={"kind": "steady", "utilization": 0.07},
        horizon_months=60,
    )
    html = client.get(SAVED, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    codes = set()
    for item in SavedScenario.objects.all():
        page = results_context(saved_link(item))["decision"]
        codes.add(page.verdict)
        row = text(html.split(f'<tr data-saved="{item.pk}">')[1].split("</tr>")[0])
        with translation.override("en"):
            money = formatting.money(page.savings, "CNY")
            label = str(VERDICT_LABELS[page.verdict])
        assert money in row
        assert label in row
        if item.pk == late.pk:
            assert page.verdict == "late_payback" and page.break_even_month > 36
    assert codes == {"build", "rent", "late_payback"}


@pytest.mark.parametrize("count", [0, 1])
def test_nothing_to_compare_is_said_on_the_list_in_chinese_too(client, permalink, count):
    for i in range(3):
        client.post(reverse("planner:save"), {"code": permalink, "name": f"box {i}"})
    ids = [str(pk) for pk in SavedScenario.objects.values_list("pk", flat=True)][:count]
    html = client.get(COMPARE, {"ids": ids}, HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    with translation.override("zh-hans"):
        from django.utils.translation import gettext

        message = gettext(
            "Tick at least %(min)d scenarios to compare them (you ticked %(count)d): "
            "a comparison needs two."
        ) % {"min": 2, "count": count}
    assert message in html
    assert message.startswith("请") or "至少" in message


def test_a_close_call_is_flagged_beside_its_verdict(client, db, scenario_data):
    # No discount rate: the verdict's measure, present-value savings, is the cash savings.
    scenario_data["discount_rate_per_year"] = 0.0
    threshold = compare(parse_scenario(scenario_data))["break_even_utilization"]
    close = saved(scenario_data, "close", workload={"kind": "steady", "utilization": threshold})
    clear = saved(scenario_data, "clear")
    _response, html = compare_page(client, [close, clear])
    verdicts = html.split('id="compare-verdict"')[1].split("</section>")[0]
    close_line = text(verdicts.split(f'data-saved="{close.pk}"')[1].split("</li>")[0])
    clear_line = text(verdicts.split(f'data-saved="{clear.pk}"')[1].split("</li>")[0])
    assert "A close call" in close_line and "A close call" not in clear_line


@pytest.mark.parametrize(
    ("language", "savings", "threshold"),
    [
        ("en", "Savings in cash", "Break-even utilization in cash"),
        ("zh-hans", "现金节省金额", "现金口径的盈亏平衡利用率"),
    ],
)
def test_the_tables_cash_columns_say_they_are_cash(
    client, db, scenario_data, language, savings, threshold
):
    """The table's savings and break-even utilization are the engine's cash figures, while
    the sentence above ranks by each verdict's measure: the headers say which they are."""
    dear = saved(scenario_data, "dear money", discount_rate_per_year=0.4)
    cheap = saved(scenario_data, "cheap money", discount_rate_per_year=0.0)
    _response, html = compare_page(client, [dear, cheap], language)
    headers = re.findall(r"<th>([^<]+)</th>", html)
    assert savings in headers and threshold in headers
    result = compare(parse_scenario(dear.scenario))
    row = re.search(rf'<tr data-saved="{dear.pk}">.*?</tr>', html, re.S).group(0)
    shown = re.search(r'data-figure="savings">.*?</span> ([^<]+)', row).group(1)
    assert shown.strip() == formatting.money(result["savings"], "CNY")  # cash, not PV
