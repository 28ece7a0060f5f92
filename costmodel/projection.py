"""Month-by-month projection of build and rent costs for a batch of scenarios.

One code path serves one scenario and many: inputs are packed into arrays of
shape ``(N,)`` and the monthly arithmetic runs on arrays of shape ``(M, N)``
with ``M = max(horizon_months) + 1`` (months ``0..H``). Months past a
scenario's own horizon hold zeros and are cut off when its result is read.

The ``(M, N)`` arrays are scratch space: the batch keeps from them only the
headline figures of shape ``(N,)``. The monthly series of a result
(:class:`LazySeries`) are formed again, row by row, when read, from the same
inputs by the same arithmetic, so they hold exactly the numbers the batch
added up.
"""

from __future__ import annotations

import functools
import struct
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, starmap
from operator import add, attrgetter, itemgetter
from typing import Any

import numpy as np
import numpy.typing as npt

from costmodel.scenario import HOURS_PER_MONTH, MAX_HORIZON_MONTHS, Scenario

Array = npt.NDArray[np.float64]
Index = npt.NDArray[np.intp]


class ProjectionOverflowError(ArithmeticError):
    """Raised when finite inputs are so large that a result is not a finite number."""

    def __init__(self, indices: list[int]) -> None:
        self.indices = indices
        super().__init__(f"results of scenarios {indices} overflow: inputs too large")


# --------------------------------------------------------------------------
# Scratch space
# --------------------------------------------------------------------------

_WORKSPACE_MIN_ITEMS = 1 << 15
"""Arrays of fewer items (256 KiB of float64) are allocated afresh: small allocations are cheap."""

_WORKSPACE_KEEP_BYTES = 1 << 23
"""Largest scratch array (8 MiB, e.g. 10 000 scenarios × 104 months) kept for the next batch."""


class _Workspace(threading.local):
    """Scratch arrays reused by successive batches in one thread.

    A fresh multi-megabyte array is memory the kernel must map and zero page
    by page; for a batch of 10 000 scenarios that costs more than the
    arithmetic done in it. Reusing the previous batch's scratch arrays avoids
    it. At most seven arrays of up to ``_WORKSPACE_KEEP_BYTES`` each are kept
    per thread (in practice about 22 MiB for 10 000 five-year scenarios); bigger
    batches allocate and free their own. Nothing handed out here outlives the
    :func:`project` call that asked for it.
    """

    def __init__(self) -> None:
        self.buffers: dict[str, npt.NDArray[Any]] = {}

    def array(self, name: str, shape: tuple[int, int], dtype: type = np.float64) -> Any:
        size = shape[0] * shape[1]
        if size < _WORKSPACE_MIN_ITEMS:
            return np.empty(shape, dtype)
        nbytes = size * np.dtype(dtype).itemsize
        buffer = self.buffers.get(name)
        if buffer is None or buffer.size < size:
            buffer = np.empty(size, dtype)
            if nbytes <= _WORKSPACE_KEEP_BYTES:
                self.buffers[name] = buffer
        return buffer[:size].reshape(shape)


_workspace = _Workspace()


# --------------------------------------------------------------------------
# Monthly series, formed per row when read
# --------------------------------------------------------------------------


class LazySeries:
    """A monthly series of shape ``(N, M)`` whose rows are formed when read.

    ``row(i)`` gives months ``0..M−1`` of scenario ``i`` (zero past its
    horizon, read-only); ``series[i, cols]`` slices one row;
    ``np.asarray(series)`` forms every row.
    """

    horizon: npt.NDArray[np.int64]
    months: int

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.horizon), self.months)

    def row(self, i: int) -> Array:
        """Months ``0..M−1`` of scenario ``i`` (a read-only array)."""
        raise NotImplementedError

    def __array__(self, dtype: Any = None, copy: Any = None) -> Array:
        rows = [self.row(i) for i in range(len(self.horizon))]
        return np.array(rows, dtype=dtype or np.float64).reshape(self.shape)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], int | np.integer):
            return self.row(int(key[0]))[key[1]]
        return np.asarray(self)[key]


