"""The work shared by every copy of a scenario (:func:`costmodel.columns.variants`).

A Monte Carlo that draws no input of the work (no workload field, not the box's GPUs or
memory, not the horizon) asks for the same demand in every draw: ``variants`` computes one
copy's and shares it. These tests hold it to the per-copy computation it replaced, figure
for figure, bit for bit.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from costmodel import columns as columns_module
from costmodel import parse_scenario
from costmodel.columns import BUILD_INPUTS, RENT_INPUTS, columns_from, variants
from costmodel.operations import parse_uncertainty, uncertainty

EXAMPLES = Path(__file__).resolve().parent / "examples"
SCENARIOS = {
    # jobs, one of them rented by the build plan (the offload series)
    "jobs": EXAMPLES / "v4" / "jobs-placement-4x4090-vs-8xa100.json",
    "steady": EXAMPLES / "steady-4090-vs-a100.json",
    "tidal": EXAMPLES / "tidal-4060ti.json",
}


def scenario_data(name: str, horizon: int = 120) -> dict:
    data = json.loads(SCENARIOS[name].read_text())
    data["horizon_months"] = horizon  # several of the Monte Carlo's chunks
    return data


def per_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every copy's work computed on its own, as before the work was shared."""
    monkeypatch.setattr(columns_module, "_alike", lambda *columns: False)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_each_copy_has_the_demand_of_the_scenario_itself(name):
    scenario = parse_scenario(scenario_data(name))
    rates = np.linspace(1.0, 3.0, 7)
    shared = variants(scenario, 7, {"rent.hourly_rate": rates})
    alone = columns_from([scenario])
    assert shared.demand.shape == (7, alone.months)
    assert np.array_equal(shared.demand, np.repeat(alone.demand, 7, axis=0))
    if alone.offload_work is None:
        assert shared.offload_work is None
    else:
        assert np.array_equal(shared.offload_work, np.repeat(alone.offload_work, 7, axis=0))
    assert np.array_equal(shared.rent.hourly_rate, rates)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_a_monte_carlo_that_draws_no_work_gives_the_per_copy_figures_bit_for_bit(name, monkeypatch):
    data = scenario_data(name)
    request = parse_uncertainty(
        {
            "scenario": data,
            "distributions": {
                "rent.annual_price_change": {
                    "kind": "triangular",
                    "low": -0.3,
                    "mode": 0.0,
                    "high": 0.1,
                },
                "build.electricity_price_per_kwh": {
                    "kind": "triangular",
                    "low": 0.1,
                    "mode": 0.13,
                    "high": 0.17,
                },
                "build.residual_value_retention_per_year": {
                    "kind": "triangular",
                    "low": 0.6,
                    "mode": 0.8,
                    "high": 0.9,
                },
            },
            "draws": 2_000,
            "seed": 7,
            "measure": "present_value_savings",
        }
    )
    shared = uncertainty(request)
    per_copy(monkeypatch)
    assert uncertainty(request) == shared  # every float equal, the bands included


def test_a_drawn_input_of_the_work_is_computed_per_copy():
    data = scenario_data("steady")
    utilization = np.array([0.1, 0.5, 0.9])
    copies = variants(parse_scenario(data), 3, {"workload.utilization": utilization})
    assert np.array_equal(copies.demand[:, 1], utilization * 730.0)


def test_boxes_of_one_workload_are_placed_at_once_as_each_alone():
    # An options request's boxes share their scenario's workload (one object): their jobs
    # are placed together, each box by its own memory, as each scenario alone would be.
    scenario = parse_scenario(scenario_data("jobs"))
    boxes = [
        scenario.model_copy(
            update={"build": scenario.build.model_copy(update={"gpu_memory_gb": memory})}
        )
        for memory in (12.0, 24.0, 48.0, 80.0, None)
    ]
    assert len({id(box.workload) for box in boxes}) == 1
    together = columns_from(boxes)
    for row, box in enumerate(boxes):
        alone = columns_from([box.model_copy(update={"workload": box.workload.model_copy()})])
        assert np.array_equal(together.demand[row], alone.demand[0])
        offload = np.zeros(alone.months) if alone.offload_work is None else alone.offload_work[0]
        assert np.array_equal(together.offload_work[row], offload)
    assert together.offload_work[0].any() and not together.offload_work[-1].any()


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_copies_share_the_scenarios_inputs_as_copying_them_would(name):
    # variants() starts from views of the scenario's one row (Columns.copies) instead of
    # copying it count times (take): the same inputs, nothing copied, nothing writable.
    scenario = parse_scenario(scenario_data(name))
    one = columns_from([scenario])
    viewed, copied = one.copies(5), one.take(np.zeros(5, dtype=np.intp))
    pairs = [(viewed.horizon_months, copied.horizon_months), (viewed.demand, copied.demand)]
    pairs += [(getattr(viewed.build, f), getattr(copied.build, f)) for f in BUILD_INPUTS]
    pairs += [(getattr(viewed.rent, f), getattr(copied.rent, f)) for f in RENT_INPUTS]
    pairs += [(viewed.fees[path], copied.fees[path]) for path in copied.fees]
    for got, want in pairs:
        assert got.shape == want.shape and np.array_equal(got, want)
        assert not got.flags.writeable
    with pytest.raises(ValueError):
        one.take([0, 0]).copies(2)
