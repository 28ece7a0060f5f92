"""The cost lines' own formulas, each on columns of N scenarios × M months.

Each function is one formula of ``docs/methodology.md`` for one cost line or
one quantity several lines share (the instance-hours renting needs, a loan's
payment, a price growing by a yearly rate): the box's replacements at the end
of its life, the loan, the commitment, the rented jobs (``offload``), and the
fixed monthly fees the cost-line registry declares (:mod:`costmodel.lines`).
:func:`costmodel.projection.monthly_projection` assembles the months from them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from costmodel.columns import Array, Columns
from costmodel.lines import Line
from costmodel.scenario import HOURS_PER_MONTH


def power(base: Array, exponent: npt.ArrayLike) -> Array:
    """``base^exponent`` [-] with one base per scenario: growth and decay over time.

    Parameters
    ----------
    base : ndarray, shape (N,)
        ``1 + yearly change`` of a price, or the share of value kept per year.
    exponent : array_like, shape (M,) or (N, M)
        Years, the same for every scenario or one row per scenario.

    Returns
    -------
    ndarray, shape (N, M)

    Notes
    -----
    A plain ``base ** exponent``, as the methodology writes it (``0^0 = 1``:
    a box that keeps no value is worth its price at month 0). Where every
    scenario has the same base and the exponent is the same for all (the draws
    of a Monte Carlo that does not draw this rate), the one row is computed
    once and shared, read-only: the same numbers, a pow per month instead of
    one per scenario-month (the slowest step of a projection, ~30 additions).
    ``exp(e · log b)`` measured 229 ms against 234 ms for this at 100 000 draws:
    not worth a formula a reader must reverse.
    """
    bases = np.asarray(base, dtype=np.float64)
    exponents = np.asarray(exponent, dtype=np.float64)
    if exponents.ndim == 1 and bases.size > 1 and (bases == bases[0]).all():
        return np.broadcast_to(bases[0] ** exponents, (bases.size, exponents.size))
    result: Array = bases[:, None] ** exponents
    return result


def loan_payment(principal: Array, annual_interest_rate: Array, term_months: Array) -> Array:
    """Level monthly payment of a loan [currency/month].

    ``pmt = P × i / (1 − (1 + i)^(−n))`` with ``i = annual_interest_rate / 12``;
    ``P / n`` when ``i = 0`` (numpy-financial's ``pmt`` with the sign turned:
    a payment is a cost here). 0 when ``n = 0`` (no loan). The denominator is
    evaluated as ``−expm1(−n · log1p(i))`` so that a rate close to 0 tends to
    ``P / n`` instead of dividing by a difference that rounds to 0.
    """
    i = annual_interest_rate / 12.0
    n = np.maximum(term_months, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        annuity = principal * i / -np.expm1(-n * np.log1p(i))
    payment = np.where(i == 0.0, principal / n, annuity)
    return np.where(term_months > 0, payment, 0.0)


def replacement_costs(c: Columns) -> Array:
    """Replacements of a box at the end of its useful life [currency/month], shape (N, M).

    ``replacement[m] = capex_j − capex_(j−1) · r^(L/12)`` at ``m = j·L < H``
    (``j ≥ 1``): the new box's price less what the old one fetches. A
    replacement due exactly at month H does not happen. Computed on the few
    months a replacement falls on.
    """
    b, m, H = c.build, np.arange(c.months), c.horizon_months[:, None]
    life = life_months(c)
    rows, months = np.nonzero((m % life == 0) & (m >= life) & (m < H))
    L = life[rows, 0]
    j = months // L
    growth = 1.0 + b.capex_annual_price_change[rows]
    retention = b.residual_value_retention_per_year[rows]
    new_box = b.capex[rows] * growth ** (j * L / 12.0)
    old_box = b.capex[rows] * growth ** ((j - 1) * L / 12.0) * retention ** (L / 12.0)
    replacement = np.zeros(c.demand.shape)
    replacement[rows, months] = new_box - old_box
    return replacement


def financing_costs(c: Columns) -> Array:
    """Loan payments for the first box [currency/month], shape (N, M).

    ``pmt`` (:func:`loan_payment`) in months ``1..min(n, H)``; if the loan
    runs past the horizon, the balance still owed, ``P·(1 + i)^H −
    pmt·((1 + i)^H − 1)/i`` (``P − pmt·H`` when ``i = 0``), is paid at month H.
    """
    b, m, H = c.build, np.arange(c.months), c.horizon_months[:, None]
    loan = b.financing
    principal = b.capex * (1.0 - loan.down_payment_fraction)
    payment = loan_payment(principal, loan.annual_interest_rate, loan.term_months)
    n = as_column(loan.term_months)
    i = loan.annual_interest_rate / 12.0
    h = c.horizon_months
    growth_minus_1 = np.expm1(h * np.log1p(i))  # (1 + i)^H − 1, exact for small i
    balance = np.where(
        i == 0.0,
        principal - payment * h,
        principal * (1.0 + growth_minus_1) - payment * growth_minus_1 / i,
    )
    payments = np.where((m >= 1) & (m <= np.minimum(n, H)), as_column(payment), 0.0)
    return payments + np.where((m == H) & (n > H), as_column(balance), 0.0)


def commitment_costs(c: Columns) -> Array:
    """What reserved instances cost, used or not [currency/month], shape (N, M).

    With ``C = committed_instances · 730`` committed instance-hours a month,
    terms ``j = 0 … ceil(H/T) − 1`` of T months and their price factor
    ``p_j = (1 + annual_price_change)^(j·T/12)``::

        committed[m]   = C · committed_hourly_rate · p_j(m)      months 1..H
        committed[j·T] += committed_instances · upfront · p_j    when term j starts (j·T < H)
        committed[H]   += (ceil(H/T)·T − H) · C · committed_hourly_rate · p_last
    """
    r, m, H = c.rent, np.arange(c.months), c.horizon_months[:, None]
    term = as_column(r.commitment_term_months.astype(np.int64))  # T [months]

    def term_price(j: npt.NDArray[Any]) -> Array:
        exponent = np.broadcast_to(j * term / 12.0, (len(c), c.months))
        return power(1.0 + r.annual_price_change, exponent)

    monthly_commitment = as_column(
        r.committed_instances * HOURS_PER_MONTH * r.committed_hourly_rate
    )
    committed = np.where((m >= 1) & (m <= H), monthly_commitment * term_price((m - 1) // term), 0.0)
    upfront = as_column(r.committed_instances * r.commitment_upfront_per_instance)
    committed += np.where((m % term == 0) & (m < H), upfront * term_price(m // term), 0.0)
    terms = -(-H // term)  # ceil(H / T): terms started within the horizon
    owed_months = terms * term - H  # the rest of the last, started term
    return committed + np.where(
        m == H, owed_months * monthly_commitment * term_price(terms - 1), 0.0
    )


def offload_instance_hours(c: Columns) -> Array | None:
    """Instance-hours of the jobs the box cannot hold, rented by the build plan [instance-h],
    shape (N, M); None when no row rents a job.

    Notes
    -----
    ``offload_work[m] / (rent.gpu_count × rent.gpu_throughput) × (1 + rework_fraction)``.
    """
    if c.offload_work is None:
        return None
    r = c.rent
    per_hour = (1.0 + r.rework_fraction) / (r.gpu_count * r.gpu_throughput)
    hours: Array = c.offload_work * per_hour[:, None]
    return hours


def rent_instance_hours(c: Columns) -> Array:
    """Instance-hours the rent side needs in each month [instance-h], shape (N, M).

    ``demand × capacity_ratio × (1 + rework_fraction)`` plus the rented jobs'
    instance-hours (:func:`offload_instance_hours`): renting does all the work.
    """
    hours: Array = c.demand * rent_hours_per_box_hour(c)[:, None]
    offload = offload_instance_hours(c)
    return hours if offload is None else hours + offload


def rent_hours_per_box_hour(c: Columns) -> Array:
    """Instance-hours the rent side needs for one box-hour of work [instance-h/h], shape (N,).

    Notes
    -----
    ``capacity_ratio × (1 + rework_fraction)`` with ``capacity_ratio =
    (build.gpu_count × build.gpu_throughput) / (rent.gpu_count × rent.gpu_throughput)``,
    so that ``rent_hours[m] = demand[m] × capacity_ratio × (1 + rework_fraction)``.
    """
    b, r = c.build, c.rent
    capacity_ratio = (b.gpu_count * b.gpu_throughput) / (r.gpu_count * r.gpu_throughput)
    ratio: Array = capacity_ratio * (1.0 + r.rework_fraction)
    return ratio


def as_column(values: Array) -> Array:
    """One scenario's input against all its months: shape (N,) → (N, 1)."""
    return values[:, None]


