"""The methodology, formula by formula, on columns: month-by-month build and rent costs.

:func:`project_columns` computes every monthly series and headline figure of
N scenarios at once on arrays of shape (N, M), months ``m = 0..M−1`` along
the second axis (``M = max(H) + 1``). Months after a scenario's own horizon
hold zeros and are cut off when its result is read. Each block below is one
formula of ``docs/methodology.md``; names are the methodology's.

:func:`project` and :func:`compare` are the entry points for validated
:class:`~costmodel.scenario.Scenario` objects.

Examples
--------
>>> result = compare(scenario)  # doctest: +SKIP
>>> round(result["break_even_month"], 4)  # doctest: +SKIP
2.6717
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from costmodel.columns import (
    Array,
    Columns,
    ProjectionOverflowError,
    columns_from,
    running_months,
    steady_demand,
)
from costmodel.line_costs import (
    as_column,
    box_number,
    capex_of_box,
    commitment_costs,
    fee_costs,
    financing_costs,
    life_months,
    offload_instance_hours,
    power,
    rent_hours_per_box_hour,
    replacement_costs,
)
from costmodel.lines import SideName, fees_of, lines_of
from costmodel.results import (
    BUILD_FIGURES,
    BUILD_SERIES,
    HEADLINE,
    NULLABLE,
    RENT_FIGURES,
    RENT_SERIES,
)
from costmodel.scenario import HOURS_PER_MONTH, JobsWorkload, Scenario, placements

__all__ = [
    "Projection",
    "ProjectionOverflowError",
    "break_even_month",
    "break_even_utilization",
    "compare",
    "job_times",
    "project",
    "project_columns",
]


class Side(dict[str, Array]):
    """The arrays of one side (build or rent) under the result schema's names.

    Monthly series have shape (N, M), figures shape (N,); ``side.total`` reads
    ``side["total"]``.
    """

    def __getattr__(self, name: str) -> Array:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


@dataclass(frozen=True, eq=False)
class Projection:
    """Monthly series and headline figures of N scenarios (see :mod:`costmodel.results`).

    Headline figures are arrays of shape (N,) with NaN where the methodology
    says null. :meth:`result` gives one scenario's result JSON.
    """

    horizon_months: npt.NDArray[np.int64]
    build: Side
    rent: Side
    break_even_month: Array
    break_even_utilization: Array
    savings: Array
    present_value_savings: Array
    work_reference_gpu_hours: Array
    scenarios: tuple[Scenario, ...] | None = None
    present_value_break_even_utilization: Array | None = None
    """The steady utilization at which present-value savings are zero [fraction], NaN where
    none in [0, 1]; computed with :attr:`break_even_utilization` (None otherwise). Not a field
    of the result JSON: the decision's conditions read it (:mod:`costmodel.sensitivity`)."""

    def __len__(self) -> int:
        return len(self.horizon_months)

    def summary(self, i: int) -> dict[str, Any]:
        """Headline figures of scenario ``i`` in the shape of :class:`costmodel.results.Summary`."""
        return {
            **{name: _figure(name, getattr(self, name)[i]) for name in HEADLINE},
            "build": {name: _figure(name, self.build[name][i]) for name in BUILD_FIGURES},
            "rent": {name: _figure(name, self.rent[name][i]) for name in RENT_FIGURES},
        }

    def summaries(self) -> list[dict[str, Any]]:
        """:meth:`summary` of every scenario, each figure read as one list (fast for a batch)."""

        def rows(arrays: Any, names: tuple[str, ...]) -> list[dict[str, float | None]]:
            columns = [_figures(name, arrays[name]) for name in names]
            return [dict(zip(names, row, strict=True)) for row in zip(*columns, strict=True)]

        top = rows({name: getattr(self, name) for name in HEADLINE}, HEADLINE)
        build, rent = rows(self.build, BUILD_FIGURES), rows(self.rent, RENT_FIGURES)
        return [
            {**figures, "build": b, "rent": r}
            for figures, b, r in zip(top, build, rent, strict=True)
        ]

    def result(self, i: int) -> dict[str, Any]:
        """Scenario ``i``'s result JSON (:class:`~costmodel.results.CompareResult`)."""
        if self.scenarios is None:
            raise ValueError("a projection made from columns has no scenarios to echo")
        return self.result_of(i, self.scenarios[i])

    def result_of(self, i: int, scenario: Scenario) -> dict[str, Any]:
        """Row ``i``'s result JSON, echoing ``scenario``: the scenario row ``i`` was made
        from (a projection made from columns holds none)."""
        months = int(self.horizon_months[i]) + 1

        def side(arrays: Side, series: tuple[str, ...], figures: tuple[str, ...]) -> dict[str, Any]:
            return {
                **{name: arrays[name][i, :months].tolist() for name in series},
                **{name: _figure(name, arrays[name][i]) for name in figures},
            }

        result: dict[str, Any] = {
            "scenario": scenario.model_dump(mode="json"),
            "months": list(range(months)),
            "build": side(self.build, BUILD_SERIES, BUILD_FIGURES),
            "rent": side(self.rent, RENT_SERIES, RENT_FIGURES),
            **{name: _figure(name, getattr(self, name)[i]) for name in HEADLINE},
        }
        if isinstance(scenario.workload, JobsWorkload):
            result["jobs"] = job_times(scenario)
        return result

    def results(self) -> list[dict[str, Any]]:
        return [self.result(i) for i in range(len(self))]


