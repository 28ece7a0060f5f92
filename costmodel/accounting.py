"""Depreciation schedule and the CapEx/OpEx split per fiscal year, read from a result's series.

Finance books a box as an asset bought once and written down over the months
it serves, and books running costs as they fall due. This module lays the
engine's monthly series (:func:`costmodel.compare`) out that way; it computes
no cost of its own. What it adds is bookkeeping:

* **Purchases** [currency]: the first box at month 0 and each replacement at
  month ``j × L < H``, at the box's full price ``capex_j`` (read from
  ``build.value_if_sold`` in the month the box is new). The engine's
  ``replacement`` series is that price less the old box's trade-in, so
  ``Σ purchases = capex + Σ replacement + Σ trade-in proceeds``.
* **Straight-line depreciation** of each purchase over ``D`` months
  (:attr:`AccountingOptions.depreciation_months`; by default the useful life,
  otherwise 60 months), to a book value of 0. A box replaced before it is
  fully written down leaves its remaining book value as a write-off in the
  month it is traded in.
* **Financing** split into interest and principal (the engine's ``financing``
  series is their sum).
* **Disposal at the horizon**: the box in service at month H is sold for the
  engine's resale value (``build.resale_value``, what the build's net total
  credits); the proceeds less its book value then is a gain (a loss when
  negative), booked in the last fiscal year (:func:`disposal`).
* **Fiscal years**: projection months grouped into years that start in the
  calendar month the user chooses.

Examples
--------
>>> accounts = accounting(scenario, compare(scenario))  # doctest: +SKIP
>>> accounts.fiscal_years[0]["capex"]  # doctest: +SKIP
25000.0
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from costmodel.line_costs import loan_payment
from costmodel.lines import Booking, lines_of
from costmodel.scenario import MAX_HORIZON_MONTHS, Scenario

__all__ = [
    "DEFAULT_DEPRECIATION_MONTHS",
    "FISCAL_YEAR_FIELDS",
    "OPEX_LINES",
    "AccountingOptions",
    "Accounts",
    "Purchase",
    "accounting",
    "booked",
    "depreciation_months",
    "disposal",
    "fiscal_year_of_months",
]

Array = npt.NDArray[np.float64]

DEFAULT_DEPRECIATION_MONTHS = 60
"""Depreciation period when the box has no useful life [months]: five years, a common
book life for computer hardware."""


class AccountingOptions(BaseModel):
    """How finance books the scenario; none of it changes a cost or a headline figure."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    depreciation_months: Annotated[int, Field(ge=1, le=MAX_HORIZON_MONTHS)] | None = Field(
        default=None,
        description="Straight-line depreciation period of each box [months]; null: the "
        f"useful life, or {DEFAULT_DEPRECIATION_MONTHS} months without one.",
    )
    fiscal_year_start_month: Annotated[int, Field(ge=1, le=12)] = Field(
        default=1, description="Calendar month in which a fiscal year starts (1 = January)."
    )
    purchase_month: Annotated[int, Field(ge=1, le=12)] | None = Field(
        default=None,
        description="Calendar month in which the box is bought (month 0) and month 1 runs; "
        "null: the fiscal year's first month, so fiscal years are counted from the purchase.",
    )


def booked(booking: Booking) -> tuple[str, ...]:
    """The keys of the build's cost lines booked as ``booking`` (:mod:`costmodel.lines`)."""
    return tuple(line.key for line in lines_of("build") if line.booking is booking)


OPEX_LINES: tuple[str, ...] = booked(Booking.OPEX)
"""The build's operating expenses: its cost lines booked as OpEx (:mod:`costmodel.lines`)."""

FISCAL_YEAR_FIELDS: tuple[str, ...] = (
    "capex",
    *OPEX_LINES,
    "opex",
    "depreciation",
    "written_off",
    "interest",
    "principal",
    "trade_in",
    "disposal_proceeds",
    "disposal_gain",
    "book_value",
    "rent",
)
"""Amounts of one fiscal-year row [currency], in the order tables show them.

``capex``: purchases at full price; then each line of :data:`OPEX_LINES`, by its
key; ``opex``: their sum;
``depreciation``: straight-line charge of every box;
``written_off``: book value left when a box is traded in early; ``interest``
and ``principal``: the loan payments split; ``trade_in``: what a replaced box
fetches; ``disposal_proceeds``: the resale of the box in service at the horizon
(in the last year, 0 before); ``disposal_gain``: those proceeds less its book
value then (:func:`disposal`; negative: a loss); ``book_value``: of the box in
service at the end of the year (in the last year, the book value disposed of);
``rent``: every cost of renting instead (all operating expense).
"""


