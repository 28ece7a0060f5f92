"""Operation: how many instances to commit to (the methodology's "commitment" operation).

A 1- or 3-year commitment buys instance-hours at a lower rate whether they are
used or not. :func:`commitment_table` prices the rent side with 0..K committed
instances (K: the request's ``max_instances``, else the peak need with nothing
committed, at most :data:`MAX_COMMITTED_INSTANCES`) as one projection of K + 1
variants, and names the count with the lowest rent present value.
:func:`parse_commitment` validates a request with errors that name the field.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from costmodel.columns import Array, Columns, ProjectionOverflowError, columns_from, variants
from costmodel.errors import FieldError, ScenarioError, field_errors
from costmodel.line_costs import rent_instance_hours
from costmodel.projection import chunks, project_columns
from costmodel.scenario import HOURS_PER_MONTH, Scenario

MAX_COMMITTED_INSTANCES = 64
"""Most committed instances a commitment request weighs (0..64)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)


class CommitmentRequest(_Strict):
    """``{scenario, max_instances?}``; the scenario must price a committed instance-hour."""

    scenario: Scenario
    max_instances: Annotated[int, Field(ge=0, le=MAX_COMMITTED_INSTANCES)] | None = None


class CommitmentRow(BaseModel):
    committed_instances: int
    rent_total: float = Field(description="[currency]")
    rent_present_value: float = Field(description="[currency]")
    savings: float = Field(description="[currency]")
    break_even_month: float | None = Field(description="[months]; null: no pay-back")


class CommitmentAnswer(BaseModel):
    max_instances: int = Field(
        description="K: the request's max_instances, else the peak need ceil(max rent_hours / "
        "730) with nothing committed, at most 64 [instances]."
    )
    best_committed_instances: int = Field(
        description="The count with the lowest rent present value (ties: the smaller)."
    )
    rows: list[CommitmentRow] = Field(description="One per count 0..K, in order.")


COMMITTED_RATE = "rent.committed_hourly_rate"


def _commitment_errors(scenario: Scenario, where: str) -> list[FieldError]:
    if scenario.rent.committed_hourly_rate > 0:
        return []
    return [
        FieldError(
            f"{where}{COMMITTED_RATE}",
            "must be greater than 0 to weigh a commitment (the price of a committed instance-hour)",
            "committed_rate_required",
        )
    ]


def parse_commitment(data: object) -> CommitmentRequest:
    """Validate a commitment request, or raise :class:`ScenarioError` naming every problem."""
    request = _parse(data)
    errors = _commitment_errors(request.scenario, "scenario.")
    if errors:
        raise ScenarioError(errors)
    return request


def peak_committed_need(scenario: Scenario) -> int:
    """Instances that the busiest month needs with nothing committed [instances], at most 64.

    Notes
    -----
    ``ceil(max_m rent_hours[m] / 730)`` with ``rent_hours[m] = demand[m] ×
    capacity_ratio × (1 + rework_fraction)`` plus the jobs the box cannot hold
    (:func:`costmodel.line_costs.rent_instance_hours`): the rent side's
    instance-hours, burst above one box and rework included (they do not depend
    on the committed count).
    """
    return int(_peak_needs(columns_from([scenario]))[0])


def _peak_needs(c: Columns) -> npt.NDArray[np.int64]:
    """:func:`peak_committed_need` of each row of ``c``."""
    with np.errstate(over="ignore", invalid="ignore"):  # huge inputs: capped below
        peak = rent_instance_hours(c).max(axis=1) / HOURS_PER_MONTH
    need = np.ceil(np.where(np.isfinite(peak), peak, MAX_COMMITTED_INSTANCES))
    return np.minimum(need, MAX_COMMITTED_INSTANCES).astype(np.int64)


def _cheapest(present_value: Array) -> int:
    """The count of a commitment table to buy: the lowest ``rent_present_value``, the smaller
    count on a tie (``argmin`` gives the first)."""
    return int(np.argmin(present_value))


def _overflow() -> ScenarioError:
    return ScenarioError(
        [
            FieldError(
                "max_instances",
                "so many instances give results that are not finite",
                "overflow",
            )
        ]
    )


