"""Measured usage: GPU logs, scheduler accounting and cloud bills → GPU-hours per month.

Four readers turn a file's text into :class:`MeasuredUsage`: GPU-hours per
calendar month (UTC), the hours of each month the file observed, the GPUs it
saw and notices. :func:`profile_from_usage` turns that into the 12-month
``profile`` workload it implies for a box. Pure numpy + pydantic, no Django;
the readers take text (the edge decodes bytes) and, for a cloud bill, a
mapping from instance type to its GPUs (the edge builds it from the catalog).

Formats (:data:`FORMATS`):

- ``nvidia-smi``: ``nvidia-smi --query-gpu=timestamp,index,name,utilization.gpu,…
  --format=csv -l N``: any field list with ``timestamp`` and ``utilization.gpu``,
  with or without ``,nounits``; without a header (``noheader``) the field list
  given once (``columns``); several hosts' logs may be concatenated (without a
  host field, each repeated header starts the next host's log).
- ``dcgm-prometheus``: the JSON answer of Prometheus' ``/api/v1/query_range``
  for ``DCGM_FI_DEV_GPU_UTIL`` [%] or ``DCGM_FI_PROF_GR_ENGINE_ACTIVE`` /
  ``DCGM_FI_PROF_SM_ACTIVE`` [0–1] (result type ``matrix``; the series of one
  GPU, its ``UUID``, merged; samples put in time order).
- ``slurm-sacct``: ``sacct -a -X -P`` with JobID (or JobIDRaw), Start, End and
  AllocTRES, in any order among other fields; headerless with the field order
  given (``columns``; ``xdmod`` for Open XDMoD's documented export).
- ``aws-cur``: an AWS Cost and Usage Report CSV (legacy or CUR 2.0 names).
- ``focus``: a FOCUS 1.x cost and usage CSV of any provider (AWS, Azure,
  Google Cloud, OCI), the instance type read where each provider puts it.

Timestamps without a zone (nvidia-smi, sacct) are read as UTC.

Bounds (:mod:`costmodel.usage.bounds`): a figure no real machine, account or clock
writes is refused naming its line (or JSON path) and field: a time before 2000 or later
than the time of reading plus a day (a bill's period end: plus 32 days), a Slurm job of
more than :data:`MAX_GPUS` GPUs, a bill row of more than :data:`MAX_GPUS` GPUs at once.

What a reader skipped or could not see is reported as :data:`UsageNotice`
values: a stable ``code`` and the figures it is about (line, count, month …),
never a sentence; the edge words them in the reader's language.

Notes
-----
Sampled utilization (nvidia-smi, DCGM), per GPU, samples in time order::

    median_interval = median(t[i+1] − t[i])                    [s]
    span[i]   = min(t[i+1] − t[i], 2 × median_interval)         [s]   (last sample: median_interval)
    busy[i]   = utilization[i] / 100 × span[i] / 3600           [GPU-h]

Time beyond twice the median interval after a sample is unobserved; a ``gap``
notice reports it when it is itself at least twice the median interval (a
step of four median intervals or more), so a logger's short stall is counted
as unobserved but not listed.
Every span ``[t[i], t[i] + span[i]]`` is split at month boundaries in
proportion to its time in each month. ``observed_hours`` of a month are the
hours in it covered by at least one GPU's spans.

Slurm: ``busy = GPUs × (End − Start)`` [GPU-h], split at month boundaries;
observed from the earliest start to the latest end. Cloud bill: ``busy =
UsageAmount [instance-h] × GPUs per instance``, spread over the line item's
``[UsageStartDate, UsageEndDate)`` (FOCUS: ``ConsumedQuantity`` over
``[ChargePeriodStart, ChargePeriodEnd)``); observed where any line item runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from costmodel.errors import FieldError
from costmodel.usage.aws_cur import read_aws_cur
from costmodel.usage.bounds import (
    BILL_PERIOD_AHEAD_S,
    CLOCK_LEEWAY_S,
    EARLIEST_TIME,
    MAX_GPUS,
)
from costmodel.usage.dcgm import (
    LATEST_UNIX_TIME,
    METRIC_SCALE,
    QUERY_RANGE_HINT,
    read_dcgm_prometheus,
)
from costmodel.usage.errors import READER_CODES, UsageError
from costmodel.usage.focus import read_focus
from costmodel.usage.months import MAX_MONTHS, PARTLY_OBSERVED_SHARE, MeasuredUsage
from costmodel.usage.notices import (
    MAX_NOTICES_LISTED,
    MAX_PLACES,
    NOTICE_CODES,
    NOTICE_TYPES,
    Gap,
    GpuRef,
    GpusWithoutUtilization,
    InstanceTypeUnknown,
    JobStepsSkipped,
    JobsWithoutGpu,
    MigGpusSkipped,
    MonthNotObserved,
    MonthPartlyObserved,
    MoreGaps,
    MoreRowsSkipped,
    RowSkipped,
    SamplesSkipped,
    SingleSampleGpus,
    UnfinishedJobsSkipped,
    UsageNotice,
)
from costmodel.usage.nvidia_smi import nvidia_columns, read_nvidia_smi
from costmodel.usage.profile import (
    MAX_GROWTH_PER_YEAR,
    MIN_GROWTH_PER_YEAR,
    PROFILE_MONTHS,
    UsageProfile,
    profile_from_usage,
)
from costmodel.usage.slurm import SACCT_PRESETS, read_slurm_sacct, sacct_columns
from costmodel.usage.text import decode_text, file_bytes

Format = Literal["nvidia-smi", "dcgm-prometheus", "slurm-sacct", "aws-cur", "focus"]
FORMATS: tuple[str, ...] = ("nvidia-smi", "dcgm-prometheus", "slurm-sacct", "aws-cur", "focus")


def read_usage(
    format: str,
    text: str | bytes,
    gpus_per_instance: Mapping[str, tuple[int, str]] | None = None,
    columns: str | None = None,
    *,
    now: float | None = None,
) -> MeasuredUsage:
    """Read ``text`` in ``format`` (one of :data:`FORMATS`); the bills (``aws-cur``,
    ``focus``) need the mapping;
    ``text`` may be the file's bytes as :func:`file_bytes` checks them (a large log is
    then read without a second, text-sized copy); ``columns`` names the fields of a
    headerless ``slurm-sacct`` file (``"xdmod"``, or ``"jobid,start,end,alloctres"``) or
    ``nvidia-smi`` log (its ``--query-gpu`` list), and is ignored by the other formats;
    ``now`` is the time of reading [Unix s] the bounds compare dates with (default the
    clock's; :mod:`costmodel.usage.bounds`).

    Raises
    ------
    UsageError
        ``format`` unknown, or the content unreadable or past a bound (its message names
        the line).
    """
    if format == "nvidia-smi":
        return read_nvidia_smi(text, columns, now=now)  # bytes read as they are: no text-sized copy
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    if format == "dcgm-prometheus":
        return read_dcgm_prometheus(text, now=now)
    if format == "slurm-sacct":
        return read_slurm_sacct(text, columns, now=now)
    if format == "aws-cur":
        return read_aws_cur(text, gpus_per_instance or {}, now=now)
    if format == "focus":
        return read_focus(text, gpus_per_instance or {}, now=now)
    raise UsageError([FieldError("format", f"must be one of {', '.join(FORMATS)}")])


__all__ = [
    "BILL_PERIOD_AHEAD_S",
    "CLOCK_LEEWAY_S",
    "EARLIEST_TIME",
    "FORMATS",
    "LATEST_UNIX_TIME",
    "MAX_GPUS",
    "MAX_GROWTH_PER_YEAR",
    "MAX_MONTHS",
    "MAX_NOTICES_LISTED",
    "MAX_PLACES",
    "METRIC_SCALE",
    "MIN_GROWTH_PER_YEAR",
    "NOTICE_CODES",
    "NOTICE_TYPES",
    "PARTLY_OBSERVED_SHARE",
    "PROFILE_MONTHS",
    "QUERY_RANGE_HINT",
    "READER_CODES",
    "SACCT_PRESETS",
    "Format",
    "Gap",
    "GpuRef",
    "GpusWithoutUtilization",
    "InstanceTypeUnknown",
    "JobStepsSkipped",
    "JobsWithoutGpu",
    "MeasuredUsage",
    "MigGpusSkipped",
    "MonthNotObserved",
    "MonthPartlyObserved",
    "MoreGaps",
    "MoreRowsSkipped",
    "RowSkipped",
    "SamplesSkipped",
    "SingleSampleGpus",
    "UnfinishedJobsSkipped",
    "UsageError",
    "UsageNotice",
    "UsageProfile",
    "decode_text",
    "file_bytes",
    "nvidia_columns",
    "profile_from_usage",
    "read_aws_cur",
    "read_dcgm_prometheus",
    "read_focus",
    "read_nvidia_smi",
    "read_slurm_sacct",
    "read_usage",
    "sacct_columns",
]
