"""The cost lines' shared formulas (costmodel.line_costs): growth over time, the box in service."""

import numpy as np
import pytest

from costmodel.line_costs import box_number, power

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


MONTHS = np.arange(61)


@pytest.mark.parametrize(
    ("lives", "horizons"),
    [
        ([24] * 5, [60] * 5),  # a Monte Carlo's draws: one row divided, shared
        ([24, 12, 24, 60, 7], [60] * 5),  # lives differ
        ([24] * 5, [60, 36, 60, 12, 60]),  # the months a box is sold at differ
    ],
)
def test_the_box_number_is_each_months_index_divided_by_the_life(lives, horizons):
    life = np.array(lives)[:, None]
    sold_at = np.minimum(MONTHS, np.array(horizons)[:, None] - 1)
    for months in (MONTHS - 1, sold_at):  # in service in month m; sold at the end of month m
        expected = np.array(
            [[index // lives[i] for index in np.broadcast_to(months, (5, 61))[i]] for i in range(5)]
        )
        np.testing.assert_array_equal(box_number(months, life), expected)


def test_a_shared_box_number_row_is_read_only():
    shared = box_number(MONTHS - 1, np.full((3, 1), 12))
    assert shared.shape == (3, 61)
    with pytest.raises(ValueError):
        shared[0, 0] = 5
