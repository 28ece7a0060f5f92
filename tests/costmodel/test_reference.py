"""The engine reproduces the methodology to a relative error of 1e-9.

``reference.py`` re-implements the methodology (docs/methodology.md) with plain scalar
loops; on random valid scenarios of every workload kind and horizon the engine must agree with it
figure by figure.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import reference
from closeness import assert_break_even_month_close, assert_money_close, money_scale
from hypothesis import given, settings
from strategies import scenarios

from costmodel import compare, parse_scenario
from costmodel.projection import ProjectionOverflowError

RTOL = 1e-9
EXAMPLES = Path(__file__).resolve().parent / "examples"
SERIES = {
    "build": ["monthly", "cumulative", "energy", "hosting", "maintenance", "ops"],
    "rent": ["monthly", "cumulative", "compute", "fixed"],
}


def headline_numbers(result: dict) -> list[float]:
    sections = [result, result["build"], result["rent"]]
    return [v for s in sections for v in s.values() if isinstance(v, float)]


def assert_matches_reference(data: dict) -> None:
    scenario = parse_scenario(data)
    expected = reference.compare(scenario.model_dump())
    try:
        result = compare(scenario)
    except ProjectionOverflowError:
        # Only where the methodology's own arithmetic leaves float64.
        assert not all(math.isfinite(v) for v in headline_numbers(expected))
        return
    scale = money_scale(result)

    assert result["months"] == expected["months"]
    for side, names in SERIES.items():
        for name in names:
            # Every monthly component is a sum of non-negative terms: plain relative error,
            # down to where float64 itself loses relative precision (subnormal products
            # of tiny inputs, below 1e-300 of a currency unit).
            np.testing.assert_allclose(
                result[side][name], expected[side][name], rtol=RTOL, atol=1e-300, err_msg=name
            )
    for side, name in [
        ("build", "total"),
        ("build", "resale_value"),
        ("build", "total_net"),
        ("build", "present_value"),
        ("rent", "total"),
        ("rent", "present_value"),
    ]:
        assert_money_close(result[side][name], expected[side][name], scale, RTOL)
    assert_money_close(result["savings"], expected["savings"], scale, RTOL)

    work = expected["work_reference_gpu_hours"]
    assert result["work_reference_gpu_hours"] == pytest.approx(work, rel=RTOL, abs=0)
    for side in ("build", "rent"):
        per_hour = result[side]["cost_per_reference_gpu_hour"]
        if work == 0:
            assert per_hour is None
        else:
            assert_money_close(
                per_hour, expected[side]["cost_per_reference_gpu_hour"], scale / work, RTOL
            )

    assert_break_even_month_close(
        result["break_even_month"], expected["break_even_month"], expected["diff"], scale, RTOL
    )
    assert_break_even_utilization_close(result["break_even_utilization"], scenario.model_dump())


def assert_break_even_utilization_close(actual: float | None, data: dict) -> None:
    expected, s0, s1 = reference.break_even_utilization(data)
    scale = max(
        money_scale(reference.compare({**data, "workload": {"kind": "steady", "utilization": u}}))
        for u in (0.0, 1.0)
    )
    slope = s1 - s0
    # An error of RTOL × scale in either end of the savings line moves its root by
    # about RTOL × scale / |slope|; near the ends of [0, 1] either answer can be right.
    allowed = RTOL + RTOL * scale / abs(slope) if slope else np.inf
    if actual is None or expected is None:
        root = -s0 / slope if slope else None
        borderline = (
            root is None
            or abs(root) <= allowed
            or abs(root - 1) <= allowed
            or abs(slope) <= RTOL * scale
        )
        assert actual == expected or borderline, (actual, expected, root)
        return
    assert abs(actual - expected) <= allowed, (actual, expected, allowed)


@given(scenarios())
@settings(max_examples=200, deadline=None)
def test_engine_agrees_with_the_reference_implementation_to_1e_9(data):
    assert_matches_reference(data)


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.json")), ids=lambda p: p.stem)
def test_engine_agrees_with_the_reference_on_the_worked_examples(path):
    assert_matches_reference(json.loads(path.read_text()))