def job_times(scenario: Scenario) -> list[dict[str, Any]]:
    """Time of one run of each job of a jobs workload, on the box and rented.

    Returns
    -------
    list of dict
        ``name``; ``build_hours_per_run`` [h], wall hours on one box (None for a
        job the box cannot hold); ``rent_instance_hours_per_run`` [instance-h];
        ``placement``: ``box`` or ``rent`` (:func:`costmodel.scenario.placements`).

    Notes
    -----
    With ``W`` the job's reference GPU-hours per run::

        build_hours_per_run         = W / (build.gpu_count × build.gpu_throughput)
        rent_instance_hours_per_run = W / (rent.gpu_count × rent.gpu_throughput)
                                      × (1 + rework_fraction)
    """
    workload = scenario.workload
    if not isinstance(workload, JobsWorkload):
        raise ValueError("only a jobs workload has jobs")
    b, r = scenario.build, scenario.rent
    hours = np.array([job.reference_gpu_hours for job in workload.jobs])
    with np.errstate(over="ignore"):  # inf where a throughput is tiny: refused by project()
        build_hours = hours / (np.float64(b.gpu_count) * b.gpu_throughput)
        rent_hours = hours / (np.float64(r.gpu_count) * r.gpu_throughput) * (1 + r.rework_fraction)
    return [
        {
            "name": job.name,
            "build_hours_per_run": bh if where == "box" else None,
            "rent_instance_hours_per_run": rh,
            "placement": where,
        }
        for job, bh, rh, where in zip(
            workload.jobs,
            build_hours.tolist(),
            rent_hours.tolist(),
            placements(scenario),
            strict=True,
        )
    ]


def _figures(name: str, values: Array) -> list[float | None]:
    """A figure of every scenario as JSON values: floats, None for null (NaN)."""
    if name in NULLABLE:
        return [None if v != v else v for v in values.tolist()]
    return list(values.tolist())


def _figure(name: str, value: np.float64) -> float | None:
    """A figure as JSON: a float, or None for the methodology's null (NaN here)."""
    number = float(value)
    if number != number:
        assert name in NULLABLE, name
        return None
    return number


