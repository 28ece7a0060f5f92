"""Busy GPU-hours and observed hours per calendar month (UTC): the readers' shared arithmetic."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from costmodel.usage.errors import fail
from costmodel.usage.notices import MonthNotObserved, MonthPartlyObserved, UsageNotice

MAX_MONTHS = 240
"""Longest span of months a file may cover (the planner's longest horizon)."""
PARTLY_OBSERVED_SHARE = 0.99
"""A month observed for less than this share of its hours is reported as partly observed."""

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


class MeasuredUsage(BaseModel):
    """GPU-hours per calendar month (UTC) read from a log, accounting dump or bill."""

    model_config = ConfigDict(frozen=True)

    months: list[str] = Field(description='calendar months, "YYYY-MM", consecutive')
    gpu_hours: list[float] = Field(description="busy GPU-hours in each month [GPU-h]")
    observed_hours: list[float] = Field(
        description="hours of each month the file covers [h] (0: not observed)"
    )
    gpus: int = Field(description="GPUs seen (for accounting and bills: most in use at once)")
    gpu_models: list[str] = Field(description="GPU model names the file gives, if any")
    notices: list[UsageNotice] = Field(
        description="what the reader skipped or did not see (skipped rows, gaps, months not "
        "or only partly observed), each a code and its figures"
    )


def month_index(seconds: FloatArray) -> IntArray:
    """Months since 1970-01 of Unix times [s] (UTC)."""
    stamps = np.floor(seconds).astype("int64").astype("datetime64[s]")
    return stamps.astype("datetime64[M]").astype(np.int64)


def month_start(index: IntArray) -> FloatArray:
    """Unix time [s] of the first instant of months since 1970-01."""
    return index.astype("datetime64[M]").astype("datetime64[s]").astype(np.float64)


def month_name(index: int) -> str:
    return str(np.datetime64(int(index), "M"))


def hours_in_month(index: IntArray) -> FloatArray:
    return (month_start(index + 1) - month_start(index)) / 3600.0


def spread(
    start: FloatArray, end: FloatArray, amount: FloatArray, first: int, count: int
) -> FloatArray:
    """Spread ``amount`` of each interval ``[start, end)`` [s] over months in proportion to
    its time in each; months ``first .. first + count − 1``.

    An interval of zero length books its amount to the month it starts in.
    """
    totals = np.zeros(count)
    if start.size == 0:
        return totals
    length = end - start
    first_month = month_index(start)
    last_month = np.maximum(month_index(np.maximum(end - 1e-6, start)), first_month)
    crossings = int((last_month - first_month).max())
    rate = np.divide(amount, length, out=np.zeros_like(amount), where=length > 0)
    for k in range(crossings + 1):  # boundaries crossed (0 for most), not rows
        month = first_month + k
        live = month <= last_month
        lo = np.maximum(start, month_start(month))
        hi = np.minimum(end, month_start(month + 1))
        part = np.where(length > 0, rate * np.clip(hi - lo, 0, None), amount * (k == 0))
        totals += np.bincount(month[live] - first, weights=part[live], minlength=count)[:count]
    return totals


def union(start: FloatArray, end: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The union of intervals ``[start, end)`` as disjoint intervals, in time order."""
    order = np.argsort(start, kind="stable")
    start, end = start[order], end[order]
    reach = np.maximum.accumulate(end)
    new = np.ones(start.size, dtype=bool)
    new[1:] = start[1:] > reach[:-1]
    group = np.cumsum(new) - 1
    merged_end = np.zeros(int(new.sum()))
    np.maximum.at(merged_end, group, end)
    return start[new], merged_end


def peak_concurrency(start: FloatArray, end: FloatArray, level: FloatArray) -> float:
    """Highest total ``level`` of intervals running at the same instant."""
    if start.size == 0:
        return 0.0
    times = np.concatenate([start, end])
    steps = np.concatenate([level, -level])
    order = np.lexsort((steps, times))  # at equal times, ends (negative) first
    return float(np.cumsum(steps[order]).max())


def report(
    busy: tuple[FloatArray, FloatArray, FloatArray],
    observed: tuple[FloatArray, FloatArray],
    gpus: int,
    models: Sequence[str],
    notices: list[UsageNotice],
) -> MeasuredUsage:
    """Monthly totals of busy GPU-hours and observed hours, with coverage notices."""
    obs_start, obs_end = union(*observed)
    first = int(month_index(obs_start).min())
    last = int(month_index(np.maximum(obs_end - 1e-6, obs_start)).max())
    count = last - first + 1
    if count > MAX_MONTHS:
        raise fail(
            f"covers {count} months, {month_name(first)} to {month_name(last)}; at most "
            f"{MAX_MONTHS} are read (is a timestamp wrong?)",
            "too_many_months",
            months=count,
            first=month_name(first),
            last=month_name(last),
            limit=MAX_MONTHS,
        )
    gpu_hours = spread(*busy, first, count)
    observed_hours = spread(obs_start, obs_end, (obs_end - obs_start) / 3600.0, first, count)
    index = np.arange(first, last + 1)
    full = hours_in_month(index)
    for i in np.flatnonzero(observed_hours < PARTLY_OBSERVED_SHARE * full):
        name = month_name(int(index[i]))
        if observed_hours[i] <= 0:
            notices.append(MonthNotObserved(month=name))
        else:
            notices.append(
                MonthPartlyObserved(
                    month=name,
                    observed_hours=float(observed_hours[i]),
                    month_hours=float(full[i]),
                )
            )
    return MeasuredUsage(
        months=[month_name(int(m)) for m in index],
        gpu_hours=[float(v) for v in gpu_hours],
        observed_hours=[float(v) for v in observed_hours],
        gpus=gpus,
        gpu_models=sorted(set(models)),
        notices=notices,
    )
