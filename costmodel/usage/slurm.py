"""Slurm accounting: ``sacct`` output."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from costmodel.errors import FieldError
from costmodel.usage.bounds import CLOCK_LEEWAY_S, check_times, job_gpus
from costmodel.usage.errors import UsageError, fail
from costmodel.usage.months import MeasuredUsage, peak_concurrency, report
from costmodel.usage.notices import (
    JobStepsSkipped,
    JobsWithoutGpu,
    RowSkipped,
    UnfinishedJobsSkipped,
    UsageNotice,
    add_skipped,
    field_count,
)
from costmodel.usage.text import check_text, timestamps

_GPU_TRES = re.compile(r"(?:^|,)gres/gpu(?::([^=,]+))?=(\d+)")


SACCT_PRESETS: dict[str, tuple[str, ...]] = {
    "xdmod": (
        "jobid", "jobidraw", "cluster", "partition", "qos", "account", "group", "gid", "user",
        "uid", "submit", "eligible", "start", "end", "elapsed", "exitcode", "state", "nnodes",
        "ncpus", "reqcpus", "reqmem", "reqtres", "alloctres", "timelimit", "nodelist",
        "jobname",
    ),
}  # fmt: skip
"""Field orders of headerless exports by name: ``xdmod`` is Open XDMoD's documented
``sacct --allusers --parsable2 --noheader --allocations --duplicates --format
jobid,jobidraw,cluster,partition,qos,account,group,gid,user,uid,submit,eligible,start,end,
elapsed,exitcode,state,nnodes,ncpus,reqcpus,reqmem,reqtres,alloctres,timelimit,nodelist,
jobname``."""

DEFAULT_FIELDS = ("jobid", "start", "end", "alloctres")
"""The order of ``sacct -a -X -P --format=JobID,Start,End,AllocTRES``, read without a header."""


def sacct_columns(columns: str | Sequence[str]) -> tuple[str, ...]:
    """Field names, lower case, of a ``--columns`` value: a preset name
    (:data:`SACCT_PRESETS`) or the names in order, comma-separated (as ``--format``).

    Raises
    ------
    UsageError
        On ``columns``: a needed field (JobID or JobIDRaw, Start, End, AllocTRES) missing.
    """
    items = columns.split(",") if isinstance(columns, str) else list(columns)
    names = tuple(c.strip().lower() for c in items if c.strip())
    if len(names) == 1 and names[0] in SACCT_PRESETS:
        return SACCT_PRESETS[names[0]]
    missing = _missing(names)
    if missing:
        raise UsageError(
            [
                FieldError(
                    "columns",
                    f"has no {', '.join(missing)}: name the fields in the order sacct printed "
                    f"them (its --format), or a preset: {', '.join(SACCT_PRESETS)}",
                    "columns_missing",
                    {"columns": ", ".join(missing)},
                )
            ]
        )
    return names


def _missing(names: Sequence[str]) -> list[str]:
    missing = [] if {"jobid", "jobidraw"} & set(names) else ["jobid"]
    return missing + [c for c in ("start", "end", "alloctres") if c not in names]


def read_slurm_sacct(
    text: str, columns: str | Sequence[str] | None = None, *, now: float | None = None
) -> MeasuredUsage:
    """Read ``sacct -a -X -P`` output with JobID (or JobIDRaw), Start, End and AllocTRES.

    The header names the fields as sacct prints them, in any order; other
    fields are ignored. Without a header (``--noheader``) ``columns`` names
    the order (:func:`sacct_columns`: ``"xdmod"``, or ``"jobid,start,end,
    alloctres"`` …); without either, the four fields of ``--format=JobID,
    Start,End,AllocTRES`` are read in that order.

    GPUs of a job are ``gres/gpu=N`` in AllocTRES (a typed ``gres/gpu:a100=N``
    names the model). Job steps (``123.batch``), jobs without an end
    (running, pending) and jobs without a GPU are counted in a notice each; a
    file where no job allocated a GPU is refused. Busy GPU-hours are ``GPUs ×
    (End − Start)`` split at month boundaries; the accounting observes from the
    earliest start to the latest end.

    Bounds (:mod:`costmodel.usage.bounds`): a job's ``gres/gpu`` above
    :data:`~costmodel.usage.bounds.MAX_GPUS` is refused naming its line
    (``gpus_above_limit``), and so is a Start or End before 2000 or later than
    ``now`` (the time of reading, default the clock's) plus a day (``time_too_early``,
    ``time_in_future``).
    """
    check_text(text)
    lines = text.splitlines()
    header_at = next(i for i, line in enumerate(lines) if line.strip())
    fields = [n.strip().lower() for n in lines[header_at].split("|")]
    number = header_at + 1
    if {"jobid", "jobidraw", "start"} & set(fields) and not _date_at(fields):
        missing = _missing(fields)
        if missing:
            raise fail(
                f"line {number}: the header has no {', '.join(missing)} column; run "
                "sacct -a -X -P --format=JobID,Start,End,AllocTRES",
                "missing_columns",
                line=number,
                columns=", ".join(missing),
            )
        names, first = fields, header_at + 1
    elif columns is not None:
        names, first = list(sacct_columns(columns)), header_at
    elif len(fields) == len(DEFAULT_FIELDS) and re.match(r"^\d{4}-\d\d-\d\d", fields[1]):
        names, first = list(DEFAULT_FIELDS), header_at
    else:
        raise fail(
            f"line {number}: is not sacct -P output with a header: give the order of its "
            f"{len(fields)} fields "
            "(--columns on the command, the columns field on the page and in the API), or "
            "xdmod for Open XDMoD's export",
            "not_sacct",
            line=number,
            count=len(fields),
        )
    names = ["jobid" if n == "jobidraw" and "jobid" not in names else n for n in names]
    at = {c: names.index(c) for c in ("jobid", "start", "end", "alloctres")}
    steps, unfinished, without_gpu, skipped = 0, 0, 0, list[RowSkipped]()
    starts, ends, counts, where = [], [], [], []
    models: list[str] = []
    for n in range(first, len(lines)):
        line = lines[n]
        if not line.strip():
            continue
        fields = line.split("|")
        if len(fields) < len(names):
            skipped.append(field_count(n + 1, len(fields), len(names)))
            continue
        if "." in fields[at["jobid"]]:
            steps += 1
            continue
        start, end = fields[at["start"]].strip(), fields[at["end"]].strip()
        if end in ("Unknown", "None", "") or start in ("Unknown", "None", ""):
            unfinished += 1
            continue
        tres = _GPU_TRES.findall(fields[at["alloctres"]])
        gpus = max((job_gpus(c, "AllocTRES", {"line": n + 1}) for _m, c in tres), default=0)
        without_gpu += gpus == 0  # it still counts for the time the accounting observed
        models += [m for m, _c in tres if m]
        starts.append(start)
        ends.append(end)
        counts.append(gpus)
        where.append(n + 1)
    notices: list[UsageNotice] = []
    add_skipped(notices, skipped)
    if steps:
        notices.append(JobStepsSkipped(count=steps))
    if unfinished:
        notices.append(UnfinishedJobsSkipped(count=unfinished))
    if without_gpu:
        notices.append(JobsWithoutGpu(count=without_gpu))
    if starts and without_gpu == len(starts):
        raise fail(
            f"no job in this file allocated a GPU: none of its {without_gpu} finished jobs has "
            "gres/gpu in AllocTRES (is GPU accounting on? AccountingStorageTRES=gres/gpu)",
            "no_gpu_job",
            jobs=without_gpu,
        )
    if not starts:
        raise fail(
            f"line {first + 1}: no finished job in the sacct output",
            "no_finished_job",
            line=first + 1,
        )
    start_s, bad_start = timestamps(starts)
    end_s, bad_end = timestamps(ends)
    bad = np.flatnonzero(bad_start | bad_end)
    if bad.size:
        line = where[bad[0]]
        raise fail(f"line {line}: unreadable Start or End time", "unreadable_job_time", line=line)
    check_times(
        [("Start", start_s, CLOCK_LEEWAY_S), ("End", end_s, CLOCK_LEEWAY_S)],
        lambda i: {"line": where[i]},
        now,
    )
    backwards = np.flatnonzero(end_s < start_s)
    if backwards.size:
        line = where[backwards[0]]
        raise fail(f"line {line}: End is before Start", "end_before_start", line=line)
    allocated = np.array(counts, dtype=np.float64)
    busy = (start_s, end_s, allocated * (end_s - start_s) / 3600)
    observed = (np.array([start_s.min()]), np.array([end_s.max()]))
    peak = peak_concurrency(start_s, end_s, allocated)
    return report(busy, observed, round(peak), models, notices)


def _date_at(fields: Sequence[str]) -> bool:
    """Whether a line's fields hold a date (a data row, not a header)."""
    return any(re.match(r"^\d{4}-\d\d-\d\d", f) for f in fields)
