"""The planner form's version-2 choices: pricing modes and commitments, useful life, a loan,
work above one box, uncertainty ranges; percentages typed as percentages, messages that say
what to type."""

import pytest
from django.urls import reverse
from numpy.testing import assert_allclose

from costmodel import Financing, compare
from costmodel.commitment import commitment_table
from costmodel.ranges import Range, default_ranges
from webapp.catalog.resolver import parse_selection, resolve
from webapp.planner.form_fields import committed_text
from webapp.scenarios.models import SavedScenario

from .helpers import link_of
from .test_planner_form import form_data, selection_of

# Pages built from the shipped catalog, checked for their figures and words: these tests read
# the database and write nothing (tests/conftest.py fails one that writes), so they run once, in
# the SQLite pass; the few that save or cache are marked database and run on PostgreSQL too.
pytestmark = pytest.mark.reads_only

HOME = reverse("planner:home")
COMMITMENT = "gcp-a3-highgpu-1g-commit-1y"


def post(client, **changes):
    return client.post(HOME, form_data(client, **changes), HTTP_ACCEPT_LANGUAGE="en")


def errors_of(response) -> dict:
    assert response.status_code == 200, response.get("Location")
    return response.context["form"].errors


# --- percentages ---------------------------------------------------------------------------


def test_fractions_are_shown_as_percentages(client, shipped_catalog):
    form = client.get(HOME, {"preset": "entry-rtx4090"}).context["form"]
    expected = resolve(parse_selection(selection_of(form_data(client, preset="entry-rtx4090"))))
    build = expected.scenario.build
    assert form.initial["build__maintenance_rate_per_year"] == pytest.approx(
        build.maintenance_rate_per_year * 100
    )
    assert form.initial["build__residual_value_retention_per_year"] == pytest.approx(
        build.residual_value_retention_per_year * 100
    )
    assert form.initial["rent__annual_price_change"] == 0


def test_typing_3_for_maintenance_means_3_percent(client, shipped_catalog):
    response = post(
        client,
        build__maintenance_rate_per_year="3",
        build__residual_value_retention_per_year="65",
        rent__annual_price_change="-15",
    )
    link = link_of(response["Location"])
    assert link.scenario.build.maintenance_rate_per_year == 0.03
    assert link.scenario.build.residual_value_retention_per_year == 0.65
    assert link.scenario.rent.annual_price_change == -0.15
    assert "rent.annual_price_change" in link.overrides


def test_a_value_left_as_shown_in_percent_follows_the_catalog(client, shipped_catalog):
    response = client.post(HOME, form_data(client))  # every prefilled percentage sent back
    link = link_of(response["Location"])
    assert link.overrides == []


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        (
            "build__maintenance_rate_per_year",
            "150",
            "Enter a percentage between 0 and 100, e.g. 3 for 3 %.",
        ),
        (
            "build__residual_value_retention_per_year",
            "-1",
            "Enter a percentage between 0 and 100, e.g. 65 for 65 %.",
        ),
        (
            "rent__annual_price_change",
            "-95",
            "Enter a percentage between -90 and 100, e.g. −15 for 15 % cheaper each year.",
        ),
        ("rent__rework_fraction", "abc", "Enter a percentage between 0 and 100, e.g. 15"),
        ("discount_rate_percent", "101", "Enter a percentage between 0 and 100, e.g. 8"),
        ("scaling_efficiency", "0", "Enter a percentage above 0 and up to 100, e.g. 90 for 90 %."),
        ("build__useful_life_months", "0", "Enter a whole number of months between 1 and 240."),
        ("build__financing__term_months", "121", "months between 1 and 120"),
        ("profile_percent_3", "801", "Enter a percentage between 0 and 800"),
    ],
)
def test_a_percentage_out_of_range_says_what_to_type_beside_the_field(
    client, shipped_catalog, field, value, message
):
    response = post(client, **{field: value})
    errors = errors_of(response)
    assert message in " ".join(errors[field]), errors[field]
    html = response.content.decode()
    row = html.split(f'data-field="{field}"', 1)[1].split('data-field="', 1)[0]
    assert message.replace("'", "&#x27;") in row  # beside the field, not only at the top
    assert "less than or equal to 1" not in html


# --- work above one box (hybrid) -----------------------------------------------------------


