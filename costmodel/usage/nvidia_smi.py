"""nvidia-smi ``--query-gpu`` logs."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from costmodel.errors import FieldError
from costmodel.usage.bounds import CLOCK_LEEWAY_S, check_times
from costmodel.usage.columns import Table, bytes_numbers, bytes_times
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


def read_nvidia_smi(
    text: str | bytes, columns: str | Sequence[str] | None = None, *, now: float | None = None
) -> MeasuredUsage:
    """Read an ``nvidia-smi --query-gpu=timestamp,index,name,utilization.gpu`` CSV log.

    Parameters
    ----------
    text : str or bytes
        The log (bytes: UTF-8, as :func:`costmodel.usage.file_bytes` checks them) of
        any ``--query-gpu`` field list holding ``timestamp`` and ``utilization.gpu``
        (other fields ignored; the GPU is its ``index``, else ``uuid`` or
        ``pci.bus_id``; ``name`` its model; a ``host`` or ``hostname`` field its
        host). Units optional (``nounits``). Logs of several hosts may be
        concatenated; without a host field each repeated header starts the next
        host's log.
    columns : str, optional
        The field list of a log without a header (``noheader``), as given to
        ``--query-gpu``; without it a headerless log must be one of the short
        forms ``timestamp, index, [name,] utilization.gpu`` (a ``host`` first optional).
    now : float, optional
        The time of reading [Unix s], default the clock's: a timestamp later than it
        plus a day, or before 2000, is refused (:mod:`costmodel.usage.bounds`).

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
        the GPU's previous one, before 2000 or in the future, or no readable row at all.
    """
    check_text(text)
    table = Table(text)
    headers = table.lines_where(
        lambda line: "timestamp" in line and _nvidia_header(line.split(",")) is not None, b"t"
    )
    is_header = np.zeros(len(table), dtype=bool)
    is_header[headers] = True
    data_rows = ~is_header & ~table.blank()
    data = np.flatnonzero(data_rows)
    commas = table.counts[data]
    given = columns
    columns = _nvidia_header(table.line(headers[-1]).split(",")) if headers else None
    first_line = int(data[0]) + 1 if data.size else 1
    if columns is None and given is not None:
        columns = nvidia_columns(given)
    if columns is None:
        first_of_width = np.unique(commas, return_index=True)[1]
        guesses = [_nvidia_guess(table.line(int(data[i])).split(",")) for i in first_of_width]
        columns = next((g for g in guesses if g), None)
        if columns is None:
            count = int(commas[0]) + 1 if data.size else 0
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
    # Every kept row has `width` fields: each needed field of all rows is one bytes array.
    fit_rows = np.zeros(len(table), dtype=bool)
    fit_rows[data[fits]] = True
    table.select(fit_rows, width)
    # The short fields as arrays; times and utilizations converted a block at a time; the
    # GPU's name read at its first row only (below).
    wanted = {"host", "index", "uuid", "pci.bus_id", "mig.mode.current"}
    at = {name: columns.index(name) for name in set(columns)}
    col = {name: _field(table, at[name]) for name in wanted if name in at}
    line_number = data[fits] + 1
    time = table.convert(at["timestamp"], bytes_times)
    if time is not None:
        bad_time = np.zeros(time.size, dtype=bool)
    else:
        time, bad_time = timestamps(_texts(_field(table, at["timestamp"])))
    util = table.convert(at["utilization.gpu"], bytes_numbers)
    if util is not None:
        bad_util = np.zeros(util.size, dtype=bool)
    else:
        util, bad_util = numbers(_texts(_field(table, at["utilization.gpu"])))
    bad = bad_time | bad_util
    if bad_time.all():
        raise fail(
            f"line {line_number[0]}: is not an nvidia-smi CSV: no row has a readable timestamp "
            "and utilization",
            "no_readable_row",
            line=int(line_number[0]),
        )
    check_times(
        [("timestamp", time, CLOCK_LEEWAY_S)],
        lambda i: {"line": int(line_number[i])},
        now,
        readable=~bad_time,
    )
    named = "host" in col
    if named:
        host_names, host = np.unique(col["host"], return_inverse=True)
    else:
        # Without a host column, each header line starts the next host's log.
        host = np.searchsorted(np.array(headers, dtype=np.int64), line_number - 1, side="right")
        host -= host.min()
    # The GPU within its host: its index, else its UUID or bus id; one GPU when none is logged.
    gpu_column = next((c for c in ("index", "uuid", "pci.bus_id") if c in col), None)
    gpu_ids = col[gpu_column] if gpu_column else np.zeros(len(line_number), "S1")
    index_names, index = np.unique(gpu_ids, return_inverse=True)
    key = host * index_names.size + index

    def ref(p: int) -> GpuRef:
        return GpuRef(
            host=host_names[p // index_names.size].decode() if named else None,
            log=None if named else int(p // index_names.size) + 1,
            index=index_names[p % index_names.size].decode(),
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
            enabled = np.char.lower(col["mig.mode.current"]) == b"enabled"
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
            "MIG mode? measure MIG GPUs by their allocation: Slurm's sacct, the cloud bill)",
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
    every = not bad.any()
    kept = np.flatnonzero(~bad)
    pairs, gpu = np.unique(key if every else key[kept], return_inverse=True)
    gpus = [ref(int(p)) for p in pairs]
    first_rows = np.unique(key, return_index=True)[1]
    names = _field(table, at["name"], first_rows) if "name" in at else np.empty(0, "S1")
    models = {n.decode().strip() for n in np.unique(names)}
    del table, col, key, host, index, gpu_ids  # the text's bytes and fields: not needed now
    listed: list[UsageNotice] = []
    add_skipped(listed, skipped)
    notices = listed + notices
    samples = Samples(
        gpu=gpu.astype(np.int64, copy=False),
        time=time if every else time[kept],
        utilization=util if every else util[kept],
        where=lambda i: f"line {line_number[kept[i]]}",
        at=lambda i: {"line": int(line_number[kept[i]])},
        gpus=gpus,
    )
    return sampled(samples, sorted(m for m in models if m), notices)


def _texts(values: npt.NDArray[np.bytes_]) -> list[str]:
    """Fields as text (UTF-8; a byte that is not is replaced, and the value then refused as
    unreadable, like any other)."""
    return [value.decode("utf-8", errors="replace") for value in values.tolist()]


def _field(
    table: Table, k: int, subset: npt.NDArray[np.int64] | None = None
) -> npt.NDArray[np.bytes_]:
    """Field ``k`` of the table's rows (or of ``subset``) as bytes; when one is too long for
    an array, line by line."""
    values = table.field(k, subset)
    if values is not None:
        return values
    rows = table.rows if subset is None else table.rows[subset]
    return np.array([table.line(int(n)).split(",")[k].strip().encode() for n in rows], dtype=bytes)