@dataclass(frozen=True)
class Purchase:
    """One box bought within the horizon and its write-down."""

    box: int
    """0 for the first box, j for the j-th replacement."""
    month: int
    """Month it is bought in [month]."""
    cost: float
    """Full price [currency]."""
    depreciation_months: int
    """D [months]."""
    monthly_depreciation: float
    """``cost / D`` [currency/month]."""
    disposal_month: int | None
    """Month it is traded in for the next box; None if still in service at the horizon."""
    trade_in: float
    """What it fetches when traded in [currency]; 0 if kept."""
    written_off: float
    """Book value left when traded in [currency]; 0 if fully written down or kept."""


@dataclass(frozen=True)
class Accounts:
    """The books of one scenario: per purchase month by month, and per fiscal year."""

    options: AccountingOptions
    depreciation_months: int
    """D actually used [months]."""
    purchase_month: int
    """Calendar month of month 0 and month 1 (1 = January)."""
    purchases: tuple[Purchase, ...]
    depreciation: Array
    """Depreciation of purchase j in month m [currency], shape (J, H + 1)."""
    accumulated_depreciation: Array
    """Running sum of ``depreciation`` [currency], shape (J, H + 1)."""
    book_value: Array
    """``cost − accumulated depreciation`` while the box is held, 0 once traded in
    [currency], shape (J, H + 1)."""
    interest: Array
    """Interest part of the loan payment of month m [currency], shape (H + 1,)."""
    principal: Array
    """Principal part of the loan payment of month m [currency], shape (H + 1,)."""
    fiscal_year: npt.NDArray[np.int64]
    """Fiscal year (0 = the first) of each month 0..H, shape (H + 1,)."""
    disposal_proceeds: float
    """What the box in service at the horizon is sold for [currency]: the resale value."""
    disposal_book_value: float
    """Its book value at the horizon [currency]."""
    disposal_gain: float
    """``disposal_proceeds − disposal_book_value`` [currency]; negative: a loss."""
    fiscal_years: tuple[dict[str, Any], ...]
    """One row per fiscal year: ``fiscal_year`` (1-based), ``first_month``,
    ``last_month``, ``start_calendar_month`` (1..12, of its first month) and the
    amounts of :data:`FISCAL_YEAR_FIELDS`."""


def depreciation_months(scenario: Scenario, options: AccountingOptions) -> int:
    """D [months]: the user's period, else the useful life, else 60 months."""
    if options.depreciation_months is not None:
        return options.depreciation_months
    if scenario.build.useful_life_months is not None:
        return scenario.build.useful_life_months
    return DEFAULT_DEPRECIATION_MONTHS


def fiscal_year_of_months(
    horizon_months: int, purchase_month: int, fiscal_year_start_month: int
) -> npt.NDArray[np.int64]:
    """Fiscal year (0 = the one holding the purchase) of months 0..H, shape (H + 1,).

    Notes
    -----
    Month ``m ≥ 1`` runs in calendar month ``purchase_month + m − 1``; month 0
    (the purchase moment) at the start of month 1. With
    ``before = (purchase_month − fiscal_year_start_month) mod 12``, the months
    of the first fiscal year that pass before the purchase::

        fiscal_year[m] = (before + max(m − 1, 0)) // 12
    """
    before = (purchase_month - fiscal_year_start_month) % 12
    months = np.arange(horizon_months + 1)
    return (before + np.maximum(months - 1, 0)) // 12


def disposal(resale_value: float, book_value_at_horizon: float) -> tuple[float, float]:
    """The sale of the box in service at the horizon: ``(proceeds, gain)`` [currency].

    Notes
    -----
    The proceeds are the engine's resale value at month H (``build.resale_value``,
    ``value_if_sold[H]``); the gain (a loss when negative) is::

        gain = proceeds − book value at H

    where the book value is the price less the straight-line depreciation so far
    (0 once written down, so the whole resale is then a gain).

    Examples
    --------
    >>> disposal(12_000.0, 10_000.0)
    (12000.0, 2000.0)
    """
    return resale_value, resale_value - book_value_at_horizon


