"""Every offering's commitment table in one projection (costmodel.commitment.cheapest_counts).

The options operation counts each offering that prices a commitment and names no count at
the cheapest count of its commitment table. It once asked :func:`commitment_table` offering
by offering; now it projects every table at once. These tests hold the batch to the table,
figure for figure, bit for bit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from costmodel import parse_scenario
from costmodel.columns import columns_from
from costmodel.commitment import cheapest_counts, commitment_table
from costmodel.options import options, parse_options, with_box

EXAMPLES = Path(__file__).resolve().parent / "examples"
LORA = json.loads((EXAMPLES / "v4" / "options-lora-boxes-and-offerings.json").read_text())
STEADY = json.loads((EXAMPLES / "steady-4090-vs-a100.json").read_text())


def committed_offerings(rent: dict) -> list[dict]:
    """Offerings of one instance pricing commitments every way the schema allows."""
    rate = rent["hourly_rate"]
    offerings = []
    for n, (share, change, term, upfront) in enumerate(
        [
            (0.6, 0.0, 12, 0.0),
            (0.45, -0.05, 36, 0.0),
            (0.7, 0.03, 12, 500.0),
            (0.5, -0.12, 36, 2000.0),
            (0.95, 0.0, 12, 0.0),  # barely cheaper: few hours are worth committing
            (0.3, 0.1, 36, 0.0),
        ]
    ):
        offerings.append(
            {
                "name": f"committed {n}",
                "rent": {
                    **rent,
                    "hourly_rate": rate * (1 + n / 10),
                    "committed_hourly_rate": share * rate * (1 + n / 10),
                    "annual_price_change": change,
                    "commitment_term_months": term,
                    "commitment_upfront_per_instance": upfront,
                },
            }
        )
    return offerings


def plans() -> list[tuple[str, dict]]:
    lora = json.loads(json.dumps(LORA))
    lora["scenario"]["horizon_months"] = 120
    lora["scenario"]["rent"] = LORA["rents"][1]["rent"]  # 8 × 80 GB: holds every job
    steady = {"scenario": {**STEADY, "discount_rate_per_year": 0.08}}
    steady["scenario"]["workload"] = {"kind": "steady", "utilization": 3.4}  # bursts
    steady["builds"] = [{"name": "its own box", "build": STEADY["build"]}]
    return [("jobs", lora), ("steady", steady)]


@pytest.mark.parametrize(("name", "data"), plans())
def test_each_offerings_count_and_figures_are_its_commitment_tables(name, data):
    rent = data["scenario"]["rent"]
    data["rents"] = [{"name": "on demand", "rent": rent}, *committed_offerings(rent)]
    request = parse_options(data)
    answer = options(request)
    scenario = request.scenario
    # the scenario options weighs a rent plan on: its own box doing the work, holding every job
    own = with_box(scenario, scenario.build.model_copy(update={"gpu_memory_gb": None}))
    weighed = 0
    for plan in answer["plans"]:
        if plan["kind"] != "rent" or plan["rent"] == "on demand":
            continue
        [offering] = [r for r in request.rents if r.name == plan["rent"]]
        table = commitment_table(own.model_copy(update={"rent": offering.rent}))
        best = table["rows"][table["best_committed_instances"]]
        assert plan["committed_instances"] == table["best_committed_instances"]
        assert plan["present_value"] == best["rent_present_value"]  # exactly
        assert plan["total"] == best["rent_total"]
        weighed += 1
    assert weighed == len(committed_offerings(rent))


def test_the_batch_gives_each_tables_cheapest_row():
    scenario = STEADY | {"discount_rate_per_year": 0.08, "horizon_months": 60}
    scenario["workload"] = {"kind": "steady", "utilization": 2.6}
    scenarios = [
        parse_scenario({**scenario, "rent": offering["rent"]})
        for offering in committed_offerings(STEADY["rent"])
    ]
    counts, values, totals = cheapest_counts(columns_from(scenarios))
    assert len(set(counts.tolist())) > 1  # the offerings do not all commit the same count
    for s, k, value, total in zip(scenarios, counts, values, totals, strict=True):
        table = commitment_table(s)
        assert k == table["best_committed_instances"]
        assert value == table["rows"][k]["rent_present_value"]
        assert total == table["rows"][k]["rent_total"]
