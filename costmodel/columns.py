"""N scenarios as columns: every input an array of shape (N,), the workload an (N, M) matrix.

The projection (:mod:`costmodel.projection`) computes on these arrays, one
row per scenario, so a batch of scenarios is one array computation. A
validated :class:`~costmodel.scenario.Scenario` becomes columns in
:func:`columns_from`; the operations (:mod:`costmodel.operations`,
:mod:`costmodel.sensitivity`) build their columns by broadcasting one
scenario's columns (:meth:`Columns.repeat`, :meth:`Columns.with_values`),
never by creating a scenario object per draw.

Column names are the scenario's field names, so ``rent.hourly_rate`` in a
scenario is ``columns.rent.hourly_rate`` here; the inputs of the fixed monthly
fees (:data:`costmodel.lines.LINES` with a ``fee``) are read generically from
the cost lines, by dotted path: ``columns.fees["build.hosting_monthly"]``.
Two optional fields take a number meaning "not given":
``build.useful_life_months`` is 0 when the box is never replaced within the
horizon, and ``build.financing.term_months`` is 0
when the box is paid in cash (its ``down_payment_fraction`` is then 1: the
whole capex at month 0).
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from costmodel.lines import LINES
from costmodel.scenario import (
    HOURS_PER_MONTH,
    JobsWorkload,
    ProfileWorkload,
    Scenario,
    SteadyWorkload,
    TidalWorkload,
    memory_of,
    placed_work,
)

AnyWorkload = SteadyWorkload | TidalWorkload | ProfileWorkload | JobsWorkload

Array = npt.NDArray[np.float64]


class ProjectionOverflowError(ArithmeticError):
    """Raised when finite inputs are so large that a result is not a finite number."""

    def __init__(self, indices: list[int]) -> None:
        self.indices = indices
        super().__init__(f"results of scenarios {indices} overflow: inputs too large")


@dataclass(frozen=True)
class FinancingColumns:
    down_payment_fraction: Array
    """Share of the capex paid at month 0 [fraction]; 1 when paid in cash."""
    annual_interest_rate: Array
    """Loan interest per year [fraction]."""
    term_months: Array
    """Months of level payments [months]; 0 when paid in cash."""


@dataclass(frozen=True)
class BuildColumns:
    gpu_count: Array
    """GPUs in the box [GPUs]."""
    gpu_throughput: Array
    """Throughput of one GPU, reference GPU = 1 [-]."""
    capex: Array
    """Purchase price of the box [currency]."""
    power_load_watts: Array
    """Wall draw of the whole box while busy [W]."""
    power_idle_watts: Array
    """Wall draw of the whole box while idle [W]."""
    pue: Array
    """Facility overhead multiplier on energy [-]."""
    electricity_price_per_kwh: Array
    """Tariff [currency/kWh]."""
    maintenance_rate_per_year: Array
    """Spares and repairs as a share of the capex [fraction/year]."""
    residual_value_retention_per_year: Array
    """Share of its value the box keeps each year [fraction/year]."""
    useful_life_months: Array
    """Months between replacements [months]; 0 when never replaced within the horizon."""
    capex_annual_price_change: Array
    """Yearly change of the price of a replacement box [fraction/year]."""
    running_cost_annual_change: Array
    """Yearly change of energy and the escalating fees (hosting, administration …)
    [fraction/year]."""
    financing: FinancingColumns


@dataclass(frozen=True)
class RentColumns:
    gpu_count: Array
    """GPUs per instance [GPUs]."""
    gpu_throughput: Array
    """Throughput of one GPU, reference GPU = 1 [-]."""
    hourly_rate: Array
    """On-demand price of one instance-hour [currency/h]."""
    annual_price_change: Array
    """Yearly change of the hourly rates [fraction/year]."""
    rework_fraction: Array
    """Extra instance-hours lost to interruptions [fraction]."""
    committed_instances: Array
    """Instances reserved for every hour of every term [instances]."""
    committed_hourly_rate: Array
    """Price of a committed instance-hour [currency/h]."""
    commitment_term_months: Array
    """Length of one commitment term T [months]."""
    commitment_upfront_per_instance: Array
    """Paid for each instance when a term starts [currency/instance]."""


@dataclass(frozen=True)
class Columns:
    """The inputs of N scenarios (rows), as the projection reads them."""

    horizon_months: npt.NDArray[np.int64]
    """H of each scenario [months], shape (N,)."""
    discount_rate_per_year: Array
    """For present values only [fraction/year]."""
    demand: Array
    """Box-hours of work wanted in month m [h], shape (N, M), M = max(H) + 1.

    Month 0 and the months after a scenario's horizon hold 0.
    """
    build: BuildColumns
    rent: RentColumns
    fees: dict[str, Array]
    """Each fixed monthly fee of the cost lines by its input's dotted path
    (``build.hosting_monthly``, ``rent.fixed_monthly``, see :data:`FEE_INPUTS`)
    [currency/month], shape (N,)."""
    offload_work: Array | None = None
    """Work of the jobs the box cannot hold, which the build plan rents, in month m
    [reference GPU-h], shape (N, M) like :attr:`demand`; None: no such job in any row."""

    def __len__(self) -> int:
        return len(self.horizon_months)

    @property
    def months(self) -> int:
        """M: columns of the monthly arrays (months 0..max(H))."""
        return int(self.demand.shape[1])

    def take(self, rows: npt.ArrayLike) -> Columns:
        """The scenarios at ``rows`` (repeats allowed), e.g. ``take([0, 0, 0])``."""
        index = np.asarray(rows, dtype=np.intp)
        columns: Columns = _map_arrays(self, lambda values: values[index])
        return columns

    def copies(self, count: int) -> Columns:
        """``count`` copies of the one scenario of these columns, as read-only views of its
        row (nothing copied): :func:`variants` then sets the inputs that differ."""
        if len(self) != 1:
            raise ValueError("copies are made of one scenario's columns")
        columns: Columns = _map_arrays(
            self, lambda values: np.broadcast_to(values, (count, *values.shape[1:]))
        )
        return columns

    def rows(self, rows: slice) -> Columns:
        """The scenarios in a range of rows, as views (nothing copied)."""
        columns: Columns = _map_arrays(self, lambda values: values[rows])
        return columns

    def repeat(self, times: int) -> Columns:
        """Every scenario ``times`` times, in blocks: rows 0..N−1, then 0..N−1 again, …"""
        return self.take(np.tile(np.arange(len(self)), times))

    def with_values(self, path: str, values: npt.ArrayLike) -> Columns:
        """These columns with the input at a dotted ``path`` (``rent.hourly_rate``) set per row.

        ``values`` broadcasts against (N,). The workload and the horizon shape
        the demand matrix: set them with :func:`variants` or :meth:`with_demand`.
        """
        if path == "horizon_months" or path.startswith("workload."):
            raise ValueError(f"{path} shapes the demand matrix: use variants()")
        *parents, leaf = path.split(".")
        new = np.broadcast_to(np.asarray(values, dtype=np.float64), (len(self),)).copy()
        if path in self.fees:
            return dataclasses.replace(self, fees={**self.fees, path: new})
        if not parents:
            return dataclasses.replace(self, **{leaf: new})  # type: ignore[arg-type]
        changed = _replace_in(self, parents, leaf, new)
        return dataclasses.replace(self, **{parents[0]: changed})

    def with_demand(self, demand: Array, offload_work: Array | None = None) -> Columns:
        """These columns with another demand matrix (same shape rules as :attr:`demand`),
        and the rented jobs' work (:attr:`offload_work`; default: none)."""
        return dataclasses.replace(self, demand=demand, offload_work=offload_work)