@dataclass(frozen=True, eq=False)
class BusyHours(LazySeries):
    """Busy hours of each build in each month [h].

    steady: ``busy = u × 730``; tidal: ``busy = min(d × h, 730)`` (both in
    ``per_month``); profile: ``busy[m] = u[(m − 1) mod len(u)] × 730``, the
    tables of the profile scenarios laid end to end in ``flat``. Month 0 is
    never busy.
    """

    per_month: Array
    """Busy hours of every month for steady and tidal work, shape (N,); 0 for profiles."""
    profiles: Index
    """Indices of the scenarios with a profile, shape (P,)."""
    slot: Index | None
    """Position of each scenario in ``profiles``, −1 if it has none, shape (N,); None if P = 0."""
    starts: Index
    lengths: Index
    flat: Array
    horizon: npt.NDArray[np.int64]
    months: int

    def row(self, i: int) -> Array:
        k = -1 if self.slot is None else int(self.slot[i])
        if k < 0:
            values = np.empty(self.months)
            values.fill(self.per_month[i])
        else:
            position = np.arange(-1, self.months - 1) % self.lengths[k] + self.starts[k]
            values = HOURS_PER_MONTH * self.flat[position]
        values[0] = 0.0
        values[int(self.horizon[i]) + 1 :] = 0.0
        values.flags.writeable = False
        return values

    def fill(self, out: Array) -> Array:
        """Write every scenario's busy hours, month-major, into ``out`` of shape (M, N)."""
        out[:] = self.per_month
        if self.profiles.size:
            # position[m, L − 1] = (m − 1) mod L for every length L present: a
            # small table, then one gather per cell instead of a division.
            lengths = np.arange(1, int(self.lengths.max()) + 1)
            position = np.arange(-1, self.months - 1)[:, None] % lengths
            shape = (self.months, len(self.profiles))
            cells = _workspace.array("cells", shape, np.intp)
            np.take(position, self.lengths - 1, axis=1, out=cells)
            cells += self.starts
            values = np.take(self.flat, cells, out=_workspace.array("profile", shape))
            values *= HOURS_PER_MONTH
            out[:, self.profiles] = values
        out[0] = 0.0
        return out


SERIES = (
    "build_energy",
    "build_hosting",
    "build_maintenance",
    "build_ops",
    "build_monthly",
    "build_cumulative",
    "rent_compute",
    "rent_fixed",
    "rent_monthly",
    "rent_cumulative",
)
"""The monthly series of a projection, in the order :meth:`MonthlyRows.form` lays them out."""
(
    _ENERGY,
    _HOSTING,
    _MAINTENANCE,
    _OPS,
    _BUILD_MONTHLY,
    _BUILD_CUMULATIVE,
    _COMPUTE,
    _RENT_FIXED,
    _RENT_MONTHLY,
    _RENT_CUMULATIVE,
) = range(len(SERIES))


@dataclass(frozen=True, eq=False)
class MonthlyRows:
    """Every monthly series of one scenario, formed from the batch's per-scenario inputs.

    :meth:`form` repeats, for one scenario, the arithmetic :func:`project`
    does for the whole batch, operation for operation, so the series hold
    exactly the numbers the batch added up (its totals are these rows'
    month ``H``, to the bit). Amounts in the scenario currency.
    """

    busy: BusyHours
    busy_cost_per_hour: Array
    idle_cost: Array
    rent_per_busy_hour: Array
    growth_log: Array | None
    hosting: Array
    maintenance: Array
    ops: Array
    fixed_build_monthly: Array
    rent_fixed: Array
    capex: Array
    horizon: npt.NDArray[np.int64]
    months: int

    def form(self, i: int) -> Array:
        """The series of scenario ``i``, shape (10, M), rows in the order of :data:`SERIES`.

        The last scenario formed is kept: a result reads all ten rows of one
        scenario through ten series. The array is read-only.
        """
        last: tuple[int, Array] | None = self.__dict__.get("_last")
        if last is not None and last[0] == i:
            return last[1]
        table = np.empty((len(SERIES), self.months))
        energy, compute = table[_ENERGY], table[_COMPUTE]
        busy = self.busy.row(i)
        np.multiply(busy, self.busy_cost_per_hour[i], out=energy)
        energy += self.idle_cost[i]
        np.multiply(busy, self.rent_per_busy_hour[i], out=compute)
        if self.growth_log is not None:
            compute *= np.exp(_years_since_month_1(self.months) * self.growth_log[i])
        np.add(energy, self.fixed_build_monthly[i], out=table[_BUILD_MONTHLY])
        np.add(compute, self.rent_fixed[i], out=table[_RENT_MONTHLY])
        table[_HOSTING] = self.hosting[i]
        table[_MAINTENANCE] = self.maintenance[i]
        table[_OPS] = self.ops[i]
        table[_RENT_FIXED] = self.rent_fixed[i]
        table[:, 0] = 0.0
        table[_BUILD_MONTHLY, 0] = self.capex[i]
        end = int(self.horizon[i]) + 1
        table[:, end:] = 0.0
        np.cumsum(table[_BUILD_MONTHLY, :end], out=table[_BUILD_CUMULATIVE, :end])
        np.cumsum(table[_RENT_MONTHLY, :end], out=table[_RENT_CUMULATIVE, :end])
        table.flags.writeable = False
        self.__dict__["_last"] = (i, table)
        return table


