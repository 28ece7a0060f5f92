"""A version-1 scenario gives what it gave before version 2.

``golden/v1_figures.json`` holds the figures of 250 varied version-1
scenarios (and the full monthly series of eight of them) computed by the
engine as it was before version 2 (commit 5383464). Today's engine, a
different code path, must give the same numbers; sums may be added in
another order, so they agree to 1e-12 of the scenario's money scale rather
than to the bit. And any version-1 scenario gives the same result whether its
version-2 fields are left out or written at their defaults.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from numpy.testing import assert_allclose
from strategies import scenarios

from costmodel import compare, parse_scenario, project

GOLDEN = json.loads((Path(__file__).resolve().parent / "golden" / "v1_figures.json").read_text())
RESULTS = GOLDEN["results"]
RTOL = 1e-12

V2_DEFAULTS = {
    "build": {
        "useful_life_months": None,
        "capex_annual_price_change": 0.0,
        "running_cost_annual_change": 0.0,
        "financing": None,
    },
    "rent": {
        "rework_fraction": 0.0,
        "committed_instances": 0,
        "committed_hourly_rate": 0.0,
        "commitment_term_months": 12,
        "commitment_upfront_per_instance": 0.0,
    },
}


def close(actual: float | None, expected: float | None, scale: float, name: str) -> None:
    if expected is None:
        assert actual is None, name
    else:
        assert actual is not None, name
        assert abs(actual - expected) <= RTOL * (abs(expected) + scale), (name, actual, expected)


@pytest.fixture(scope="module")
def batch():
    return project([parse_scenario(entry["scenario"]) for entry in RESULTS])


@pytest.mark.parametrize("index", range(len(RESULTS)))
def test_a_version_1_scenario_gives_the_figures_it_gave_before(batch, index):
    expected = RESULTS[index]["figures"]
    got = batch.result(index)
    scale = max(abs(expected["build"]["total"]), abs(expected["rent"]["total"]), 1.0)
    for name in ("savings", "work_reference_gpu_hours", "break_even_utilization"):
        close(got[name], expected[name], scale, name)
    # A month is 1 on the break-even scale: compare it in months.
    close(got["break_even_month"], expected["break_even_month"], 1.0, "break_even_month")
    for side in ("build", "rent"):
        for name, value in expected[side].items():
            per_hour = name == "cost_per_reference_gpu_hour"
            work = max(expected["work_reference_gpu_hours"], 1e-300)
            close(got[side][name], value, scale / work if per_hour else scale, f"{side}.{name}")


@pytest.mark.parametrize("index", [i for i, e in enumerate(RESULTS) if "series" in e])
def test_a_version_1_scenario_gives_the_monthly_series_it_gave_before(batch, index):
    got = batch.result(index)
    for side, series in RESULTS[index]["series"].items():
        scale = max(abs(v) for v in series["cumulative"])
        for name, values in series.items():
            assert_allclose(got[side][name], values, rtol=RTOL, atol=RTOL * scale, err_msg=name)
    # The version-2 series exist and hold nothing for a version-1 scenario.
    for name in ("burst", "replacement", "financing"):
        assert not any(got["build"][name]), name
    assert not any(got["rent"]["committed"])


@given(scenarios())
@settings(max_examples=100, deadline=None)
def test_version_2_fields_at_their_defaults_reproduce_version_1_exactly(data):
    explicit = {
        **data,
        "build": {**data["build"], **V2_DEFAULTS["build"]},
        "rent": {**data["rent"], **V2_DEFAULTS["rent"]},
    }
    try:
        plain = compare(parse_scenario(data))
    except ArithmeticError:
        with pytest.raises(ArithmeticError):
            compare(parse_scenario(explicit))
        return
    assert compare(parse_scenario(explicit)) == plain