def _replace_in(node: Any, parents: list[str], leaf: str, values: Array) -> Any:
    child = getattr(node, parents[0])
    if len(parents) == 1:
        return dataclasses.replace(child, **{leaf: values})
    return dataclasses.replace(child, **{parents[1]: _replace_in(child, parents[1:], leaf, values)})


def _map_arrays(node: Any, fn: Any) -> Any:
    def mapped(value: Any) -> Any:
        if value is None:
            return None
        if dataclasses.is_dataclass(value):
            return _map_arrays(value, fn)
        if isinstance(value, dict):
            return {key: fn(array) for key, array in value.items()}
        return fn(value)

    return dataclasses.replace(
        node, **{f.name: mapped(getattr(node, f.name)) for f in dataclasses.fields(node)}
    )


# --------------------------------------------------------------------------
# The workload as demand
# --------------------------------------------------------------------------


def running_months(horizon_months: npt.ArrayLike, months: int) -> npt.NDArray[np.bool_]:
    """True for months ``1..H`` of each scenario, shape (N, months)."""
    m = np.arange(months)
    return (m >= 1) & (m <= np.asarray(horizon_months)[:, None])


def steady_demand(utilization: npt.ArrayLike, horizon_months: npt.ArrayLike, months: int) -> Array:
    """``demand[m] = u × 730`` [h] for months 1..H; ``u`` may exceed 1 (hybrid burst).

    ``utilization`` has shape (N,), one per scenario, or (K, N) for K utilizations
    of each; the demand has shape (N, months) or (K, N, months).
    """
    per_month = np.asarray(utilization, dtype=np.float64) * HOURS_PER_MONTH
    return np.where(running_months(horizon_months, months), per_month[..., None], 0.0)