def _loan_split(scenario: Scenario, financing: Array) -> tuple[Array, Array]:
    """Interest and principal of each month's loan payment [currency], shapes (H + 1,).

    Notes
    -----
    With ``P = capex × (1 − down)`` and ``i = annual_interest_rate / 12``, the
    balance after the payment of month m is
    ``B[m] = P (1 + i)^m − pmt ((1 + i)^m − 1) / i`` (``P − pmt m`` when
    ``i = 0``); the interest of month m is ``i × B[m − 1]`` and the rest of the
    payment (``financing[m]``, read from the result) repays principal. The
    balance paid at month H when the loan runs past the horizon is principal.
    """
    loan = scenario.build.financing
    months = financing.shape[0]
    if loan is None:
        return np.zeros(months), np.zeros(months)
    principal_0 = scenario.build.capex * (1.0 - loan.down_payment_fraction)
    i = loan.annual_interest_rate / 12.0
    m = np.arange(months)
    paying = (m >= 1) & (m <= min(loan.term_months, months - 1))
    if i == 0.0:
        interest = np.zeros(months)
    else:
        pmt = loan_payment(
            np.array([principal_0]),
            np.array([loan.annual_interest_rate]),
            np.array([loan.term_months]),
        )[0]
        growth = np.expm1((m - 1) * np.log1p(i))  # (1 + i)^(m−1) − 1
        before = principal_0 * (1.0 + growth) - pmt * growth / i  # balance before month m
        interest = np.where(paying, i * before, 0.0)
    return interest, financing - interest


def _sum_of(side: Mapping[str, Any], keys: tuple[str, ...], months: int) -> Array:
    """The sum of a side's series ``keys``, month by month [currency], shape (months,)."""
    total = np.zeros(months)
    for key in keys:
        total = total + np.asarray(side[key], dtype=np.float64)
    return total


