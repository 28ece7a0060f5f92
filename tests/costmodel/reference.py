"""The independent reference implementation of the methodology, for the engine's tests.

It lives in ``benchmarks/reference.py`` (the benchmarks time the engine
against the same loop); this module re-exports it for the tests and adds the
savings line of a version-1 scenario that the break-even utilization test reads.
"""

from __future__ import annotations

from typing import Any

from benchmarks.reference import (
    break_even_utilization as break_even_utilization_v2,
)
from benchmarks.reference import (
    compare,
    demand_hours,
    savings_at_steady_utilization,
)

__all__ = [
    "break_even_utilization",
    "break_even_utilization_v2",
    "compare",
    "demand_hours",
    "savings_at_steady_utilization",
]


def break_even_utilization(s: dict[str, Any]) -> tuple[float | None, float, float]:
    """``(u or None, s(0), s(1))``: the root and the ends of a version-1 savings line."""
    return (
        break_even_utilization_v2(s),
        savings_at_steady_utilization(s, 0.0),
        savings_at_steady_utilization(s, 1.0),
    )