def tidal_demand(
    active_days_per_month: npt.ArrayLike,
    hours_per_active_day: npt.ArrayLike,
    horizon_months: npt.ArrayLike,
    months: int,
) -> Array:
    """``demand[m] = min(d × h, 730)`` [h] for months 1..H."""
    days = np.asarray(active_days_per_month, dtype=np.float64)
    per_month = np.minimum(days * np.asarray(hours_per_active_day), HOURS_PER_MONTH)
    return np.where(running_months(horizon_months, months), per_month[:, None], 0.0)


def profile_demand(
    monthly_utilization: npt.ArrayLike,
    lengths: npt.ArrayLike,
    horizon_months: npt.ArrayLike,
    months: int,
) -> Array:
    """``demand[m] = u[(m − 1) mod len(u)] × 730`` [h] for months 1..H.

    ``monthly_utilization`` has shape (N, L): row i holds its profile in its
    first ``lengths[i]`` entries (the rest is padding).
    """
    table = np.asarray(monthly_utilization, dtype=np.float64)
    position = (np.arange(months) - 1) % np.asarray(lengths)[:, None]
    values = np.take_along_axis(table, position, axis=1) * HOURS_PER_MONTH
    return np.where(running_months(horizon_months, months), values, 0.0)


def jobs_demand(
    reference_gpu_hours: npt.ArrayLike,
    box_throughput: npt.ArrayLike,
    horizon_months: npt.ArrayLike,
    months: int,
) -> Array:
    """``demand[m] = work[m] / (build.gpu_count × build.gpu_throughput)`` [h] for months 1..H.

    Parameters
    ----------
    reference_gpu_hours : array_like, shape (N, months)
        Work wanted by the jobs in each month [reference GPU-h]
        (:meth:`~costmodel.scenario.JobsWorkload.reference_gpu_hours`).
    box_throughput : array_like, shape (N,)
        GPUs of the box × throughput of one [reference GPUs].

    Notes
    -----
    The box-hours a jobs workload asks for: the same demand as a profile with
    ``u[m] = demand[m] / 730``.
    """
    work = np.asarray(reference_gpu_hours, dtype=np.float64)
    demand = work / np.asarray(box_throughput, dtype=np.float64)[:, None]
    return np.where(running_months(horizon_months, months), demand, 0.0)


