"""Errors as data: every engine error carries a stable code and the figures its message quotes.

An edge words an error in the user's language from ``code`` and ``params``,
never by reading the English message.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from costmodel import FieldError, ScenarioError, parse_scenario
from costmodel.commitment import parse_commitment
from costmodel.errors import ENGINE_CODES, load_json
from costmodel.operations import parse_fleet, parse_tornado, parse_uncertainty

EXAMPLES = Path(__file__).resolve().parent / "examples"
STEADY = json.loads((EXAMPLES / "steady-4090-vs-a100.json").read_text())
JOBS = json.loads((EXAMPLES / "v3" / "jobs-lora-4090-vs-a100.json").read_text())
TIDAL = json.loads((EXAMPLES / "tidal-4060ti.json").read_text())


def errors(parse, data) -> list[FieldError]:
    with pytest.raises(ScenarioError) as caught:
        parse(data)
    return caught.value.errors


def coded(parse, data) -> list[tuple[str, str, dict]]:
    return [(e.field, e.code, e.params) for e in errors(parse, data)]


def changed(data: dict, section: str, **values: object) -> dict:
    data = copy.deepcopy(data)
    data[section].update(values)
    return data


def test_a_bound_carries_pydantics_type_and_the_bound():
    data = changed(STEADY, "build", capex=-1, pue=4)

    assert coded(parse_scenario, data) == [
        ("build.capex", "greater_than_equal", {"ge": 0.0}),
        ("build.pue", "less_than_equal", {"le": 3.0}),
    ]


def test_missing_unknown_and_wrong_type_fields_carry_pydantics_types():
    data = changed(STEADY, "build", colour="red", gpu_count=1.5)
    del data["rent"]["hourly_rate"]

    assert [(e.field, e.code) for e in errors(parse_scenario, data)] == [
        ("build.gpu_count", "int_type"),
        ("build.colour", "extra_forbidden"),
        ("rent.hourly_rate", "missing"),
    ]


def test_idle_above_load_is_a_code_naming_the_idle_field_with_the_load():
    data = changed(STEADY, "build", power_idle_watts=700)

    [error] = errors(parse_scenario, data)

    assert (error.field, error.code) == ("build.power_idle_watts", "idle_above_load")
    assert error.params == {"power_load_watts": 650.0}
    assert error.message == "must be less than or equal to power_load_watts"


def test_a_jobs_month_above_eight_boxes_carries_the_month_and_the_figures():
    data = copy.deepcopy(JOBS)
    data["workload"]["jobs"][1]["runs_per_month"] = [3, 0, 82]

    [error] = errors(parse_scenario, data)

    assert error.field == "workload.jobs"
    assert error.code == "jobs_month_above_limit"
    assert error.params == {"month": 3, "utilization": 8.058, "limit": 8}


def test_unreadable_input_says_why_as_a_reason():
    [error] = errors(load_json, b'{"currency": ')
    assert (error.code, error.params["reason"]) == ("unreadable", "not_json")
    assert error.params["line"] == 1

    [error] = errors(load_json, b'{"name": "\xff"}')
    assert (error.code, error.params) == ("unreadable", {"reason": "not_utf8"})


def test_the_operations_own_rules_carry_their_codes():
    range_request = {"scenario": STEADY, "drivers": {"rent.hourly_rate": {"low": 3, "high": 1}}}
    assert coded(parse_tornado, range_request) == [
        ("drivers.rent.hourly_rate.low", "low_above_high", {})
    ]
    request = {"scenario": STEADY, "drivers": {"rent.nothing": {"low": 1, "high": 2}}}
    assert [e.code for e in errors(parse_tornado, request)] == ["not_a_numeric_field"]
    request = {"scenario": STEADY, "drivers": {"build.gpu_count": {"low": 1.5, "high": 2}}}
    assert coded(parse_tornado, request) == [
        (
            "drivers.build.gpu_count.low",
            "whole_number_required",
            {"path": "build.gpu_count"},
        )
    ]
    request = {"scenario": STEADY, "drivers": {"rent.hourly_rate": {"low": -1, "high": 2}}}
    assert coded(parse_tornado, request) == [
        ("drivers.rent.hourly_rate.low", "greater_than_equal", {"ge": 0.0})
    ]
    triangular = {"kind": "triangular", "low": 1, "mode": 9, "high": 5}
    request = {"scenario": STEADY, "distributions": {"rent.hourly_rate": triangular}}
    assert [e.code for e in errors(parse_uncertainty, request)] == ["mode_outside_range"]
    request = {
        "scenario": STEADY,
        "distributions": {"rent.gpu_count": {"kind": "uniform", "low": 1, "high": 2}},
    }
    assert [e.code for e in errors(parse_uncertainty, request)] == ["not_drawable"]
    assert coded(parse_fleet, {"scenario": TIDAL, "max_boxes": 2}) == [
        ("scenario", "workload_not_shareable", {})
    ]
    assert coded(parse_commitment, {"scenario": STEADY}) == [
        ("scenario.rent.committed_hourly_rate", "committed_rate_required", {})
    ]


def test_every_engine_code_is_documented():
    raised = {
        "idle_above_load",
        "jobs_month_above_limit",
        "memory",
        "rent_memory",
        "duplicate_name",
        "low_above_high",
        "mode_outside_range",
        "workload_not_shareable",
        "not_a_numeric_field",
        "whole_number_required",
        "not_drawable",
        "committed_rate_required",
        "unreadable",
    }

    assert raised <= set(ENGINE_CODES)


def test_codes_take_no_part_in_comparing_errors():
    assert FieldError("build.capex", "must be 0") == FieldError(
        "build.capex", "must be 0", "greater_than_equal", {"ge": 0.0}
    )


def test_params_are_json_values():
    data = changed(STEADY, "build", capex=-1)
    data["currency"] = "yuan"
    data["workload"] = {"kind": "bursty"}

    for error in errors(parse_scenario, data):
        json.dumps(error.params)
        assert error.code != "invalid"