def test_utilization_above_100_percent_is_work_beyond_one_box(client, shipped_catalog):
    link = link_of(post(client, utilization_percent="150")["Location"])
    assert link.scenario.workload.utilization == 1.5
    profile = {f"profile_percent_{i}": "80" for i in range(1, 13)} | {"profile_percent_6": "300"}
    link = link_of(post(client, workload_kind="profile", **profile)["Location"])
    assert link.scenario.workload.monthly_utilization[5] == 3.0


def test_the_form_explains_work_above_one_box_in_words(client, shipped_catalog):
    html = client.get(HOME, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Above 100 % the work is more than one box does" in html
    assert "each month up to 800 %" in html.lower()


# --- useful life and a loan ----------------------------------------------------------------


def test_the_useful_life_is_prefilled_with_the_presets_and_may_be_changed(client, shipped_catalog):
    form = client.get(HOME, {"preset": "entry-rtx4090"}).context["form"]
    data = form_data(client, preset="entry-rtx4090")
    preset_life = resolve(parse_selection(selection_of(data))).scenario.build.useful_life_months
    assert preset_life is not None
    assert form.initial["build__useful_life_months"] == preset_life
    assert link_of(post(client)["Location"]).scenario.build.useful_life_months == preset_life

    link = link_of(post(client, build__useful_life_months="24")["Location"])
    assert link.scenario.build.useful_life_months == 24
    assert link.overrides == ["build.useful_life_months"]


def test_a_loan_reaches_the_scenario_in_fractions(client, shipped_catalog):
    response = post(
        client,
        build__financing__down_payment_fraction="20",
        build__financing__annual_interest_rate="6",
        build__financing__term_months="36",
    )
    link = link_of(response["Location"])
    assert link.scenario.build.financing == Financing(
        down_payment_fraction=0.2, annual_interest_rate=0.06, term_months=36
    )
    form = client.get(HOME, {"from": response["Location"].removeprefix("/r/")}).context["form"]
    assert form.initial["build__financing__down_payment_fraction"] == 20
    assert form.initial["build__financing__annual_interest_rate"] == 6
    assert form.initial["build__financing__term_months"] == 36


def test_no_loan_by_default_and_a_half_typed_loan_names_what_is_missing(client, shipped_catalog):
    assert link_of(post(client)["Location"]).scenario.build.financing is None
    errors = errors_of(post(client, build__financing__down_payment_fraction="20"))
    for name in ("build__financing__annual_interest_rate", "build__financing__term_months"):
        assert "Enter this too to pay for the box with a loan" in " ".join(errors[name])
    assert "build__financing__down_payment_fraction" not in errors


# --- pricing modes and commitments ---------------------------------------------------------


def test_a_commitment_reserves_the_cheapest_count_by_default(client, shipped_catalog):
    data = form_data(
        client, preset="multi-4x-rtx4090", cloud_offering=COMMITMENT, utilization_percent="150"
    )
    link = link_of(client.post(HOME, data)["Location"])
    rent = link.scenario.rent
    cheapest = commitment_table(link.scenario)["best_committed_instances"]
    assert rent.committed_instances == cheapest > 1
    assert rent.committed_hourly_rate > 0
    assert link.selection["committed_instances"] is None


def test_a_typed_count_of_committed_instances_reaches_the_resolver(client, shipped_catalog):
    link = link_of(post(client, cloud_offering=COMMITMENT, committed_instances="3")["Location"])
    assert link.selection["committed_instances"] == 3
    assert link.scenario.rent.committed_instances == 3
    count = next(p for p in link.provenance if p["role"] == "committed instances")
    assert count["note"] == "the count given in the selection"
    expected = resolve(parse_selection(link.selection | {"as_of": None}))
    assert expected.scenario.rent == link.scenario.rent


def test_a_count_typed_for_an_on_demand_offering_is_ignored(client, shipped_catalog):
    link = link_of(post(client, committed_instances="3")["Location"])
    assert link.selection["committed_instances"] is None
    assert link.scenario.rent.committed_instances == 0


def test_a_negative_count_of_committed_instances_says_what_to_type(client, shipped_catalog):
    errors = errors_of(post(client, cloud_offering=COMMITMENT, committed_instances="-1"))
    assert "Enter a whole number of instances, 0 or more" in " ".join(errors["committed_instances"])


def test_the_form_shows_the_default_count_of_a_commitment(client, shipped_catalog):
    location = post(
        client, preset="multi-4x-rtx4090", cloud_offering=COMMITMENT, utilization_percent="250"
    )["Location"]
    link = link_of(location)
    response = client.get(HOME, {"from": location.removeprefix("/r/")}, HTTP_ACCEPT_LANGUAGE="en")
    form = response.context["form"]
    assert form.committed_default == link.scenario.rent.committed_instances
    assert form.initial.get("committed_instances") is None  # empty: the default
    count = link.scenario.rent.committed_instances
    assert count > 1
    assert committed_text(count) in response.content.decode()
    assert committed_text(count).startswith(f"For the choices above the default is {count} ")


def test_the_default_count_follows_the_choices_on_the_page(client, shipped_catalog):
    url = reverse("planner:committed-default")
    for percent in ("80", "250", "500"):
        data = form_data(client, cloud_offering=COMMITMENT, utilization_percent=percent)
        answer = client.get(url, data, HTTP_ACCEPT_LANGUAGE="en").json()
        selection = parse_selection(selection_of(data))
        expected = resolve(selection).scenario.rent.committed_instances
        assert selection.workload.utilization == float(percent) / 100
        assert answer["committed_instances"] == expected
        assert str(expected) in answer["text"]
    on_demand = client.get(url, form_data(client)).json()
    assert on_demand == {"committed_instances": None, "text": ""}


# --- uncertainty ranges --------------------------------------------------------------------


def test_the_ranges_are_prefilled_with_the_engines_defaults_in_percent(client, shipped_catalog):
    form = client.get(HOME, {"preset": "entry-rtx4090"}).context["form"]
    data = form_data(client, preset="entry-rtx4090")
    scenario = resolve(parse_selection(selection_of(data))).scenario
    defaults = {r.path: r for r in default_ranges(scenario)}
    utilization = defaults["workload.utilization"]
    assert form.initial["range_utilization_low"] == pytest.approx(utilization.low * 100)
    assert form.initial["range_utilization_likely"] == pytest.approx(utilization.mode * 100)
    assert form.initial["range_utilization_high"] == pytest.approx(utilization.high * 100)
    trend = defaults["rent.annual_price_change"]
    assert (form.initial["range_price_trend_low"], form.initial["range_price_trend_high"]) == (
        pytest.approx(trend.low * 100),
        pytest.approx(trend.high * 100),
    )
    electricity = defaults["build.electricity_price_per_kwh"]
    assert form.initial["range_electricity_high"] == pytest.approx(electricity.high, rel=1e-12)
    retention = defaults["build.residual_value_retention_per_year"]
    assert form.initial["range_retention_low"] == pytest.approx(retention.low * 100)


def test_ranges_left_as_shown_are_the_defaults_even_when_the_plan_changes(client, shipped_catalog):
    link = link_of(post(client)["Location"])
    assert link.ranges is None
    link = link_of(post(client, utilization_percent="40")["Location"])  # ranges shown for 80 %
    assert link.ranges is None


def test_typed_ranges_reach_the_permalink_in_fractions(client, shipped_catalog):
    response = post(
        client,
        range_utilization_low="30",
        range_utilization_high="90",
        range_price_trend_low="-50",
    )
    link = link_of(response["Location"])
    ranges = {r.path: r for r in link.ranges}
    assert ranges["workload.utilization"] == Range("workload.utilization", 0.3, 0.8, 0.9)
    trend = ranges["rent.annual_price_change"]
    assert (trend.low, trend.mode, trend.high) == (-0.5, 0.0, pytest.approx(0.1))
    defaults = {r.path: r for r in default_ranges(link.scenario)}
    for path in ("build.electricity_price_per_kwh", "build.residual_value_retention_per_year"):
        assert ranges[path] == defaults[path]


def test_a_tidal_plan_ranges_over_its_active_days(client, shipped_catalog):
    response = post(
        client,
        workload_kind="tidal",
        active_days_per_month="10",
        range_active_days_low="4",
        range_utilization_low="1",  # the steady row does not apply to a tidal plan
    )
    link = link_of(response["Location"])
    days = link.ranges[0]
    assert (days.path, days.low, days.mode) == ("workload.active_days_per_month", 4.0, 10.0)
    assert_allclose(days.high, 12.5, rtol=1e-12)  # the default: a quarter more than planned
    assert all(r.path != "workload.utilization" for r in link.ranges)


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        (
            {"range_utilization_low": "110"},  # above the high value shown, 100
            "range_utilization_low",
            "Keep the low value at or below the high one.",
        ),
        (
            {"range_utilization_likely": "5", "range_utilization_low": "10"},
            "range_utilization_likely",
            "Keep the most likely value between the low and the high one.",
        ),
        (
            {"range_retention_high": "120"},
            "range_retention_high",
            "Enter a percentage between 0 and 100, e.g. 65 for 65 %.",
        ),
        (
            {"range_price_trend_low": "-95"},
            "range_price_trend_low",
            "Enter a percentage between -90 and 100",
        ),
        ({"range_electricity_low": "-1"}, "range_electricity_low", "Enter a number of 0 or more"),
    ],
)
def test_a_bad_range_is_named_beside_its_field(client, shipped_catalog, changes, field, message):
    response = post(client, **changes)
    errors = errors_of(response)
    assert message in " ".join(errors[field]), errors
    html = response.content.decode()
    cell = html.split(f'data-field="{field}"', 1)[1].split("</div>", 1)[0]
    assert message in cell


