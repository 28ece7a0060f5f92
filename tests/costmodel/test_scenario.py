"""Validation of the explicit scenario: every bound, strict types, defaults, unknown fields."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest

from costmodel import Scenario, ScenarioError, parse_scenario

EXAMPLE = json.loads(
    (Path(__file__).resolve().parent / "examples" / "steady-4090-vs-a100.json").read_text()
)


def with_value(path: str, value: object) -> dict:
    data = copy.deepcopy(EXAMPLE)
    *parents, leaf = path.split(".")
    target = data
    for key in parents:
        target = target[key]
    target[leaf] = value
    return data


def without(path: str) -> dict:
    data = copy.deepcopy(EXAMPLE)
    *parents, leaf = path.split(".")
    target = data
    for key in parents:
        target = target[key]
    del target[leaf]
    return data


def errors_of(data: object) -> list[str]:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(data)
    return [str(e) for e in caught.value.errors]


def tidal(**fields: object) -> dict:
    return with_value("workload", {"kind": "tidal", "active_days_per_month": 4, **fields})


def profile(values: list) -> dict:
    return with_value("workload", {"kind": "profile", "monthly_utilization": values})


# (field path, a value just outside its bound, the message)
OUT_OF_BOUNDS = [
    ("horizon_months", 0, "horizon_months: must be greater than or equal to 1"),
    ("horizon_months", 241, "horizon_months: must be less than or equal to 240"),
    ("discount_rate_per_year", -0.01, "discount_rate_per_year: must be greater than or equal to 0"),
    ("discount_rate_per_year", 1.01, "discount_rate_per_year: must be less than or equal to 1"),
    ("workload.utilization", -0.01, "workload.utilization: must be greater than or equal to 0"),
    ("workload.utilization", 8.01, "workload.utilization: must be less than or equal to 8"),
    ("build.gpu_count", 0, "build.gpu_count: must be greater than or equal to 1"),
    ("build.gpu_throughput", 0, "build.gpu_throughput: must be greater than 0"),
    ("build.capex", -1, "build.capex: must be greater than or equal to 0"),
    ("build.power_load_watts", -1, "build.power_load_watts: must be greater than or equal to 0"),
    ("build.power_idle_watts", -1, "build.power_idle_watts: must be greater than or equal to 0"),
    ("build.pue", 0.99, "build.pue: must be greater than or equal to 1"),
    ("build.pue", 3.01, "build.pue: must be less than or equal to 3"),
    (
        "build.electricity_price_per_kwh",
        -0.1,
        "build.electricity_price_per_kwh: must be greater than or equal to 0",
    ),
    ("build.hosting_monthly", -1, "build.hosting_monthly: must be greater than or equal to 0"),
    (
        "build.maintenance_rate_per_year",
        1.5,
        "build.maintenance_rate_per_year: must be less than or equal to 1",
    ),
    (
        "build.maintenance_rate_per_year",
        -0.1,
        "build.maintenance_rate_per_year: must be greater than or equal to 0",
    ),
    ("build.ops_monthly", -1, "build.ops_monthly: must be greater than or equal to 0"),
    (
        "build.residual_value_retention_per_year",
        1.01,
        "build.residual_value_retention_per_year: must be less than or equal to 1",
    ),
    (
        "build.residual_value_retention_per_year",
        -0.01,
        "build.residual_value_retention_per_year: must be greater than or equal to 0",
    ),
    ("rent.gpu_count", 0, "rent.gpu_count: must be greater than or equal to 1"),
    ("rent.gpu_throughput", -1, "rent.gpu_throughput: must be greater than 0"),
    ("rent.hourly_rate", -0.01, "rent.hourly_rate: must be greater than or equal to 0"),
    ("rent.fixed_monthly", -1, "rent.fixed_monthly: must be greater than or equal to 0"),
    (
        "rent.annual_price_change",
        -0.91,
        "rent.annual_price_change: must be greater than or equal to -0.9",
    ),
    ("rent.annual_price_change", 1.01, "rent.annual_price_change: must be less than or equal to 1"),
    ("name", "x" * 201, "name: must have at most 200 characters"),
]


@pytest.mark.parametrize(("path", "value", "message"), OUT_OF_BOUNDS, ids=lambda v: str(v)[:40])
def test_it_rejects_a_value_outside_its_bound_naming_the_field(path, value, message):
    assert errors_of(with_value(path, value)) == [message]


# (field path, the bound itself, which must be accepted)
ON_THE_BOUND = [
    ("horizon_months", 1),
    ("horizon_months", 240),
    ("discount_rate_per_year", 0),
    ("discount_rate_per_year", 1),
    ("workload.utilization", 0),
    ("workload.utilization", 1),
    ("build.gpu_count", 1),
    ("build.capex", 0),
    ("build.power_idle_watts", 650),
    ("build.pue", 1),
    ("build.pue", 3),
    ("build.maintenance_rate_per_year", 1),
    ("build.residual_value_retention_per_year", 0),
    ("build.residual_value_retention_per_year", 1),
    ("rent.gpu_count", 1),
    ("rent.hourly_rate", 0),
    ("rent.annual_price_change", -0.9),
    ("rent.annual_price_change", 1),
    ("name", "x" * 200),
    ("name", None),
]


@pytest.mark.parametrize(("path", "value"), ON_THE_BOUND, ids=str)
def test_it_accepts_a_value_on_its_bound(path, value):
    parse_scenario(with_value(path, value))


class TestWorkloads:
    def test_it_accepts_each_kind_of_workload(self):
        assert parse_scenario(EXAMPLE).workload.kind == "steady"
        assert parse_scenario(tidal()).workload.kind == "tidal"
        assert parse_scenario(profile([0.2, 0.9])).workload.kind == "profile"

    def test_tidal_days_are_bounded_by_31(self):
        parse_scenario(tidal(active_days_per_month=31))
        parse_scenario(tidal(active_days_per_month=0))
        assert errors_of(tidal(active_days_per_month=31.5)) == [
            "workload.active_days_per_month: must be less than or equal to 31"
        ]
        assert errors_of(tidal(active_days_per_month=-1)) == [
            "workload.active_days_per_month: must be greater than or equal to 0"
        ]

    def test_tidal_hours_must_be_positive_and_at_most_24(self):
        parse_scenario(tidal(hours_per_active_day=24))
        assert errors_of(tidal(hours_per_active_day=0)) == [
            "workload.hours_per_active_day: must be greater than 0"
        ]
        assert errors_of(tidal(hours_per_active_day=24.5)) == [
            "workload.hours_per_active_day: must be less than or equal to 24"
        ]

    def test_tidal_hours_default_to_24(self):
        assert parse_scenario(tidal()).workload.hours_per_active_day == 24

    def test_a_profile_has_1_to_240_values(self):
        parse_scenario(profile([0.5]))
        parse_scenario(profile([0.5] * 240))
        assert errors_of(profile([])) == [
            "workload.monthly_utilization: must have at least 1 item after validation, not 0"
        ]
        assert errors_of(profile([0.5] * 241)) == [
            "workload.monthly_utilization: must have at most 240 items after validation, not 241"
        ]

    def test_a_profile_names_each_bad_value_by_its_index(self):
        assert errors_of(profile([0.5, 8.5, -0.1])) == [
            "workload.monthly_utilization.1: must be less than or equal to 8",
            "workload.monthly_utilization.2: must be greater than or equal to 0",
        ]

    def test_it_rejects_an_unknown_workload_kind(self):
        assert errors_of(with_value("workload", {"kind": "bursty", "utilization": 0.5})) == [
            "workload.kind: must be one of 'steady', 'tidal', 'profile', 'jobs'"
        ]

    def test_it_rejects_a_workload_without_a_kind(self):
        assert errors_of(with_value("workload", {"utilization": 0.5})) == [
            "workload.kind: is required (one of 'steady', 'tidal', 'profile', 'jobs')"
        ]

    def test_it_rejects_fields_of_another_workload_kind(self):
        data = with_value(
            "workload", {"kind": "steady", "utilization": 0.5, "hours_per_active_day": 8}
        )
        assert errors_of(data) == ["workload.hours_per_active_day: is not a known field"]

    def test_it_rejects_a_workload_that_is_not_an_object(self):
        assert errors_of(with_value("workload", "steady")) == ["workload: must be an object"]


class TestStrictTypes:
    def test_it_rejects_a_boolean_for_an_integer(self):
        assert errors_of(with_value("build.gpu_count", True)) == [
            "build.gpu_count: must be a valid integer"
        ]

    def test_it_rejects_a_boolean_for_a_number(self):
        assert errors_of(with_value("build.capex", False)) == [
            "build.capex: must be a valid number"
        ]

    def test_it_rejects_a_numeric_string_for_an_integer(self):
        assert errors_of(with_value("horizon_months", "31")) == [
            "horizon_months: must be a valid integer"
        ]

    def test_it_rejects_a_numeric_string_for_a_number(self):
        assert errors_of(with_value("rent.hourly_rate", "28")) == [
            "rent.hourly_rate: must be a valid number"
        ]

    def test_it_rejects_a_float_for_an_integer_even_when_whole(self):
        assert errors_of(with_value("build.gpu_count", 2.0)) == [
            "build.gpu_count: must be a valid integer"
        ]
        assert errors_of(with_value("horizon_months", 36.0)) == [
            "horizon_months: must be a valid integer"
        ]

    def test_it_accepts_an_integer_for_a_number_and_keeps_integers_integers(self):
        scenario = parse_scenario(EXAMPLE)
        assert scenario.build.capex == 25_000.0
        assert isinstance(scenario.build.capex, float)
        assert type(scenario.build.gpu_count) is int
        dumped = scenario.model_dump(mode="json")
        assert type(dumped["horizon_months"]) is int
        assert type(dumped["rent"]["gpu_count"]) is int

    def test_it_rejects_null_for_a_number(self):
        assert errors_of(with_value("build.capex", None)) == ["build.capex: must be a valid number"]

    @pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
    def test_it_rejects_nan_and_infinity(self, value):
        assert errors_of(with_value("rent.hourly_rate", value)) == [
            "rent.hourly_rate: must be a finite number"
        ]

    def test_it_rejects_nan_inside_a_profile(self):
        assert errors_of(profile([0.5, math.nan])) == [
            "workload.monthly_utilization.1: must be a finite number"
        ]

    @pytest.mark.parametrize("currency", ["cny", "US", "USDX", "", 840])
    def test_it_rejects_a_currency_that_is_not_three_upper_case_letters(self, currency):
        [message] = errors_of(with_value("currency", currency))
        assert message.startswith("currency: must")

    def test_it_rejects_a_section_that_is_not_an_object(self):
        assert errors_of(with_value("build", [1, 2])) == ["build: must be an object"]
        assert errors_of(with_value("rent", None)) == ["rent: must be an object"]


class TestFields:
    @pytest.mark.parametrize("path", ["spot_price", "build.colour", "rent.region", "workload.peak"])
    def test_it_rejects_unknown_fields(self, path):
        assert errors_of(with_value(path, 1)) == [f"{path}: is not a known field"]

    @pytest.mark.parametrize(
        "path",
        [
            "currency",
            "horizon_months",
            "workload",
            "build",
            "rent",
            "build.gpu_count",
            "build.capex",
            "build.electricity_price_per_kwh",
            "build.hosting_monthly",
            "rent.hourly_rate",
            "workload.utilization",
        ],
    )
    def test_it_requires_fields_without_a_default(self, path):
        assert errors_of(without(path)) == [f"{path}: is required"]

    def test_it_names_an_idle_draw_above_the_load_draw_as_the_idle_field(self):
        assert errors_of(with_value("build.power_idle_watts", 651)) == [
            "build.power_idle_watts: must be less than or equal to power_load_watts"
        ]

    def test_it_reports_every_problem_at_once(self):
        data = with_value("build.capex", -1)
        data["rent"]["hourly_rate"] = "x"
        del data["currency"]
        assert sorted(errors_of(data)) == [
            "build.capex: must be greater than or equal to 0",
            "currency: is required",
            "rent.hourly_rate: must be a valid number",
        ]

    def test_it_fills_in_the_methodology_defaults(self):
        data = copy.deepcopy(EXAMPLE)
        for key in ("name", "discount_rate_per_year"):
            del data[key]
        for key in ("pue", "maintenance_rate_per_year", "ops_monthly"):
            del data["build"][key]
        del data["build"]["residual_value_retention_per_year"]
        for key in ("fixed_monthly", "annual_price_change"):
            del data["rent"][key]
        scenario = parse_scenario(data)
        assert scenario.name is None
        assert scenario.discount_rate_per_year == 0
        assert scenario.build.pue == 1.0
        assert scenario.build.maintenance_rate_per_year == 0
        assert scenario.build.ops_monthly == 0
        assert scenario.build.residual_value_retention_per_year == 0.7
        assert scenario.rent.fixed_monthly == 0
        assert scenario.rent.annual_price_change == 0

    def test_a_scenario_round_trips_through_its_json_dump(self):
        scenario = parse_scenario(EXAMPLE)
        assert Scenario.model_validate(scenario.model_dump(mode="json")) == scenario

    def test_a_scenario_is_immutable(self):
        scenario = parse_scenario(EXAMPLE)
        with pytest.raises(ValueError):
            scenario.horizon_months = 12  # type: ignore[misc]
