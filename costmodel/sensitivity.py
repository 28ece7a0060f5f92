"""Sensitivity sweeps for the planner's charts: how savings move with the workload.

Each sweep derives a family of variants from one explicit scenario, changing
only the workload (and, for the grid, the horizon), as columns built by
broadcasting (no scenario object per point), and evaluates the whole family
as one projection. Results are plain JSON-ready dicts of lists; ``None``
stands for the methodology's ``null`` (e.g. a break-even month that does not
occur within the horizon).

Examples
--------
>>> sweep = utilization_sweep(scenario)  # doctest: +SKIP
>>> sweep["utilization"][40], sweep["savings"][40]  # doctest: +SKIP
(0.8, 291556.4...)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from costmodel.columns import Columns, columns_from, steady_demand, tidal_demand, variants
from costmodel.projection import Projection, project_columns, refuse_endless_jobs
from costmodel.scenario import (
    HOURS_PER_MONTH,
    MAX_HORIZON_MONTHS,
    Scenario,
    TidalWorkload,
)

Array = npt.NDArray[np.float64]

UTILIZATION_STEPS = 51
"""Points of the utilization sweep: 0 %, 2 %, …, 100 % (savings are linear in it)."""

SweepMeasure = Literal["savings", "present_value_savings"]
"""What a utilization sweep measures: cash savings (resale credited; the default, the
figures of every version so far) or present-value savings at the scenario's
``discount_rate_per_year``, the measure the verdict is decided on (methodology version 4).
With the latter the sweep also carries the utilization at which that measure is zero:
the decision's break-even utilization."""

TIDAL_DAYS = tuple(range(1, 32))
"""Active days per month of the tidal sweep [d]."""

GRID_UTILIZATION_STEPS = 11
"""Rows of the utilization × horizon grid: 0 %, 10 %, …, 100 %."""


def _nullable(values: Array) -> list[float | None]:
    return [None if np.isnan(v) else float(v) for v in values.tolist()]


def _steady(columns: Columns, utilization: npt.ArrayLike) -> Columns:
    """``columns`` with each row's workload replaced by steady work at ``utilization``."""
    demand = steady_demand(utilization, columns.horizon_months, columns.months)
    return columns.with_demand(demand)


def _copies(scenario: Scenario, count: int, **values: npt.ArrayLike) -> Columns:
    return variants(scenario, count, values)


def average_utilization(scenario: Scenario, work_reference_gpu_hours: float) -> float:
    """Mean fraction of the horizon's hours the build is busy, from the engine's work figure.

    Notes
    -----
    ``u_avg = work / (gpu_count × gpu_throughput × 730 × H)``, where ``work`` is
    the result's ``work_reference_gpu_hours`` [reference GPU-h]. For a steady
    workload this is its utilization; for tidal and profile workloads it is the
    steady utilization with the same total busy hours.
    """
    capacity = scenario.build.gpu_count * scenario.build.gpu_throughput
    return float(work_reference_gpu_hours / (capacity * HOURS_PER_MONTH * scenario.horizon_months))


def utilization_sweep(
    scenario: Scenario, steps: int = UTILIZATION_STEPS, measure: SweepMeasure = "savings"
) -> dict[str, Any]:
    """Savings and break-even month across steady utilization ``0..1``, all else unchanged.

    Parameters
    ----------
    scenario : Scenario
        Any explicit scenario; its workload is replaced by a steady one.
    steps : int
        Number of evenly spaced utilization points, both ends included.
    measure : {"savings", "present_value_savings"}
        What ``savings`` are (:data:`SweepMeasure`); default cash.

    Returns
    -------
    dict
        ``utilization`` [fraction], ``savings`` [currency] and
        ``break_even_month`` [months, ``None`` = does not pay back, always cash], each a
        list of ``steps`` values; with ``present_value_savings`` also ``measure`` and
        ``break_even_utilization`` [fraction or ``None``], where present-value savings are
        zero (solved exactly, as the result's cash one is).
    """
    utilization = _sweep_points(steps)
    columns = _steady(_copies(scenario, steps), utilization)
    projection = project_columns(
        columns,
        with_break_even_utilization=False,
        with_present_value_break_even=measure != "savings",
    )
    sweep = _sweep(utilization, projection.savings, projection.break_even_month)
    return in_measure(sweep, projection, slice(None), 0, measure)


def _sweep_points(steps: int) -> Array:
    """``steps`` evenly spaced steady utilizations from 0 to 1, both included [fraction]."""
    if steps < 2:
        raise ValueError("steps must be at least 2")
    return np.linspace(0.0, 1.0, steps)


def _sweep(utilization: Array, savings: Array, break_even_month: Array) -> dict[str, Any]:
    """The JSON of a utilization sweep (see :func:`utilization_sweep`)."""
    return {
        "utilization": utilization.tolist(),
        "savings": savings.tolist(),
        "break_even_month": _nullable(break_even_month),
    }


