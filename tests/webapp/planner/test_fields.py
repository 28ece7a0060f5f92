"""The form's bounds and units of the explicit fields agree with the engine's own schema."""

import pytest

from costmodel import ScenarioError, parse_scenario
from costmodel.errors import with_fields
from webapp.planner.fields import ALL_FIELDS, RANGE_ROWS, from_form, to_form

BOUNDED = [f for f in ALL_FIELDS if f.low is not None and f.high is not None]
LOAN = {"down_payment_fraction": 0.1, "annual_interest_rate": 0.05, "term_months": 24}


def _with(scenario, path, value):
    if path.startswith("build.financing."):
        scenario = with_fields(scenario, {"build.financing": LOAN})
    return with_fields(scenario, {path: value})


@pytest.mark.parametrize("field", BOUNDED, ids=lambda f: f.path)
def test_the_forms_bounds_are_the_engines(scenario, field):
    step = 1 if field.whole else 0.01
    for inside in (field.low, field.high):
        value = from_form(field, inside)
        _with(scenario, field.path, int(value) if field.whole else value)
    for outside in (field.low - step, field.high + step):
        value = from_form(field, outside)
        with pytest.raises(ScenarioError):
            _with(scenario, field.path, int(value) if field.whole else value)


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