def break_even_month(
    build_cumulative: Array, rent_cumulative: Array, horizon: npt.NDArray[np.int64]
) -> Array:
    """First month in which building has cost no more cash than renting, interpolated [months].

    Parameters
    ----------
    build_cumulative, rent_cumulative : ndarray, shape (N, M)
        Running sums of the monthly costs [currency].
    horizon : ndarray, shape (N,)
        H of each scenario [months].

    Returns
    -------
    ndarray, shape (N,)
        NaN where it does not pay back within the horizon.

    Notes
    -----
    With ``diff = build_cum − rent_cum``: 0 if ``diff[0] ≤ 0``; else, for the
    first ``m`` with ``diff[m] ≤ 0``, ``(m − 1) + diff[m−1] / (diff[m−1] − diff[m])``.
    """
    with np.errstate(invalid="ignore"):  # inf − inf where inputs overflow: refused later
        diff = build_cumulative - rent_cumulative
    months = np.arange(diff.shape[1])
    qualifies = (diff <= 0.0) & (months <= horizon[:, None])
    rows = np.arange(diff.shape[0])
    first = qualifies.argmax(axis=1)
    found = qualifies[rows, first]
    before = diff[rows, np.maximum(first - 1, 0)]
    at = diff[rows, first]
    with np.errstate(divide="ignore", invalid="ignore"):
        inside = (first - 1) + before / (before - at)
    return np.where(found, np.where(first == 0, 0.0, inside), np.nan)


def project_columns(
    c: Columns,
    *,
    with_break_even_utilization: bool = True,
    with_present_value_break_even: bool = False,
) -> Projection:
    """Project build and rent costs month by month for the N scenarios of ``c``.

    Parameters
    ----------
    c : Columns
        N scenarios as columns (:func:`costmodel.columns.columns_from`).
    with_break_even_utilization : bool
        Also solve the break-even utilization (three more evaluations per
        scenario); NaN when false.
    with_present_value_break_even : bool
        Also solve the steady utilization at which present-value savings are zero
        (:attr:`Projection.present_value_break_even_utilization`; None when false).

    Returns
    -------
    Projection

    Raises
    ------
    ProjectionOverflowError
        If inputs are so large that a figure is not a finite number.

    Notes
    -----
    For months ``m = 1..H`` (``u`` = demand in box-hours, 730 h a month)::

        busy          = min(demand, 730)                                        [h]
        esc           = (1 + running_cost_annual_change)^((m − 1)/12)
        energy        = (P_load·busy + P_idle·(730 − busy)) / 1000 · pue · price · esc
        fees          = monthly fee · esc (hosting, ops, …: every build-side fee of
                        costmodel.lines); rent.fixed = fixed_monthly, not escalated
        box(m)        = floor((m − 1) / L);  capex_j = capex · (1 + capex change)^(j·L/12)
        maintenance   = capex_box(m) · maintenance rate / 12
        replacement   = capex_j − capex_(j−1) · r^(L/12)   at m = j·L < H
        rate          = hourly_rate · (1 + annual_price_change)^((m − 1)/12)  [currency/h]
        capacity_ratio= (n_b · t_b) / (n_r · t_r)
        burst         = (demand − busy) · capacity_ratio · (1 + rework) · rate
        offload       = offload_work / (n_r · t_r) · (1 + rework) · rate   (jobs the box
                        cannot hold, rented by the build plan; version 4)
        financing     = level payments for months 1..min(n, H), any balance at H
        rent_hours    = (demand · capacity_ratio + offload_work / (n_r · t_r)) · (1 + rework)
                                                                                [instance-h]
        compute       = max(rent_hours − committed_instances · 730, 0) · rate
        committed     = committed hours · committed rate · price of the term, every month,
                        plus upfront fees when a term starts and the rest of a started term at H
        monthly       = Σ the side's cost lines (costmodel.lines)

    Month 0 holds the capex (or its down payment) and the first term's upfront fee.
    """
    parts = []
    # Overflow and 0/0 from extreme inputs are let through as inf/NaN and refused below.
    with np.errstate(all="ignore"):
        for rows in chunks(len(c), c.months):
            chunk = c if rows == slice(0, len(c)) else c.rows(rows)
            parts.append(
                monthly_projection(
                    chunk, with_break_even_utilization, with_present_value_break_even
                )
            )
    projection = parts[0] if len(parts) == 1 else _joined(parts)
    _refuse_overflow(projection)
    return projection


