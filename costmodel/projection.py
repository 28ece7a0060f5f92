"""Month-by-month projection of build and rent costs for a batch of scenarios.

One code path serves one scenario and many: inputs are packed into arrays of
shape ``(N,)`` and every series is an array of shape ``(N, M)`` with
``M = max(horizon_months) + 1`` (months ``0..H``). Months past a scenario's own
horizon hold zeros and are cut off when its result is read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from operator import itemgetter
from typing import Any

import numpy as np
import numpy.typing as npt

from costmodel.scenario import (
    HOURS_PER_MONTH,
    ProfileWorkload,
    Scenario,
    SteadyWorkload,
    TidalWorkload,
    Workload,
)

Array = npt.NDArray[np.float64]


class ProjectionOverflowError(ArithmeticError):
    """Raised when finite inputs are so large that a result is not a finite number."""

    def __init__(self, indices: list[int]) -> None:
        self.indices = indices
        super().__init__(f"results of scenarios {indices} overflow: inputs too large")


@dataclass(frozen=True, eq=False)
class ConstantSeries:
    """A monthly series equal to ``value`` in months ``1..H`` and 0 in month 0 and past ``H``.

    Fixed fees need no ``(N, M)`` array until someone reads them: a batch of
    10 000 scenarios only materialises the rows it reports.
    """

    value: Array
    horizon: npt.NDArray[np.int64]
    months: int

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.value), self.months)

    def __array__(self, dtype: Any = None, copy: Any = None) -> Array:
        m = np.arange(self.months)
        running = (m[None, :] >= 1) & (m[None, :] <= self.horizon[:, None])
        return np.where(running, self.value[:, None], 0.0).astype(dtype or np.float64)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], int | np.integer):
            i, cols = key
            row = np.full(self.months, self.value[i])
            row[0] = 0.0
            row[int(self.horizon[i]) + 1 :] = 0.0
            return row[cols]
        return np.asarray(self)[key]


# Inputs are read straight from each model's ``__dict__`` in one pass: for a
# batch of 10 000 this Python-level packing costs more than all the arithmetic.
_TOP_FIELDS = itemgetter("horizon_months", "discount_rate_per_year", "build", "rent", "workload")
_BUILD_FIELDS = itemgetter(
    "gpu_count",
    "gpu_throughput",
    "capex",
    "power_load_watts",
    "power_idle_watts",
    "pue",
    "electricity_price_per_kwh",
    "hosting_monthly",
    "maintenance_rate_per_year",
    "ops_monthly",
    "residual_value_retention_per_year",
)
_RENT_FIELDS = itemgetter(
    "gpu_count", "gpu_throughput", "hourly_rate", "fixed_monthly", "annual_price_change"
)


def _fits_float64(s: Scenario) -> bool:
    try:
        float(s.build.gpu_count)
        float(s.rent.gpu_count)
    except OverflowError:
        return False
    return True


@dataclass(frozen=True, eq=False)
class MonthlyTotal:
    """A monthly total: a varying component plus a fixed amount in months ``1..H``.

    Month 0 holds ``first`` (the capex for the build, 0 for rent); months past
    ``H`` hold 0. The batch turns its own copy of the totals into cumulative
    sums in place, so each row is formed again, by the same addition, when read.
    """

    variable: Array
    fixed: Array
    first: Array
    horizon: npt.NDArray[np.int64]

    @property
    def shape(self) -> tuple[int, int]:
        rows, months = self.variable.shape
        return (rows, months)

    def row(self, i: int) -> Array:
        values: Array = self.variable[i] + self.fixed[i]
        values[0] = self.first[i]
        values[int(self.horizon[i]) + 1 :] = 0.0
        return values

    def __array__(self, dtype: Any = None, copy: Any = None) -> Array:
        rows = np.array([self.row(i) for i in range(len(self.fixed))], dtype=dtype or np.float64)
        return rows

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], int | np.integer):
            return self.row(int(key[0]))[key[1]]
        return np.asarray(self)[key]


def _monthly_hours(w: Workload) -> float:
    """Busy hours of every month for steady and tidal work; −1 marks a profile."""
    kind = type(w)
    if kind is SteadyWorkload:
        return w.utilization * HOURS_PER_MONTH  # type: ignore[union-attr]
    if kind is TidalWorkload:
        return min(w.active_days_per_month * w.hours_per_active_day, HOURS_PER_MONTH)  # type: ignore[union-attr]
    return -1.0


def _pack(scenarios: Sequence[Scenario]) -> Array:
    """Every numeric input of every scenario, one row per scenario, in one pass."""
    return np.array(
        [
            (h, d, *_BUILD_FIELDS(vars(b)), *_RENT_FIELDS(vars(r)), _monthly_hours(w))
            for h, d, b, r, w in map(_TOP_FIELDS, map(vars, scenarios))
        ],
        dtype=np.float64,
    )


def busy_hours(scenarios: Sequence[Scenario], months: int, per_month: Array) -> Array:
    """Busy hours of each build in each month, month-major.

    Parameters
    ----------
    scenarios : sequence of Scenario
    months : int
        Number of months ``M``; row ``m`` is month ``m`` (month 0 is never busy).
    per_month : ndarray, shape (N,) [h]
        Busy hours of every month for steady and tidal work, negative for a profile.

    Returns
    -------
    busy : ndarray, shape (M, N) [h]

    Notes
    -----
    steady: ``busy = u × 730``; tidal: ``busy = min(d × h, 730)``;
    profile: ``busy[m] = u[(m − 1) mod len(u)] × 730`` for ``m ≥ 1``.
    """
    busy = np.empty((months, len(scenarios)))
    busy[:] = per_month
    profile = np.flatnonzero(per_month < 0)
    if profile.size:
        tables = [
            w.monthly_utilization
            for i in profile.tolist()
            if isinstance(w := scenarios[i].workload, ProfileWorkload)
        ]
        lengths = np.fromiter(map(len, tables), np.int64, count=len(tables))
        flat = np.fromiter(chain.from_iterable(tables), np.float64, count=int(lengths.sum()))
        starts = np.cumsum(lengths) - lengths
        cyclic = (np.arange(months)[:, None] - 1) % lengths[None, :]
        busy[:, profile] = HOURS_PER_MONTH * flat[starts[None, :] + cyclic]
    busy[0] = 0.0
    return busy


@dataclass(frozen=True, eq=False)
class Projection:
    """Results of :func:`project` for ``N`` scenarios, as arrays.

    Series have shape ``(N, M)`` and amounts are in each scenario's currency;
    scalar results have shape ``(N,)`` with ``NaN`` where the methodology says
    ``null``. :meth:`result` gives one scenario's methodology JSON.
    """

    scenarios: tuple[Scenario, ...]
    horizon: npt.NDArray[np.int64]
    busy: Array
    build_energy: Array
    build_hosting: ConstantSeries
    build_maintenance: ConstantSeries
    build_ops: ConstantSeries
    build_monthly: MonthlyTotal
    build_cumulative: Array
    rent_compute: Array
    rent_fixed: ConstantSeries
    rent_monthly: MonthlyTotal
    rent_cumulative: Array
    build_total: Array
    resale_value: Array
    build_total_net: Array
    build_present_value: Array
    rent_total: Array
    rent_present_value: Array
    savings: Array
    work_reference_gpu_hours: Array
    build_cost_per_reference_gpu_hour: Array
    rent_cost_per_reference_gpu_hour: Array
    break_even_month: Array
    break_even_utilization: Array

    def __len__(self) -> int:
        return len(self.scenarios)

    def result(self, i: int) -> dict[str, Any]:
        """The methodology's "Required JSON output" for scenario ``i`` (JSON-ready types)."""
        h = int(self.horizon[i])
        cut = slice(0, h + 1)

        def series(a: Array | ConstantSeries | MonthlyTotal) -> list[float]:
            return a[i, cut].tolist()  # type: ignore[no-any-return]

        def scalar(a: Array) -> float | None:
            value = float(a[i])
            return None if np.isnan(value) else value

        return {
            "scenario": self.scenarios[i].model_dump(mode="json"),
            "months": list(range(h + 1)),
            "build": {
                "monthly": series(self.build_monthly),
                "cumulative": series(self.build_cumulative),
                "energy": series(self.build_energy),
                "hosting": series(self.build_hosting),
                "maintenance": series(self.build_maintenance),
                "ops": series(self.build_ops),
                "total": scalar(self.build_total),
                "resale_value": scalar(self.resale_value),
                "total_net": scalar(self.build_total_net),
                "present_value": scalar(self.build_present_value),
                "cost_per_reference_gpu_hour": scalar(self.build_cost_per_reference_gpu_hour),
            },
            "rent": {
                "monthly": series(self.rent_monthly),
                "cumulative": series(self.rent_cumulative),
                "compute": series(self.rent_compute),
                "fixed": series(self.rent_fixed),
                "total": scalar(self.rent_total),
                "present_value": scalar(self.rent_present_value),
                "cost_per_reference_gpu_hour": scalar(self.rent_cost_per_reference_gpu_hour),
            },
            "break_even_month": scalar(self.break_even_month),
            "break_even_utilization": scalar(self.break_even_utilization),
            "savings": scalar(self.savings),
            "work_reference_gpu_hours": scalar(self.work_reference_gpu_hours),
        }

    def results(self) -> list[dict[str, Any]]:
        return [self.result(i) for i in range(len(self))]