def test_a_reopened_link_shows_its_ranges_and_keeps_them(client, shipped_catalog):
    location = post(client, range_retention_low="20", range_retention_high="90")["Location"]
    link = link_of(location)
    form = client.get(HOME, {"from": location.removeprefix("/r/")}).context["form"]
    assert form.initial["range_retention_low"] == 20
    assert form.initial["range_retention_high"] == 90
    from .test_planner_form import form_data_from

    again = link_of(client.post(HOME, form_data_from(form))["Location"])
    assert again.ranges == link.ranges
    assert again.scenario == link.scenario


@pytest.mark.database  # it writes: on both databases
def test_saving_and_re_running_keep_the_ranges(client, shipped_catalog):
    location = post(client, range_utilization_low="30", range_utilization_high="90")["Location"]
    link = link_of(location)
    client.post(reverse("planner:save"), {"code": location.removeprefix("/r/"), "name": "mine"})
    saved = SavedScenario.objects.get()
    assert saved.ranges == [{"path": "workload.utilization", "low": 0.3, "mode": 0.8, "high": 0.9}]
    client.post(reverse("planner:saved-rerun", args=[saved.pk]))
    rerun = SavedScenario.objects.exclude(pk=saved.pk).get()
    assert rerun.ranges == saved.ranges
    assert link.ranges[0] == Range("workload.utilization", 0.3, 0.8, 0.9)


