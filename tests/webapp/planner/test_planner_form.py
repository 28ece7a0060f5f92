"""The planner form: catalog selection in, a results permalink out; errors beside fields."""

import json

import pytest
from django.urls import reverse
from numpy.testing import assert_allclose

from webapp.catalog.resolver import parse_selection, resolve
from webapp.planner.ranking import best_rent

from .helpers import link_of

# Pages built from the shipped catalog, checked for their figures and words: these tests read
# the database and write nothing (tests/conftest.py fails one that writes), so they run once, in
# the SQLite pass; the few that save or cache are marked database and run on PostgreSQL too.
pytestmark = pytest.mark.reads_only

HOME = reverse("planner:home")


def form_data(client, **changes) -> dict:
    """What a person submits after opening the form and changing ``changes``."""
    form = client.get(HOME).context["form"]
    data = {}
    for name, field in form.fields.items():
        value = form.initial.get(name, field.initial)
        if value is None or value is False:
            continue
        data[name] = "on" if value is True else value
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


def selection_of(data: dict) -> dict:
    """The catalog selection a submission names (a choice left empty is the resolver's)."""
    selection = {
        "preset": data["preset"],
        "cloud_offering": data["cloud_offering"],
        "tariff": data["tariff"],
        "hosting": data["hosting"],
        "benchmark": data["benchmark"],
        "workload": {"kind": "steady", "utilization": float(data["utilization_percent"]) / 100},
        "horizon_months": int(data["horizon_months"]),
        "currency": data["currency"],
    }
    return {key: value for key, value in selection.items() if value != ""}


