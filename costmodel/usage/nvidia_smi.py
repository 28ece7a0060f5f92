"""nvidia-smi ``--query-gpu`` logs."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from costmodel.errors import FieldError
from costmodel.usage.errors import UsageError, fail
from costmodel.usage.months import MeasuredUsage
from costmodel.usage.notices import (
    MAX_PLACES,
    GpuRef,
    GpusWithoutUtilization,
    RowSkipped,
    UsageNotice,
    add_skipped,
    field_count,
)
from costmodel.usage.sampled import Samples, sampled
from costmodel.usage.text import check_text, numbers, timestamps


def _field_names(fields: Sequence[str]) -> list[str]:
    """Field names as ``--query-gpu`` takes them (``utilization.gpu [%]`` →
    ``utilization.gpu``; ``hostname`` → ``host``)."""
    names = [re.sub(r"\s*\[.*\]$", "", f.strip()).lower() for f in fields]
    return ["host" if n == "hostname" else n for n in names]


def _nvidia_header(fields: list[str]) -> list[str] | None:
    """Column names of a header line, or ``None`` when the line is no header."""
    names = _field_names(fields)
    if "timestamp" in names and "utilization.gpu" in names:
        return names
    return None


def nvidia_columns(columns: str | Sequence[str]) -> list[str]:
    """The field names of a ``--columns`` value: the ``--query-gpu`` list, comma-separated.

    Raises
    ------
    UsageError
        On ``columns``: ``timestamp`` or ``utilization.gpu`` missing.
    """
    items = columns.split(",") if isinstance(columns, str) else list(columns)
    names = _field_names([c for c in items if c.strip()])
    missing = [c for c in ("timestamp", "utilization.gpu") if c not in names]
    if missing:
        raise UsageError(
            [
                FieldError(
                    "columns",
                    f"has no {', '.join(missing)}: name the --query-gpu fields in the order "
                    "the log has them (timestamp,index,name,utilization.gpu,…)",
                    "query_fields_missing",
                    {"columns": ", ".join(missing)},
                )
            ]
        )
    return names


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


def read_nvidia_smi(text: str, columns: str | Sequence[str] | None = None) -> MeasuredUsage:
    """Read an ``nvidia-smi --query-gpu=timestamp,index,name,utilization.gpu`` CSV log.

    Parameters
    ----------
    text : str
        The log of any ``--query-gpu`` field list holding ``timestamp`` and
        ``utilization.gpu`` (other fields ignored; the GPU is its ``index``,
        else ``uuid`` or ``pci.bus_id``; ``name`` its model; a ``host`` or
        ``hostname`` field its host). Units optional (``nounits``). Logs of
        several hosts may be concatenated; without a host field each repeated
        header starts the next host's log.
    columns : str, optional
        The field list of a log without a header (``noheader``), as given to
        ``--query-gpu``; without it a headerless log must be one of the short
        forms ``timestamp, index, [name,] utilization.gpu`` (a ``host`` first optional).

    Returns
    -------
    MeasuredUsage
        GPU-hours per month by the sampling rule (module Notes). Rows that
        cannot be read (``[N/A]``, a cut line) are skipped with their line number;
        a GPU none of whose readings is a utilization (a MIG-enabled GPU, a GPU
        reporting ``[N/A]``) is one notice, not a line per row.

    Raises
    ------
    UsageError
        Naming the line: utilization outside 0–100, a timestamp earlier than
        the GPU's previous one, or no readable row at all.
    """
    check_text(text)
    lines = text.splitlines()
    headers = [
        n for n, line in enumerate(lines) if "timestamp" in line and _nvidia_header(line.split(","))
    ]
    header_lines = set(headers)
    data = np.array(
        [n for n, line in enumerate(lines) if n not in header_lines and line.strip()],
        dtype=np.int64,
    )
    commas = np.array([lines[n].count(",") for n in data], dtype=np.int64)
    given = columns
    columns = _nvidia_header(lines[headers[-1]].split(",")) if headers else None
    first_line = int(data[0]) + 1 if data.size else 1
    if columns is None and given is not None:
        columns = nvidia_columns(given)
    if columns is None:
        first_of_each_width = {c: int(n) for c, n in zip(commas[::-1], data[::-1], strict=True)}
        guesses = [_nvidia_guess(lines[n].split(",")) for n in first_of_each_width.values()]
        columns = next((g for g in guesses if g), None)
        if columns is None:
            count = lines[int(data[0])].count(",") + 1 if data.size else 0
            raise fail(
                f"line {first_line}: is not an nvidia-smi CSV with a header: give its "
                f"{count} --query-gpu fields in order (--columns on the command, the columns "
                "field on the page and in the API)",
                "not_nvidia_smi",
                line=first_line,
                count=count,
            )
    width = len(columns)
    fits = commas == width - 1
    skipped = [
        field_count(int(n) + 1, int(c) + 1, width)
        for n, c in zip(data[~fits], commas[~fits], strict=True)
    ]
    if not fits.any():
        raise fail(
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
    time, bad_time = timestamps(col["timestamp"])
    util, bad_util = numbers(col["utilization.gpu"])
    bad = bad_time | bad_util
    if bad_time.all():
        raise fail(
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
    key = host * index_names.size + index

    def ref(p: int) -> GpuRef:
        return GpuRef(
            host=str(host_names[p // index_names.size]) if named else None,
            log=None if named else int(p // index_names.size) + 1,
            index=str(index_names[p % index_names.size]),
        )

    # A GPU none of whose rows holds a utilization (MIG mode, [N/A]): one notice, not a
    # skipped row per sample.
    keys, key_at = np.unique(key, return_inverse=True)
    silent_key = np.bincount(key_at, weights=~bad_util) == 0
    silent_row = silent_key[key_at]
    notices: list[UsageNotice] = []
    if silent_key.any():
        mig = np.zeros(keys.size, dtype=bool)
        if "mig.mode.current" in col:
            enabled = np.char.lower(np.char.strip(col["mig.mode.current"])) == "enabled"
            mig = np.bincount(key_at, weights=enabled, minlength=keys.size) > 0
        for is_mig in (True, False):
            chosen = np.flatnonzero(silent_key & (mig == is_mig))
            if chosen.size:
                notices.append(
                    GpusWithoutUtilization(
                        count=int(chosen.size),
                        mig=is_mig,
                        gpus=[ref(int(keys[k])) for k in chosen[:MAX_PLACES]],
                    )
                )
    if (bad | silent_row).all():
        raise fail(
            f"line {line_number[0]}: no GPU in the log reports a utilization (all [N/A]: "
            "MIG mode? log DCGM_FI_PROF_GR_ENGINE_ACTIVE through DCGM instead)",
            "no_utilization",
            line=int(line_number[0]),
        )
    skipped += [
        RowSkipped(
            line=int(line_number[i]),
            reason="unreadable_timestamp" if bad_time[i] else "unreadable_utilization",
        )
        for i in np.flatnonzero(bad & ~silent_row)
    ]
    kept = np.flatnonzero(~bad)
    pairs, gpu = np.unique(key[kept], return_inverse=True)
    gpus = [ref(int(p)) for p in pairs]
    models = {n.strip() for n in set(col["name"])} if "name" in col else set()
    listed: list[UsageNotice] = []
    add_skipped(listed, skipped)
    notices = listed + notices
    samples = Samples(
        gpu=gpu.astype(np.int64),
        time=time[kept],
        utilization=util[kept],
        where=lambda i: f"line {line_number[kept[i]]}",
        at=lambda i: {"line": int(line_number[kept[i]])},
        gpus=gpus,
    )
    return sampled(samples, sorted(m for m in models if m), notices)
