"""Small pure functions of costmodel.ranges the planner's pages call (the web helper's)."""

from costmodel.ranges import Range, with_spread


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