HEADLINE = (
    "build_total",
    "rent_total",
    "savings",
    "build_present_value",
    "rent_present_value",
    "work_reference_gpu_hours",
    "build_cost_per_reference_gpu_hour",
    "rent_cost_per_reference_gpu_hour",
    "break_even_month",
    "resale_value",
    "build_total_net",
    "break_even_utilization",
)
"""The headline figures of a projection, in the order of :attr:`Projection.headline`."""

_MUST_BE_FINITE = HEADLINE.index("build_cost_per_reference_gpu_hour")
"""Headline rows before this one are never null: they must be finite numbers."""


@dataclass(frozen=True, eq=False)
class Series(LazySeries):
    """One monthly series of a projection (a row of :meth:`MonthlyRows.form` per scenario)."""

    rows: MonthlyRows
    index: int
    horizon: npt.NDArray[np.int64]
    months: int

    def row(self, i: int) -> Array:
        values: Array = self.rows.form(i)[self.index]
        return values


@functools.lru_cache(maxsize=256)
def _years_since_month_1(months: int) -> Array:
    """``(m − 1) / 12`` for months ``m = 0..months−1`` [years]: the exponent of price change.

    Read-only and cached: every scenario with the same number of months shares it.
    """
    years = (np.arange(months, dtype=np.float64) - 1.0) / 12.0
    years.flags.writeable = False
    return years


@functools.lru_cache(maxsize=256)
def _month_column(months: int) -> Array:
    """Months ``0..months−1`` as a float column, shape (months, 1); read-only and cached."""
    column = np.arange(months, dtype=np.float64)[:, None]
    column.flags.writeable = False
    return column


@functools.lru_cache(maxsize=1024)
def _discount_factors(rate: float, months: int) -> Array:
    """``(1 + d)^(−m/12)`` for months ``m = 0..months−1``; read-only and cached."""
    factors = (1.0 + rate) ** (_month_column(months)[:, 0] / -12.0)
    factors.flags.writeable = False
    return factors


# --------------------------------------------------------------------------
# Reading the scenarios
# --------------------------------------------------------------------------