def demand_matrix(
    workloads: Sequence[AnyWorkload],
    horizon_months: npt.NDArray[np.int64],
    months: int,
    box_throughput: npt.ArrayLike | None = None,
    box_memory_gb: npt.ArrayLike | None = None,
) -> tuple[Array, Array | None]:
    """The demand matrix (N, months) of N workloads of any kinds [h], and the rented jobs'
    work (N, months) [reference GPU-h] (None when no job is rented).

    ``box_throughput`` (N,) is each build's GPUs × throughput [reference GPUs]:
    needed only to turn jobs into box-hours; ``box_memory_gb`` (N,) is what each
    box holds (default: no limit), which places each job (:func:`placed_work`).
    """
    n = len(workloads)
    demand = np.zeros((n, months))
    offload: Array | None = None
    kinds = np.array([w.kind for w in workloads])
    jobs = np.flatnonzero(kinds == "jobs")
    if jobs.size:
        if box_throughput is None:
            raise ValueError("a jobs workload needs the box's throughput")
        memory = np.broadcast_to(np.inf if box_memory_gb is None else box_memory_gb, (n,))
        work = np.empty((jobs.size, months))
        rented = np.empty((jobs.size, months))
        # the rows of one workload (the boxes or offerings of an options request) at once
        same: dict[int, list[int]] = {}
        for k, i in enumerate(jobs):
            same.setdefault(id(workloads[int(i)]), []).append(k)
        for ks in same.values():
            rows = jobs[ks]
            workload: Any = workloads[int(rows[0])]
            work[ks], rented[ks] = placed_work(workload, len(ks), months, None, memory[rows])
        box = np.asarray(box_throughput, dtype=np.float64)[jobs]
        demand[jobs] = jobs_demand(work, box, horizon_months[jobs], months)
        if rented.any():
            offload = np.zeros((n, months))
            offload[jobs] = np.where(running_months(horizon_months[jobs], months), rented, 0.0)
    for kind in ("steady", "tidal", "profile"):
        rows = np.flatnonzero(kinds == kind)
        if not rows.size:
            continue
        chosen: list[Any] = [workloads[int(i)] for i in rows]
        h = horizon_months[rows]
        if kind == "steady":
            demand[rows] = steady_demand([w.utilization for w in chosen], h, months)
        elif kind == "tidal":
            days = [w.active_days_per_month for w in chosen]
            hours = [w.hours_per_active_day for w in chosen]
            demand[rows] = tidal_demand(days, hours, h, months)
        else:
            profiles = [w.monthly_utilization for w in chosen]
            lengths = np.array([len(p) for p in profiles])
            table = np.zeros((len(profiles), int(lengths.max())))
            for row, profile in enumerate(profiles):
                table[row, : len(profile)] = profile
            demand[rows] = profile_demand(table, lengths, h, months)
    return demand, offload


# --------------------------------------------------------------------------
# Scenario → columns
# --------------------------------------------------------------------------


BUILD_INPUTS: tuple[str, ...] = tuple(
    f.name for f in dataclasses.fields(BuildColumns) if f.name != "financing"
)
"""The build's numeric inputs (every field of :class:`BuildColumns` but its loan)."""
FINANCING_INPUTS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(FinancingColumns))
RENT_INPUTS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(RentColumns))
FEE_INPUTS: tuple[str, ...] = tuple(
    f"{line.side}.{line.fee.field}" for line in LINES if line.fee is not None
)
"""The dotted paths of the fixed monthly fees' inputs, in the order of the cost lines."""
INPUTS: tuple[str, ...] = (
    "discount_rate_per_year",
    *(f"build.{name}" for name in BUILD_INPUTS),
    *(f"build.financing.{name}" for name in FINANCING_INPUTS),
    *(f"rent.{name}" for name in RENT_INPUTS),
    *FEE_INPUTS,
)
"""Every numeric input of a scenario by dotted path: one row of :func:`_inputs`."""
_FEE_FIELDS = tuple(tuple(path.split(".")) for path in FEE_INPUTS)
CASH = {"down_payment_fraction": 1.0, "annual_interest_rate": 0.0, "term_months": 0}
"""The financing inputs of a box paid in cash: all of it at month 0, no loan."""


def _inputs(s: Scenario) -> list[Any]:
    """Every numeric input of one scenario, in the order of :data:`INPUTS`.

    A box never replaced has a useful life of 0; one paid in cash, the
    financing of :data:`CASH`.
    """
    b, r, loan = s.build, s.rent, s.build.financing
    build = {name: getattr(b, name) for name in BUILD_INPUTS}
    build["useful_life_months"] = b.useful_life_months or 0
    financing = CASH if loan is None else {n: getattr(loan, n) for n in FINANCING_INPUTS}
    return [
        s.discount_rate_per_year,
        *(build[name] for name in BUILD_INPUTS),
        *(financing[name] for name in FINANCING_INPUTS),
        *(getattr(r, name) for name in RENT_INPUTS),
        *(getattr(getattr(s, side), name) for side, name in _FEE_FIELDS),
    ]


