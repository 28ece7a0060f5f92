"""The monthly projection as a flat table: one row per month, every component a column.

The engine's result JSON (:func:`costmodel.compare`) holds one array per series;
spreadsheets and CSV files want rows. :func:`monthly_table` is the single place
that lays the series side by side, so ``manage.py compare --format csv`` and the
planner's CSV export show the same columns in the same order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from costmodel.results import BUILD_SERIES, RENT_SERIES

_TOTALS = ("monthly", "cumulative")


def _side_columns(
    side: str, series: tuple[str, ...], after_totals: tuple[str, ...] = ()
) -> list[str]:
    """A side's cost components, then its monthly and cumulative totals, then the rest."""
    components = [name for name in series if name not in (*_TOTALS, *after_totals)]
    return [f"{side}_{name}" for name in (*components, *_TOTALS, *after_totals)]


SERIES: tuple[str, ...] = (
    *_side_columns("build", BUILD_SERIES, after_totals=("value_if_sold",)),
    *_side_columns("rent", RENT_SERIES),
)
"""The result's monthly series as columns: ``build_energy`` is ``result["build"]["energy"]``."""

MONTHLY_COLUMNS: tuple[str, ...] = ("month", *SERIES, "cumulative_difference")
"""Column names of :func:`monthly_table`, in order.

``cumulative_difference`` is ``build_cumulative − rent_cumulative`` [currency]:
positive while building has cost more cash so far, ≤ 0 from break-even on.
"""

_SERIES: tuple[tuple[str, ...], ...] = tuple(tuple(name.split("_", 1)) for name in SERIES)
"""``("build", "energy")`` for ``build_energy``: where each series sits in a result."""


def monthly_table(result: Mapping[str, Any]) -> tuple[list[str], list[list[float | int]]]:
    """Lay out a result's monthly series as a header and one row per month ``0..H``.

    Parameters
    ----------
    result : mapping
        One scenario's result JSON, as returned by :func:`costmodel.compare` or
        :meth:`costmodel.Projection.result`.

    Returns
    -------
    header : list of str
        :data:`MONTHLY_COLUMNS`.
    rows : list of list
        ``H + 1`` rows; row ``m`` is ``[m, build_energy[m], …, rent_cumulative[m],
        build_cumulative[m] − rent_cumulative[m]]``. Amounts [currency] are the
        engine's raw floats, unrounded: rounding is the presenter's job.

    Raises
    ------
    ValueError
        If a series does not have one entry per month.

    Examples
    --------
    >>> header, rows = monthly_table(compare(scenario))  # doctest: +SKIP
    >>> header[:3], rows[0][:2]  # doctest: +SKIP
    (['month', 'build_energy', 'build_hosting'], [0, 0.0])
    """
    months = [int(m) for m in result["months"]]
    columns = [result[side][name] for side, name in _SERIES]
    for (side, name), values in zip(_SERIES, columns, strict=True):
        if len(values) != len(months):
            raise ValueError(f"{side}.{name} has {len(values)} entries for {len(months)} months")
    build_cumulative = result["build"]["cumulative"]
    rent_cumulative = result["rent"]["cumulative"]
    rows: list[list[float | int]] = [
        [
            month,
            *(float(values[i]) for values in columns),
            float(build_cumulative[i]) - float(rent_cumulative[i]),
        ]
        for i, month in enumerate(months)
    ]
    return list(MONTHLY_COLUMNS), rows