def accounting(
    scenario: Scenario, result: Mapping[str, Any], options: AccountingOptions | None = None
) -> Accounts:
    """The depreciation schedule and the CapEx/OpEx split per fiscal year of one result.

    Parameters
    ----------
    scenario : Scenario
        The scenario the result was computed from.
    result : mapping
        Its result JSON (:func:`costmodel.compare`, :meth:`costmodel.Projection.result`).
    options : AccountingOptions, optional
        Depreciation period and fiscal calendar; defaults when omitted.

    Returns
    -------
    Accounts

    Notes
    -----
    With ``L`` the useful life (the horizon without one), box ``j`` is bought
    at ``s_j = j L`` (``s_j < H``) for ``cost_j = value_if_sold[s_j]`` and
    traded in at ``s_(j+1)`` when that is before H. Straight line over D::

        depreciation_j[m] = cost_j / D      for s_j < m ≤ min(s_j + D, disposal_j, H)
        book_value_j[m]   = cost_j − Σ depreciation_j[..m]   for s_j ≤ m < disposal_j
        trade_in_j        = cost_(j+1) − replacement[s_(j+1)]
        written_off_j     = book_value_j just before disposal

    so ``book value + accumulated depreciation + written off = cost`` for
    every box. The box held at H is sold then (:func:`disposal`):
    ``gain = build.resale_value − book_value[H]``. Per fiscal year, amounts
    are sums over its months; month 0 belongs to the year of month 1.
    """
    options = options or AccountingOptions()
    build = result["build"]
    months = len(result["months"])
    horizon = months - 1
    D = depreciation_months(scenario, options)
    life = scenario.build.useful_life_months or horizon
    value_if_sold = np.asarray(build["value_if_sold"], dtype=np.float64)
    # The CapEx lines (the replacement: a new box less the old one's trade-in) and the
    # financing lines (loan payments), as costmodel.lines books them.
    replacement = _sum_of(build, booked(Booking.CAPEX), months)

    starts = np.arange(0, horizon, life)  # s_j < H; at least month 0
    costs = value_if_sold[starts]
    disposals = starts + life
    disposed = disposals < horizon
    disposal_index = np.minimum(disposals, horizon)
    trade_ins = np.where(disposed, value_if_sold[disposal_index] - replacement[disposal_index], 0.0)

    m = np.arange(months)[None, :]
    s, end = starts[:, None], np.where(disposed, disposals, horizon)[:, None]
    per_month = costs[:, None] / D
    depreciation = np.where((m > s) & (m <= np.minimum(s + D, end)), per_month, 0.0)
    accumulated = np.cumsum(depreciation, axis=1)
    held = (m >= s) & ((m < end) | ~disposed[:, None])
    book_value = np.where(held, costs[:, None] - accumulated, 0.0)
    written_off = np.where(
        disposed, costs - accumulated[np.arange(len(starts)), disposal_index], 0.0
    )
    # A few ulps of rounding in cost − Σ(cost / D) are not a write-off.
    written_off = np.where(
        np.isclose(written_off, 0.0, atol=1e-9 * np.maximum(costs, 1.0)), 0.0, written_off
    )

    financing = _sum_of(build, booked(Booking.FINANCING), months)
    interest, principal = _loan_split(scenario, financing)

    purchase_month = options.purchase_month or options.fiscal_year_start_month
    fiscal_year = fiscal_year_of_months(horizon, purchase_month, options.fiscal_year_start_month)
    years = int(fiscal_year[-1]) + 1

    def per_year(series: npt.ArrayLike) -> list[float]:
        return list(np.bincount(fiscal_year, weights=np.asarray(series), minlength=years).tolist())

    book_value_at_horizon = float(book_value[:, -1].sum())
    proceeds, gain = disposal(float(build["resale_value"]), book_value_at_horizon)
    in_last_year = (np.arange(years) == years - 1).astype(np.float64)

    purchases_by_month = np.zeros(months)
    purchases_by_month[starts] = costs
    trade_in_by_month = np.zeros(months)
    trade_in_by_month[disposal_index[disposed]] = trade_ins[disposed]
    written_off_by_month = np.zeros(months)
    written_off_by_month[disposal_index[disposed]] = written_off[disposed]
    opex_parts = {name: np.asarray(build[name]) for name in OPEX_LINES}
    last_month_of_year = np.flatnonzero(np.diff(fiscal_year, append=years))
    columns = {
        "capex": per_year(purchases_by_month),
        **{name: per_year(values) for name, values in opex_parts.items()},
        "opex": per_year(sum(opex_parts.values())),
        "depreciation": per_year(depreciation.sum(axis=0)),
        "written_off": per_year(written_off_by_month),
        "interest": per_year(interest),
        "principal": per_year(principal),
        "trade_in": per_year(trade_in_by_month),
        "disposal_proceeds": (proceeds * in_last_year).tolist(),
        "disposal_gain": (gain * in_last_year).tolist(),
        "book_value": book_value.sum(axis=0)[last_month_of_year].tolist(),
        "rent": per_year(result["rent"]["monthly"]),
    }
    first_month = np.concatenate([[0], last_month_of_year[:-1] + 1])
    rows = tuple(
        {
            "fiscal_year": year + 1,
            "first_month": int(first_month[year]),
            "last_month": int(last_month_of_year[year]),
            "start_calendar_month": (
                purchase_month if year == 0 else options.fiscal_year_start_month
            ),
            **{name: columns[name][year] for name in FISCAL_YEAR_FIELDS},
        }
        for year in range(years)
    )
    purchases = tuple(
        Purchase(
            box=j,
            month=int(starts[j]),
            cost=float(costs[j]),
            depreciation_months=D,
            monthly_depreciation=float(costs[j] / D),
            disposal_month=int(disposals[j]) if disposed[j] else None,
            trade_in=float(trade_ins[j]),
            written_off=float(written_off[j]),
        )
        for j in range(len(starts))
    )
    return Accounts(
        options=options,
        depreciation_months=D,
        purchase_month=purchase_month,
        purchases=purchases,
        depreciation=depreciation,
        accumulated_depreciation=accumulated,
        book_value=book_value,
        interest=interest,
        principal=principal,
        fiscal_year=fiscal_year,
        disposal_proceeds=proceeds,
        disposal_book_value=book_value_at_horizon,
        disposal_gain=gain,
        fiscal_years=rows,
    )
