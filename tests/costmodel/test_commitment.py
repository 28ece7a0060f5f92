"""Commitment: how many instances to commit to, the published table, and every refusal."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from costmodel import ScenarioError, compare, parse_scenario
from costmodel.commitment import commitment, commitment_table, parse_commitment

EXAMPLES = Path(__file__).resolve().parent / "examples"
V3 = EXAMPLES / "v3"
CASES = json.loads((V3 / "operations.json").read_text())["commitment"]
OVERFLOW_CASE = next(c for c in CASES if c["scenario"] == "../v2/commitment-with-overflow.json")


def example(name: str) -> dict:
    return json.loads((V3 / name).read_text())


def errors_of(data) -> list[str]:
    with pytest.raises(ScenarioError) as caught:
        commitment(parse_commitment(data))
    return [str(e) for e in caught.value.errors]


def assert_answer(answer: dict, expected: dict, rel: float = 1e-9) -> None:
    assert answer["max_instances"] == expected["max_instances"]
    assert answer["best_committed_instances"] == expected["best_committed_instances"]
    assert [row["committed_instances"] for row in answer["rows"]] == [
        row["committed_instances"] for row in expected["rows"]
    ]
    for got, want in zip(answer["rows"], expected["rows"], strict=True):
        assert set(got) == set(want)
        for key, value in want.items():
            if value is None:
                assert got[key] is None
            else:
                assert got[key] == pytest.approx(value, rel=rel), key


def steady(utilization: float, **rent: object) -> dict:
    data = example("../v2/commitment-with-overflow.json")
    data["workload"] = {"kind": "steady", "utilization": utilization}
    data["rent"].update(rent)
    return data


def test_it_gives_the_published_table_with_max_instances():
    case = OVERFLOW_CASE
    request = {"scenario": example(case["scenario"]), "max_instances": case["max_instances"]}

    assert_answer(commitment(parse_commitment(request)), case["expected"])


def test_each_row_is_the_scenario_with_that_many_committed_instances():
    data = example(OVERFLOW_CASE["scenario"])
    answer = commitment(parse_commitment({"scenario": data, "max_instances": 3}))

    for row in answer["rows"]:
        changed = copy.deepcopy(data)
        changed["rent"]["committed_instances"] = row["committed_instances"]
        result = compare(parse_scenario(changed))
        assert row["rent_total"] == pytest.approx(result["rent"]["total"], rel=1e-12)
        assert row["rent_present_value"] == pytest.approx(
            result["rent"]["present_value"], rel=1e-12
        )
        assert row["savings"] == pytest.approx(result["savings"], rel=1e-12)
        assert row["break_even_month"] == pytest.approx(result["break_even_month"], rel=1e-12)


def test_the_best_count_has_the_lowest_rent_present_value():
    answer = commitment(parse_commitment({"scenario": example(OVERFLOW_CASE["scenario"])}))
    values = [row["rent_present_value"] for row in answer["rows"]]

    assert answer["best_committed_instances"] == values.index(min(values))


@pytest.mark.parametrize(("utilization", "peak"), [(0.0, 0), (1.0, 1), (1.5, 2), (8.0, 8)])
def test_without_max_instances_it_goes_up_to_the_peak_months_need(utilization, peak):
    # One box of the same capacity as the instance: u × 730 instance-hours a month.
    data = steady(utilization, gpu_count=1, gpu_throughput=1.0, rework_fraction=0.0)
    data["build"].update(gpu_count=1, gpu_throughput=1.0)

    answer = commitment(parse_commitment({"scenario": data}))

    assert answer["max_instances"] == peak
    assert len(answer["rows"]) == peak + 1


def test_the_peak_need_counts_rework():
    data = steady(1.0, gpu_count=1, gpu_throughput=1.0, rework_fraction=0.1)
    data["build"].update(gpu_count=1, gpu_throughput=1.0)

    assert commitment(parse_commitment({"scenario": data}))["max_instances"] == 2


def test_a_tie_goes_to_the_smaller_count():
    # Committed hours cost what on-demand hours cost and every one is used: a tie.
    data = steady(1.0, gpu_count=1, gpu_throughput=1.0, hourly_rate=10.0)
    data["rent"].update(committed_hourly_rate=10.0, annual_price_change=0.0, rework_fraction=0.0)
    data["rent"]["commitment_upfront_per_instance"] = 0.0
    data["build"].update(gpu_count=1, gpu_throughput=1.0)
    data["horizon_months"] = 12
    data["rent"]["commitment_term_months"] = 12

    answer = commitment(parse_commitment({"scenario": data, "max_instances": 1}))

    first, second = answer["rows"]
    assert first["rent_present_value"] == pytest.approx(second["rent_present_value"], rel=1e-12)
    assert answer["best_committed_instances"] == 0


def test_the_entry_point_takes_a_validated_scenario():
    scenario = parse_scenario(example(OVERFLOW_CASE["scenario"]))

    assert_answer(commitment_table(scenario, 3), OVERFLOW_CASE["expected"])


def test_it_refuses_a_scenario_without_a_committed_rate():
    data = example(OVERFLOW_CASE["scenario"])
    data["rent"]["committed_hourly_rate"] = 0.0

    assert errors_of({"scenario": data}) == [
        "scenario.rent.committed_hourly_rate: must be greater than 0 to weigh a commitment "
        "(the price of a committed instance-hour)"
    ]
    with pytest.raises(ScenarioError) as caught:
        commitment_table(parse_scenario(data))
    assert [e.field for e in caught.value.errors] == ["rent.committed_hourly_rate"]


@pytest.mark.parametrize(
    ("max_instances", "expected"),
    [
        (65, "max_instances: must be less than or equal to 64"),
        (-1, "max_instances: must be greater than or equal to 0"),
        (1.5, "max_instances: must be a valid integer"),
        ("2", "max_instances: must be a valid integer"),
    ],
)
def test_it_refuses_a_max_instances_outside_0_to_64(max_instances, expected):
    data = example(OVERFLOW_CASE["scenario"])

    assert errors_of({"scenario": data, "max_instances": max_instances}) == [expected]


def test_it_names_a_bad_scenario_field_and_an_unknown_field():
    data = example(OVERFLOW_CASE["scenario"])
    data["rent"]["hourly_rate"] = -1

    assert errors_of({"scenario": data, "max": 2}) == [
        "scenario.rent.hourly_rate: must be greater than or equal to 0",
        "max: is not a known field",
    ]
    assert errors_of([]) == ["(request): must be a JSON object"]