# Inputs are read from the models' ``__dict__`` by C-level iterators (``map``
# over ``attrgetter``, ``itemgetter`` and tuple ``add``) and packed as float64
# by ``struct``, one C call per scenario: for a batch of 10 000 this reading
# costs more than all the arithmetic, and no Python frame runs per scenario.
_TOP_NAMES = ("horizon_months", "discount_rate_per_year")
_BUILD_NAMES = (
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
_RENT_NAMES = ("gpu_count", "gpu_throughput", "hourly_rate", "fixed_monthly", "annual_price_change")
_TOP_FIELDS = attrgetter(*_TOP_NAMES)
_BUILD_DICT = attrgetter("build.__dict__")
_RENT_DICT = attrgetter("rent.__dict__")
_WORKLOAD_DICT = attrgetter("workload.__dict__")
_BUILD_FIELDS = itemgetter(*_BUILD_NAMES)
_RENT_FIELDS = itemgetter(*_RENT_NAMES)
_BUILD_START = len(_TOP_NAMES)
_RENT_START = _BUILD_START + len(_BUILD_NAMES)
_WIDTH = _RENT_START + len(_RENT_NAMES)
"""Numbers per scenario: the scenario's, the build's and the rent's, in the orders above."""
_PACK = struct.Struct(f"{_WIDTH}d").pack

_KIND = itemgetter("kind")
_STEADY, _TIDAL, _PROFILE = range(3)
_KIND_CODE = {"steady": _STEADY, "tidal": _TIDAL, "profile": _PROFILE}
_UTILIZATION = itemgetter("utilization")
_TIDAL_FIELDS = itemgetter("active_days_per_month", "hours_per_active_day")
_MONTHLY_UTILIZATION = itemgetter("monthly_utilization")


def _fits_float64(s: Scenario) -> bool:
    try:
        float(s.build.gpu_count)
        float(s.rent.gpu_count)
    except OverflowError:
        return False
    return True


_Workloads = tuple[Array, Index, Index, Array]
"""``per_month``, ``profiles``, ``lengths``, ``flat``: see :func:`_read_workloads`."""

_ALL = slice(None)
_NO_INDEX: Index = np.zeros(0, np.intp)
_NO_INDEX.flags.writeable = False
_NO_VALUES: Array = np.zeros(0)
_NO_VALUES.flags.writeable = False

_CHUNK = 1024
"""Scenarios read together: a chunk's model objects stay in cache across the
passes that read them (numbers, then workloads). Reading 10 000 scenarios in
one pass per field would fetch every object from memory several times."""


def _read_numbers(chunk: Sequence[Scenario]) -> tuple[Array, Array, Array]:
    """The numeric inputs of a chunk of ``c`` scenarios.

    Returns
    -------
    top : ndarray, shape (2, c)
        ``horizon_months`` and ``discount_rate_per_year``.
    build, rent : ndarray, shape (11, c) and (5, c)
        The numbers named in ``_BUILD_NAMES`` and ``_RENT_NAMES``.

    Each scenario's 18 numbers are gathered into one tuple and packed as
    float64 in one C call (``struct``), scenario after scenario: all reads of
    one scenario's objects happen together, while they are in cache, which
    in a batch of 10 000 is about 2 ms faster than reading the scenarios',
    then the builds', then the rents'. The results are read-only views of the
    packed bytes, one row per input. Integers (GPU counts, the horizon)
    become the float ``float()`` gives.

    Raises
    ------
    struct.error
        If an integer (a GPU count) is beyond float64.
    """
    numbers = map(
        add,
        map(add, map(_TOP_FIELDS, chunk), map(_BUILD_FIELDS, map(_BUILD_DICT, chunk))),
        map(_RENT_FIELDS, map(_RENT_DICT, chunk)),
    )
    packed = np.frombuffer(b"".join(starmap(_PACK, numbers))).reshape(len(chunk), _WIDTH).T
    return packed[:_BUILD_START], packed[_BUILD_START:_RENT_START], packed[_RENT_START:]


def _read_workloads(chunk: Sequence[Scenario]) -> _Workloads:
    """The workloads of a chunk of scenarios.

    Returns
    -------
    per_month : ndarray, shape (c,) [h]
        Busy hours of every month for steady (``u × 730``) and tidal
        (``min(d × h, 730)``) work; 0 for a profile.
    profiles : ndarray of int, shape (p,)
        Positions in the chunk of the scenarios with a profile.
    lengths : ndarray of int, shape (p,)
        Length of each profile.
    flat : ndarray, shape (Σ lengths,)
        The profiles' monthly utilizations, end to end.
    """
    c = len(chunk)
    workloads = list(map(_WORKLOAD_DICT, chunk))
    kind = np.fromiter(map(_KIND_CODE.__getitem__, map(_KIND, workloads)), np.intp, count=c)
    counts = np.bincount(kind, minlength=len(_KIND_CODE)).tolist()

    def of_kind(code: int) -> tuple[slice | Index, list[dict[str, Any]]]:
        if counts[code] == c:
            return _ALL, workloads
        where = np.flatnonzero(kind == code)
        return where, list(map(workloads.__getitem__, where.tolist()))

    per_month = np.zeros(c)
    if counts[_STEADY]:
        where, chosen = of_kind(_STEADY)
        utilization = np.fromiter(map(_UTILIZATION, chosen), np.float64, count=len(chosen))
        per_month[where] = utilization * HOURS_PER_MONTH
    if counts[_TIDAL]:
        where, chosen = of_kind(_TIDAL)
        days_hours = np.fromiter(
            chain.from_iterable(map(_TIDAL_FIELDS, chosen)), np.float64, count=2 * len(chosen)
        )
        per_month[where] = np.minimum(days_hours[0::2] * days_hours[1::2], HOURS_PER_MONTH)
    if not counts[_PROFILE]:
        return per_month, _NO_INDEX, _NO_INDEX, _NO_VALUES
    where, chosen = of_kind(_PROFILE)
    profiles = np.arange(c) if isinstance(where, slice) else where
    tables = list(map(_MONTHLY_UTILIZATION, chosen))
    lengths = np.fromiter(map(len, tables), np.intp, count=len(tables))
    flat = np.fromiter(chain.from_iterable(tables), np.float64, count=int(lengths.sum()))
    return per_month, profiles, lengths, flat


def _read(
    scenarios: Sequence[Scenario],
) -> tuple[Array, Array, Array, tuple[Array, Index, Index, Array]]:
    """Every input of every scenario, chunk by chunk.

    Returns the rows ``top`` (2, N), ``build`` (11, N) and ``rent`` (5, N)
    of :func:`_read_numbers`, and the workloads of :func:`_read_workloads`
    with ``profiles`` as indices into ``scenarios``.

    Raises
    ------
    struct.error
        If an integer (a GPU count) is beyond float64.
    """
    n = len(scenarios)
    if n <= _CHUNK:  # one chunk: nothing to join
        return (*_read_numbers(scenarios), _read_workloads(scenarios))
    # Joined row by row: each input becomes one contiguous row.
    top = np.empty((_BUILD_START, n))
    build = np.empty((_RENT_START - _BUILD_START, n))
    rent = np.empty((_WIDTH - _RENT_START, n))
    workloads: list[_Workloads] = []
    for start in range(0, n, _CHUNK):
        chunk = scenarios[start : start + _CHUNK]
        at = slice(start, start + len(chunk))
        top[:, at], build[:, at], rent[:, at] = _read_numbers(chunk)
        per_month, profiles, lengths, flat = _read_workloads(chunk)
        workloads.append((per_month, profiles + start if start else profiles, lengths, flat))
    per_month, profiles, lengths, flat = (
        np.concatenate(parts) for parts in zip(*workloads, strict=True)
    )
    return top, build, rent, (per_month, profiles, lengths, flat)


# --------------------------------------------------------------------------
# The projection
# --------------------------------------------------------------------------


class _HeadlineRow:
    """A headline figure of :class:`Projection`: its row of ``headline``, shape (N,)."""

    def __init__(self, doc: str) -> None:
        self.__doc__ = doc

    def __set_name__(self, owner: type, name: str) -> None:
        self.index = HEADLINE.index(name)

    def __get__(self, projection: Projection, owner: type | None = None) -> Array:
        row: Array = projection.headline[self.index]
        return row


class _SeriesView:
    """A monthly series of :class:`Projection`, shape (N, M), formed per row when read."""

    def __init__(self, doc: str) -> None:
        self.__doc__ = doc

    def __set_name__(self, owner: type, name: str) -> None:
        self.index = SERIES.index(name)

    def __get__(self, projection: Projection, owner: type | None = None) -> Series:
        rows = projection.monthly_rows
        return Series(rows, self.index, rows.horizon, rows.months)


@dataclass(frozen=True, eq=False)
class Projection:
    """Results of :func:`project` for ``N`` scenarios.

    Monthly series have shape ``(N, M)`` (:class:`LazySeries`; index one row
    with ``series[i, cols]`` or form them all with ``np.asarray``). Headline
    figures are arrays of shape ``(N,)`` with ``NaN`` where the methodology
    says ``null``; amounts are in each scenario's currency. :meth:`result`
    gives one scenario's methodology JSON.
    """

    scenarios: tuple[Scenario, ...]
    horizon: npt.NDArray[np.int64]
    busy: BusyHours
    monthly_rows: MonthlyRows
    headline: Array
    """The headline figures, shape (12, N), rows in the order of :data:`HEADLINE`."""

    build_total = _HeadlineRow("Build cost over the horizon, capex included [currency].")
    rent_total = _HeadlineRow("Rent cost over the horizon [currency].")
    savings = _HeadlineRow(
        "``rent_total − build_total_net`` [currency]; positive when building is cheaper."
    )
    build_present_value = _HeadlineRow(
        "Build cost discounted to month 0, resale deducted [currency]."
    )
    rent_present_value = _HeadlineRow("Rent cost discounted to month 0 [currency].")
    work_reference_gpu_hours = _HeadlineRow("``Σ busy × n_b × t_b`` [reference GPU-hours].")
    build_cost_per_reference_gpu_hour = _HeadlineRow(
        "``build_total_net / work`` [currency/reference GPU-hour]; NaN without work."
    )
    rent_cost_per_reference_gpu_hour = _HeadlineRow(
        "``rent_total / work`` [currency/reference GPU-hour]; NaN without work."
    )
    break_even_month = _HeadlineRow(
        "First month, interpolated, where building has cost no more [months]; NaN if never."
    )
    resale_value = _HeadlineRow("``capex × retention^(H/12)`` [currency].")
    build_total_net = _HeadlineRow("``build_total − resale_value`` [currency].")
    break_even_utilization = _HeadlineRow(
        "Steady utilization at which savings are 0; NaN outside [0, 1]."
    )
    build_energy = _SeriesView(
        "Energy cost [currency/month]: ``(P_load·busy + P_idle·idle) / 1000 × pue × price``."
    )
    build_hosting = _SeriesView("Hosting fee [currency/month].")
    build_maintenance = _SeriesView("Maintenance [currency/month]: ``capex × rate / 12``.")
    build_ops = _SeriesView("Operations [currency/month].")
    build_monthly = _SeriesView("Build cost per month [currency]; month 0 is the capex.")
    build_cumulative = _SeriesView("Running sum of :attr:`build_monthly` [currency].")
    rent_compute = _SeriesView("Instance-hours × rate [currency/month].")
    rent_fixed = _SeriesView("Fixed cloud fees [currency/month].")
    rent_monthly = _SeriesView("Rent cost per month [currency]; month 0 is 0.")
    rent_cumulative = _SeriesView("Running sum of :attr:`rent_monthly` [currency].")

    def __len__(self) -> int:
        return len(self.scenarios)

    def result(self, i: int) -> dict[str, Any]:
        """The methodology's "Required JSON output" for scenario ``i`` (JSON-ready types)."""
        h = int(self.horizon[i])
        (
            build_energy,
            build_hosting,
            build_maintenance,
            build_ops,
            build_monthly,
            build_cumulative,
            rent_compute,
            rent_fixed,
            rent_monthly,
            rent_cumulative,
        ) = self.monthly_rows.form(i)[:, : h + 1].tolist()

        values = self.headline[:, i].tolist()
        figure = dict(
            zip(HEADLINE, (v if v == v else None for v in values), strict=True)
        )  # NaN: null

        return {
            "scenario": self.scenarios[i].model_dump(mode="json"),
            "months": list(range(h + 1)),
            "build": {
                "monthly": build_monthly,
                "cumulative": build_cumulative,
                "energy": build_energy,
                "hosting": build_hosting,
                "maintenance": build_maintenance,
                "ops": build_ops,
                "total": figure["build_total"],
                "resale_value": figure["resale_value"],
                "total_net": figure["build_total_net"],
                "present_value": figure["build_present_value"],
                "cost_per_reference_gpu_hour": figure["build_cost_per_reference_gpu_hour"],
            },
            "rent": {
                "monthly": rent_monthly,
                "cumulative": rent_cumulative,
                "compute": rent_compute,
                "fixed": rent_fixed,
                "total": figure["rent_total"],
                "present_value": figure["rent_present_value"],
                "cost_per_reference_gpu_hour": figure["rent_cost_per_reference_gpu_hour"],
            },
            "break_even_month": figure["break_even_month"],
            "break_even_utilization": figure["break_even_utilization"],
            "savings": figure["savings"],
            "work_reference_gpu_hours": figure["work_reference_gpu_hours"],
        }

    def results(self) -> list[dict[str, Any]]:
        return [self.result(i) for i in range(len(self))]


_WIDE = 64
"""Scenarios from which a batch is wide: row-by-row forms beat numpy's column-wise calls."""


def _running_sum(monthly: Array, out: Array | None = None) -> Array:
    """Cumulative sum over months (axis 0), ``out[m] = out[m − 1] + monthly[m]``.

    ``np.cumsum`` along axis 0 walks each column with a large stride; for a wide
    batch adding whole month rows is several times faster. The additions happen
    in the same order either way, so the results are identical to the last bit.
    ``out`` may be ``monthly`` itself.
    """
    if monthly.shape[1] < _WIDE:
        return np.cumsum(monthly, axis=0, out=out)
    if out is None:
        out = np.empty_like(monthly)
    out[0] = monthly[0]
    for m in range(1, monthly.shape[0]):
        np.add(out[m - 1], monthly[m], out=out[m])
    return out


_NEVER = 255
"""Byte standing for "no qualifying month" (months are 0..240)."""
if MAX_HORIZON_MONTHS >= _NEVER:  # pragma: no cover - a guard for whoever raises the bound
    raise ImportError("break_even_month counts months in bytes: MAX_HORIZON_MONTHS must be < 255")


@functools.lru_cache(maxsize=256)
def _months_from_1(months: int) -> npt.NDArray[np.uint8]:
    """``m + 1`` for months ``m = 0..months−1`` as a byte column, shape (months, 1); cached."""
    column = np.arange(1, months + 1, dtype=np.uint8)[:, None]
    column.flags.writeable = False
    return column


def break_even_month(difference: Array, in_horizon: npt.NDArray[np.bool_] | None) -> Array:
    """First month where cumulative build cost ≤ cumulative rent cost, interpolated.

    Parameters
    ----------
    difference : ndarray, shape (M, N)
        ``build_cum − rent_cum`` per month (rows) and scenario (columns) [currency].
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
    Call it under ``np.errstate(divide="ignore", invalid="ignore")``, as
    :func:`project` does.
    """
    months, n = difference.shape
    qualifies = np.less_equal(
        difference, 0.0, out=_workspace.array("qualifies", (months, n), np.bool_)
    )
    if in_horizon is not None:
        qualifies &= in_horizon
    cols = np.arange(n)
    if n < _WIDE:
        first = qualifies.argmax(axis=0)
        at = first * n + cols  # flat positions of (first, column) in the (M, N) arrays
        found = qualifies.take(at)
    else:
        # For a wide batch, the first qualifying month of each column as the
        # least of small integers: m + 1 where month m qualifies, else 0,
        # minus 1 (0 wraps to _NEVER). Reducing rows of bytes is several times
        # faster than argmax down the columns; the months found are the same.
        counted = np.multiply(
            qualifies,
            _months_from_1(months),
            out=_workspace.array("counted", (months, n), np.uint8),
        )
        counted -= 1
        first = np.minimum.reduce(counted, axis=0).astype(np.intp)
        found = first != _NEVER
        first[~found] = 0
        at = first * n + cols
    at_diff = difference.take(at)
    before = difference.take(np.maximum(at - n, cols))  # month first − 1 (month 0 if first = 0)
    inside = (first - 1) + before / (before - at_diff)
    return np.where(found, np.where(first == 0, 0.0, inside), np.nan)


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
        top, build, rent, (per_month, profiles, lengths, flat) = _read(scenarios)
    except struct.error as error:
        # An integer (a GPU count) beyond float64: name the scenarios that hold one.
        too_large = [i for i, s in enumerate(scenarios) if not _fits_float64(s)]
        if not too_large:  # not validated: a number field holds something else
            raise TypeError(
                f"a scenario holds a non-number where a number belongs: {error}"
            ) from error
        raise ProjectionOverflowError(too_large) from None
    h, discount = top
    (
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
    ) = build
    r_count, r_tput, hourly, fixed, change = rent
    horizon = h.astype(np.int64)

    # Month-major (M, N) scratch arrays: cumulative sums and masks run along
    # contiguous rows. Only (N,) figures leave this function; the monthly
    # series are formed again per scenario when read (MonthlyRows).
    longest, shortest = np.maximum.reduce(horizon), np.minimum.reduce(horizon)
    m_count = int(longest) + 1
    shape = (m_count, n)
    uniform_horizon = bool(shortest == longest)
    in_horizon = None if uniform_horizon else _month_column(m_count) <= h
    past_horizon = None if in_horizon is None else ~in_horizon

    slot = None
    starts = lengths
    if profiles.size:
        slot = np.full(n, -1, dtype=np.intp)
        slot[profiles] = np.arange(len(profiles))
        starts = np.cumsum(lengths) - lengths
    hours = BusyHours(per_month, profiles, slot, starts, lengths, flat, horizon, m_count)
    busy = hours.fill(_workspace.array("busy", shape))
    if past_horizon is not None:
        busy[past_horizon] = 0.0
    busy_hours = np.add.reduce(busy, axis=0)

    # Overflow and 0/0 are let through as inf/NaN and refused or read below.
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        # Energy cost is affine in busy hours: the idle draw all month plus the
        # load-over-idle draw while busy.
        cost_per_kwh = pue / 1000.0 * kwh_price
        idle_cost = p_idle * HOURS_PER_MONTH * cost_per_kwh
        busy_cost_per_hour = (p_load - p_idle) * cost_per_kwh
        maintenance = capex * maint_rate / 12.0
        fixed_build_monthly = hosting + maintenance + ops
        build_monthly = np.multiply(busy, busy_cost_per_hour, out=_workspace.array("build", shape))
        build_monthly += idle_cost  # the energy cost
        build_monthly += fixed_build_monthly
        build_monthly[0] = capex
        if past_horizon is not None:
            build_monthly[past_horizon] = 0.0

        build_capacity = b_count * b_tput
        capacity_ratio = build_capacity / (r_count * r_tput)
        rent_per_busy_hour = capacity_ratio * hourly
        # The rent's monthly cost takes over the busy hours' buffer: three
        # (M, N) scratch arrays instead of four leave more of the cache to
        # the next batch's models.
        rent_monthly = np.multiply(busy, rent_per_busy_hour, out=busy)
        growth_log: Array | None = None
        if np.logical_or.reduce(change != 0.0):
            # rate[m] / hourly_rate = (1 + g)^((m − 1) / 12), as exp for speed.
            growth_log = np.log1p(change)
            growth = np.multiply.outer(
                _years_since_month_1(m_count), growth_log, out=_workspace.array("scratch", shape)
            )
            np.exp(growth, out=growth)
            rent_monthly *= growth  # the compute cost
            growth[0] = 0.0
            if past_horizon is not None:
                growth[past_horizon] = 0.0
            rate_sum = hourly * np.add.reduce(growth, axis=0)
        else:
            rate_sum = hourly * h
        rent_monthly += fixed
        rent_monthly[0] = 0.0
        if past_horizon is not None:
            rent_monthly[past_horizon] = 0.0

        resale = capex * retention ** (h / 12.0)

        # Present values: f[m] = (1 + d)^(−m/12); one column when d is shared.
        if np.logical_and.reduce(discount == discount[0]):
            factor_1d = _discount_factors(float(discount[0]), m_count)
            build_pv = factor_1d @ build_monthly - resale * factor_1d[horizon]
            rent_pv = factor_1d @ rent_monthly
        else:
            factor = np.multiply.outer(
                _month_column(m_count)[:, 0] / -12.0,
                np.log1p(discount),
                out=_workspace.array("scratch", shape),
            )
            np.exp(factor, out=factor)
            cols = np.arange(n)
            build_pv = np.einsum("mn,mn->n", build_monthly, factor) - resale * factor[horizon, cols]
            rent_pv = np.einsum("mn,mn->n", rent_monthly, factor)

        # The monthly totals' buffers become the running sums, then their difference.
        build_cumulative = _running_sum(build_monthly, out=build_monthly)
        rent_cumulative = _running_sum(rent_monthly, out=rent_monthly)
        if uniform_horizon:
            build_total = build_cumulative[-1].copy()
            rent_total = rent_cumulative[-1].copy()
        else:
            last = horizon * n + np.arange(n)
            build_total = build_cumulative.take(last)
            rent_total = rent_cumulative.take(last)
        build_total_net = build_total - resale
        savings = rent_total - build_total_net
        difference = np.subtract(build_cumulative, rent_cumulative, out=build_cumulative)
        be_month = break_even_month(difference, in_horizon)

        work = busy_hours * build_capacity
        has_work = work > 0
        build_per_hour = np.where(has_work, build_total_net / work, np.nan)
        rent_per_hour = np.where(has_work, rent_total / work, np.nan)

        # savings(u) = s0 + s1 × u for a steady workload u, all else unchanged;
        # s1 = 0 gives ±inf or NaN, outside [0, 1], so null.
        s0 = h * fixed - (capex + h * (fixed_build_monthly + idle_cost) - resale)
        s1 = HOURS_PER_MONTH * (capacity_ratio * rate_sum - h * busy_cost_per_hour)
        u_star = -s0 / s1
        be_util = np.where((u_star >= 0) & (u_star <= 1), u_star, np.nan)

        figures = {
            "build_total": build_total,
            "rent_total": rent_total,
            "savings": savings,
            "build_present_value": build_pv,
            "rent_present_value": rent_pv,
            "work_reference_gpu_hours": work,
            "build_cost_per_reference_gpu_hour": build_per_hour,
            "rent_cost_per_reference_gpu_hour": rent_per_hour,
            "break_even_month": be_month,
            "resale_value": resale,
            "build_total_net": build_total_net,
            "break_even_utilization": be_util,
        }
        headline = np.array([figures[name] for name in HEADLINE])
        # Totals, savings, present values and work must be finite; the figures
        # that may be null (NaN) must not be infinite.
        overflow = np.logical_or.reduce(np.isinf(headline), axis=0)
        overflow |= np.logical_or.reduce(np.isnan(headline[:_MUST_BE_FINITE]), axis=0)
    if np.logical_or.reduce(overflow):
        raise ProjectionOverflowError(np.flatnonzero(overflow).tolist())

    monthly_rows = MonthlyRows(
        busy=hours,
        busy_cost_per_hour=busy_cost_per_hour,
        idle_cost=idle_cost,
        rent_per_busy_hour=rent_per_busy_hour,
        growth_log=growth_log,
        hosting=hosting,
        maintenance=maintenance,
        ops=ops,
        fixed_build_monthly=fixed_build_monthly,
        rent_fixed=fixed,
        capex=capex,
        horizon=horizon,
        months=m_count,
    )
    return Projection(
        scenarios=scenarios,
        horizon=horizon,
        busy=hours,
        monthly_rows=monthly_rows,
        headline=headline,
    )


def compare(scenario: Scenario) -> dict[str, Any]:
    """Evaluate one scenario and return the methodology's result JSON (a dict)."""
    return project([scenario]).result(0)
