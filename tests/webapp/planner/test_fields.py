"""The registry: bounds read from the engine's schema, and every input's way through the form."""

import pytest
from django.utils import translation

from costmodel import FieldError, ScenarioError, parse_scenario
from costmodel.errors import with_fields
from webapp.planner.fields import (
    ALL_FIELDS,
    RANGE_ROWS,
    REGISTRY,
    TYPED_FIELDS,
    form_values,
    from_form,
    to_form,
)
from webapp.planner.forms import PlannerForm

BOUNDED = [
    f
    for f in ALL_FIELDS
    if f.low is not None and f.high is not None and not f.selection and f.unit != "profile"
]
LOAN = {"down_payment_fraction": 0.1, "annual_interest_rate": 0.05, "term_months": 24}
WORKLOADS = {
    "steady": {"kind": "steady", "utilization": 0.5},
    "tidal": {"kind": "tidal", "active_days_per_month": 8},
    "profile": {"kind": "profile", "monthly_utilization": [0.5]},
}


def _with(scenario, path, value):
    if path.startswith("build.financing."):
        scenario = with_fields(scenario, {"build.financing": LOAN})
    return with_fields(scenario, {path: value})


@pytest.mark.parametrize("field", BOUNDED, ids=lambda f: f.path)
def test_the_forms_bounds_are_the_engines(scenario, field):
    if field.workload:
        scenario = with_fields(scenario, {"workload": WORKLOADS[field.workload]})
    step = 1 if field.whole else 0.01
    low = field.low + step if field.bounds.low_open else field.low
    for inside in (low, field.high):
        value = from_form(field, inside)
        _with(scenario, field.path, int(value) if field.whole else value)
    for outside in (field.low if field.bounds.low_open else field.low - step, field.high + step):
        value = from_form(field, outside)
        with pytest.raises(ScenarioError):
            _with(scenario, field.path, int(value) if field.whole else value)


@pytest.mark.parametrize("field", TYPED_FIELDS, ids=lambda f: f.name)
def test_the_form_refuses_a_value_below_the_engines_bound_beside_its_field(field):
    assert field.low is not None  # every typed input has one in the engine's schema
    outside = field.low if field.bounds.low_open else field.low - 1
    name = field.form_names()[0]
    form = PlannerForm({"currency": "CNY", "horizon_months": "36", name: str(outside)})
    assert not form.is_valid()
    assert name in form.errors, form.errors


@pytest.mark.parametrize(
    "field", [f for f in REGISTRY if f.name and not f.rows], ids=lambda f: f.name
)
def test_an_engine_error_naming_an_input_lands_beside_its_form_field(field):
    form = PlannerForm({"currency": "CNY", "horizon_months": "36"})
    form.is_valid()
    path = f"{field.path}.3" if field.unit == "profile" else field.path or field.selection
    form.add_engine_errors(ScenarioError([FieldError(path, "is not right")]))
    expected = field.form_names()[3] if field.unit == "profile" else field.name
    if expected not in form.fields:  # a catalog choice: the form has it only with a catalog
        assert form.non_field_errors()
        return
    assert "is not right" in " ".join(form.errors[expected])


def test_a_scenario_and_its_selection_reopen_the_form_in_the_forms_units(scenario_data):
    scenario_data["discount_rate_per_year"] = 0.08
    scenario_data["workload"] = {"kind": "profile", "monthly_utilization": [0.5, 1.5]}
    selection = {"preset": "p", "cloud_offering": "o", "scaling_efficiency": 0.9}
    values = form_values(scenario_data, selection)
    assert values["discount_rate_percent"] == 8
    assert values["workload_kind"] == "profile"
    assert [values[f"profile_percent_{i}"] for i in (1, 2, 3, 12)] == [50, 150, 50, 150]
    assert values["scaling_efficiency"] == 90
    assert (values["preset"], values["cloud_offering"]) == ("p", "o")
    assert values["build__capex"] == scenario_data["build"]["capex"]
    assert "utilization_percent" not in values  # another workload's input


@pytest.mark.parametrize("row", RANGE_ROWS, ids=lambda r: r.key)
def test_the_range_rows_bounds_are_the_engines(scenario_data, row):
    if row.path == "workload.active_days_per_month":
        scenario_data["workload"] = {"kind": "tidal", "active_days_per_month": 8}
    scenario = parse_scenario(scenario_data)
    _with(scenario, row.path, from_form(row.field, row.low))
    with pytest.raises(ScenarioError):
        _with(scenario, row.path, from_form(row.field, row.low - 0.01))
    if row.high is not None:
        _with(scenario, row.path, from_form(row.field, row.high))
        with pytest.raises(ScenarioError):
            _with(scenario, row.path, from_form(row.field, row.high + 0.01))


@pytest.mark.parametrize(
    ("fraction", "percent"),
    [(0.07, 7), (0.65, 65), (-0.15, -15), (0.033, 3.3), (0.0125, 1.25), (0.7 - 0.15, 55)],
)
def test_percentages_convert_both_ways_without_float_noise(fraction, percent):
    field = next(f for f in ALL_FIELDS if f.path == "build.maintenance_rate_per_year")
    shown = to_form(field, fraction)
    assert repr(shown) == repr(percent)
    assert from_form(field, shown) == pytest.approx(fraction, rel=1e-15)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("workload.jobs.1.runs_per_month", "job_runs_2"),
        ("workload.jobs.0.runs_per_month.5", "job_runs_1"),
        ("workload.jobs.2.kind", "job_kind_3"),
        ("workload.jobs.0.reference_gpu_hours", "job_kind_1"),
    ],
)
def test_an_engine_error_naming_a_job_lands_beside_its_row(path, expected):
    form = PlannerForm({"currency": "CNY", "horizon_months": "36"})
    form.is_valid()
    form.add_engine_errors(ScenarioError([FieldError(path, "is not right")]))
    assert "is not right" in " ".join(form.errors[expected])


def test_a_field_value_is_said_in_the_active_language():
    from webapp.planner.fields import BY_PATH, field_value

    rate, kind = BY_PATH["rent.hourly_rate"], BY_PATH["workload.kind"]
    shown = {}
    for language in ("en", "zh-hans", "en", "zh-hans"):
        with translation.override(language):
            shown.setdefault(language, set()).add(
                (field_value(rate, 28.66, "CNY"), field_value(kind, "tidal", "CNY"))
            )
    assert shown["en"] == {("¥28.66 per hour", "busy days only (tidal)")}
    assert len(shown["zh-hans"]) == 1
    zh_rate, zh_kind = shown["zh-hans"].pop()
    assert zh_rate.startswith("¥28.66 ") and "hour" not in zh_rate and zh_kind != "tidal"


def test_a_monthly_profile_is_shown_as_percentages():
    from webapp.planner.fields import BY_PATH, field_value

    with translation.override("en"):
        profile = BY_PATH["workload.monthly_utilization"]
        assert field_value(profile, [0.5, -0.0, 1.0], "USD") == "50 %, 0 %, 100 %"
