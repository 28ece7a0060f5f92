"""Version 4's options operation: every way to do one scenario's work, ranked by present value."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from costmodel import ScenarioError, compare, parse_scenario
from costmodel.commitment import commitment_table
from costmodel.options import MAX_BUILDS, MAX_RENTS, options, parse_options

EXAMPLES = Path(__file__).resolve().parent / "examples"
V4 = EXAMPLES / "v4"
NAME = "options-lora-boxes-and-offerings.json"
REQUEST = json.loads((V4 / NAME).read_text())
EXPECTED = json.loads((V4 / "operations.json").read_text())[NAME]
RTOL = 1e-6


def assert_agrees(actual, expected) -> None:
    """Equal structure, numbers to 1e-6 relative (the published figures have four decimals)."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and set(actual) == set(expected), (actual, expected)
        for key, value in expected.items():
            assert_agrees(actual[key], value)
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), (actual, expected)
        for got, want in zip(actual, expected, strict=True):
            assert_agrees(got, want)
    elif isinstance(expected, float) or (isinstance(expected, int) and expected > 0):
        assert actual == pytest.approx(expected, rel=RTOL, abs=1e-4)
    else:
        assert actual == expected


def request() -> dict:
    return copy.deepcopy(REQUEST)


def refused(data: dict) -> list[tuple[str, str]]:
    with pytest.raises(ScenarioError) as caught:
        parse_options(data)
    return [(e.field, e.code) for e in caught.value.errors]


def steady_request() -> dict:
    """A steady workload: the work is the scenario's box-hours in reference GPU-hours."""
    scenario = json.loads((EXAMPLES / "steady-4090-vs-a100.json").read_text())
    scenario["discount_rate_per_year"] = 0.08
    return {
        "scenario": scenario,
        "builds": [{"name": "its own box", "build": scenario["build"]}],
        "rents": [{"name": "its own offering", "rent": scenario["rent"]}],
    }


def test_the_published_options_example():
    assert_agrees(options(parse_options(request())), EXPECTED)


def test_the_scenarios_own_box_and_offering_are_compares_two_sides():
    data = steady_request()
    answer = options(parse_options(data))
    result = compare(parse_scenario(data["scenario"]))
    build, rent = (next(p for p in answer["plans"] if p["kind"] == k) for k in ("build", "rent"))
    assert build["present_value"] == pytest.approx(result["build"]["present_value"], rel=1e-12)
    assert build["total"] == pytest.approx(result["build"]["total_net"], rel=1e-12)
    assert rent["present_value"] == pytest.approx(result["rent"]["present_value"], rel=1e-12)
    assert rent["total"] == pytest.approx(result["rent"]["total"], rel=1e-12)
    assert answer["present_value_savings"] == pytest.approx(
        result["present_value_savings"], rel=1e-9
    )


def test_another_box_does_the_same_work_as_a_profile_of_its_own():
    data = steady_request()
    own = data["scenario"]["build"]
    bigger = {**own, "gpu_count": 2 * own["gpu_count"], "capex": 2 * own["capex"]}
    data["builds"].append({"name": "twice the box", "build": bigger})
    answer = options(parse_options(data))
    twice = next(p for p in answer["plans"] if p.get("build") == "twice the box")
    u = data["scenario"]["workload"]["utilization"] / 2
    same_work = {
        **data["scenario"],
        "build": bigger,
        "workload": {"kind": "steady", "utilization": u},
    }
    assert twice["present_value"] == pytest.approx(
        compare(parse_scenario(same_work))["build"]["present_value"], rel=1e-12
    )


def test_plans_are_ranked_by_present_value_and_best_is_the_first():
    data = request()
    answer = options(parse_options(data))
    values = [p["present_value"] for p in answer["plans"]]
    assert values == sorted(values)
    assert answer["best"] == answer["plans"][0]


def test_a_box_that_bursts_rents_on_the_offering_that_costs_it_least():
    data = steady_request()
    data["scenario"]["workload"]["utilization"] = 1.5  # half a box more than it does
    rent = data["scenario"]["rent"]
    data["rents"] = [
        {"name": "b dear", "rent": {**rent, "hourly_rate": 2 * rent["hourly_rate"]}},
        {"name": "a cheap", "rent": {**rent, "hourly_rate": rent["hourly_rate"] / 2}},
    ]
    answer = options(parse_options(data))
    [build] = [p for p in answer["plans"] if p["kind"] == "build"]
    assert build["rent"] == "a cheap"