CHUNK_CELLS = 1 << 15
"""Scenario-months projected at a time (about 0.25 MB per monthly array).

Most steps of a projection are memory-bound: on arrays that stay in the
processor's cache they run several times faster than on arrays that do not.
Measured on this project's 2-core VM (``benchmarks/engine.py``): 10 000
draws of a 60-month scenario took 83 ms of CPU in chunks of 2^16 cells
against 126 ms in chunks of 2^20 and 98 ms in chunks of 2^14, where the
per-chunk overhead starts to show. Measured again on 2026-12-07 (CPU time,
medians, the two sizes taking turns): chunks of 2^15 cells against 2^16 took
38 against 46 ms for a 36-month Monte Carlo of 10 000 draws, 16.6 against
22.8 ms for a 12-month one, the same for 60 to 240 months, and 128 against
196 ms for 10 000 60-month scenarios with their break-even utilization (whose
three steady utilizations triple the cells). The figures do not depend on the
chunks: each row is projected on its own.
"""


def chunks(count: int, months: int) -> list[slice]:
    """Consecutive row ranges of about :data:`CHUNK_CELLS` scenario-months each."""
    step = max(1, CHUNK_CELLS // months)
    return [slice(start, min(start + step, count)) for start in range(0, count, step)]


def _joined(parts: list[Projection]) -> Projection:
    """One projection of the rows of ``parts``, in order."""

    def side(name: str) -> Side:
        sides: list[Side] = [getattr(p, name) for p in parts]
        return Side({key: np.concatenate([s[key] for s in sides]) for key in sides[0]})

    def joined(name: str) -> Any:
        return np.concatenate([getattr(p, name) for p in parts])

    return Projection(
        horizon_months=joined("horizon_months"),
        build=side("build"),
        rent=side("rent"),
        break_even_month=joined("break_even_month"),
        break_even_utilization=joined("break_even_utilization"),
        savings=joined("savings"),
        present_value_savings=joined("present_value_savings"),
        work_reference_gpu_hours=joined("work_reference_gpu_hours"),
        present_value_break_even_utilization=(
            None
            if parts[0].present_value_break_even_utilization is None
            else joined("present_value_break_even_utilization")
        ),
    )


def _on_rows(rows: npt.NDArray[np.bool_], costs: Any, c: Columns) -> Array:
    """``costs(c)`` computed only for the scenarios where ``rows`` is true; 0 elsewhere.

    Commitments, replacements and loans are the exception, not the rule:
    most scenarios of a batch have none, and their months cost nothing: where no
    scenario has any, the line is :func:`no_cost`.
    """
    chosen = np.flatnonzero(rows)
    if chosen.size == len(c):
        return np.asarray(costs(c))
    if not chosen.size:
        return no_cost(c.demand.shape)
    out = np.zeros(c.demand.shape)
    out[chosen] = costs(c.take(chosen))
    return out


def no_cost(shape: tuple[int, ...]) -> Array:
    """A line that costs nothing in any month: one read-only 0 for every scenario-month.

    A fresh array of zeros is allocated and cleared, then read by every sum it
    enters; for a chunk of a Monte Carlo (~0.5 MB) that is several times the cost
    of an addition, for each such line (most scenarios rent no job, take no loan,
    replace no box and commit to no instance).
    """
    zero: Array = np.broadcast_to(0.0, shape)
    return zero


def monthly_projection(
    c: Columns,
    with_break_even_utilization: bool = False,
    with_present_value_break_even: bool = False,
) -> Projection:
    """Every series and figure of :func:`project_columns` for one chunk of rows.

    Unchecked: a figure may be infinite or NaN where inputs overflow float64.
    The break-even utilization is NaN unless asked for.
    """
    b, r = c.build, c.rent
    horizon = c.horizon_months
    H = horizon[:, None]
    m = np.arange(c.months)  # month numbers, as integers
    running = running_months(horizon, c.months)  # months 1..H
    rows = np.arange(len(c))
    col = as_column

    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        # --- prices over time ---
        # e[m]: running costs follow their yearly change; 0 outside months 1..H
        escalation = power(1.0 + b.running_cost_annual_change, (m - 1) / 12.0)
        escalation = np.where(running, escalation, 0.0)
        rate = col(r.hourly_rate) * power(1.0 + r.annual_price_change, (m - 1) / 12.0)
        instance_hours_per_box_hour = col(rent_hours_per_box_hour(c))
        committed_hours = col(r.committed_instances * HOURS_PER_MONTH)
        load, idle = col(b.power_load_watts), col(b.power_idle_watts)  # [W]
        pue, tariff = col(b.pue), col(b.electricity_price_per_kwh)  # [-], [currency/kWh]

        # --- the lines that follow the work wanted: energy, burst, on-demand compute ---
        def demand_lines(
            demand: Array, offload_hours: Array | float = 0.0
        ) -> tuple[Array, Array, Array]:
            """Energy, burst and on-demand compute [currency/month] for a demand matrix [h]
            and the instance-hours of the jobs the box cannot hold."""
            busy = np.minimum(demand, HOURS_PER_MONTH)  # [h]
            energy_kwh = (load * busy + idle * (HOURS_PER_MONTH - busy)) / 1000.0 * pue
            energy = energy_kwh * tariff * escalation
            burst = np.where(running, (demand - busy) * instance_hours_per_box_hour * rate, 0.0)
            rent_hours = demand * instance_hours_per_box_hour + offload_hours  # [instance-h]
            on_demand = np.maximum(rent_hours - committed_hours, 0.0)
            return energy, burst, np.where(running, on_demand * rate, 0.0)

        demand = c.demand  # [box-h]
        offload_hours = offload_instance_hours(c)  # [instance-h]
        if offload_hours is None:
            offload = no_cost(demand.shape)
            energy, burst, compute = demand_lines(demand)
        else:
            offload = np.where(running, offload_hours * rate, 0.0)
            energy, burst, compute = demand_lines(demand, offload_hours)

        # --- the fixed monthly fees of both sides (hosting, administration, fixed fees …) ---
        fees = {
            line.key: fee_costs(c, line, escalation, running)
            for side in ("build", "rent")
            for line in fees_of(side)
        }

        # --- the build: the box in service, its replacements, its value, its loan ---
        life = life_months(c)
        maintenance = np.where(
            running,
            capex_of_box(c, box_number(m - 1, life)) * col(b.maintenance_rate_per_year) / 12.0,
            0.0,
        )
        replacement = _on_rows(life[:, 0] < horizon, replacement_costs, c)
        # the box that would be sold at the end of month m
        k = box_number(np.minimum(m, H - 1), life)
        years_held = (m - k * life) / 12.0  # since that box was bought
        kept = power(b.residual_value_retention_per_year, years_held)  # r^(years held)
        value_if_sold = np.where(m <= H, capex_of_box(c, k) * kept, 0.0)
        resale_value = value_if_sold[rows, horizon]
        financing = _on_rows(b.financing.term_months > 0, financing_costs, c)

        # --- the rent side ---
        committed = _on_rows(r.committed_instances > 0, commitment_costs, c)

        # --- each side's month: the sum of its cost lines ---
        lines = {
            **fees,
            "energy": energy,
            "maintenance": maintenance,
            "burst": burst,
            "offload": offload,
            "replacement": replacement,
            "financing": financing,
            "compute": compute,
            "committed": committed,
        }
        build_lines, rent_lines = side_lines(lines, "build"), side_lines(lines, "rent")
        build_monthly = sum_of(build_lines)
        build_monthly[:, 0] = b.capex * b.financing.down_payment_fraction
        rent_monthly = sum_of(rent_lines)

        # --- headline figures ---
        build_cumulative = np.cumsum(build_monthly, axis=1)
        rent_cumulative = np.cumsum(rent_monthly, axis=1)
        build_total = build_cumulative[rows, horizon]
        rent_total = rent_cumulative[rows, horizon]
        build_total_net = build_total - resale_value
        savings = rent_total - build_total_net

        discount = np.where(m <= H, power(1.0 + c.discount_rate_per_year, -m / 12.0), 0.0)
        build_present_value = (build_monthly * discount).sum(axis=1) - resale_value * discount[
            rows, horizon
        ]
        rent_present_value = (rent_monthly * discount).sum(axis=1)

        work = demand.sum(axis=1) * b.gpu_count * b.gpu_throughput  # [reference GPU-h]
        if c.offload_work is not None:
            work = work + c.offload_work.sum(axis=1)
        build_cost_per_hour = np.where(work > 0, build_total_net / work, np.nan)
        rent_cost_per_hour = np.where(work > 0, rent_total / work, np.nan)

        def savings_at(utilization: Array, discounted: bool = False) -> Array:
            """Savings with steady work at ``utilization``, all else as is: shape (K, N)
            for K utilizations of each scenario, ``utilization`` of shape (K, N).

            Notes
            -----
            The methodology's "savings of the scenario with a steady workload
            u", computed on the assumption (true of every formula above) that
            only four lines depend on the work wanted: energy (through busy
            hours), burst, offload and on-demand compute. Every other line —
            capex, hosting, maintenance, ops, replacements, financing, resale,
            commitments, fixed fees — is the same at any u, and steady work
            has no rented jobs (no offload), so::

                savings(u) = savings + Σ_m (compute(u) − compute)
                                     − Σ_m (energy(u) − energy + burst(u) − burst − offload)

            tests/costmodel/test_properties.py checks it against the full projection
            of the steady scenario (savings at the break-even utilization are zero).

            ``discounted``: present-value savings instead, each month's change weighed by
            its discount factor ``f[m]`` (the same four lines, the same argument).
            """
            e, bu, cp = demand_lines(steady_demand(utilization, horizon, c.months))
            f = discount if discounted else 1.0
            more_rent = (cp * f).sum(axis=-1) - (compute * f).sum(axis=1)
            more_build = (
                (e * f).sum(axis=-1)
                - (energy * f).sum(axis=1)
                + (bu * f).sum(axis=-1)
                - (burst * f).sum(axis=1)
                - (offload * f).sum(axis=1)
            )
            base = rent_present_value - build_present_value if discounted else savings
            changed: Array = base + more_rent - more_build
            return changed

        break_even_u = (
            break_even_utilization(c, savings_at)
            if with_break_even_utilization
            else np.full(len(c), np.nan)
        )
        present_value_break_even_u = (
            break_even_utilization(c, lambda u: savings_at(u, discounted=True))
            if with_present_value_break_even
            else None
        )

    return Projection(
        horizon_months=horizon,
        build=Side(
            monthly=build_monthly,
            cumulative=build_cumulative,
            **build_lines,
            value_if_sold=value_if_sold,
            total=build_total,
            resale_value=resale_value,
            total_net=build_total_net,
            present_value=build_present_value,
            cost_per_reference_gpu_hour=build_cost_per_hour,
        ),
        rent=Side(
            monthly=rent_monthly,
            cumulative=rent_cumulative,
            **rent_lines,
            total=rent_total,
            present_value=rent_present_value,
            cost_per_reference_gpu_hour=rent_cost_per_hour,
        ),
        break_even_month=break_even_month(build_cumulative, rent_cumulative, horizon),
        break_even_utilization=break_even_u,
        savings=savings,
        present_value_savings=rent_present_value - build_present_value,
        work_reference_gpu_hours=work,
        present_value_break_even_utilization=present_value_break_even_u,
    )


def side_lines(lines: dict[str, Array], side: SideName) -> dict[str, Array]:
    """The cost lines of one side, in the order of :mod:`costmodel.lines`.

    Raises
    ------
    KeyError
        Naming a declared line that the projection does not compute.
    """
    missing = [line.key for line in lines_of(side) if line.key not in lines]
    if missing:
        raise KeyError(f"cost lines without a formula in the projection: {missing}")
    return {line.key: lines[line.key] for line in lines_of(side)}


def sum_of(lines: dict[str, Array]) -> Array:
    """The month's cost of one side: the sum of its lines [currency/month], a new array."""
    first, *rest = lines.values()
    total = first.copy()
    for values in rest:
        total += values
    return total


def _refuse_overflow(p: Projection) -> None:
    """Raise :class:`ProjectionOverflowError` naming every scenario with a non-finite figure.

    Figures that may be null (NaN) must still not be infinite.
    """
    figures = [
        *((name, getattr(p, name)) for name in HEADLINE),
        *((name, p.build[name]) for name in BUILD_FIGURES),
        *((name, p.rent[name]) for name in RENT_FIGURES),
    ]
    bad = np.zeros(len(p), dtype=bool)
    for name, values in figures:
        bad |= np.isinf(values) if name in NULLABLE else ~np.isfinite(values)
    if bad.any():
        raise ProjectionOverflowError(np.flatnonzero(bad).tolist())


def break_even_utilization(c: Columns, savings_at: Callable[[Array], Array]) -> Array:
    """The first steady utilization in [0, 1] at which savings are zero [fraction]; NaN if none.

    Parameters
    ----------
    c : Columns
    savings_at : callable
        Savings of each scenario with steady work at K utilizations (an array
        of shape (K, N)), everything else unchanged: shape (K, N)
        (:func:`monthly_projection`'s).

    Notes
    -----
    With steady work ``u`` the box never bursts, and savings are linear in
    ``u`` except for one kink where the rent side's instance-hours reach the
    committed hours, at ``u_k = committed_instances / (capacity_ratio ·
    (1 + rework_fraction))`` when ``0 < u_k < 1``. Savings are evaluated at
    ``0``, ``u_k`` and ``1`` (``u_k = 1`` where there is no kink: an empty
    second segment). Walking the segments ``[a, b]`` from 0, the answer is the
    first zero: ``a`` if ``s(a) = 0``, else ``a + (b − a) · s(a) / (s(a) − s(b))``
    where ``s(b)`` is zero or of the other sign; segments with ``s(a) = s(b)``
    have none.
    """
    n = len(c)
    kink = c.rent.committed_instances / rent_hours_per_box_hour(c)
    kink = np.where((kink > 0.0) & (kink < 1.0), kink, 1.0)
    s0, sk, s1 = savings_at(np.stack([np.zeros(n), kink, np.ones(n)]))  # in one evaluation

    def segment_zero(a: Array, b_: Array, sa: Array, sb: Array) -> Array:
        crosses = (sa != sb) & ((sa == 0.0) | (sb == 0.0) | (np.sign(sa) != np.sign(sb)))
        with np.errstate(divide="ignore", invalid="ignore"):
            inside = a + (b_ - a) * sa / (sa - sb)
        return np.where(crosses, np.where(sa == 0.0, a, inside), np.nan)

    first = segment_zero(np.zeros(n), kink, s0, sk)
    second = segment_zero(kink, np.ones(n), sk, s1)
    return np.where(np.isnan(first), second, first)


def project(
    scenarios: Sequence[Scenario], *, with_present_value_break_even: bool = False
) -> Projection:
    """Project every scenario at once; the :class:`Projection` echoes them in its results.
    ``with_present_value_break_even``: also the utilization at which each scenario's
    present-value savings are zero (:func:`project_columns`).

    Raises
    ------
    ProjectionOverflowError
        If inputs are so large that a figure is not a finite number.
    ValueError
        If ``scenarios`` is empty.
    """
    scenarios = tuple(scenarios)
    projection = project_columns(
        columns_from(scenarios), with_present_value_break_even=with_present_value_break_even
    )
    refuse_endless_jobs(scenarios)
    return dataclasses.replace(projection, scenarios=scenarios)


def refuse_endless_jobs(scenarios: Sequence[Scenario]) -> None:
    """Raise :class:`ProjectionOverflowError` naming every jobs scenario whose time of one run
    is not a finite number (a throughput so small that a run never ends)."""
    bad = [
        i
        for i, s in enumerate(scenarios)
        if isinstance(s.workload, JobsWorkload)
        and not all(
            (job["build_hours_per_run"] is None or math.isfinite(job["build_hours_per_run"]))
            and math.isfinite(job["rent_instance_hours_per_run"])
            for job in job_times(s)
        )
    ]
    if bad:
        raise ProjectionOverflowError(bad)


def compare(scenario: Scenario) -> dict[str, Any]:
    """Evaluate one scenario and return the methodology's result JSON (a dict)."""
    return project([scenario]).result(0)
