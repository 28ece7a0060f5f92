"""The cost lines' shared formulas (costmodel.line_costs): growth over time."""

import numpy as np
import pytest

from costmodel.line_costs import power

YEARS = (np.arange(61) - 1) / 12.0


def one_by_one(bases, exponents) -> np.ndarray:
    """Each scenario's row computed alone, as numpy computes ``base ** exponent``."""
    return np.stack([np.array([b])[:, None] ** exponents for b in bases])[:, 0]


@pytest.mark.parametrize(
    "bases",
    [
        [1.04] * 7,  # one rate for every row: the row is computed once and shared
        [1.04, 0.97, 1.04, 1.0, 0.0, 1.2, 1.04],  # rates drawn per row
        [0.0] * 3,  # a box that keeps no value: 0^0 = 1 at month 0 only
        [1.04],
    ],
)
def test_each_row_is_its_base_to_each_power(bases):
    exponents = YEARS if min(bases) > 0 else np.abs(YEARS)
    np.testing.assert_array_equal(power(np.array(bases), exponents), one_by_one(bases, exponents))


def test_one_exponent_per_scenario_and_month_is_taken_as_given():
    bases = np.array([1.05, 1.05])
    exponents = np.stack([YEARS, 2 * YEARS])  # shape (N, M): not one row for all
    expected = np.stack([np.array([1.05]) ** row for row in exponents])
    np.testing.assert_array_equal(power(bases, exponents), expected)


def test_a_shared_row_is_read_only_so_no_caller_can_change_the_others():
    shared = power(np.full(4, 1.03), YEARS)
    assert shared.shape == (4, len(YEARS))
    with pytest.raises(ValueError):
        shared[1, 2] = 0.0