def test_when_the_offering_makes_no_difference_the_first_name_is_taken():
    data = steady_request()  # never above one box: nothing rented by the build plan
    rent = data["scenario"]["rent"]
    data["rents"] = [
        {"name": "zeta", "rent": rent},
        {"name": "Zeta", "rent": {**rent, "hourly_rate": 3 * rent["hourly_rate"]}},
    ]
    [build] = [p for p in options(parse_options(data))["plans"] if p["kind"] == "build"]
    assert build["rent"] == "Zeta"  # "Z" comes before "z" in code-point order


def test_a_box_that_would_need_more_than_eight_boxes_is_infeasible_for_capacity():
    data = steady_request()
    own = data["scenario"]["build"]
    data["scenario"]["workload"]["utilization"] = 2.0
    data["builds"].append(
        {"name": "a tenth", "build": {**own, "gpu_throughput": own["gpu_throughput"] / 10}}
    )
    answer = options(parse_options(data))
    assert answer["infeasible"] == [{"kind": "build", "build": "a tenth", "reason": "capacity"}]
    assert {p.get("build") for p in answer["plans"]} == {"its own box", None}


def test_capacity_is_reported_when_memory_fails_too():
    data = request()
    tiny = {**data["builds"][0]["build"], "gpu_throughput": 0.001}
    data["builds"] = [{"name": "tiny", "build": tiny}]
    data["rents"] = [r for r in data["rents"] if r["rent"]["gpu_count"] == 1]
    answer = options(parse_options(data))
    assert answer["infeasible"][0] == {"kind": "build", "build": "tiny", "reason": "capacity"}


def test_a_box_whose_job_fits_no_offering_is_infeasible_for_memory():
    data = request()
    data["rents"] = [r for r in data["rents"] if r["rent"]["gpu_count"] == 1]
    answer = options(parse_options(data))
    reasons = {
        (i["kind"], i.get("build") or i.get("rent")): i["reason"] for i in answer["infeasible"]
    }
    # The 8 × 4090 box holds the full fine-tune itself (192 GB); the others rent it, and no
    # one-GPU offering holds 159.5 GB.
    assert reasons[("build", "1 x RTX 4090 desk-side")] == "memory"
    assert reasons[("build", "4 x RTX 4090 server")] == "memory"
    assert [p["build"] for p in answer["plans"]] == ["8 x RTX 4090 server"]
    assert answer["best"]["build"] == "8 x RTX 4090 server"
    assert answer["present_value_savings"] is None  # no rent plan can do the work


def test_nothing_feasible_has_no_best():
    data = request()
    data["builds"] = []
    data["rents"] = [r for r in data["rents"] if r["rent"]["gpu_count"] == 1]
    answer = options(parse_options(data))
    assert answer["plans"] == [] and answer["best"] is None
    assert answer["present_value_savings"] is None
    assert len(answer["infeasible"]) == len(data["rents"])


def test_an_offering_that_prices_a_commitment_is_committed_at_its_best_count():
    data = steady_request()
    scenario = data["scenario"]
    rent = {**scenario["rent"], "committed_hourly_rate": 0.6 * scenario["rent"]["hourly_rate"]}
    data["rents"] = [{"name": "committed", "rent": rent}]
    scenario["workload"]["utilization"] = 4.0  # four boxes' work: every hour of an instance
    [plan] = [p for p in options(parse_options(data))["plans"] if p["kind"] == "rent"]
    table = commitment_table(parse_scenario({**scenario, "rent": rent}))
    best = table["rows"][table["best_committed_instances"]]
    assert plan["committed_instances"] == table["best_committed_instances"] > 0
    assert plan["present_value"] == pytest.approx(best["rent_present_value"], rel=1e-12)
    # A count the offering names is kept.
    data["rents"] = [{"name": "committed", "rent": {**rent, "committed_instances": 0}}]
    [plan] = [p for p in options(parse_options(data))["plans"] if p["kind"] == "rent"]
    assert plan["committed_instances"] == 0


def test_the_scenarios_own_box_and_instance_are_not_held_to_the_work():
    # The request's scenario rents one 80 GB GPU and builds one 24 GB box: no plan of its
    # own could hold the full fine-tune, and compare refuses it; options only needs its work.
    with pytest.raises(ScenarioError):
        parse_scenario(REQUEST["scenario"])
    assert parse_options(request()).scenario.name == REQUEST["scenario"]["name"]


