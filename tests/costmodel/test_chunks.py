"""Projections in chunks (costmodel.projection.CHUNK_CELLS): the size is for speed only.

Each row is projected on its own, so the figures of a projection, a Monte Carlo and an
options ranking are the same, bit for bit, whatever the size of the chunks they are
computed in.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from costmodel import parse_scenario
from costmodel import projection as projection_module
from costmodel.columns import variants
from costmodel.operations import parse_uncertainty, uncertainty
from costmodel.options import options, parse_options

EXAMPLES = Path(__file__).resolve().parent / "examples"
JOBS = json.loads((EXAMPLES / "v4" / "jobs-placement-4x4090-vs-8xa100.json").read_text())
OPTIONS = json.loads((EXAMPLES / "v4" / "options-lora-boxes-and-offerings.json").read_text())
SIZES = (1 << 12, 1 << 15, 1 << 16, 1 << 20)


def projected(size: int, monkeypatch: pytest.MonkeyPatch) -> list[np.ndarray]:
    monkeypatch.setattr(projection_module, "CHUNK_CELLS", size)
    scenario = parse_scenario({**JOBS, "horizon_months": 120, "discount_rate_per_year": 0.08})
    rng = np.random.default_rng(3)
    count = 3_000
    columns = variants(
        scenario,
        count,
        {
            "rent.hourly_rate": rng.uniform(10.0, 40.0, count),
            "build.residual_value_retention_per_year": rng.uniform(0.5, 0.9, count),
            "workload.jobs.0.reference_gpu_hours": rng.uniform(10.0, 900.0, count),
        },
    )
    p = projection_module.project_columns(columns, with_present_value_break_even=True)
    figures = [p.break_even_month, p.break_even_utilization, p.savings, p.present_value_savings]
    figures.append(p.present_value_break_even_utilization)
    return figures + [side[key] for side in (p.build, p.rent) for key in sorted(side)]


@pytest.mark.parametrize("size", SIZES)
def test_a_projection_does_not_depend_on_its_chunks(size, monkeypatch):
    expected = projected(1 << 15, monkeypatch)
    for got, want in zip(projected(size, monkeypatch), expected, strict=True):
        assert np.array_equal(got, want, equal_nan=True)


@pytest.mark.parametrize("size", SIZES)
def test_a_monte_carlo_and_a_ranking_do_not_depend_on_the_chunks(size, monkeypatch):
    request = parse_uncertainty(
        {
            "scenario": {**JOBS, "horizon_months": 60, "discount_rate_per_year": 0.08},
            "distributions": {
                "rent.hourly_rate": {"kind": "triangular", "low": 15, "mode": 20, "high": 30},
                "build.electricity_price_per_kwh": {"kind": "uniform", "low": 0.5, "high": 1.2},
            },
            "draws": 4_000,
            "seed": 11,
            "measure": "present_value_savings",
        }
    )
    ranking = parse_options(OPTIONS)
    monkeypatch.setattr(projection_module, "CHUNK_CELLS", 1 << 15)
    expected = uncertainty(request), options(ranking)
    monkeypatch.setattr(projection_module, "CHUNK_CELLS", size)
    assert (uncertainty(request), options(ranking)) == expected
