"""Measured usage: GPU logs, scheduler accounting and cloud bills → GPU-hours per month.

Four readers turn a file's text into :class:`MeasuredUsage`: GPU-hours per
calendar month (UTC), the hours of each month the file observed, the GPUs it
saw and notices. :func:`profile_from_usage` turns that into the 12-month
``profile`` workload it implies for a box. Pure numpy + pydantic, no Django;
the readers take text (the edge decodes bytes) and, for a cloud bill, a
mapping from instance type to its GPUs (the edge builds it from the catalog).

Formats (:data:`FORMATS`):

- ``nvidia-smi``: ``nvidia-smi --query-gpu=timestamp,index,name,utilization.gpu
  --format=csv -l N``, with or without ``,noheader,nounits``, the ``name``
  column optional, a leading ``host`` column optional; several hosts' logs may
  be concatenated (without a host column, each repeated header starts the next
  host's log).
- ``dcgm-prometheus``: the JSON answer of Prometheus' ``/api/v1/query_range``
  for ``DCGM_FI_DEV_GPU_UTIL`` (result type ``matrix``, one series per GPU).
- ``slurm-sacct``: ``sacct -a -X -P --format=JobID,Start,End,AllocTRES``.
- ``aws-cur``: an AWS Cost and Usage Report CSV.

Timestamps without a zone (nvidia-smi, sacct) are read as UTC.

What a reader skipped or could not see is reported as :data:`UsageNotice`
values: a stable ``code`` and the figures it is about (line, count, month …),
never a sentence; the edge words them in the reader's language.

Notes
-----
Sampled utilization (nvidia-smi, DCGM), per GPU, samples in time order::

    median_interval = median(t[i+1] − t[i])                    [s]
    span[i]   = min(t[i+1] − t[i], 2 × median_interval)         [s]   (last sample: median_interval)
    busy[i]   = utilization[i] / 100 × span[i] / 3600           [GPU-h]

A gap longer than twice the median interval is unobserved time (a ``gap`` notice).
Every span ``[t[i], t[i] + span[i]]`` is split at month boundaries in
proportion to its time in each month. ``observed_hours`` of a month are the
hours in it covered by at least one GPU's spans.

Slurm: ``busy = GPUs × (End − Start)`` [GPU-h], split at month boundaries;
observed from the earliest start to the latest end. Cloud bill: ``busy =
UsageAmount [instance-h] × GPUs per instance``, spread over the line item's
``[UsageStartDate, UsageEndDate)``; observed where any line item runs.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Literal, get_args
from warnings import catch_warnings, simplefilter

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from costmodel.errors import FieldError, ScenarioError
from costmodel.scenario import HOURS_PER_MONTH, MAX_DEMAND_MULTIPLE

Format = Literal["nvidia-smi", "dcgm-prometheus", "slurm-sacct", "aws-cur"]
FORMATS: tuple[str, ...] = ("nvidia-smi", "dcgm-prometheus", "slurm-sacct", "aws-cur")

PROFILE_MONTHS = 12
MAX_MONTHS = 240
"""Longest span of months a file may cover (the planner's longest horizon)."""
LATEST_UNIX_TIME = 4_102_444_800.0
"""2100-01-01 [s]: a Prometheus sample time beyond this is not Unix seconds."""
MAX_NOTICES_LISTED = 20
"""Skipped rows and gaps listed one by one; beyond this they are counted."""
PARTLY_OBSERVED_SHARE = 0.99
"""A month observed for less than this share of its hours is reported as partly observed."""
MAX_GROWTH_PER_YEAR = 3.0
MIN_GROWTH_PER_YEAR = -0.9

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


class UsageError(ScenarioError):
    """The content cannot be read as the format named; each error names the line."""


# -- notices: what a reader skipped or did not see, as data -----------------------------------


class _Notice(BaseModel):
    # Every notice carries its code: required in the answer's JSON schema.
    model_config = ConfigDict(frozen=True, json_schema_serialization_defaults_required=True)


SkipReason = Literal[
    "field_count", "unreadable_timestamp", "unreadable_utilization", "unreadable_date_or_amount"
]


class RowSkipped(_Notice):
    """A row that could not be read, left out of the totals."""

    code: Literal["row_skipped"] = "row_skipped"
    line: int = Field(description="the row's line in the file (1 = the first)")
    reason: SkipReason = Field(
        description="field_count: not as many fields as the header (field_count, "
        "expected_field_count); unreadable_timestamp, unreadable_utilization: that field is "
        "not a time or a number; unreadable_date_or_amount: a bill's date or amount"
    )
    field_count: int | None = Field(default=None, description="fields the row has")
    expected_field_count: int | None = Field(default=None, description="fields a row must have")


class MoreRowsSkipped(_Notice):
    """Skipped rows beyond the first :data:`MAX_NOTICES_LISTED`, counted."""

    code: Literal["more_rows_skipped"] = "more_rows_skipped"
    count: int = Field(description="rows skipped and not listed one by one")


class GpuRef(BaseModel):
    """A GPU as the file names it: its host (or the n-th concatenated log) and its index."""

    model_config = ConfigDict(frozen=True)

    host: str | None = Field(default=None, description="host name the file gives, if any")
    log: int | None = Field(
        default=None,
        description="without host names: which of the concatenated logs (1 = the first)",
    )
    index: str = Field(description="the GPU's index (or UUID, bus id) as the file gives it")


class Gap(_Notice):
    """Time without samples of one GPU, longer than twice its median interval: not observed."""

    code: Literal["gap"] = "gap"
    hours: float = Field(description="length of the gap [h]")
    gpu: GpuRef
    line: int | None = Field(default=None, description="the line of the sample before the gap")
    path: str | None = Field(
        default=None,
        description='JSON path of the sample before the gap ("data.result[2].values[17]")',
    )


class MoreGaps(_Notice):
    """Gaps beyond the first :data:`MAX_NOTICES_LISTED`, counted."""

    code: Literal["more_gaps"] = "more_gaps"
    count: int = Field(description="gaps not listed one by one")


class SingleSampleGpus(_Notice):
    """GPUs with one sample (or all at one instant), counted at the others' median interval."""

    code: Literal["single_sample_gpus"] = "single_sample_gpus"
    count: int = Field(description="GPUs with one sample or one instant only")
    seconds: float = Field(description="the median interval they were counted with [s]")


class JobStepsSkipped(_Notice):
    """Slurm job steps (``123.batch``), left out: only whole jobs count."""

    code: Literal["job_steps_skipped"] = "job_steps_skipped"
    count: int = Field(description="job steps skipped")


class UnfinishedJobsSkipped(_Notice):
    """Slurm jobs without a start or an end (running, pending), left out."""

    code: Literal["unfinished_jobs_skipped"] = "unfinished_jobs_skipped"
    count: int = Field(description="jobs skipped")


class InstanceTypeUnknown(_Notice):
    """A bill's instance type the catalog gives no GPU count for: its hours are not counted."""

    code: Literal["instance_type_unknown"] = "instance_type_unknown"
    instance_type: str = Field(description='the instance type ("m5.xlarge")')
    hours: float = Field(description="its instance-hours in the bill [instance-h]")


class MonthNotObserved(_Notice):
    """A month between the first and last the file covers with no observation at all."""

    code: Literal["month_not_observed"] = "month_not_observed"
    month: str = Field(description='"YYYY-MM"')


class MonthPartlyObserved(_Notice):
    """A month the file covers for less than :data:`PARTLY_OBSERVED_SHARE` of its hours."""

    code: Literal["month_partly_observed"] = "month_partly_observed"
    month: str = Field(description='"YYYY-MM"')
    observed_hours: float = Field(description="hours of the month observed [h]")
    month_hours: float = Field(description="hours in the month [h]")


UsageNotice = Annotated[
    RowSkipped
    | MoreRowsSkipped
    | Gap
    | MoreGaps
    | SingleSampleGpus
    | JobStepsSkipped
    | UnfinishedJobsSkipped
    | InstanceTypeUnknown
    | MonthNotObserved
    | MonthPartlyObserved,
    Field(discriminator="code"),
]
"""One thing a reader skipped or did not see, told by its ``code`` and figures."""

NOTICE_TYPES: tuple[type[_Notice], ...] = get_args(get_args(UsageNotice)[0])
NOTICE_CODES: tuple[str, ...] = tuple(t.model_fields["code"].default for t in NOTICE_TYPES)


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


class UsageProfile(BaseModel):
    """The 12-month ``profile`` workload measured usage implies for one box."""

    model_config = ConfigDict(frozen=True)

    months: list[str] = Field(description='the plan\'s 12 calendar months, "YYYY-MM"')
    monthly_utilization: list[float] = Field(description="the profile, box's work per month")
    filled: list[bool] = Field(description="true: no measurement, the observed average")
    measured_months: list[str | None] = Field(
        description="the measured month each value comes from (null when filled)"
    )


# -- shared arithmetic ----------------------------------------------------------------------


def _month_index(seconds: FloatArray) -> IntArray:
    """Months since 1970-01 of Unix times [s] (UTC)."""
    stamps = np.floor(seconds).astype("int64").astype("datetime64[s]")
    return stamps.astype("datetime64[M]").astype(np.int64)


def _month_start(index: IntArray) -> FloatArray:
    """Unix time [s] of the first instant of months since 1970-01."""
    return index.astype("datetime64[M]").astype("datetime64[s]").astype(np.float64)


def _month_name(index: int) -> str:
    return str(np.datetime64(int(index), "M"))


def _hours_in_month(index: IntArray) -> FloatArray:
    return (_month_start(index + 1) - _month_start(index)) / 3600.0


def _spread(
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
    first_month = _month_index(start)
    last_month = np.maximum(_month_index(np.maximum(end - 1e-6, start)), first_month)
    crossings = int((last_month - first_month).max())
    rate = np.divide(amount, length, out=np.zeros_like(amount), where=length > 0)
    for k in range(crossings + 1):  # boundaries crossed (0 for most), not rows
        month = first_month + k
        live = month <= last_month
        lo = np.maximum(start, _month_start(month))
        hi = np.minimum(end, _month_start(month + 1))
        part = np.where(length > 0, rate * np.clip(hi - lo, 0, None), amount * (k == 0))
        totals += np.bincount(month[live] - first, weights=part[live], minlength=count)[:count]
    return totals


def _union(start: FloatArray, end: FloatArray) -> tuple[FloatArray, FloatArray]:
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


def _peak_concurrency(start: FloatArray, end: FloatArray, level: FloatArray) -> float:
    """Highest total ``level`` of intervals running at the same instant."""
    if start.size == 0:
        return 0.0
    times = np.concatenate([start, end])
    steps = np.concatenate([level, -level])
    order = np.lexsort((steps, times))  # at equal times, ends (negative) first
    return float(np.cumsum(steps[order]).max())


def _report(
    busy: tuple[FloatArray, FloatArray, FloatArray],
    observed: tuple[FloatArray, FloatArray],
    gpus: int,
    models: Sequence[str],
    notices: list[UsageNotice],
) -> MeasuredUsage:
    """Monthly totals of busy GPU-hours and observed hours, with coverage notices."""
    obs_start, obs_end = _union(*observed)
    first = int(_month_index(obs_start).min())
    last = int(_month_index(np.maximum(obs_end - 1e-6, obs_start)).max())
    count = last - first + 1
    if count > MAX_MONTHS:
        raise _fail(
            f"covers {count} months, {_month_name(first)} to {_month_name(last)}; at most "
            f"{MAX_MONTHS} are read (is a timestamp wrong?)",
            "too_many_months",
            months=count,
            first=_month_name(first),
            last=_month_name(last),
            limit=MAX_MONTHS,
        )
    gpu_hours = _spread(*busy, first, count)
    observed_hours = _spread(obs_start, obs_end, (obs_end - obs_start) / 3600.0, first, count)
    index = np.arange(first, last + 1)
    full = _hours_in_month(index)
    for i in np.flatnonzero(observed_hours < PARTLY_OBSERVED_SHARE * full):
        name = _month_name(int(index[i]))
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
        months=[_month_name(int(m)) for m in index],
        gpu_hours=[float(v) for v in gpu_hours],
        observed_hours=[float(v) for v in observed_hours],
        gpus=gpus,
        gpu_models=sorted(set(models)),
        notices=notices,
    )


def _skipped(notices: list[UsageNotice], rows: Sequence[RowSkipped]) -> None:
    """Append skipped ``rows`` one by one, the ones beyond :data:`MAX_NOTICES_LISTED` as a
    count."""
    notices.extend(rows[:MAX_NOTICES_LISTED])
    if len(rows) > MAX_NOTICES_LISTED:
        notices.append(MoreRowsSkipped(count=len(rows) - MAX_NOTICES_LISTED))


def _field_count(line: int, count: int, expected: int) -> RowSkipped:
    return RowSkipped(
        line=line, reason="field_count", field_count=count, expected_field_count=expected
    )


READER_CODES: dict[str, str] = {
    "empty": "the file is empty or only blanks",
    "holds_nul": "the text holds NUL bytes; params: line",
    "not_text": "the bytes are binary or not UTF-8; params: line",
    "too_many_months": "the file covers more than MAX_MONTHS months; params: months, first, "
    "last, limit",
    "utilization_out_of_range": "a utilization outside 0-100; params: line or path, value",
    "timestamp_out_of_order": "a sample earlier than the GPU's previous one; params: line or "
    "path, gpu (host, log, index)",
    "too_few_samples": "no GPU has two samples at different times",
    "not_nvidia_smi": "no nvidia-smi header and no row shaped like one; params: line",
    "no_row_with_columns": "no row has as many fields as the header; params: line, count, columns",
    "no_readable_row": "no row has a readable timestamp and utilization; params: line",
    "not_json": "the text is not JSON; params: line",
    "not_query_range": "JSON, but not a Prometheus query_range answer of type matrix",
    "no_series": "the answer holds no series",
    "bad_series": "a series without a metric object or a values list; params: path",
    "bad_sample": "a sample that is not a [time, value] pair; params: path",
    "not_finite": "a sample value that is not a finite number; params: path",
    "not_unix_seconds": "sample times outside 1970-2100 in Unix seconds; params: path",
    "no_samples": "the series hold no samples",
    "missing_columns": "a sacct header without a needed column; params: line, columns",
    "not_sacct": "neither a sacct header nor a row shaped like one; params: line",
    "no_finished_job": "no job with a start and an end; params: line",
    "unreadable_job_time": "a job's Start or End is not a time; params: line",
    "end_before_start": "a job ends before it starts; params: line",
    "not_cur": "the header lacks the Cost and Usage Report's columns; params: line",
    "no_instance_usage": "the report holds no instance usage; params: line",
    "negative_amount": "a negative UsageAmount; params: line",
    "no_known_gpu_instance": "no usage of an instance type the catalog gives GPUs for",
}
"""Codes of the errors a reader raises on ``content`` (each :class:`FieldError`'s ``code``;
its ``params`` hold the figures the message quotes)."""


def _fail(message: str, code: str, **params: object) -> UsageError:
    return UsageError([FieldError("content", message, code, dict(params))])


def _check_text(text: str) -> None:
    if not text.strip():
        raise _fail("is empty", "empty")
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise _fail(
            f"line {line}: is not text (it holds NUL bytes): upload the log itself, not an archive",
            "holds_nul",
            line=line,
        )


def decode_text(data: bytes) -> str:
    """The text of an uploaded or read file: UTF-8 (a byte-order mark is dropped).

    Raises
    ------
    UsageError
        On ``content``: empty (0 bytes or only blanks), or binary (NUL bytes or
        not UTF-8), naming the line of the first bad byte.
    """
    if not data.strip():
        raise _fail("is empty", "empty")
    nul = data.find(b"\x00")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        nul = exc.start if nul < 0 else min(nul, exc.start)
        text = ""
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise _fail(
            f"line {line}: is not text (binary or not UTF-8): upload the log itself, "
            "not an archive or a spreadsheet",
            "not_text",
            line=line,
        )
    return text


def _parse_each(
    values: Sequence[str],
    vector: Callable[[Sequence[str]], FloatArray],
    one: Callable[[str], float],
) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
    """``vector(values)``, or when that fails ``one`` value at a time, the bad ones masked."""
    try:
        return vector(values), np.zeros(len(values), dtype=bool)
    except (ValueError, TypeError, OverflowError, UserWarning):
        pass
    out = np.zeros(len(values))
    bad = np.zeros(len(values), dtype=bool)
    for i, value in enumerate(values):  # only for a file with unreadable rows, to find them
        try:
            out[i] = one(value)
        except (ValueError, TypeError, OverflowError, UserWarning):
            bad[i] = True
    return out, bad


def _timestamps(values: Sequence[str]) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
    """Unix times [s] of ISO-like timestamps (``2026/11/01 08:00:00.123``, ``…T…``, ``…Z``)."""

    def vector(items: Sequence[str]) -> FloatArray:
        if not items:
            return np.empty(0)
        # One replace over the joined column: a Python call per row took a third of the read.
        joined = ("\n".join(items) + "\n").replace("/", "-").replace("Z\n", "\n")
        with catch_warnings():
            # numpy reads a time zone (or a trailing blank) with only a warning: refuse it.
            simplefilter("error")
            stamps = np.array(joined.split("\n")[:-1], dtype="datetime64[ms]")
        if np.isnat(stamps).any():
            raise ValueError("not a time")
        return stamps.astype(np.int64).astype(np.float64) / 1000.0

    def one(value: str) -> float:
        value = value.strip()
        if not re.match(r"^\d{4}[-/]\d\d[-/]\d\d", value):
            raise ValueError(value)
        return float(vector([value])[0])

    return _parse_each(values, vector, one)


def _numbers(values: Sequence[str]) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
    def vector(items: Sequence[str]) -> FloatArray:
        if not items:
            return np.empty(0)
        numbers = np.array([float(v) for v in "\n".join(items).replace("%", "").split("\n")])
        if len(numbers) != len(items):
            raise ValueError("a value holds a line break")
        if not np.isfinite(numbers).all():
            raise ValueError("not finite")
        return numbers

    def one(value: str) -> float:
        number = float(value.replace("%", ""))
        if not np.isfinite(number):
            raise ValueError("not finite")
        return number

    return _parse_each(values, vector, one)


# -- sampled utilization (nvidia-smi, DCGM) ---------------------------------------------------


@dataclass(frozen=True)
class _Samples:
    """Utilization samples of many GPUs, in the file's order."""

    gpu: IntArray  # GPU number, 0..G−1
    time: FloatArray  # [s]
    utilization: FloatArray  # [%]
    where: Callable[[int], str]  # where sample i is in the file ("line 12"), for messages
    at: Callable[[int], dict[str, int | str]]  # the same for a notice: {"line": 12}
    gpus: list[GpuRef]  # each GPU as the file names it

    def gpu_name(self, k: int) -> str:
        """GPU ``k`` in an error message: ``host-a GPU 3``, ``log 2 GPU 0``."""
        ref = self.gpus[k]
        host = ref.host if ref.host is not None else f"log {ref.log}"
        return f"{host} GPU {ref.index}".strip()


def _sampled(samples: _Samples, models: Sequence[str], notices: list[UsageNotice]) -> MeasuredUsage:
    """The sampling rule (module Notes) on every GPU's samples at once."""
    bad = np.flatnonzero((samples.utilization < 0) | (samples.utilization > 100))
    if bad.size:
        i = int(bad[0])
        raise _fail(
            f"{samples.where(i)}: utilization {samples.utilization[i]:g} % is outside 0–100",
            "utilization_out_of_range",
            value=float(samples.utilization[i]),
            **samples.at(i),
        )
    order = np.argsort(samples.gpu, kind="stable")
    gpu, time, util = samples.gpu[order], samples.time[order], samples.utilization[order]
    same = gpu[1:] == gpu[:-1]
    step = np.diff(time)
    backwards = np.flatnonzero(same & (step < 0))
    if backwards.size:
        i = int(order[backwards[0] + 1])
        raise _fail(
            f"{samples.where(i)}: timestamp is earlier than the previous sample of "
            f"{samples.gpu_name(int(samples.gpu[i]))}; the log must be in time order",
            "timestamp_out_of_order",
            gpu=samples.gpus[int(samples.gpu[i])].model_dump(),
            **samples.at(i),
        )
    count = len(samples.gpus)
    # Each GPU's median interval: sort the steps by GPU then length, take the middle one(s).
    step_gpu, steps = gpu[1:][same], step[same]
    per_gpu = np.bincount(step_gpu, minlength=count)
    by_length = np.lexsort((steps, step_gpu))
    sorted_steps = steps[by_length]
    offset = np.concatenate([[0], np.cumsum(per_gpu)[:-1]])
    has = per_gpu > 0
    lo = offset + np.maximum(per_gpu - 1, 0) // 2
    hi = offset + per_gpu // 2
    median = np.full(count, np.nan)
    if sorted_steps.size:
        median[has] = (sorted_steps[lo[has]] + sorted_steps[hi[has]]) / 2
    if not has.any() or not np.isfinite(median).any() or np.nanmax(median) <= 0:
        raise _fail("needs at least two samples of one GPU at different times", "too_few_samples")
    lonely = np.flatnonzero(~has | ~(median > 0))
    if lonely.size:
        fallback = float(np.median(median[has & (median > 0)]))
        median[lonely] = fallback
        notices.append(SingleSampleGpus(count=int(lonely.size), seconds=fallback))
    cap = 2 * median[gpu]
    span = np.full(gpu.size, np.nan)
    span[:-1] = np.where(same, np.minimum(step, cap[:-1]), np.nan)
    last = np.isnan(span)
    span[last] = median[gpu[last]]
    gaps = np.flatnonzero(same & (step > cap[:-1]))
    notices += [
        Gap.model_validate(
            {
                "hours": float(step[i] / 3600),
                "gpu": samples.gpus[gpu[i]],
                **samples.at(int(order[i])),
            }
        )
        for i in gaps[:MAX_NOTICES_LISTED]
    ]
    if gaps.size > MAX_NOTICES_LISTED:
        notices.append(MoreGaps(count=int(gaps.size) - MAX_NOTICES_LISTED))
    busy = (time, time + span, util / 100 * span / 3600)
    return _report(busy, (time, time + span), count, models, notices)


# -- nvidia-smi -----------------------------------------------------------------------------


def _nvidia_header(fields: list[str]) -> list[str] | None:
    """Column names of a header line (``utilization.gpu [%]`` → ``utilization.gpu``)."""
    names = [re.sub(r"\s*\[.*\]$", "", f.strip()).lower() for f in fields]
    if "timestamp" in names and "utilization.gpu" in names:
        return ["host" if n == "hostname" else n for n in names]
    return None


def _nvidia_guess(fields: list[str]) -> list[str] | None:
    """Column names of a headerless (``noheader``) row, from its shape."""
    starts_with_time = bool(re.match(r"^\s*\d{4}[-/]\d\d[-/]\d\d", fields[0]))
    shapes = {
        (3, True): ["timestamp", "index", "utilization.gpu"],
        (4, True): ["timestamp", "index", "name", "utilization.gpu"],
        (4, False): ["host", "timestamp", "index", "utilization.gpu"],
        (5, False): ["host", "timestamp", "index", "name", "utilization.gpu"],
    }
    return shapes.get((len(fields), starts_with_time))


def read_nvidia_smi(text: str) -> MeasuredUsage:
    """Read an ``nvidia-smi --query-gpu=timestamp,index,name,utilization.gpu`` CSV log.

    Parameters
    ----------
    text : str
        The log. Header optional (``noheader``), units optional (``nounits``),
        ``name`` optional, a first ``host`` column optional. Logs of several
        hosts may be concatenated; without a host column each repeated header
        starts the next host's log.

    Returns
    -------
    MeasuredUsage
        GPU-hours per month by the sampling rule (module Notes). Rows that
        cannot be read (``[N/A]``, a cut line) are skipped with their line number.

    Raises
    ------
    UsageError
        Naming the line: utilization outside 0–100, a timestamp earlier than
        the GPU's previous one, or no readable row at all.
    """
    _check_text(text)
    lines = text.splitlines()
    headers = [
        n for n, line in enumerate(lines) if "timestamp" in line and _nvidia_header(line.split(","))
    ]
    listed = set(headers)
    data = np.array(
        [n for n, line in enumerate(lines) if n not in listed and line.strip()], dtype=np.int64
    )
    commas = np.array([lines[n].count(",") for n in data], dtype=np.int64)
    columns = _nvidia_header(lines[headers[-1]].split(",")) if headers else None
    first_line = int(data[0]) + 1 if data.size else 1
    if columns is None:
        first_of_each_width = {c: int(n) for c, n in zip(commas[::-1], data[::-1], strict=True)}
        guesses = [_nvidia_guess(lines[n].split(",")) for n in first_of_each_width.values()]
        columns = next((g for g in guesses if g), None)
        if columns is None:
            raise _fail(
                f"line {first_line}: is not an nvidia-smi CSV (expected "
                "timestamp, index, [name,] utilization.gpu, with an optional host column first)",
                "not_nvidia_smi",
                line=first_line,
            )
    width = len(columns)
    fits = commas == width - 1
    skipped = [
        _field_count(int(n) + 1, int(c) + 1, width)
        for n, c in zip(data[~fits], commas[~fits], strict=True)
    ]
    if not fits.any():
        raise _fail(
            f"line {first_line}: no row of the nvidia-smi log has the "
            f"{width} columns {', '.join(columns)}",
            "no_row_with_columns",
            line=first_line,
            count=width,
            columns=", ".join(columns),
        )
    # Every kept row has `width` fields: split them all at once, then take every width-th.
    fields = ",".join([lines[n] for n in data[fits]]).split(",")
    col = {name: fields[k::width] for k, name in enumerate(columns)}
    line_number = data[fits] + 1
    time, bad_time = _timestamps(col["timestamp"])
    util, bad_util = _numbers(col["utilization.gpu"])
    bad = bad_time | bad_util
    skipped += [
        RowSkipped(
            line=int(line_number[i]),
            reason="unreadable_timestamp" if bad_time[i] else "unreadable_utilization",
        )
        for i in np.flatnonzero(bad)
    ]
    if bad.all():
        raise _fail(
            f"line {line_number[0]}: is not an nvidia-smi CSV: no row has a readable timestamp "
            "and utilization",
            "no_readable_row",
            line=int(line_number[0]),
        )
    named = "host" in col
    if named:
        host_names, host = np.unique(np.char.strip(col["host"]), return_inverse=True)
    else:
        # Without a host column, each header line starts the next host's log.
        host = np.searchsorted(np.array(headers, dtype=np.int64), data[fits], side="right")
        host -= host.min()
    # The GPU within its host: its index, else its UUID or bus id; one GPU when none is logged.
    gpu_column = next((c for c in ("index", "uuid", "pci.bus_id") if c in col), None)
    gpu_ids = np.char.strip(col[gpu_column]) if gpu_column else np.zeros(len(line_number), str)
    index_names, index = np.unique(gpu_ids, return_inverse=True)
    kept = np.flatnonzero(~bad)
    pairs, gpu = np.unique(host[kept] * index_names.size + index[kept], return_inverse=True)
    gpus = [
        GpuRef(
            host=str(host_names[p // index_names.size]) if named else None,
            log=None if named else int(p // index_names.size) + 1,
            index=str(index_names[p % index_names.size]),
        )
        for p in pairs
    ]
    models = {n.strip() for n in set(col["name"])} if "name" in col else set()
    notices: list[UsageNotice] = []
    _skipped(notices, skipped)
    samples = _Samples(
        gpu=gpu.astype(np.int64),
        time=time[kept],
        utilization=util[kept],
        where=lambda i: f"line {line_number[kept[i]]}",
        at=lambda i: {"line": int(line_number[kept[i]])},
        gpus=gpus,
    )
    return _sampled(samples, sorted(m for m in models if m), notices)


# -- DCGM through Prometheus ----------------------------------------------------------------


def read_dcgm_prometheus(text: str) -> MeasuredUsage:
    """Read Prometheus' ``/api/v1/query_range`` answer for ``DCGM_FI_DEV_GPU_UTIL``.

    One series per GPU (``result`` of type ``matrix``); a GPU is named by its
    ``Hostname`` (or ``instance``) and ``gpu`` labels, its model by ``modelName``.
    Samples are ``[unix seconds, "utilization %"]``; the sampling rule of the
    module Notes applies. Errors name the place: ``data.result[2].values[17]``.
    """
    _check_text(text)
    try:
        document = json.loads(text)
    except ValueError as exc:
        line = int(getattr(exc, "lineno", 1))
        raise _fail(
            f"line {line}: is not JSON, so not a Prometheus answer", "not_json", line=line
        ) from None
    data = document.get("data") if isinstance(document, dict) else None
    if not isinstance(data, dict) or data.get("resultType") != "matrix":
        raise _fail(
            'is not a Prometheus query_range answer: expected {"data": {"resultType": '
            '"matrix", "result": [...]}}',
            "not_query_range",
        )
    result = data.get("result")
    if not isinstance(result, list) or not result:
        raise _fail("data.result: holds no series (did the query match any GPU?)", "no_series")
    series_keys: list[tuple[str, str]] = []
    models: list[str] = []
    times: list[FloatArray] = []
    utils: list[FloatArray] = []
    for k, series in enumerate(result):  # one per GPU, a few dozen: the samples are arrays
        labels = series.get("metric", {}) if isinstance(series, dict) else {}
        values = series.get("values") if isinstance(series, dict) else None
        if not isinstance(labels, dict) or not isinstance(values, list):
            raise _fail(
                f"data.result[{k}]: needs a metric object and a values list",
                "bad_series",
                path=f"data.result[{k}]",
            )
        host = labels.get("Hostname") or labels.get("instance") or ""
        series_keys.append((str(host), str(labels.get("gpu", labels.get("UUID", k)))))
        if labels.get("modelName"):
            models.append(str(labels["modelName"]))
        try:
            pairs = np.array(values, dtype=np.float64).reshape(len(values), -1)
        except (ValueError, TypeError):
            pairs = np.empty((0, 0))
        if len(values) and pairs.shape[1:] != (2,):
            raise _fail(
                f'data.result[{k}].values: every sample must be [time, "number"]',
                "bad_sample",
                path=f"data.result[{k}].values",
            )
        if not np.isfinite(pairs).all():
            raise _fail(
                f"data.result[{k}].values: holds a value that is not a finite number",
                "not_finite",
                path=f"data.result[{k}].values",
            )
        if len(values) and not ((pairs[:, 0] >= 0) & (pairs[:, 0] < LATEST_UNIX_TIME)).all():
            raise _fail(
                f"data.result[{k}].values: times must be Unix seconds (1970 to 2100)",
                "not_unix_seconds",
                path=f"data.result[{k}].values",
            )
        times.append(pairs[:, 0] if len(values) else np.empty(0))
        utils.append(pairs[:, 1] if len(values) else np.empty(0))
    lengths = np.array([t.size for t in times])
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    keys = sorted(set(series_keys))
    number = {key: k for k, key in enumerate(keys)}
    series_gpu = np.array([number[key] for key in series_keys], dtype=np.int64)

    def where(i: int) -> str:
        k = int(np.searchsorted(offsets, i, side="right")) - 1
        return f"data.result[{k}].values[{i - offsets[k]}]"

    samples = _Samples(
        gpu=np.repeat(series_gpu, lengths),
        time=np.concatenate(times),
        utilization=np.concatenate(utils),
        where=where,
        at=lambda i: {"path": where(i)},
        gpus=[GpuRef(host=host or None, index=index) for host, index in keys],
    )
    if samples.time.size == 0:
        raise _fail("data.result: the series hold no samples", "no_samples")
    return _sampled(samples, models, [])


# -- Slurm accounting -----------------------------------------------------------------------

_GPU_TRES = re.compile(r"(?:^|,)gres/gpu(?::([^=,]+))?=(\d+)")


def read_slurm_sacct(text: str) -> MeasuredUsage:
    """Read ``sacct -a -X -P --format=JobID,Start,End,AllocTRES``.

    GPUs of a job are ``gres/gpu=N`` in AllocTRES (a typed ``gres/gpu:a100=N``
    names the model). Job steps (``123.batch``) and jobs without an end
    (running, pending) are skipped with a notice; jobs without GPUs count
    nothing. Busy GPU-hours are ``GPUs × (End − Start)`` split at month
    boundaries; the accounting observes from the earliest start to the latest end.
    """
    _check_text(text)
    lines = text.splitlines()
    header_at = next(i for i, line in enumerate(lines) if line.strip())
    names = [n.strip().lower() for n in lines[header_at].split("|")]
    number = header_at + 1
    if "jobid" in names:
        missing = [c for c in ("jobid", "start", "end", "alloctres") if c not in names]
        if missing:
            raise _fail(
                f"line {number}: the header has no {', '.join(missing)} column; run "
                "sacct -a -X -P --format=JobID,Start,End,AllocTRES",
                "missing_columns",
                line=number,
                columns=", ".join(missing),
            )
        first = header_at + 1
    else:
        if len(names) < 4 or not re.match(r"^\d{4}-\d\d-\d\d", names[1]):
            raise _fail(
                f"line {number}: is not sacct -P output (expected a header "
                "JobID|Start|End|AllocTRES)",
                "not_sacct",
                line=number,
            )
        names, first = ["jobid", "start", "end", "alloctres"], header_at
    at = {c: names.index(c) for c in ("jobid", "start", "end", "alloctres")}
    steps, unfinished, skipped = 0, 0, list[RowSkipped]()
    starts, ends, counts, where = [], [], [], []
    models: list[str] = []
    for n in range(first, len(lines)):
        line = lines[n]
        if not line.strip():
            continue
        fields = line.split("|")
        if len(fields) < len(names):
            skipped.append(_field_count(n + 1, len(fields), len(names)))
            continue
        if "." in fields[at["jobid"]]:
            steps += 1
            continue
        start, end = fields[at["start"]].strip(), fields[at["end"]].strip()
        if end in ("Unknown", "None", "") or start in ("Unknown", "None", ""):
            unfinished += 1
            continue
        tres = _GPU_TRES.findall(fields[at["alloctres"]])
        gpus = max((int(c) for _model, c in tres), default=0)
        models += [m for m, _c in tres if m]
        starts.append(start)
        ends.append(end)
        counts.append(gpus)
        where.append(n + 1)
    notices: list[UsageNotice] = []
    _skipped(notices, skipped)
    if steps:
        notices.append(JobStepsSkipped(count=steps))
    if unfinished:
        notices.append(UnfinishedJobsSkipped(count=unfinished))
    if not starts:
        raise _fail(
            f"line {first + 1}: no finished job in the sacct output",
            "no_finished_job",
            line=first + 1,
        )
    start_s, bad_start = _timestamps(starts)
    end_s, bad_end = _timestamps(ends)
    bad = np.flatnonzero(bad_start | bad_end)
    if bad.size:
        line = where[bad[0]]
        raise _fail(f"line {line}: unreadable Start or End time", "unreadable_job_time", line=line)
    backwards = np.flatnonzero(end_s < start_s)
    if backwards.size:
        line = where[backwards[0]]
        raise _fail(f"line {line}: End is before Start", "end_before_start", line=line)
    allocated = np.array(counts, dtype=np.float64)
    busy = (start_s, end_s, allocated * (end_s - start_s) / 3600)
    observed = (np.array([start_s.min()]), np.array([end_s.max()]))
    peak = _peak_concurrency(start_s, end_s, allocated)
    return _report(busy, observed, round(peak), models, notices)


# -- AWS Cost and Usage Report --------------------------------------------------------------

_INSTANCE_USAGE = re.compile(r"(?:^|-)(?:BoxUsage|SpotUsage|HeavyUsage|DedicatedUsage)[^:]*:(.+)$")


_CUR_2_NAMES = {
    "line_item_usage_start_date": "lineItem/UsageStartDate",
    "line_item_usage_end_date": "lineItem/UsageEndDate",
    "line_item_usage_type": "lineItem/UsageType",
    "line_item_usage_amount": "lineItem/UsageAmount",
    "line_item_line_item_type": "lineItem/LineItemType",
    "product_instance_type": "product/instanceType",
}
"""Column names of the CUR 2.0 data export, as the legacy report names them."""


def read_aws_cur(text: str, gpus_per_instance: Mapping[str, tuple[int, str]]) -> MeasuredUsage:
    """Read an AWS Cost and Usage Report CSV.

    Parameters
    ----------
    text : str
        The report: ``lineItem/UsageStartDate``, ``lineItem/UsageAmount``
        [instance-h] and ``product/instanceType`` or ``lineItem/UsageType``
        (``USE1-BoxUsage:p4d.24xlarge``); ``lineItem/UsageEndDate`` optional. The
        CUR 2.0 export's names (``line_item_usage_start_date`` …) are read as well.
    gpus_per_instance : mapping
        Instance type → (GPUs per instance, GPU model name), from the catalog's offerings.

    Returns
    -------
    MeasuredUsage
        ``UsageAmount × GPUs`` per line item, spread over its usage period.
        Instance types not in the mapping are reported, not guessed; rows that
        are not instance usage (storage, tax, credits) are left out.
    """
    _check_text(text)
    reader = csv.reader(io.StringIO(text))
    try:
        header = [_CUR_2_NAMES.get(h.strip(), h.strip()) for h in next(reader)]
    except StopIteration:
        raise _fail("is empty", "empty") from None
    need_type = ("product/instanceType", "lineItem/UsageType")
    missing = [c for c in ("lineItem/UsageStartDate", "lineItem/UsageAmount") if c not in header]
    if missing or not any(c in header for c in need_type):
        raise _fail(
            "line 1: is not a Cost and Usage Report header: needs lineItem/UsageStartDate, "
            "lineItem/UsageAmount and product/instanceType or lineItem/UsageType",
            "not_cur",
            line=1,
        )
    col = {name: k for k, name in enumerate(header)}
    starts, ends, amounts, types, where = [], [], [], [], []
    skipped: list[RowSkipped] = []
    for number, row in enumerate(reader, start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            skipped.append(_field_count(number, len(row), len(header)))
            continue
        kind = row[col["product/instanceType"]].strip() if "product/instanceType" in col else ""
        if not kind and "lineItem/UsageType" in col:
            match = _INSTANCE_USAGE.search(row[col["lineItem/UsageType"]].strip())
            kind = match.group(1) if match else ""
        if not kind:
            continue  # storage, data transfer, tax, credits: not instance-hours
        if "lineItem/LineItemType" in col and row[col["lineItem/LineItemType"]] not in (
            "Usage",
            "DiscountedUsage",
            "SavingsPlanCoveredUsage",
        ):
            continue
        starts.append(row[col["lineItem/UsageStartDate"]])
        ends.append(row[col["lineItem/UsageEndDate"]] if "lineItem/UsageEndDate" in col else "")
        amounts.append(row[col["lineItem/UsageAmount"]])
        types.append(kind)
        where.append(number)
    if not starts:
        raise _fail("line 2: the report has no instance usage rows", "no_instance_usage", line=2)
    start_s, bad_start = _timestamps(starts)
    amount, bad_amount = _numbers(amounts)
    has_end = np.array([bool(e.strip()) for e in ends])
    end_s, bad_end = _timestamps([e if e.strip() else s for e, s in zip(ends, starts, strict=True)])
    bad = bad_start | bad_amount | bad_end
    skipped += [
        RowSkipped(line=where[i], reason="unreadable_date_or_amount") for i in np.flatnonzero(bad)
    ]
    negative = np.flatnonzero(~bad & (amount < 0))
    if negative.size:
        line = where[negative[0]]
        raise _fail(f"line {line}: UsageAmount must not be negative", "negative_amount", line=line)
    end_s = np.where(has_end, end_s, start_s + 3600.0)
    known = np.array([t in gpus_per_instance for t in types])
    unknown_hours: dict[str, float] = {}
    for i in np.flatnonzero(~known & ~bad):
        unknown_hours[types[i]] = unknown_hours.get(types[i], 0.0) + float(amount[i])
    notices: list[UsageNotice] = []
    _skipped(notices, skipped)
    notices += [
        InstanceTypeUnknown(instance_type=kind, hours=hours)
        for kind, hours in sorted(unknown_hours.items())
    ]
    use = ~bad & known
    if not use.any():
        raise _fail(
            "the report has no usage of a GPU instance type the catalog knows",
            "no_known_gpu_instance",
        )
    gpus = np.array([gpus_per_instance[t][0] if t in gpus_per_instance else 0 for t in types])
    models = sorted({gpus_per_instance[types[i]][1] for i in np.flatnonzero(use)})
    start_u, end_u = start_s[use], end_s[use]
    gpu_hours = amount[use] * gpus[use]
    length_h = np.maximum(end_u - start_u, 1.0) / 3600
    busy = (start_u, end_u, gpu_hours)
    observed = (start_s[~bad], end_s[~bad])
    peak = _peak_concurrency(start_u, end_u, gpu_hours / length_h)
    return _report(busy, observed, int(np.ceil(peak - 1e-9)), models, notices)


def read_usage(
    format: str, text: str, gpus_per_instance: Mapping[str, tuple[int, str]] | None = None
) -> MeasuredUsage:
    """Read ``text`` in ``format`` (one of :data:`FORMATS`); ``aws-cur`` needs the mapping.

    Raises
    ------
    UsageError
        ``format`` unknown, or the content unreadable (its message names the line).
    """
    if format == "nvidia-smi":
        return read_nvidia_smi(text)
    if format == "dcgm-prometheus":
        return read_dcgm_prometheus(text)
    if format == "slurm-sacct":
        return read_slurm_sacct(text)
    if format == "aws-cur":
        return read_aws_cur(text, gpus_per_instance or {})
    raise UsageError([FieldError("format", f"must be one of {', '.join(FORMATS)}")])


# -- from measured usage to a profile workload -----------------------------------------------


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
    full = _hours_in_month(measured)
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
                    f"{_month_name(int(plan[i]))} needs {profile[i]:.1f} boxes' work, more "
                    f"than {MAX_DEMAND_MULTIPLE:g}: choose a bigger box",
                    "profile_month_above_limit",
                    {
                        "month": _month_name(int(plan[i])),
                        "boxes": float(profile[i]),
                        "limit": MAX_DEMAND_MULTIPLE,
                    },
                )
            ]
        )
    return UsageProfile(
        months=[_month_name(int(p)) for p in plan],
        monthly_utilization=[float(v) for v in profile],
        filled=[bool(f) for f in filled],
        measured_months=[
            None if f else _month_name(int(m)) for f, m in zip(filled, latest, strict=True)
        ],
    )