def in_measure(
    sweep: dict[str, Any], projection: Projection, rows: slice, row: int, measure: SweepMeasure
) -> dict[str, Any]:
    """``sweep`` (cash) as is, or with ``savings`` of ``rows`` in present value, ``measure``
    and the present-value ``break_even_utilization`` of ``row`` (None: none in 0..1)."""
    if measure == "savings":
        return sweep
    threshold = projection.present_value_break_even_utilization
    assert threshold is not None
    return {
        **sweep,
        "savings": projection.present_value_savings[rows].tolist(),
        "measure": measure,
        "break_even_utilization": _nullable(threshold[row : row + 1])[0],
    }


def summary_and_sweep(
    scenario: Scenario, steps: int, measure: SweepMeasure = "savings"
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A scenario's headline figures and its :func:`utilization_sweep`, from one projection.

    Parameters
    ----------
    scenario : Scenario
        Any explicit scenario.
    steps : int
        Points of the sweep, as for :func:`utilization_sweep`.
    measure : {"savings", "present_value_savings"}
        The sweep's measure, as for :func:`utilization_sweep`.

    Returns
    -------
    tuple of dict
        :meth:`~costmodel.projection.Projection.summary` of the scenario (the
        shape of :class:`costmodel.results.Summary`) and its utilization sweep.

    Notes
    -----
    Row 0 of the projection is the scenario, rows ``1..steps`` are its copies
    at steady utilization ``0..1``: the same rows, and so the same figures, as
    :func:`costmodel.compare` and :func:`utilization_sweep` give, for what the
    results page shows (and :func:`costmodel.decision.decide` reads) at the
    cost of one small projection instead of two.
    """
    projection, sweep = _with_sweep(scenario, steps, measure)
    return projection.summary(0), sweep


def result_and_sweep(
    scenario: Scenario, steps: int, measure: SweepMeasure = "savings"
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A scenario's whole result (:func:`costmodel.compare`'s: monthly series and headline
    figures) and its :func:`utilization_sweep`, from the one projection of
    :func:`summary_and_sweep`: for a page that shows the months too (the results page's
    books), so that the scenario is projected once.

    Raises
    ------
    ProjectionOverflowError
        As :func:`costmodel.compare` does: a figure, or a job's time of one run, is not a
        finite number.
    """
    projection, sweep = _with_sweep(scenario, steps, measure)
    refuse_endless_jobs([scenario])
    return projection.result_of(0, scenario), sweep


def _with_sweep(
    scenario: Scenario, steps: int, measure: SweepMeasure = "savings"
) -> tuple[Projection, dict[str, Any]]:
    """The projection of the scenario (row 0) and of its copies at steady utilization
    ``0..1`` (rows ``1..steps``), and the sweep they make."""
    utilization = _sweep_points(steps)
    rows = columns_from([scenario] * (steps + 1))
    swept = steady_demand(utilization, rows.horizon_months[1:], rows.months)
    offload = None
    if rows.offload_work is not None:  # the scenario's rented jobs; steady work has none
        offload = np.zeros(rows.demand.shape)
        offload[0] = rows.offload_work[0]
    projection = project_columns(
        rows.with_demand(np.vstack([rows.demand[:1], swept]), offload),
        with_present_value_break_even=measure != "savings",
    )
    sweep = _sweep(utilization, projection.savings[1:], projection.break_even_month[1:])
    return projection, in_measure(sweep, projection, slice(1, None), 0, measure)


def steady_savings(
    scenarios: Sequence[Scenario],
    utilizations: Sequence[float],
    measure: SweepMeasure = "savings",
) -> list[dict[str, Any]]:
    """Savings of each of many scenarios at a few steady utilizations, in one batch.

    Parameters
    ----------
    scenarios : sequence of Scenario
        Any explicit scenarios (different horizons and currencies are fine).
    utilizations : sequence of float
        Steady utilizations [fraction] that replace every scenario's workload.
    measure : {"savings", "present_value_savings"}
        As for :func:`utilization_sweep` (with the latter, each dict also has ``measure``
        and ``break_even_utilization``: the break-even utilization does not depend on the
        workload, so a steady copy's is the scenario's).

    Returns
    -------
    list of dict
        Per scenario, in order: ``utilization`` and ``savings`` [its currency], the
        shape of :func:`utilization_sweep` (what :func:`costmodel.decision.decide` reads).

    Notes
    -----
    One projection of ``len(scenarios) × len(utilizations)`` rows: block ``j`` holds
    every scenario at ``utilizations[j]``.
    """
    u = np.asarray(utilizations, dtype=np.float64)
    columns = columns_from(scenarios)
    n = len(columns)
    swept = _steady(columns.repeat(len(u)), np.repeat(u, n))
    present = measure != "savings"
    projection = project_columns(
        swept, with_break_even_utilization=False, with_present_value_break_even=present
    )
    if not present:
        savings = projection.savings.reshape(len(u), n)
        return [{"utilization": u.tolist(), "savings": savings[:, i].tolist()} for i in range(n)]
    savings = projection.present_value_savings.reshape(len(u), n)
    threshold = projection.present_value_break_even_utilization
    assert threshold is not None
    thresholds = _nullable(threshold[:n])  # block 0: every scenario, steady
    return [
        {
            "utilization": u.tolist(),
            "savings": savings[:, i].tolist(),
            "measure": measure,
            "break_even_utilization": thresholds[i],
        }
        for i in range(n)
    ]


def tidal_sweep(
    scenario: Scenario,
    days: Sequence[int] = TIDAL_DAYS,
    hours_per_active_day: float | None = None,
) -> dict[str, Any]:
    """Savings for a tidal workload of ``d`` active days a month, beside steady use of equal hours.

    Parameters
    ----------
    scenario : Scenario
        Any explicit scenario; its workload is replaced.
    days : sequence of int
        Active days per month to evaluate [d], each in ``0..31``.
    hours_per_active_day : float, optional
        Busy hours of an active day [h]; defaults to the scenario's own if it
        is tidal, else 24.

    Returns
    -------
    dict
        ``active_days``, ``hours_per_active_day``, ``monthly_hours`` [h],
        ``tidal_savings`` and ``steady_savings`` [currency]: the steady curve
        uses ``u = min(d × h, 730) / 730``, the same busy hours every month.

    Notes
    -----
    Both families go into one batch: ``2 × len(days)`` scenarios.
    """
    if hours_per_active_day is None:
        w = scenario.workload
        hours_per_active_day = w.hours_per_active_day if isinstance(w, TidalWorkload) else 24.0
    h = float(hours_per_active_day)
    n = len(days)
    day_values = np.asarray(days, dtype=np.float64)
    monthly_hours = np.minimum(day_values * h, HOURS_PER_MONTH)
    both = _copies(scenario, 2 * n)
    tidal = tidal_demand(day_values, np.full(n, h), both.horizon_months[:n], both.months)
    steady = steady_demand(monthly_hours / HOURS_PER_MONTH, both.horizon_months[n:], both.months)
    columns = both.with_demand(np.concatenate([tidal, steady]))
    savings = project_columns(columns, with_break_even_utilization=False).savings
    return {
        "active_days": [int(d) for d in days],
        "hours_per_active_day": h,
        "monthly_hours": monthly_hours.tolist(),
        "tidal_savings": savings[:n].tolist(),
        "steady_savings": savings[n:].tolist(),
    }


def default_horizons(scenario: Scenario) -> list[int]:
    """Horizons for the grid [months]: every 6 months up to ``max(36, H)``, plus ``H`` itself."""
    top = min(max(36, scenario.horizon_months), MAX_HORIZON_MONTHS)
    step = 6 if top <= 72 else 12
    horizons = set(range(step, top + 1, step)) | {scenario.horizon_months}
    return sorted(horizons)


def utilization_horizon_grid(
    scenario: Scenario,
    utilizations: Sequence[float] | None = None,
    horizons: Sequence[int] | None = None,
) -> dict[str, Any]:
    """Savings over a grid of steady utilization × horizon, all else unchanged.

    Parameters
    ----------
    scenario : Scenario
    utilizations : sequence of float, optional
        Steady utilizations [fraction]; default 0, 0.1, …, 1.
    horizons : sequence of int, optional
        Horizons [months]; default :func:`default_horizons`.

    Returns
    -------
    dict
        ``utilization`` (rows), ``horizon_months`` (columns) and ``savings``
        [currency], a list of rows: ``savings[i][j]`` is for
        ``utilization[i]`` over ``horizon_months[j]``.
    """
    u = (
        np.linspace(0.0, 1.0, GRID_UTILIZATION_STEPS)
        if utilizations is None
        else np.asarray(utilizations, dtype=np.float64)
    )
    hs = default_horizons(scenario) if horizons is None else [int(h) for h in horizons]
    grid_u, grid_h = np.meshgrid(u, hs, indexing="ij")  # row i: utilization i, every horizon
    columns = _copies(scenario, grid_u.size, horizon_months=grid_h.ravel())
    columns = _steady(columns, grid_u.ravel())
    projection = project_columns(columns, with_break_even_utilization=False)
    savings = projection.savings.reshape(len(u), len(hs))
    return {
        "utilization": u.tolist(),
        "horizon_months": hs,
        "savings": savings.tolist(),
    }