# --- without the catalog -------------------------------------------------------------------


def test_without_the_catalog_a_commitment_and_a_loan_are_typed_in(client, db, scenario_data):
    percentages = {"maintenance_rate_per_year", "residual_value_retention_per_year"}
    data = {
        "currency": "CNY",
        "horizon_months": "36",
        "workload_kind": "steady",
        "utilization_percent": "80",
        "committed_instances": "1",
        "rent__committed_hourly_rate": "12",
        "rent__commitment_term_months": "12",
        "build__financing__annual_interest_rate": "5",
        "build__financing__term_months": "24",
    }
    for side in ("build", "rent"):
        for key, value in scenario_data[side].items():
            data[f"{side}__{key}"] = str(value * 100 if key in percentages else value)
    response = client.post(HOME, data)
    assert response.status_code == 302, response.context["form"].errors
    scenario = link_of(response["Location"]).scenario
    assert (scenario.rent.committed_instances, scenario.rent.committed_hourly_rate) == (1, 12.0)
    assert scenario.build.financing == Financing(annual_interest_rate=0.05, term_months=24)


# --- in Chinese ----------------------------------------------------------------------------


def test_the_chinese_form_names_catalog_rows_in_chinese_and_says_what_to_type(
    client, shipped_catalog
):
    from webapp.catalog.models import (
        Benchmark,
        BuildPreset,
        CloudOffering,
        HostingOption,
        Part,
        Tariff,
    )

    html = client.get(HOME, HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    for model in (BuildPreset, CloudOffering, Tariff, Benchmark, HostingOption, Part):
        for row in model.objects.exclude(name_zh=""):
            assert row.name_zh in html, (model.__name__, row.slug)
    assert '<optgroup label="1 年承诺 · Google Cloud">' in html
    assert "有多大把握？" in html and "最可能" in html

    data = form_data(client, build__maintenance_rate_per_year="150")
    response = client.post(HOME, data, HTTP_ACCEPT_LANGUAGE="zh-CN")
    message = " ".join(response.context["form"].errors["build__maintenance_rate_per_year"])
    assert message == "请输入 0 到 100 之间的百分数，例如 3 表示 3 %。"


# --- the cost of capital ---------------------------------------------------------------------


def test_the_discount_rate_starts_at_a_stated_cost_of_capital(client, shipped_catalog):
    html = client.get(HOME, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    row = html.split('data-field="discount_rate_percent"', 1)[1].split('data-field="', 1)[0]
    assert 'value="8"' in row
    assert "Prefilled with 8 % a year" in row and "Cost of Capital by Sector" in row
    link = link_of(client.post(HOME, form_data(client))["Location"])
    assert link.scenario.discount_rate_per_year == 0.08
    result = compare(link.scenario)
    assert result["build"]["present_value"] < result["build"]["total_net"]
    zero = link_of(client.post(HOME, form_data(client, discount_rate_percent="0"))["Location"])
    assert zero.scenario.discount_rate_per_year == 0


# --- the engine's errors, worded by their code -----------------------------------------------


@pytest.mark.parametrize(
    ("changes", "field", "chinese"),
    [
        ({"build__power_idle_watts": "99999"}, "build__power_idle_watts", "空闲时的功耗不能高于"),
        ({"range_utilization_low": "110"}, "range_utilization_low", "低值不能高于高值"),
    ],
)
def test_the_engines_errors_are_worded_by_their_code_in_chinese(
    client, shipped_catalog, changes, field, chinese
):
    english = errors_of(post(client, **changes))[field]
    data = form_data(client, **changes)
    response = client.post(HOME, data, HTTP_ACCEPT_LANGUAGE="zh-CN")
    message = " ".join(response.context["form"].errors[field])
    assert chinese in message and message not in " ".join(english)


def test_without_the_catalog_a_missing_figure_is_named_in_chinese(client, db):
    data = {
        "currency": "CNY",
        "horizon_months": "36",
        "workload_kind": "steady",
        "utilization_percent": "80",
        "build__capex": "25000",
    }
    response = client.post(HOME, data, HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert "为必填项" in " ".join(response.context["form"].errors["rent__hourly_rate"])


# --- choices left to the catalog -------------------------------------------------------------


def test_hosting_and_tariff_are_left_to_the_catalog_and_the_form_says_what_it_picked(
    client, shipped_catalog
):
    response = client.get(HOME + "?preset=cluster-4x-hgx-h100", HTTP_ACCEPT_LANGUAGE="en")
    form = response.context["form"]
    assert form.initial.get("hosting", form.fields["hosting"].initial) == ""
    html = response.content.decode()
    row = html.split('data-field="hosting"', 1)[1].split('data-field="', 1)[0]
    assert "Default for this box and currency" in row
    note = row.split("data-defaulted>", 1)[1].split("</div>", 1)[0]
    assert note.startswith("Default: ") and "colocation" in note
    link = link_of(client.post(HOME, form_data(client, preset="cluster-4x-hgx-h100"))["Location"])
    assert link.selection.get("hosting") is None  # left to the resolver, which fits the box
    assert link.scenario.build.hosting_monthly > 0 and link.scenario.build.pue > 1


def test_the_cloud_offering_is_left_to_the_catalog_and_the_form_says_what_it_picked(
    client, shipped_catalog
):
    response = client.get(HOME + "?preset=entry-rtx4090", HTTP_ACCEPT_LANGUAGE="en")
    form = response.context["form"]
    assert form.initial.get("cloud_offering", form.fields["cloud_offering"].initial) == ""
    html = response.content.decode()
    row = html.split('data-field="cloud_offering"', 1)[1].split('data-field="', 1)[0]
    assert "Default for this box and currency" in row
    note = row.split("data-defaulted>", 1)[1].split("</div>", 1)[0]
    assert note.startswith("Default: Alibaba Cloud") and "a CNY plan rents in China" in note
    # a choice the user makes is kept
    link = link_of(post(client, cloud_offering=COMMITMENT)["Location"])
    assert link.selection["cloud_offering"] == COMMITMENT


def test_a_hosting_the_user_picks_is_kept_and_not_marked_as_defaulted(client, shipped_catalog):
    from webapp.catalog.models import HostingOption

    office = HostingOption.objects.filter(kind="office").values_list("slug", flat=True).first()
    data = form_data(client, preset="cluster-4x-hgx-h100", hosting=office)
    link = link_of(client.post(HOME, data)["Location"])
    assert link.selection["hosting"] == office
    reopened = client.get(HOME + "?from=" + client.post(HOME, data)["Location"][3:])
    assert reopened.context["form"].initial["hosting"] == office
    assert "hosting" not in reopened.context["form"].defaulted