def life_months(c: Columns) -> npt.NDArray[np.int64]:
    """L [months], shape (N, 1): without a useful life the box serves the whole horizon."""
    life = c.build.useful_life_months
    return np.where(life > 0, life, c.horizon_months).astype(np.int64)[:, None]


def box_number(months: npt.NDArray[np.int64], life: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """``months // L``: the box (0 the first) at each month index, shape (N, M).

    ``months`` is (M,), the same for every scenario, or (N, M); ``life`` is
    :func:`life_months` (N, 1). Integer division is, after pow, the slowest step
    of a projection; where every scenario has the same life and the same months
    (the draws of a Monte Carlo), the one row is divided once and shared,
    read-only: the same numbers.
    """
    row = months if months.ndim == 1 else months[0]
    if (life == life[0]).all() and (months.ndim == 1 or (months == row).all()):
        return np.broadcast_to(row // life[0], (len(life), row.size))
    result: npt.NDArray[np.int64] = months // life
    return result


def capex_of_box(c: Columns, j: npt.NDArray[Any]) -> Array:
    """Price of the j-th box (j = 0 the first): ``capex · (1 + change)^(j·L/12)`` [currency]."""
    b = c.build
    shape = (len(c), c.months)
    if not b.capex_annual_price_change.any():  # no price trend: every box costs the capex
        return np.broadcast_to(as_column(b.capex), shape)
    exponent = np.broadcast_to(j * life_months(c) / 12.0, shape)
    return as_column(b.capex) * power(1.0 + b.capex_annual_price_change, exponent)


def fee_costs(c: Columns, line: Line, escalation: Array, running: npt.NDArray[np.bool_]) -> Array:
    """A fixed monthly fee's line [currency/month], shape (N, M) (:class:`costmodel.lines.Fee`).

    Notes
    -----
    ``line[m] = fee × e[m]`` in months 1..H, with ``e`` the running costs'
    escalation for a fee that escalates (hosting, administration …) and 1 for
    one that does not (the cloud's fixed fees); 0 at month 0 and after H.
    """
    assert line.fee is not None, line.key
    fee = as_column(c.fees[f"{line.side}.{line.fee.field}"])
    if line.fee.escalates:
        return fee * escalation  # escalation is 0 outside months 1..H
    return np.where(running, fee, 0.0)
