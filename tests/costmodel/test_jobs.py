"""Version 3: work stated as training jobs computes what the profile it implies computes."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from closeness import assert_break_even_month_close, assert_money_close, money_scale
from hypothesis import event, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from strategies import jobs_workloads, v2_scenarios

from costmodel import ScenarioError, compare, parse_scenario, parse_scenario_json
from costmodel.commitment import commitment, parse_commitment
from costmodel.operations import (
    fleet,
    parse_fleet,
    parse_tornado,
    parse_uncertainty,
    tornado,
    uncertainty,
)
from costmodel.projection import ProjectionOverflowError

V3 = Path(__file__).resolve().parent / "examples" / "v3"
EXPECTED = json.loads((V3 / "expected.json").read_text())
NAMES = sorted(EXPECTED)
LORA = "jobs-lora-4090-vs-a100.json"
RTOL = 1e-9


def example(name: str) -> dict:
    return json.loads((V3 / name).read_text())


def implied_profile(data: dict) -> dict:
    """The profile scenario a jobs scenario implies, month by month over its horizon."""
    box = data["build"]["gpu_count"] * data["build"]["gpu_throughput"]
    utilization = []
    for m in range(1, data["horizon_months"] + 1):
        work = 0.0
        for job in data["workload"]["jobs"]:
            runs = job["runs_per_month"]
            runs = runs[(m - 1) % len(runs)] if isinstance(runs, list) else runs
            work += runs * job["reference_gpu_hours"]
        utilization.append(work / box / 730)
    return {**data, "workload": {"kind": "profile", "monthly_utilization": utilization}}


def assert_same(actual, expected) -> None:
    if isinstance(expected, dict):
        assert set(actual) == set(expected)
        for key, value in expected.items():
            assert_same(actual[key], value)
    elif isinstance(expected, list) and expected and isinstance(expected[0], float | int):
        assert_allclose(actual, expected, rtol=RTOL, atol=1e-6)
    elif isinstance(expected, list):
        assert len(actual) == len(expected)
        for got, want in zip(actual, expected, strict=True):
            assert_same(got, want)
    elif isinstance(expected, float):
        assert actual == pytest.approx(expected, rel=RTOL, abs=1e-6)
    else:
        assert actual == expected


@pytest.mark.parametrize("name", NAMES)
def test_the_version_3_examples_give_their_published_figures(name):
    result = compare(parse_scenario(example(name)))
    expected = EXPECTED[name]

    for figure in ("break_even_month", "break_even_utilization", "savings"):
        assert_same(result[figure], expected[figure])
    assert_same(result["work_reference_gpu_hours"], expected["work_reference_gpu_hours"])
    assert_same(result["build"]["total"], expected["build_total"])
    assert_same(result["rent"]["total"], expected["rent_total"])
    assert_same(result["build"]["resale_value"], expected["resale_value"])
    assert_same(result["build"]["present_value"], expected["build_present_value"])
    assert_same(result["rent"]["present_value"], expected["rent_present_value"])
    # Version 4 adds each job's placement: without memory, every job is on the box.
    assert [job.pop("placement") for job in result["jobs"]] == ["box"] * len(expected["jobs"])
    assert_same(result["jobs"], expected["jobs"])


@pytest.mark.parametrize("name", NAMES)
def test_a_jobs_scenario_equals_the_profile_of_its_published_utilizations(name):
    data = example(name)
    profile = {
        **data,
        "workload": {
            "kind": "profile",
            "monthly_utilization": EXPECTED[name]["monthly_utilization_first_12"],
        },
    }

    jobs, implied = compare(parse_scenario(data)), compare(parse_scenario(profile))

    del jobs["jobs"]
    jobs["scenario"] = implied["scenario"]
    assert_same(jobs, implied)


@pytest.mark.parametrize("name", NAMES)
def test_a_jobs_scenario_equals_the_profile_it_implies(name):
    data = example(name)
    data["horizon_months"] = 25  # not a multiple of either list's length

    jobs = compare(parse_scenario(data))
    implied = compare(parse_scenario(implied_profile(data)))

    assert "jobs" not in implied
    del jobs["jobs"]
    jobs["scenario"] = implied["scenario"]
    assert_same(jobs, implied)


def test_a_faster_box_does_the_same_jobs_in_fewer_busy_hours():
    data = example(LORA)
    faster = copy.deepcopy(data)
    faster["build"]["gpu_throughput"] = 1.2  # twice as fast

    slow, fast = compare(parse_scenario(data)), compare(parse_scenario(faster))

    assert fast["work_reference_gpu_hours"] == pytest.approx(slow["work_reference_gpu_hours"])
    assert fast["jobs"][0]["build_hours_per_run"] == pytest.approx(
        slow["jobs"][0]["build_hours_per_run"] / 2
    )
    assert fast["rent"]["total"] == pytest.approx(slow["rent"]["total"], rel=1e-12)


def test_time_to_result_counts_the_rent_sides_rework():
    data = example(LORA)
    data["rent"]["rework_fraction"] = 0.25

    jobs = compare(parse_scenario(data))["jobs"]

    assert jobs[0]["rent_instance_hours_per_run"] == pytest.approx(124.6439 * 1.25)
    assert jobs[0]["build_hours_per_run"] == pytest.approx(124.6439 / 0.6)


def test_only_a_jobs_workload_has_a_jobs_block():
    data = implied_profile(example(LORA))

    assert "jobs" not in compare(parse_scenario(data))


def errors_of(data: dict) -> list[str]:
    messages = []
    for parse in (parse_scenario, lambda d: parse_scenario_json(json.dumps(d))):
        with pytest.raises(ScenarioError) as caught:
            parse(data)
        messages.append([str(e) for e in caught.value.errors])
    assert messages[0] == messages[1]  # the same refusal whichever way the text came in
    return messages[0]


def jobs_with(change) -> dict:
    data = example(LORA)
    change(data["workload"])
    return data


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda w: w.update(jobs=[]),
            "workload.jobs: must have at least 1 item after validation, not 0",
        ),
        (
            lambda w: w["jobs"][0].update(runs_per_month=-1),
            "workload.jobs.0.runs_per_month: must be greater than or equal to 0",
        ),
        (
            lambda w: w["jobs"][1].update(runs_per_month=[3, -1, 1]),
            "workload.jobs.1.runs_per_month.1: must be greater than or equal to 0",
        ),
        (
            lambda w: w["jobs"][1].update(runs_per_month=[]),
            "workload.jobs.1.runs_per_month: must have at least 1 item after validation, not 0",
        ),
        (
            lambda w: w["jobs"][0].update(reference_gpu_hours=0),
            "workload.jobs.0.reference_gpu_hours: must be greater than 0",
        ),
        (
            lambda w: w["jobs"][0].update(runs_per_month="2"),
            "workload.jobs.0.runs_per_month: must be a valid number",
        ),
        (lambda w: w["jobs"][0].pop("name"), "workload.jobs.0.name: is required"),
        (
            lambda w: w["jobs"][0].update(hours=3),
            "workload.jobs.0.hours: is not a known field",
        ),
    ],
)
def test_it_refuses_a_bad_job_naming_the_field(change, expected):
    assert errors_of(jobs_with(change)) == [expected]


def test_it_refuses_a_month_above_eight_boxes_naming_the_month():
    # 0.6 of the reference: 8 boxes do 8 × 730 × 0.6 = 3504 reference GPU-hours a month;
    # month 3 wants 2 × 124.6439 + 82 × 40 = 3529.29, 8.058 boxes' work.
    data = jobs_with(lambda w: w["jobs"][1].update(runs_per_month=[3, 0, 82]))

    assert errors_of(data) == [
        "workload.jobs: month 3 asks for 8.058 times what the box does in 730 hours (at most 8)"
    ]


def test_a_month_above_eight_boxes_beyond_the_horizon_is_not_refused():
    data = jobs_with(lambda w: w["jobs"][1].update(runs_per_month=[3, 0, 82]))
    data["horizon_months"] = 2

    assert compare(parse_scenario(data))["months"] == [0, 1, 2]


def test_exactly_eight_boxes_of_work_is_accepted():
    data = example(LORA)
    data["workload"]["jobs"] = [
        {"name": "all of it", "reference_gpu_hours": 8 * 730 * 0.6, "runs_per_month": 1}
    ]

    result = compare(parse_scenario(data))

    assert result["build"]["burst"][1] > 0
    assert result["work_reference_gpu_hours"] == pytest.approx(8 * 730 * 0.6 * 36)


# --- operations on a jobs scenario -------------------------------------------------------------


def test_the_commitment_table_of_the_seasonal_jobs_example_is_published():
    case = next(
        c
        for c in json.loads((V3 / "operations.json").read_text())["commitment"]
        if c["scenario"] == "jobs-seasonal-burst-commitment.json"
    )

    answer = commitment(parse_commitment({"scenario": example(case["scenario"])}))

    assert_same(answer, case["expected"])


@pytest.mark.parametrize(
    ("path", "low", "high"),
    [
        ("workload.jobs.0.reference_gpu_hours", 60.0, 200.0),
        ("workload.jobs.0.runs_per_month", 0.0, 5.0),
        ("workload.jobs.1.runs_per_month.2", 0.0, 6.0),
        ("build.gpu_throughput", 0.5, 1.0),
    ],
)
def test_a_tornado_over_a_jobs_field_is_the_scenario_with_that_field_changed(path, low, high):
    data = example(LORA)
    answer = tornado(
        parse_tornado({"scenario": data, "drivers": {path: {"low": low, "high": high}}})
    )

    row = answer["drivers"][0]
    for side, value in (("low", low), ("high", high)):
        changed = copy.deepcopy(data)
        *parents, leaf = path.split(".")
        node = changed
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            node[int(leaf)] = value
        else:
            node[leaf] = value
        assert row[f"savings_{side}"] == pytest.approx(
            compare(parse_scenario(changed))["savings"], rel=1e-12
        )


def test_a_tornado_value_that_asks_for_more_than_eight_boxes_is_refused():
    request = {
        "scenario": example(LORA),
        "drivers": {"workload.jobs.0.runs_per_month": {"low": 0, "high": 40}},
    }

    with pytest.raises(ScenarioError) as caught:
        parse_tornado(request)

    assert [e.field for e in caught.value.errors] == ["drivers.workload.jobs.0.runs_per_month.high"]


def test_uncertainty_over_a_jobs_scenario_draws_the_box_throughput_into_its_demand():
    data = example(LORA)
    request = {
        "scenario": data,
        "distributions": {"build.gpu_throughput": {"kind": "uniform", "low": 0.6, "high": 0.6}},
        "draws": 3,
    }

    answer = uncertainty(parse_uncertainty(request))

    assert answer["savings"]["p50"] == pytest.approx(
        compare(parse_scenario(data))["savings"], rel=1e-12
    )
    request["distributions"]["build.gpu_throughput"] = {"kind": "uniform", "low": 1.2, "high": 1.2}
    faster = copy.deepcopy(data)
    faster["build"]["gpu_throughput"] = 1.2
    assert uncertainty(parse_uncertainty(request))["savings"]["p50"] == pytest.approx(
        compare(parse_scenario(faster))["savings"], rel=1e-12
    )
    assert np.isfinite(answer["probability_build_cheaper"])


def test_a_run_that_never_ends_on_a_vanishing_box_is_refused_as_an_overflow():
    data = example(LORA)
    data["build"]["gpu_throughput"] = 5e-324
    data["workload"]["jobs"] = [{"name": "idle", "reference_gpu_hours": 1.0, "runs_per_month": 0}]

    with pytest.raises(ProjectionOverflowError):
        compare(parse_scenario(data))


def test_a_fleet_shares_jobs_among_its_boxes():
    data = example(LORA)

    answer = fleet(parse_fleet({"scenario": data, "max_boxes": 2}))

    two = copy.deepcopy(data)
    for name in ("gpu_count", "capex", "power_load_watts", "power_idle_watts", "hosting_monthly"):
        two["build"][name] *= 2
    result = compare(parse_scenario(two))
    assert answer["rows"][1]["savings"] == pytest.approx(result["savings"], rel=1e-12)
    assert answer["rows"][0]["savings"] == pytest.approx(
        compare(parse_scenario(data))["savings"], rel=1e-12
    )


@given(v2_scenarios(workload=jobs_workloads(), horizon=st.integers(1, 120)))
@settings(max_examples=80, deadline=None)
def test_any_jobs_scenario_computes_what_the_profile_it_implies_computes(data):
    try:
        scenario = parse_scenario(data)
    except ScenarioError as exc:
        assert [e.code for e in exc.errors] == ["jobs_month_above_limit"]
        event("refused: a month above 8 boxes")
        return
    try:
        jobs = compare(scenario)
    except ProjectionOverflowError:
        event("overflow")
        return
    event("compared")
    implied = compare(parse_scenario(implied_profile(data)))
    scale = money_scale(implied)
    for side in ("build", "rent"):
        for name, values in implied[side].items():
            if isinstance(values, list):
                assert_allclose(jobs[side][name], values, rtol=1e-9, atol=1e-9 * scale)
    assert_money_close(jobs["savings"], implied["savings"], scale, 1e-9)
    assert jobs["work_reference_gpu_hours"] == pytest.approx(
        implied["work_reference_gpu_hours"], rel=1e-9
    )
    diff = np.subtract(implied["build"]["cumulative"], implied["rent"]["cumulative"]).tolist()
    assert_break_even_month_close(
        jobs["break_even_month"], implied["break_even_month"], diff, scale, 1e-9
    )
    assert [job["name"] for job in jobs["jobs"]] == [
        job["name"] for job in data["workload"]["jobs"]
    ]
