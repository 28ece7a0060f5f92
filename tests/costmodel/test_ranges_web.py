"""Small pure functions of costmodel.ranges the planner's pages call (the web helper's)."""

import json
from pathlib import Path

import pytest

from costmodel.ranges import Range, with_spread

EXAMPLE = Path(__file__).resolve().parent / "examples" / "steady-4090-vs-a100.json"


def test_a_range_whose_low_equals_its_high_is_set_apart_in_order():
    ranges = [
        Range("workload.utilization", 0.4, 0.8, 1.0),
        Range("build.electricity_price_per_kwh", 0.0, 0.0, 0.0),
        Range("rent.hourly_rate", 2.0, 2.0, 2.0 * (1 + 1e-15)),  # equal within rounding
        Range("build.capex", 850.0, 1000.0, 1150.0),
    ]
    kept, fixed = with_spread(ranges)
    assert [r.path for r in kept] == ["workload.utilization", "build.capex"]
    assert [r.path for r in fixed] == ["build.electricity_price_per_kwh", "rent.hourly_rate"]


def test_nothing_is_set_apart_when_every_range_has_a_spread():
    ranges = [Range("a", 0.0, 0.0, 1e-6)]
    assert with_spread(ranges) == (ranges, [])


def test_measured_ranges_widen_linearly_with_the_share_of_filled_months():
    from costmodel.ranges import measured_utilization_factors

    assert measured_utilization_factors(0.0) == (0.5, 1.25)  # all measured: the usual range
    assert measured_utilization_factors(1.0) == (0.0, 2.0)  # all filled: none to twice
    low, high = measured_utilization_factors(11 / 12)
    assert low == pytest.approx(0.5 / 12) and high == pytest.approx(1.25 + 0.75 * 11 / 12)
    assert measured_utilization_factors(-1) == (0.5, 1.25)  # clipped to 0..1
    widths = [h - lo for lo, h in map(measured_utilization_factors, (0, 0.25, 0.5, 1))]
    assert widths == sorted(widths)


def test_each_month_of_a_measured_profile_gets_its_range_around_its_own_figure():
    from costmodel import parse_scenario
    from costmodel.ranges import measured_ranges

    data = json.loads(EXAMPLE.read_text())
    data["workload"] = {"kind": "profile", "monthly_utilization": [0.4] * 11 + [7.9]}
    scenario = parse_scenario(data)
    ranges = measured_ranges(scenario, 0.5)
    assert [r.path for r in ranges] == [f"workload.monthly_utilization.{i}" for i in range(12)]
    assert ranges[0] == Range("workload.monthly_utilization.0", 0.4 * 0.25, 0.4, 0.4 * 1.625)
    assert ranges[11].high == 8.0  # at most eight boxes' work
    data["workload"] = {"kind": "steady", "utilization": 0.5}
    assert measured_ranges(parse_scenario(data), 0.5) == []