def _beyond_float64(scenario: Scenario) -> bool:
    counts = (scenario.build.gpu_count, scenario.rent.gpu_count, scenario.rent.committed_instances)
    return any(abs(count) > sys.float_info.max for count in counts)


def columns_from(scenarios: Sequence[Scenario]) -> Columns:
    """The columns of validated scenarios, in their order.

    Raises
    ------
    ProjectionOverflowError
        If an integer input (a GPU count) is beyond float64.
    ValueError
        If there is no scenario.
    """
    if not scenarios:
        raise ValueError("a projection needs at least one scenario")
    try:
        return _columns_from(scenarios)
    except OverflowError:
        raise ProjectionOverflowError(
            [i for i, s in enumerate(scenarios) if _beyond_float64(s)]
        ) from None


def _columns_from(scenarios: Sequence[Scenario]) -> Columns:
    """One table of every scenario's inputs (one row each), read column by column.

    The table is converted to float64 at once (an integer beyond float64 raises
    OverflowError) and stored transposed, so that each input's column is
    contiguous in memory. Anything but numbers (text in a scenario built without
    validation) is refused, not parsed.
    """
    values = np.array([_inputs(s) for s in scenarios])  # object: integers beyond int64
    if values.dtype.kind not in "iufO" or (
        values.dtype.kind == "O"
        and not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values.flat)
    ):
        raise TypeError("a scenario holds a non-number where a number belongs")
    table = dict(zip(INPUTS, values.astype(np.float64).T.copy(), strict=True))

    def section(prefix: str, names: tuple[str, ...]) -> dict[str, Array]:
        return {name: table[prefix + name] for name in names}

    horizon = np.array([s.horizon_months for s in scenarios], dtype=np.int64)
    months = int(horizon.max()) + 1
    box = table["build.gpu_count"] * table["build.gpu_throughput"]  # [reference GPUs]
    memory = np.array([memory_of(s.build.gpu_count, s.build.gpu_memory_gb) for s in scenarios])
    demand, offload = demand_matrix([s.workload for s in scenarios], horizon, months, box, memory)
    return Columns(
        horizon_months=horizon,
        discount_rate_per_year=table["discount_rate_per_year"],
        demand=demand,
        offload_work=offload,
        build=BuildColumns(
            **section("build.", BUILD_INPUTS),
            financing=FinancingColumns(**section("build.financing.", FINANCING_INPUTS)),
        ),
        rent=RentColumns(**section("rent.", RENT_INPUTS)),
        fees={path: table[path] for path in FEE_INPUTS},
    )


# --------------------------------------------------------------------------
# One scenario, many variants, by broadcasting
# --------------------------------------------------------------------------


def workload_demand(
    workload: AnyWorkload,
    count: int,
    horizon_months: npt.NDArray[np.int64],
    months: int,
    values: Mapping[str, Array] | None = None,
    box_throughput: Array | None = None,
) -> Array:
    """Demand (count, months) of ``count`` copies of one workload, some fields set per copy [h].

    ``values`` maps workload paths (``workload.utilization``,
    ``workload.active_days_per_month``, ``workload.monthly_utilization.3``,
    ``workload.jobs.0.reference_gpu_hours``, ``workload.jobs.1.runs_per_month``
    or ``….runs_per_month.2`` …) to arrays of shape (count,). ``box_throughput``
    (count,) [reference GPUs] turns jobs into box-hours. Every job is counted on
    the box: :func:`variants` places jobs by memory.
    """
    values = values or {}
    if isinstance(workload, JobsWorkload):
        if box_throughput is None:
            raise ValueError("a jobs workload needs the box's throughput")
        on_box, rented = placed_work(workload, count, months, values)
        return jobs_demand(on_box + rented, box_throughput, horizon_months, months)

    def field(name: str, base: float) -> Array:
        return np.broadcast_to(values.get(f"workload.{name}", base), (count,))

    if isinstance(workload, SteadyWorkload):
        return steady_demand(field("utilization", workload.utilization), horizon_months, months)
    if isinstance(workload, TidalWorkload):
        days = field("active_days_per_month", workload.active_days_per_month)
        hours = field("hours_per_active_day", workload.hours_per_active_day)
        return tidal_demand(days, hours, horizon_months, months)
    table = np.tile(np.asarray(workload.monthly_utilization, dtype=np.float64), (count, 1))
    for path, column in values.items():
        prefix, _, index = path.rpartition(".")
        if prefix == "workload.monthly_utilization":
            table[:, int(index)] = column
    lengths = np.full(count, table.shape[1])
    return profile_demand(table, lengths, horizon_months, months)


