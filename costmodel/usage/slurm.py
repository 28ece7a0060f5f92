"""Slurm accounting: ``sacct`` output."""

from __future__ import annotations

import re

import numpy as np

from costmodel.usage.errors import fail
from costmodel.usage.months import MeasuredUsage, peak_concurrency, report
from costmodel.usage.notices import (
    JobStepsSkipped,
    RowSkipped,
    UnfinishedJobsSkipped,
    UsageNotice,
    add_skipped,
    field_count,
)
from costmodel.usage.text import check_text, timestamps

_GPU_TRES = re.compile(r"(?:^|,)gres/gpu(?::([^=,]+))?=(\d+)")


def read_slurm_sacct(text: str) -> MeasuredUsage:
    """Read ``sacct -a -X -P --format=JobID,Start,End,AllocTRES``.

    GPUs of a job are ``gres/gpu=N`` in AllocTRES (a typed ``gres/gpu:a100=N``
    names the model). Job steps (``123.batch``) and jobs without an end
    (running, pending) are skipped with a notice; jobs without GPUs count
    nothing. Busy GPU-hours are ``GPUs × (End − Start)`` split at month
    boundaries; the accounting observes from the earliest start to the latest end.
    """
    check_text(text)
    lines = text.splitlines()
    header_at = next(i for i, line in enumerate(lines) if line.strip())
    names = [n.strip().lower() for n in lines[header_at].split("|")]
    number = header_at + 1
    if "jobid" in names:
        missing = [c for c in ("jobid", "start", "end", "alloctres") if c not in names]
        if missing:
            raise fail(
                f"line {number}: the header has no {', '.join(missing)} column; run "
                "sacct -a -X -P --format=JobID,Start,End,AllocTRES",
                "missing_columns",
                line=number,
                columns=", ".join(missing),
            )
        first = header_at + 1
    else:
        if len(names) < 4 or not re.match(r"^\d{4}-\d\d-\d\d", names[1]):
            raise fail(
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
        gpus = max((int(c) for _model, c in tres), default=0)
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
    backwards = np.flatnonzero(end_s < start_s)
    if backwards.size:
        line = where[backwards[0]]
        raise fail(f"line {line}: End is before Start", "end_before_start", line=line)
    allocated = np.array(counts, dtype=np.float64)
    busy = (start_s, end_s, allocated * (end_s - start_s) / 3600)
    observed = (np.array([start_s.min()]), np.array([end_s.max()]))
    peak = peak_concurrency(start_s, end_s, allocated)
    return report(busy, observed, round(peak), models, notices)