def test_duplicate_names_are_refused_naming_the_field():
    data = request()
    data["rents"][2]["name"] = data["rents"][0]["name"]
    assert refused(data) == [("rents.2.name", "duplicate_name")]
    data = request()
    data["builds"][1]["name"] = data["builds"][0]["name"]
    assert refused(data) == [("builds.1.name", "duplicate_name")]


def test_the_lists_are_bounded():
    data = request()
    data["builds"] = [
        {"name": f"box {i}", "build": REQUEST["builds"][0]["build"]} for i in range(MAX_BUILDS + 1)
    ]
    assert refused(data) == [("builds", "too_long")]
    data = request()
    data["rents"] = [
        {"name": f"offer {i}", "rent": REQUEST["rents"][0]["rent"]} for i in range(MAX_RENTS + 1)
    ]
    assert refused(data) == [("rents", "too_long")]
    data = request()
    data["rents"] = []
    assert refused(data) == [("rents", "too_short")]


def test_a_catalogs_options_are_not_bounded_as_a_callers_request_is():
    """A planner ranks every box and offering its catalog lists (parse_options(bounded=False)),
    however many: each is validated, names stay unique, and the answer is the one the same
    options give in requests within the bounds."""
    data = request()
    data["builds"] = [
        {"name": f"box {i:02}", "build": REQUEST["builds"][i % len(REQUEST["builds"])]["build"]}
        for i in range(MAX_BUILDS + 1)
    ]
    data["rents"] = [
        {"name": f"offer {j:02}", "rent": REQUEST["rents"][j % len(REQUEST["rents"])]["rent"]}
        for j in range(MAX_RENTS + 1)
    ]
    with pytest.raises(ScenarioError):
        parse_options(data)
    answer = options(parse_options(data, bounded=False))
    assert (
        len([p for p in answer["plans"] if p["kind"] == "rent"])
        + len([i for i in answer["infeasible"] if i["kind"] == "rent"])
        == MAX_RENTS + 1
    )
    # the same plans as the first bounded part of it gives, for the options it holds
    part = {**data, "builds": data["builds"][:MAX_BUILDS], "rents": data["rents"][:MAX_RENTS]}
    bounded = options(parse_options(part))
    rents = {p["rent"]: p["present_value"] for p in bounded["plans"] if p["kind"] == "rent"}
    for plan in answer["plans"]:
        if plan["kind"] == "rent" and plan["rent"] in rents:
            assert plan["present_value"] == rents[plan["rent"]]
    bad = copy.deepcopy(data)
    bad["rents"][MAX_RENTS]["name"] = bad["rents"][0]["name"]
    with pytest.raises(ScenarioError) as refusal:
        parse_options(bad, bounded=False)
    assert [(e.field, e.code) for e in refusal.value.errors] == [
        (f"rents.{MAX_RENTS}.name", "duplicate_name")
    ]


def test_a_request_with_no_box_ranks_the_offerings():
    data = request()
    del data["builds"]
    answer = options(parse_options(data))
    assert [p["kind"] for p in answer["plans"]] == ["rent"]
    assert answer["present_value_savings"] is None


def test_bad_options_are_refused_naming_each_field():
    data = request()
    data["builds"][0]["build"]["capex"] = -1
    data["rents"][1]["rent"]["gpu_memory_gb"] = 0
    data["rents"][3]["name"] = ""
    data["extra"] = 1
    assert refused(data) == [
        ("builds.0.build.capex", "greater_than_equal"),
        ("rents.1.rent.gpu_memory_gb", "greater_than"),
        ("rents.3.name", "string_too_short"),
        ("extra", "extra_forbidden"),
    ]


@pytest.mark.parametrize("data", [[], "options", None])
def test_a_request_that_is_not_an_object_is_refused(data):
    assert refused(data) == [("(request)", "not_an_object")]


def test_an_option_whose_figures_overflow_is_refused_naming_it():
    data = request()
    data["builds"][1]["build"]["capex"] = 1e308
    data["builds"][1]["build"]["maintenance_rate_per_year"] = 1.0
    with pytest.raises(ScenarioError) as caught:
        options(parse_options(data))
    # The 4-GPU box overflows with every offering it may rent on (only one holds its job).
    assert [(e.field, e.code) for e in caught.value.errors] == [
        ("builds.1.build", "overflow"),
        ("rents.1.rent", "overflow"),
    ]
    data = request()
    data["rents"][1]["rent"]["hourly_rate"] = 1e308
    with pytest.raises(ScenarioError) as caught:
        options(parse_options(data))
    assert ("rents.1.rent", "overflow") in [(e.field, e.code) for e in caught.value.errors]