def test_the_form_lists_presets_and_offerings_grouped_by_pricing_mode_and_provider(
    client, shipped_catalog
):
    response = client.get(HOME, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    html = response.content.decode()
    assert "entry-rtx4090" in html
    assert '<optgroup label="on-demand · Alibaba Cloud">' in html
    assert '<optgroup label="1-year commitment · Google Cloud">' in html
    assert html.index("on-demand · Google Cloud") < html.index("spot / interruptible · Google")
    assert html.index("spot / interruptible · Google") < html.index("3-year commitment · Google")
    assert 'value="gcp-a3-highgpu-1g-commit-1y" data-pricing-mode="commit-1y"' in html
    assert "per hour (as of" in html
    assert reverse("advisor:advisor") in html


def test_the_advisor_hands_over_a_preset_in_the_query_string(client, shipped_catalog):
    form = client.get(HOME, {"preset": "multi-4x-rtx4090"}).context["form"]
    assert form.initial["preset"] == "multi-4x-rtx4090"
    assert form.initial["build__gpu_count"] == 4


def test_an_unknown_preset_in_the_query_string_is_ignored(client, shipped_catalog):
    response = client.get(HOME, {"preset": "no-such-box"})
    assert response.status_code == 200
    assert "preset" not in response.context["form"].initial


def test_advanced_fields_are_prefilled_from_the_catalog(client, shipped_catalog):
    form = client.get(HOME).context["form"]
    data = form_data(client)
    expected = resolve(parse_selection(selection_of(data))).scenario
    assert form.initial["build__capex"] == expected.build.capex
    assert form.initial["rent__hourly_rate"] == expected.rent.hourly_rate
    assert json.loads(form.initial["basis"])["build.capex"] == expected.build.capex


def test_a_valid_submission_redirects_to_the_resolved_scenarios_permalink(client, shipped_catalog):
    data = form_data(client, preset="entry-rtx4090", utilization_percent="60")
    response = client.post(HOME, data)
    assert response.status_code == 302
    link = link_of(response["Location"])
    # the offering left to the catalog is the best way to rent this work (the options
    # operation over the market's offerings): the plan is the selection with that offering
    best, _weighed = best_rent(link.scenario, link.selection)
    assert link.selection["cloud_offering"] is None  # still left to the catalog
    expected = resolve(parse_selection({**selection_of(data), "cloud_offering": best}))
    assert link.scenario.build == expected.scenario.build  # basis from another preset: no override
    assert link.scenario.rent == expected.scenario.rent
    assert link.scenario.workload.utilization == 0.6
    assert link.overrides == []
    kept = [
        {k: v for k, v in i.items() if v not in (None, "", False, [])} for i in expected.provenance
    ]
    assert link.provenance[: len(kept)] == kept
    assert link.provenance[len(kept)]["role"] == "cloud offering ranking"
    assert link.selection["preset"] == "entry-rtx4090"
    assert client.get(response["Location"]).status_code == 200


def test_a_changed_advanced_value_becomes_an_override_in_the_results(client, shipped_catalog):
    data = form_data(client, build__capex="12345.5")
    response = client.post(HOME, data)
    link = link_of(response["Location"])
    assert link.overrides == ["build.capex"]
    assert link.scenario.build.capex == 12345.5
    html = client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'data-field="build.capex" class="override"' in html


def test_change_the_inputs_reopens_the_form_with_the_overrides_kept(client, shipped_catalog):
    data = form_data(
        client,
        rent__hourly_rate="99",
        workload_kind="tidal",
        active_days_per_month="5",
        hours_per_active_day="10",
    )
    code = link_of(client.post(HOME, data)["Location"])
    location = client.post(HOME, data)["Location"]
    form = client.get(HOME, {"from": location.removeprefix("/r/")}).context["form"]
    assert form.initial["rent__hourly_rate"] == 99
    assert form.overrides == ["rent.hourly_rate"]
    assert form.initial["workload_kind"] == "tidal"
    assert form.initial["active_days_per_month"] == 5
    again = link_of(client.post(HOME, form_data_from(form))["Location"])
    assert again.scenario == code.scenario
    assert again.overrides == ["rent.hourly_rate"]


def form_data_from(form) -> dict:
    data = {}
    for name, field in form.fields.items():
        value = form.initial.get(name, field.initial)
        if value is None or value is False:
            continue
        data[name] = "on" if value is True else value
    return data


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("utilization_percent", "900", "Enter a percentage between 0 and 800, e.g. 80"),
        ("utilization_percent", "many", "Enter a percentage between 0 and 800"),
        ("horizon_months", "0", "Enter a whole number of months between 1 and 240."),
        ("horizon_months", "twelve", "Enter a whole number"),
        ("build__power_idle_watts", "99999", "Keep the power draw while idle at or below the one"),
        ("rent__hourly_rate", "-1", "greater than or equal to 0"),
        ("cloud_offering", "no-such-offering", "Select a valid choice"),
    ],
)
def test_invalid_input_re_renders_with_the_message_beside_the_field(
    client, shipped_catalog, field, value, message
):
    data = form_data(client, **{field: value}, name="my typed name")
    response = client.post(HOME, data, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    form = response.context["form"]
    assert field in form.errors, form.errors
    assert message in " ".join(form.errors[field])
    html = response.content.decode()
    assert 'value="my typed name"' in html  # nothing typed is lost
    assert f'data-field="{field}"' in html


def test_a_custom_parts_list_is_resolved(client, shipped_catalog):
    data = form_data(
        client,
        box="custom",
        **{
            "part__gpu-rtx-4090": "2",
            "part__cpu-desktop-16c": "1",
            "part__psu-silverstone-hela-2050": "1",
        },
    )
    data.pop("preset")
    response = client.post(HOME, data, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    assert "2 or more GPUs" in " ".join(response.context["form"].errors["scaling_efficiency"])
    response = client.post(HOME, {**data, "scaling_efficiency": "90"})  # percent
    assert response.status_code == 302
    link = link_of(response["Location"])
    assert {"part": "gpu-rtx-4090", "quantity": 2} in link.selection["parts"]
    assert link.selection["scaling_efficiency"] == 0.9
    assert link.scenario.build.gpu_count == 2
    assert link.overrides == []


def test_a_custom_box_needs_at_least_one_part(client, shipped_catalog):
    data = form_data(client, box="custom")
    response = client.post(HOME, data, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    assert "box" in response.context["form"].errors


def test_without_the_catalog_every_explicit_field_is_required(client, db):
    response = client.post(
        HOME,
        {
            "currency": "CNY",
            "horizon_months": "36",
            "workload_kind": "steady",
            "utilization_percent": "80",
            "build__capex": "25000",
        },
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert "is required" in " ".join(errors["rent__hourly_rate"])
    assert "build__capex" not in errors


def test_without_the_catalog_a_complete_explicit_scenario_is_accepted(client, db, scenario_data):
    data = {
        "currency": "CNY",
        "horizon_months": "36",
        "workload_kind": "steady",
        "utilization_percent": "80",
        "discount_rate_percent": "8",
    }
    percentages = {"maintenance_rate_per_year", "residual_value_retention_per_year"}
    for side in ("build", "rent"):
        for key, value in scenario_data[side].items():
            data[f"{side}__{key}"] = str(value * 100 if key in percentages else value)
    response = client.post(HOME, data)
    assert response.status_code == 302
    link = link_of(response["Location"])
    build = link.scenario.build.model_dump()
    # the version-2 fields the form does not ask for keep their defaults
    assert {k: build[k] for k in scenario_data["build"]} == scenario_data["build"]
    assert build["useful_life_months"] is None and build["financing"] is None
    assert link.overrides == [] and link.selection is None
    assert_allclose(link.scenario.discount_rate_per_year, 0.08)


def test_the_reopened_form_marks_the_overridden_field(client, shipped_catalog):
    location = client.post(HOME, form_data(client, rent__fixed_monthly="77"))["Location"]
    html = client.get(HOME, {"from": location.removeprefix("/r/")}, HTTP_ACCEPT_LANGUAGE="en")
    html = html.content.decode()
    row = html.split('data-field="rent__fixed_monthly"', 1)[0].rsplit("<div", 1)[1]
    assert "overridden" in row
    assert html.count("flag flag-override") == 1