_ROW_LOOP_MIN_SCENARIOS = 64


def _running_sum(monthly: Array, out: Array | None = None) -> Array:
    """Cumulative sum over months (axis 0), ``out[m] = out[m − 1] + monthly[m]``.

    ``np.cumsum`` along axis 0 walks each column with a large stride; for a wide
    batch adding whole month rows is several times faster. The additions happen
    in the same order either way, so the results are identical to the last bit.
    ``out`` may be ``monthly`` itself.
    """
    if monthly.shape[1] < _ROW_LOOP_MIN_SCENARIOS:
        return np.cumsum(monthly, axis=0, out=out)
    if out is None:
        out = np.empty_like(monthly)
    out[0] = monthly[0]
    for m in range(1, monthly.shape[0]):
        np.add(out[m - 1], monthly[m], out=out[m])
    return out


def break_even_month(
    build_cumulative: Array, rent_cumulative: Array, in_horizon: npt.NDArray[np.bool_] | None
) -> Array:
    """First month where cumulative build cost ≤ cumulative rent cost, interpolated.

    Parameters
    ----------
    build_cumulative, rent_cumulative : ndarray, shape (M, N)
        Cumulative costs per month (rows) and scenario (columns) [currency].
    in_horizon : ndarray of bool, broadcastable to (M, N), or None
        True for months ``0..H`` of each scenario; None when every scenario
        runs for all ``M − 1`` months.

    Returns
    -------
    month : ndarray, shape (N,) [months]; NaN when it does not pay back.

    Notes
    -----
    With ``diff = build_cum − rent_cum``: ``0`` if ``diff[0] ≤ 0``; else, for the
    first ``m`` with ``diff[m] ≤ 0``, ``(m − 1) + diff[m−1] / (diff[m−1] − diff[m])``.
    ``diff ≤ 0`` is tested as ``build_cum ≤ rent_cum`` (the same for IEEE doubles),
    and ``diff`` is formed only at the two months each scenario needs.
    """
    qualifies = build_cumulative <= rent_cumulative
    if in_horizon is not None:
        qualifies &= in_horizon
    first = np.argmax(qualifies, axis=0)
    cols = np.arange(qualifies.shape[1])
    found = qualifies[first, cols]
    previous = np.maximum(first - 1, 0)
    before = build_cumulative[previous, cols] - rent_cumulative[previous, cols]
    at = build_cumulative[first, cols] - rent_cumulative[first, cols]
    with np.errstate(divide="ignore", invalid="ignore"):
        inside = (first - 1) + before / (before - at)
    month = np.where(first == 0, 0.0, inside)
    return np.where(found, month, np.nan)


