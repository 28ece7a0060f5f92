"""Bounds on what a usage file may say: figures any real machine, account or clock could
have written. A value past them parses, but would give a wrong answer (10²³ GPU-hours, a
plan for the year 9999), so it is refused naming its line (or JSON path) and field.

Notes
-----
- Times: from :data:`EARLIEST_TIME` (2000-01-01 UTC) to the time of reading plus
  :data:`CLOCK_LEEWAY_S` (a day); a cloud bill's period may end up to
  :data:`BILL_PERIOD_AHEAD_S` (32 days) after the time of reading.
- GPUs: a Slurm job's ``gres/gpu`` at most :data:`MAX_GPUS`; a bill row's
  ``amount / max(period, 1 h) × GPUs per instance`` (GPUs at once; an instance
  type the catalog lacks counts as one) at most :data:`MAX_GPUS`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from costmodel.usage.errors import fail
from costmodel.usage.months import FloatArray

EARLIEST_TIME = 946_684_800.0
"""2000-01-01T00:00:00Z [s]: no usage record a plan needs is older; a machine whose clock
was never set writes 1970-01-01."""
CLOCK_LEEWAY_S = 86_400.0
"""How far past the time of reading a record may be dated [s]: times without a zone are
read as UTC, so a log in local time east of UTC (up to UTC+14) is up to 14 h ahead; a day
covers that and a clock a few hours fast."""
BILL_PERIOD_AHEAD_S = 32 * 86_400.0
"""How far past the time of reading a bill row's period may end [s]: a row of the current
month may run to the month's end."""
MAX_GPUS = 1_000_000
"""Most GPUs one Slurm job, or one bill row at once, may hold: about five times the largest
GPU clusters reported by 2026 (some 200 000 GPUs)."""

Place = Callable[[int], dict[str, int | str]]
"""Where record ``i`` is in the file, as error params: ``{"line": 12}`` or ``{"path": …}``."""


def reading_time(now: float | None) -> float:
    """The time of reading [Unix s]: ``now`` when given, else the clock's."""
    return time.time() if now is None else now


def _where(params: dict[str, int | str]) -> str:
    return f"line {params['line']}" if "line" in params else str(params["path"])


def _iso(seconds: float) -> str:
    return str(np.datetime64(int(np.floor(seconds)), "s"))


def check_times(
    columns: Sequence[tuple[str, FloatArray, float]],
    place: Place,
    now: float | None,
    readable: npt.NDArray[np.bool_] | None = None,
) -> None:
    """Refuse the first record (in file order) with a time before :data:`EARLIEST_TIME` or
    past the time of reading plus its leeway.

    Parameters
    ----------
    columns : sequence of (field, times [s], leeway [s])
        The fields of each record to check, in the order a record holds them.
    place : callable
        Where record ``i`` is (error params).
    now : float, optional
        The time of reading [Unix s]; default the clock's.
    readable : bool array, optional
        The records to check (others are skipped as unreadable elsewhere).

    Raises
    ------
    UsageError
        ``time_too_early`` or ``time_in_future`` (params: line or path, field, time; and
        now, the time of reading, for the latter).
    """
    moment = reading_time(now)
    first: tuple[int, int, bool] | None = None  # record, column, too early
    for k, (_field, times, leeway) in enumerate(columns):
        early = times < EARLIEST_TIME
        late = times > moment + leeway
        wrong = early | late
        if readable is not None:
            wrong &= readable
        hits = np.flatnonzero(wrong)
        if hits.size and (first is None or int(hits[0]) < first[0]):
            i = int(hits[0])
            first = (i, k, bool(early[i]))
    if first is None:
        return
    i, k, too_early = first
    field, times = columns[k][0], columns[k][1]
    params = place(i)
    shown = _iso(float(times[i]))
    if too_early:
        raise fail(
            f"{_where(params)}: {field} {shown} is before 2000: was the clock of the machine "
            "that wrote it set? Correct the date or leave the record out",
            "time_too_early",
            field=field,
            time=shown,
            **params,
        )
    reading = _iso(moment)
    raise fail(
        f"{_where(params)}: {field} {shown} is later than the time of reading ({reading} "
        "UTC): is the clock of the machine that wrote it right? Correct the date or leave "
        "the record out",
        "time_in_future",
        field=field,
        time=shown,
        now=reading,
        **params,
    )


def _shown_digits(digits: str) -> str:
    """A long run of digits as a message quotes it: at most 24 characters."""
    return digits if len(digits) <= 24 else f"{digits[:12]}…({len(digits)} digits)"


def job_gpus(digits: str, field: str, params: dict[str, int | str]) -> int:
    """The GPUs a Slurm job's ``gres/gpu=digits`` allocates, read only when within
    :data:`MAX_GPUS` (a 5 000-digit count is not converted at all).

    Raises
    ------
    UsageError
        ``gpus_above_limit`` (params: line, field, gpus (as written, shortened), limit).
    """
    significant = digits.lstrip("0")
    if len(significant) <= len(str(MAX_GPUS)) and int(significant or "0") <= MAX_GPUS:
        return int(significant or "0")
    shown = _shown_digits(digits)
    raise fail(
        f"{_where(params)}: {field} gres/gpu={shown} is more GPUs than any machine holds (at "
        f"most {MAX_GPUS:,} per job): correct the export or leave the job out",
        "gpus_above_limit",
        field=field,
        gpus=shown,
        limit=MAX_GPUS,
        **params,
    )


def check_gpus_at_once(
    amount: FloatArray,
    hours: FloatArray,
    gpus: npt.NDArray[np.int64],
    types: Sequence[str],
    field: str,
    place: Place,
    readable: npt.NDArray[np.bool_],
) -> None:
    """Refuse the first readable bill row whose ``amount`` [instance-h] over its period of
    ``hours`` (at least 1 h) is more than :data:`MAX_GPUS` GPUs at once (an instance type
    without a known GPU count counted as one GPU).

    Raises
    ------
    UsageError
        ``usage_above_limit`` (params: line, field, amount, instance_type, hours, gpus,
        limit).
    """
    with np.errstate(over="ignore", invalid="ignore"):
        at_once = np.abs(amount) / np.maximum(hours, 1.0) * np.maximum(gpus, 1)
    over = np.flatnonzero(readable & (at_once > MAX_GPUS))
    if not over.size:
        return
    i = int(over[0])
    params = place(i)
    shown_amount, shown_hours = f"{amount[i]:.6g}", f"{max(hours[i], 1.0):.6g}"
    shown_gpus = f"{at_once[i]:.3g}"
    raise fail(
        f"{_where(params)}: {field} {shown_amount} hours of {types[i]} in {shown_hours} h is "
        f"{shown_gpus} GPUs at once, more than any account runs (at most {MAX_GPUS:,}): "
        "correct the bill or leave the row out",
        "usage_above_limit",
        field=field,
        amount=shown_amount,
        instance_type=types[i],
        hours=shown_hours,
        gpus=shown_gpus,
        limit=MAX_GPUS,
        **params,
    )
