"""Version 4: memory on both sides, each job placed on the box or rented by the build plan."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose

from costmodel import ScenarioError, compare, parse_scenario
from costmodel.commitment import commitment_table
from costmodel.operations import (
    fleet,
    parse_fleet,
    parse_tornado,
    parse_uncertainty,
    tornado,
    uncertainty,
)
from costmodel.sensitivity import summary_and_sweep, utilization_sweep

EXAMPLES = Path(__file__).resolve().parent / "examples"
V4 = EXAMPLES / "v4"
PLACEMENT = "jobs-placement-4x4090-vs-8xa100.json"
EXPECTED = json.loads((V4 / "expected.json").read_text())[PLACEMENT]
OPERATIONS = json.loads((V4 / "operations.json").read_text())
RTOL = 1e-6  # the published figures have four decimals


def example(name: str = PLACEMENT) -> dict:
    return json.loads((V4 / name).read_text())


def close(actual: float | None, expected: float | None) -> None:
    if expected is None:
        assert actual is None
    else:
        assert actual == pytest.approx(expected, rel=RTOL, abs=1e-4)


def refused(data: dict) -> list[tuple[str, str]]:
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(data)
    return [(e.field, e.code) for e in caught.value.errors]


def test_the_version_4_example_gives_its_published_figures():
    result = compare(parse_scenario(example()))

    for figure in ("savings", "present_value_savings", "break_even_month"):
        close(result[figure], EXPECTED[figure])
    close(result["work_reference_gpu_hours"], EXPECTED["work_reference_gpu_hours"])
    build, want = result["build"], EXPECTED["build"]
    for figure in ("total", "total_net", "present_value"):
        close(build[figure], want[figure])
    close(sum(build["offload"]), want["offload_total"])
    close(build["offload"][1], want["offload_month_1"])
    close(sum(build["burst"]), want["burst_total"])
    for figure in ("total", "present_value"):
        close(result["rent"][figure], EXPECTED["rent"][figure])
    assert len(result["jobs"]) == len(EXPECTED["jobs"])
    for job, expected in zip(result["jobs"], EXPECTED["jobs"], strict=True):
        assert job["name"] == expected["name"]
        assert job["placement"] == expected["placement"]
        close(job["build_hours_per_run"], expected["build_hours_per_run"])
        close(job["rent_instance_hours_per_run"], expected["rent_instance_hours_per_run"])


def test_the_published_present_value_tornado():
    case = OPERATIONS["tornado_present_value"]
    answer = tornado(parse_tornado({"scenario": example(case["scenario"]), **case["request"]}))
    expected = case["answer"]

    close(answer["base_savings"], expected["base_savings"])
    assert [row["path"] for row in answer["drivers"]] == [
        row["path"] for row in expected["drivers"]
    ]
    for row, want in zip(answer["drivers"], expected["drivers"], strict=True):
        for key, value in want.items():
            if isinstance(value, float | int) and not isinstance(value, bool):
                close(row[key], value)
            else:
                assert row[key] == value


def test_the_rented_job_is_the_offload_series_and_part_of_the_rent_side():
    data = example()
    result = compare(parse_scenario(data))
    full = data["workload"]["jobs"][1]
    rent = data["rent"]
    # Months 1, 4, 7 …: one full fine-tune on the 8-GPU instance at its hourly rate.
    per_run = full["reference_gpu_hours"] / (rent["gpu_count"] * rent["gpu_throughput"])
    runs = [0.0] + [1.0 if (m - 1) % 3 == 0 else 0.0 for m in range(1, 37)]
    assert_allclose(result["build"]["offload"], np.multiply(runs, per_run * rent["hourly_rate"]))
    # Renting everything pays for both jobs: the rent side is as if nothing were placed.
    unplaced = copy.deepcopy(data)
    for job in unplaced["workload"]["jobs"]:
        job.pop("memory_gb")
    everything = compare(parse_scenario(unplaced))
    assert_allclose(result["rent"]["monthly"], everything["rent"]["monthly"], rtol=1e-12)
    assert result["work_reference_gpu_hours"] == pytest.approx(
        everything["work_reference_gpu_hours"], rel=1e-12
    )
    # The box no longer runs the full fine-tune: less energy, the rest of the box the same.
    assert sum(result["build"]["energy"]) < sum(everything["build"]["energy"])
    assert result["build"]["hosting"] == everything["build"]["hosting"]


def test_without_memory_figures_are_version_3s_and_every_job_is_on_the_box():
    data = example()
    for job in data["workload"]["jobs"]:
        job.pop("memory_gb")
    placed = example()
    placed["build"]["gpu_memory_gb"] = 80  # 4 × 80 GB holds both jobs
    for a, b in ((data, placed),):
        one, other = compare(parse_scenario(a)), compare(parse_scenario(b))
        assert [job["placement"] for job in other["jobs"]] == ["box", "box"]
        assert one["build"]["monthly"] == other["build"]["monthly"]
        assert one["rent"]["monthly"] == other["rent"]["monthly"]
        assert set(one["build"]["offload"]) == {0.0}


def test_a_box_whose_gpu_memory_is_not_given_holds_every_job():
    data = example()
    del data["build"]["gpu_memory_gb"]
    result = compare(parse_scenario(data))
    assert [job["placement"] for job in result["jobs"]] == ["box", "box"]


def test_break_even_utilization_replaces_the_jobs_rented_or_not_by_steady_work():
    data = example()
    steady = {**data, "workload": {"kind": "steady", "utilization": 0.3}}
    result = compare(parse_scenario(data))
    assert result["break_even_utilization"] == pytest.approx(
        compare(parse_scenario(steady))["break_even_utilization"], rel=1e-9
    )


def test_the_planners_summary_and_sweep_keep_the_rented_job():
    scenario = parse_scenario(example())
    summary, sweep = summary_and_sweep(scenario, 6)
    result = compare(scenario)
    assert summary["savings"] == pytest.approx(result["savings"], rel=1e-12)
    assert summary["present_value_savings"] == pytest.approx(
        result["present_value_savings"], rel=1e-12
    )
    assert sweep == utilization_sweep(scenario, 6)


def test_a_job_that_fits_neither_side_is_refused_naming_it():
    data = example()
    data["rent"]["gpu_count"] = 1  # 80 GB < 159.5 GB, and the box holds 96 GB
    assert refused(data) == [("workload.jobs.1.memory_gb", "memory")]


def test_a_job_the_box_holds_and_the_instance_does_not_is_refused_for_renting():
    data = example()
    data["build"]["gpu_memory_gb"] = 48  # 4 × 48 = 192 GB holds the full fine-tune
    data["rent"]["gpu_count"] = 1
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(data)
    [error] = caught.value.errors
    assert (error.field, error.code) == ("workload.jobs.1.memory_gb", "rent_memory")
    assert error.params == {"memory_gb": 159.5, "box_memory_gb": 192.0, "instance_memory_gb": 80.0}
    json.dumps(error.params)


@pytest.mark.parametrize(
    ("section", "field", "value", "where"),
    [
        ("build", "gpu_memory_gb", 0, "build.gpu_memory_gb"),
        ("rent", "gpu_memory_gb", -80, "rent.gpu_memory_gb"),
        ("rent", "gpu_memory_gb", "80", "rent.gpu_memory_gb"),
    ],
)
def test_a_bad_gpu_memory_is_refused_naming_the_field(section, field, value, where):
    data = example()
    data[section][field] = value
    assert [f for f, _ in refused(data)] == [where]


def test_a_bad_job_memory_is_refused_naming_the_field():
    data = example()
    data["workload"]["jobs"][0]["memory_gb"] = 0
    assert refused(data) == [("workload.jobs.0.memory_gb", "greater_than")]


def test_eight_boxes_count_only_the_jobs_on_the_box():
    data = example()
    # 400 full fine-tunes a quarter would be 21 boxes' work on the box; rented, they are none.
    data["workload"]["jobs"][1]["runs_per_month"] = [400, 0, 0]
    result = compare(parse_scenario(data))
    assert result["build"]["burst"] == [0.0] * 37
    assert max(result["build"]["offload"]) == pytest.approx(
        400 * 186.9658 / 8 * data["rent"]["hourly_rate"]
    )


def test_memory_is_no_driver_of_a_tornado():
    request = {
        "scenario": example(),
        "drivers": {"build.gpu_memory_gb": {"low": 24, "high": 48}},
    }
    with pytest.raises(ScenarioError) as caught:
        parse_tornado(request)
    assert [(e.field, e.code) for e in caught.value.errors] == [
        ("drivers.build.gpu_memory_gb", "not_a_numeric_field")
    ]


def test_a_tornado_over_the_boxs_gpus_places_the_jobs_again():
    data = example()
    data["build"]["gpu_memory_gb"] = 24
    answer = tornado(
        parse_tornado({"scenario": data, "drivers": {"build.gpu_count": {"low": 4, "high": 8}}})
    )
    [row] = answer["drivers"]
    high = copy.deepcopy(data)
    high["build"]["gpu_count"] = 8  # 192 GB: the full fine-tune moves onto the box
    assert compare(parse_scenario(high))["jobs"][1]["placement"] == "box"
    assert row["savings_high"] == pytest.approx(compare(parse_scenario(high))["savings"], rel=1e-9)
    assert row["savings_low"] == pytest.approx(EXPECTED["savings"], rel=RTOL)


def test_uncertainty_keeps_the_rented_job_in_every_draw():
    data = example()
    rate = data["rent"]["hourly_rate"]
    answer = uncertainty(
        parse_uncertainty(
            {
                "scenario": data,
                "distributions": {
                    "rent.hourly_rate": {"kind": "uniform", "low": rate, "high": rate}
                },
                "draws": 3,
            }
        )
    )
    assert answer["savings"]["p50"] == pytest.approx(EXPECTED["savings"], rel=RTOL)


def test_a_fleet_never_shards_a_run_across_boxes():
    data = example()
    answer = fleet(parse_fleet({"scenario": data, "max_boxes": 2}))
    # Two boxes hold 192 GB together, but a run fits one box or none: still rented.
    two = copy.deepcopy(data)
    for field in ("gpu_count", "capex", "power_load_watts", "power_idle_watts", "hosting_monthly"):
        two["build"][field] *= 2
    two["build"]["gpu_memory_gb"] = 12  # 8 × 12 = 96 GB: one box's memory
    assert answer["rows"][1]["savings"] == pytest.approx(
        compare(parse_scenario(two))["savings"], rel=1e-9
    )


def test_a_commitment_counts_the_rented_jobs_hours():
    data = example()
    data["rent"]["committed_hourly_rate"] = 25.0
    data["workload"]["jobs"][1]["runs_per_month"] = [40, 0, 0]
    table = commitment_table(parse_scenario(data))
    # The busiest month: 2 LoRA runs (31.2 h) and 40 full fine-tunes rented by the build
    # plan (934.8 h) on the 8-GPU instance: 966 instance-hours, two instances' month.
    assert table["max_instances"] == 2