def project(scenarios: Sequence[Scenario]) -> Projection:
    """Project build and rent costs month by month for every scenario at once.

    Parameters
    ----------
    scenarios : sequence of Scenario
        ``N ≥ 1`` validated explicit scenarios (any mix of horizons and workloads).

    Returns
    -------
    Projection
        Series of shape ``(N, max(H) + 1)`` and per-scenario headline figures.

    Notes
    -----
    For months ``m = 1..H`` (month 0 holds only ``capex`` on the build side)::

        energy_kwh[m]   = (P_load × busy[m] + P_idle × (730 − busy[m])) / 1000 × pue
        build_monthly   = energy_kwh × price_kwh + hosting + capex × maint / 12 + ops
        capacity_ratio  = (n_b × t_b) / (n_r × t_r)
        rate[m]         = hourly_rate × (1 + annual_price_change) ^ ((m − 1) / 12)
        rent_monthly    = busy[m] × capacity_ratio × rate[m] + fixed_monthly

    resale = ``capex × r^(H/12)``; savings = ``rent_total − (build_total − resale)``;
    present values discount month ``m`` by ``(1 + d)^(−m/12)``; work =
    ``Σ busy × n_b × t_b`` [reference GPU-hours]. The break-even utilization
    solves ``savings(u) = 0`` for steady ``u``, savings being linear in ``u``.

    Raises
    ------
    ProjectionOverflowError
        If inputs are so large that a result overflows float64.

    Examples
    --------
    >>> p = project([scenario])  # doctest: +SKIP
    >>> p.result(0)["break_even_month"]  # doctest: +SKIP
    2.6717...
    """
    if len(scenarios) == 0:
        raise ValueError("project() needs at least one scenario")
    scenarios = tuple(scenarios)
    n = len(scenarios)
    try:
        packed = _pack(scenarios).T
    except OverflowError:
        # An integer (a GPU count) beyond float64: name the scenarios that hold one.
        raise ProjectionOverflowError(
            [i for i, s in enumerate(scenarios) if not _fits_float64(s)]
        ) from None
    (
        h,
        discount,
        b_count,
        b_tput,
        capex,
        p_load,
        p_idle,
        pue,
        kwh_price,
        hosting,
        maint_rate,
        ops,
        retention,
        r_count,
        r_tput,
        hourly,
        fixed,
        change,
        per_month,
    ) = packed
    horizon = h.astype(np.int64)
    cols = np.arange(n)

    # Internally month-major (M, N): cumulative sums and masks run along
    # contiguous rows. The Projection exposes scenario-major (N, M) views.
    m_count = int(horizon.max()) + 1
    months = np.arange(m_count, dtype=np.float64)[:, None]
    uniform_horizon = bool(horizon.min() == horizon.max())
    in_horizon = None if uniform_horizon else months <= h
    past_horizon = None if in_horizon is None else ~in_horizon

    busy = busy_hours(scenarios, m_count, per_month)
    if not uniform_horizon:
        busy[past_horizon] = 0.0

    with np.errstate(over="ignore", invalid="ignore"):
        # Energy cost is affine in busy hours: the idle draw all month plus the
        # load-over-idle draw while busy. Large (M, N) arrays are updated in
        # place: a batch is bound by memory traffic, not arithmetic.
        cost_per_kwh = pue / 1000.0 * kwh_price
        idle_cost = p_idle * HOURS_PER_MONTH * cost_per_kwh
        busy_cost_per_hour = (p_load - p_idle) * cost_per_kwh
        build_energy = np.multiply(busy, busy_cost_per_hour)
        build_energy += idle_cost
        build_energy[0] = 0.0
        maintenance = capex * maint_rate / 12.0
        fixed_build_monthly = hosting + maintenance + ops
        build_monthly = build_energy + fixed_build_monthly
        build_monthly[0] = capex
        if not uniform_horizon:
            build_energy[past_horizon] = 0.0
            build_monthly[past_horizon] = 0.0

        capacity_ratio = (b_count * b_tput) / (r_count * r_tput)
        rent_compute = np.multiply(busy, capacity_ratio * hourly)
        month_index = months[:, 0]
        if (change != 0.0).any():
            # rate[m] / hourly_rate = (1 + g)^((m − 1) / 12), as exp for speed.
            growth = np.multiply.outer((month_index - 1.0) / 12.0, np.log1p(change))
            np.exp(growth, out=growth)
            rent_compute *= growth
            growth[0] = 0.0
            if not uniform_horizon:
                growth[past_horizon] = 0.0
            rate_sum = hourly * growth.sum(axis=0)
        else:
            rate_sum = hourly * h
        rent_monthly = rent_compute + fixed
        rent_monthly[0] = 0.0
        if not uniform_horizon:
            rent_monthly[past_horizon] = 0.0

        resale = capex * retention ** (h / 12.0)

        # Present values: f[m] = (1 + d)^(−m/12); one column when d is shared.
        if (discount == discount[0]).all():
            factor_1d = (1.0 + discount[0]) ** (-month_index / 12.0)
            build_pv = factor_1d @ build_monthly - resale * factor_1d[horizon]
            rent_pv = factor_1d @ rent_monthly
        else:
            factor = np.multiply.outer(-month_index / 12.0, np.log1p(discount))
            np.exp(factor, out=factor)
            build_pv = np.einsum("mn,mn->n", build_monthly, factor) - resale * factor[horizon, cols]
            rent_pv = np.einsum("mn,mn->n", rent_monthly, factor)

        # The monthly totals are not kept: their buffers become the running sums.
        build_cumulative = _running_sum(build_monthly, out=build_monthly)
        rent_cumulative = _running_sum(rent_monthly, out=rent_monthly)
        build_total = build_cumulative[horizon, cols]
        rent_total = rent_cumulative[horizon, cols]
        build_total_net = build_total - resale
        savings = rent_total - build_total_net

        work = busy.sum(axis=0) * b_count * b_tput
        has_work = work > 0
        safe_work = np.where(has_work, work, 1.0)
        build_per_hour = np.where(has_work, build_total_net / safe_work, np.nan)
        rent_per_hour = np.where(has_work, rent_total / safe_work, np.nan)

        be_month = break_even_month(build_cumulative, rent_cumulative, in_horizon)

        # savings(u) = s0 + s1 × u for a steady workload u, all else unchanged.
        s0 = h * fixed - (capex + h * (fixed_build_monthly + idle_cost) - resale)
        s1 = HOURS_PER_MONTH * (capacity_ratio * rate_sum - h * busy_cost_per_hour)
        depends = s1 != 0
        u_star = np.where(depends, -s0 / np.where(depends, s1, 1.0), np.nan)
        be_util = np.where((u_star >= 0) & (u_star <= 1), u_star, np.nan)

    overflow = ~(
        np.isfinite(build_total)
        & np.isfinite(rent_total)
        & np.isfinite(savings)
        & np.isfinite(build_pv)
        & np.isfinite(rent_pv)
        & np.isfinite(work)
        & ~np.isinf(build_per_hour)
        & ~np.isinf(rent_per_hour)
        & ~np.isinf(be_month)
    )
    if overflow.any():
        raise ProjectionOverflowError(np.flatnonzero(overflow).tolist())

    return Projection(
        scenarios=scenarios,
        horizon=horizon,
        busy=busy.T,
        build_energy=build_energy.T,
        build_hosting=ConstantSeries(hosting, horizon, m_count),
        build_maintenance=ConstantSeries(maintenance, horizon, m_count),
        build_ops=ConstantSeries(ops, horizon, m_count),
        build_monthly=MonthlyTotal(build_energy.T, fixed_build_monthly, capex, horizon),
        build_cumulative=build_cumulative.T,
        rent_compute=rent_compute.T,
        rent_fixed=ConstantSeries(fixed, horizon, m_count),
        rent_monthly=MonthlyTotal(rent_compute.T, fixed, np.zeros(n), horizon),
        rent_cumulative=rent_cumulative.T,
        build_total=build_total,
        resale_value=resale,
        build_total_net=build_total_net,
        build_present_value=build_pv,
        rent_total=rent_total,
        rent_present_value=rent_pv,
        savings=savings,
        work_reference_gpu_hours=work,
        build_cost_per_reference_gpu_hour=build_per_hour,
        rent_cost_per_reference_gpu_hour=rent_per_hour,
        break_even_month=be_month,
        break_even_utilization=be_util,
    )


def compare(scenario: Scenario) -> dict[str, Any]:
    """Evaluate one scenario and return the methodology's result JSON (a dict)."""
    return project([scenario]).result(0)
