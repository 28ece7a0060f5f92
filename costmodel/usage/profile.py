"""From measured usage to the 12-month profile workload it implies for a box."""

from __future__ import annotations

import re

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from costmodel.errors import FieldError
from costmodel.scenario import HOURS_PER_MONTH, MAX_DEMAND_MULTIPLE
from costmodel.usage.errors import UsageError
from costmodel.usage.months import MeasuredUsage, hours_in_month, month_name

PROFILE_MONTHS = 12
MAX_GROWTH_PER_YEAR = 3.0
MIN_GROWTH_PER_YEAR = -0.9


class UsageProfile(BaseModel):
    """The 12-month ``profile`` workload measured usage implies for one box."""

    model_config = ConfigDict(frozen=True)

    months: list[str] = Field(description='the plan\'s 12 calendar months, "YYYY-MM"')
    monthly_utilization: list[float] = Field(description="the profile, box's work per month")
    filled: list[bool] = Field(description="true: no measurement, the observed average")
    measured_months: list[str | None] = Field(
        description="the measured month each value comes from (null when filled)"
    )


def _month_number(name: str, field: str) -> int:
    match = re.fullmatch(r"(\d{4})-(\d\d)", name)
    if not match or not 1 <= int(match.group(2)) <= 12:
        raise UsageError([FieldError(field, 'must be a month, "YYYY-MM"')])
    return (int(match.group(1)) - 1970) * 12 + int(match.group(2)) - 1


def profile_from_usage(
    usage: MeasuredUsage,
    *,
    measured_gpu_throughput: float,
    box_gpu_count: int,
    box_gpu_throughput: float,
    growth_per_year: float = 0.0,
    start_month: str | None = None,
) -> UsageProfile:
    """The 12-month profile workload the measured GPU-hours imply for a box.

    Parameters
    ----------
    usage : MeasuredUsage
        What a reader returned.
    measured_gpu_throughput : float
        Throughput of the GPU that did the measured work, reference GPU = 1.0.
    box_gpu_count, box_gpu_throughput : int, float
        The planned box: GPUs, and the throughput of one of them.
    growth_per_year : float
        Yearly growth of the work (0.2 = 20 % more each year), −0.9..3.
    start_month : str, optional
        The plan's first month ``"YYYY-MM"``; default the month after the last measured one.

    Returns
    -------
    UsageProfile
        For each of the 12 calendar months from ``start_month``.

    Notes
    -----
    A measured month ``d`` observed for ``o`` of its ``h`` hours::

        u[d] = gpu_hours[d] × (h / o) × measured_gpu_throughput
               / (box_gpu_count × box_gpu_throughput × 730)

    (``h / o = 1`` for a fully observed month). Plan month ``p`` takes ``u`` of
    the latest measured month of the same calendar month, grown by
    ``(1 + growth)^((p − d) / 12)``. A calendar month never observed takes
    the average of the observed ``u``, grown from the average observed month,
    and is marked ``filled``. Values above 8 (eight boxes' work) are refused
    (code ``profile_month_above_limit`` on ``workload.monthly_utilization.<i>``;
    params ``month``, ``boxes``, ``limit``).
    """
    problems = []
    if not measured_gpu_throughput > 0:
        problems.append(FieldError("measured_gpu_throughput", "must be greater than 0"))
    if box_gpu_count < 1:
        problems.append(FieldError("box_gpu_count", "must be at least 1"))
    if not box_gpu_throughput > 0:
        problems.append(FieldError("box_gpu_throughput", "must be greater than 0"))
    if not MIN_GROWTH_PER_YEAR <= growth_per_year <= MAX_GROWTH_PER_YEAR:
        problems.append(
            FieldError(
                "growth_per_year",
                f"must be between {MIN_GROWTH_PER_YEAR:g} and {MAX_GROWTH_PER_YEAR:g}",
            )
        )
    if problems:
        raise UsageError(problems)
    measured = np.array([_month_number(m, "months") for m in usage.months], dtype=np.int64)
    hours = np.asarray(usage.gpu_hours, dtype=np.float64)
    observed = np.asarray(usage.observed_hours, dtype=np.float64)
    seen = observed > 0
    if not seen.any():
        raise UsageError([FieldError("content", "observes no month at all")])
    full = hours_in_month(measured)
    scale = measured_gpu_throughput / (box_gpu_count * box_gpu_throughput * HOURS_PER_MONTH)
    u = np.divide(hours * full, observed, out=np.zeros_like(hours), where=seen) * scale
    start = (
        _month_number(start_month, "start_month") if start_month else int(measured[seen].max()) + 1
    )
    plan = start + np.arange(PROFILE_MONTHS)
    # Latest observed month of the same calendar month, for each plan month.
    same = (measured[None, :] % 12 == plan[:, None] % 12) & seen[None, :]
    latest = np.where(same, measured[None, :], np.iinfo(np.int64).min).max(axis=1)
    filled = ~same.any(axis=1)
    pick = np.argmax(np.where(same, measured[None, :], np.iinfo(np.int64).min), axis=1)
    average_u, average_month = float(u[seen].mean()), float(measured[seen].mean())
    base = np.where(filled, average_u, u[pick])
    since = np.where(filled, average_month, latest)
    profile = base * (1 + growth_per_year) ** ((plan - since) / 12)
    over = np.flatnonzero(profile > MAX_DEMAND_MULTIPLE)
    if over.size:
        i = int(over[0])
        raise UsageError(
            [
                FieldError(
                    f"workload.monthly_utilization.{i}",
                    f"{month_name(int(plan[i]))} needs {profile[i]:.1f} boxes' work, more "
                    f"than {MAX_DEMAND_MULTIPLE:g}: choose a bigger box",
                    "profile_month_above_limit",
                    {
                        "month": month_name(int(plan[i])),
                        "boxes": float(profile[i]),
                        "limit": MAX_DEMAND_MULTIPLE,
                    },
                )
            ]
        )
    return UsageProfile(
        months=[month_name(int(p)) for p in plan],
        monthly_utilization=[float(v) for v in profile],
        filled=[bool(f) for f in filled],
        measured_months=[
            None if f else month_name(int(m)) for f, m in zip(filled, latest, strict=True)
        ],
    )