def commitment_table(scenario: Scenario, max_instances: int | None = None) -> dict[str, Any]:
    """The rent side with 0, 1, …, K committed instances, and the count that costs least.

    The stable entry point for callers that hold a validated scenario (the
    resolver's default committed count, the planner's table);
    :func:`commitment` answers a parsed request with it.

    Parameters
    ----------
    scenario : Scenario
        Its ``rent.committed_hourly_rate`` must be above 0; its own
        ``committed_instances`` is replaced by each count in turn.
    max_instances : int, optional
        K, 0..64. Default: :func:`peak_committed_need`.

    Returns
    -------
    dict
        ``{"max_instances": K, "best_committed_instances": k, "rows": [...]}``;
        each row holds ``committed_instances``, ``rent_total``,
        ``rent_present_value``, ``savings`` [currency] and ``break_even_month``
        [months] (null when it does not pay back).

    Raises
    ------
    ScenarioError
        If the committed rate is 0 (naming ``rent.committed_hourly_rate``),
        ``max_instances`` is outside 0..64, or a count makes the results
        overflow (naming ``max_instances``).

    Notes
    -----
    ``best_committed_instances`` is the ``k`` with the lowest
    ``rent_present_value``, the smaller ``k`` on a tie: commitments are paid
    whether or not the work comes, so the cheapest count in present value
    is the one to buy.

    Examples
    --------
    >>> commitment_table(scenario)["best_committed_instances"]  # doctest: +SKIP
    1
    """
    errors = _commitment_errors(scenario, "")
    if max_instances is not None and not 0 <= max_instances <= MAX_COMMITTED_INSTANCES:
        errors.append(
            FieldError(
                "max_instances",
                f"must be between 0 and {MAX_COMMITTED_INSTANCES}",
                "less_than_equal" if max_instances > 0 else "greater_than_equal",
                {"le": MAX_COMMITTED_INSTANCES} if max_instances > 0 else {"ge": 0},
            )
        )
    if errors:
        raise ScenarioError(errors)
    try:
        top = peak_committed_need(scenario) if max_instances is None else max_instances
        counts = np.arange(top + 1, dtype=np.float64)
        values = {"rent.committed_instances": counts}
        p = project_columns(
            variants(scenario, len(counts), values), with_break_even_utilization=False
        )
    except ProjectionOverflowError:
        raise _overflow() from None
    rows = [
        {
            "committed_instances": k,
            "rent_total": float(p.rent.total[k]),
            "rent_present_value": float(p.rent.present_value[k]),
            "savings": float(p.savings[k]),
            "break_even_month": _nullable(p.break_even_month[k]),
        }
        for k in range(top + 1)
    ]
    best = _cheapest(p.rent.present_value)
    return {"max_instances": top, "best_committed_instances": best, "rows": rows}


def cheapest_counts(c: Columns) -> tuple[npt.NDArray[np.int64], Array, Array]:
    """The cheapest count of each row's :func:`commitment_table` (rows: scenarios of one
    horizon, each with a committed rate), with that rent side's present value and total:
    every table in one projection (the options operation weighs a market's offerings).

    Returns
    -------
    counts, present_value, total : ndarray, shape (N,)
        ``best_committed_instances`` of the table with K = :func:`peak_committed_need`, and
        its row's ``rent_present_value`` and ``rent_total`` [currency].

    Raises
    ------
    ScenarioError
        As :func:`commitment_table`, if a count makes the results overflow.
    """
    tops = _peak_needs(c)
    rows = np.repeat(np.arange(len(c)), tops + 1)  # row i once per count 0..K_i
    counts = np.concatenate([np.arange(top + 1, dtype=np.float64) for top in tops])
    tables = c.take(rows).with_values("rent.committed_instances", counts)
    present_value, total = np.empty(len(tables)), np.empty(len(tables))
    # projected in the engine's cache-sized chunks, each kept only for these two figures:
    # the monthly series of every table's every count are never held at once
    for part in chunks(len(tables), tables.months):
        try:
            p = project_columns(tables.rows(part), with_break_even_utilization=False)
        except ProjectionOverflowError:
            raise _overflow() from None
        present_value[part], total[part] = p.rent.present_value, p.rent.total
    starts = np.concatenate([[0], np.cumsum(tops + 1)[:-1]])
    best = np.array(
        [
            _cheapest(present_value[start : start + top + 1])
            for start, top in zip(starts, tops, strict=True)
        ],
        dtype=np.int64,
    )
    return best, present_value[starts + best], total[starts + best]


def commitment(request: CommitmentRequest) -> dict[str, Any]:
    """:func:`commitment_table` of a parsed request (``{scenario, max_instances?}``)."""
    return commitment_table(request.scenario, request.max_instances)


def _parse(data: object) -> CommitmentRequest:
    if not isinstance(data, dict):
        raise ScenarioError([FieldError("(request)", "must be a JSON object", "not_an_object")])
    try:
        return CommitmentRequest.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(field_errors(exc)) from None


def _nullable(value: float) -> float | None:
    return None if math.isnan(value) else float(value)
