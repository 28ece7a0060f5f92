"""Tolerances for comparing money figures that are differences of large sums.

A figure like ``savings = rent_total − build_total_net`` can be near zero while
its terms are large; its error is then relative to the terms, not to itself. So
differences are compared with ``atol = rtol × scale``, ``scale`` being the
largest amount the scenario involves.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def money_scale(result: dict[str, Any]) -> float:
    """Largest absolute amount in a result [currency] (at least 1)."""
    build, rent = result["build"], result["rent"]
    values = [
        *np.abs(build["cumulative"]),
        *np.abs(rent["cumulative"]),
        abs(build["resale_value"]),
        abs(build["present_value"]),
        abs(rent["present_value"]),
        1.0,
    ]
    return float(max(values))


def assert_money_close(actual: float, expected: float, scale: float, rtol: float) -> None:
    assert abs(actual - expected) <= rtol * (abs(expected) + scale), (actual, expected, scale)


def assert_break_even_month_close(
    actual: float | None, expected: float | None, diff: list[float], scale: float, rtol: float
) -> None:
    """Compare break-even months, allowing for cumulative differences that are ties within rounding.

    ``diff`` is the expected ``build_cum − rent_cum``. The break-even month is a
    continuous function of ``diff`` except where ``diff`` touches 0 without
    crossing (a tie within rounding error); there either answer is right.
    """
    tie = rtol * scale
    touches_zero = any(abs(d) <= tie for d in diff)
    if actual is None or expected is None:
        assert actual == expected or touches_zero, (actual, expected)
        return
    if expected == 0.0 or actual == 0.0:
        assert actual == expected or abs(diff[0]) <= tie, (actual, expected)
        return
    m = int(np.ceil(expected))
    slope = abs(diff[m - 1] - diff[m]) if 1 <= m < len(diff) else 0.0
    # An error of `tie` in diff moves the interpolated crossing by tie / slope months.
    allowed = rtol * max(1.0, expected) + (tie / slope if slope > 0 else np.inf)
    assert abs(actual - expected) <= allowed or touches_zero, (actual, expected, allowed)