def variants(
    scenario: Scenario,
    count: int,
    values: Mapping[str, npt.ArrayLike],
    box_memory_gb: float | None = None,
) -> Columns:
    """Columns of ``count`` copies of ``scenario``, each input at a path of ``values`` set per copy.

    Parameters
    ----------
    scenario : Scenario
    count : int
        Rows wanted.
    values : mapping of dotted path → array of shape (count,) (or a scalar)
        Numeric fields of the scenario: ``rent.hourly_rate``,
        ``build.financing.term_months``, ``horizon_months``,
        ``workload.utilization``, ``workload.monthly_utilization.0`` …

    box_memory_gb : float, optional
        What the box holds [GB], placing a jobs workload's jobs; default
        ``build.gpu_count × build.gpu_memory_gb`` of each copy (a fleet of
        boxes passes one box's: a run is never sharded across boxes).

    Notes
    -----
    The values are taken as they are: bounds are the caller's to check (the
    operations validate them against the scenario's schema first).
    """
    arrays = {
        path: np.broadcast_to(np.asarray(v, dtype=np.float64), (count,))
        for path, v in values.items()
    }
    horizon = np.broadcast_to(
        arrays.get("horizon_months", float(scenario.horizon_months)), (count,)
    ).astype(np.int64)
    months = int(horizon.max()) + 1
    workload_values = {p: v for p, v in arrays.items() if p.startswith("workload.")}
    columns = columns_from([scenario]).copies(count)
    for path, column in arrays.items():
        if path != "horizon_months" and not path.startswith("workload."):
            columns = columns.with_values(path, column)
    box = columns.build.gpu_count * columns.build.gpu_throughput
    workload = scenario.workload
    if box_memory_gb is not None:
        memory: Array = np.full(count, box_memory_gb)
    elif scenario.build.gpu_memory_gb is None:
        memory = np.full(count, np.inf)
    else:
        memory = columns.build.gpu_count * scenario.build.gpu_memory_gb
    if count > 1 and not workload_values and _alike(horizon, box, memory):
        # the same work in every copy (a Monte Carlo that draws no input of the work): one
        # copy's demand, shared read-only by all, as costmodel.line_costs.power shares a row
        demand, offload = _demand(workload, 1, horizon[:1], months, {}, box[:1], memory[:1])
        shape = (count, months)
        demand = np.broadcast_to(demand, shape)
        offload = None if offload is None else np.broadcast_to(offload, shape)
    else:
        demand, offload = _demand(workload, count, horizon, months, workload_values, box, memory)
    return dataclasses.replace(columns, horizon_months=horizon, demand=demand, offload_work=offload)


def _alike(*columns: npt.NDArray[Any]) -> bool:
    """Whether each of ``columns`` holds one value in every row."""
    return all((column == column[0]).all() for column in columns)


def _demand(
    workload: AnyWorkload,
    count: int,
    horizon: npt.NDArray[np.int64],
    months: int,
    values: Mapping[str, Array],
    box: Array,
    memory: Array,
) -> tuple[Array, Array | None]:
    """:func:`variants`' demand (count, months) [h] and rented jobs' work (None: none)."""
    if not isinstance(workload, JobsWorkload):
        return workload_demand(workload, count, horizon, months, values, box), None
    on_box, rented = placed_work(workload, count, months, values, memory)
    running = running_months(horizon, months)
    offload = np.where(running, rented, 0.0) if rented.any() else None
    return jobs_demand(on_box, box, horizon, months), offload
