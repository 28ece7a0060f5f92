"""Delimited text as arrays: the lines, the fields of each line, without a Python string per
field.

A 50 MB log has 650 000 lines and 4.5 million fields; a string each costs
seconds and several hundred megabytes. :class:`Table` finds lines and
delimiters with numpy on the bytes and gives a field of every row as one
fixed-width bytes array (``S`` dtype, surrounding blanks trimmed), which numpy
converts to numbers and times in C.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from warnings import catch_warnings, simplefilter

import numpy as np
import numpy.typing as npt

from costmodel.usage.months import FloatArray, IntArray

MAX_FIELD_BYTES = 256
"""Longest field read as an array; a longer one makes :meth:`Table.field` return ``None``."""


BLOCK_BYTES = 1 << 23
"""Bytes searched at a time for line breaks and delimiters (8 MiB)."""
Positions = npt.NDArray[Any]
"""Byte positions and line numbers: int32 for a text under 2 GiB, else int64."""
CHUNK_ROWS = 65_536
"""Rows gathered at a time (an index array of CHUNK_ROWS × the field's width)."""


class Table:
    """The lines of ``text`` and, for the rows with ``width`` fields, each field as an array."""

    def __init__(self, text: str | bytes, delimiter: str = ",") -> None:
        self.raw = text.encode("utf-8") if isinstance(text, str) else text
        self.size = len(self.raw)
        self.buf = np.frombuffer(self.raw, dtype=np.uint8)
        newline = self._find(10)
        kind = newline.dtype
        self.starts: Positions = np.concatenate([np.zeros(1, kind), newline + 1])
        self.ends: Positions = np.concatenate([newline, np.full(1, self.size, kind)])
        if self.starts[-1] == self.size:  # the text ends with a line break
            self.starts, self.ends = self.starts[:-1], self.ends[:-1]
        carriage = (self.ends > self.starts) & (self.buf[np.maximum(self.ends - 1, 0)] == 13)
        self.ends = self.ends - carriage
        self.cuts: Positions = self._find(ord(delimiter))
        self.first_cut: Positions = np.searchsorted(self.cuts, self.starts).astype(kind)
        self.counts: Positions = np.searchsorted(self.cuts, self.ends).astype(kind) - self.first_cut

    def _find(self, byte: int) -> Positions:
        """Positions of ``byte``, found a block at a time (no text-sized temporary), as int32
        when the text is shorter than 2 GiB."""
        kind: type[np.signedinteger[Any]] = np.int32 if self.size < 2**31 else np.int64
        found = [
            np.flatnonzero(self.buf[lo : lo + BLOCK_BYTES] == byte).astype(kind) + lo
            for lo in range(0, self.size, BLOCK_BYTES)
        ]
        return np.concatenate(found) if found else np.empty(0, dtype=kind)

    def __len__(self) -> int:
        return int(self.starts.size)

    def line(self, n: int) -> str:
        """Line ``n`` (0 = the first) as text."""
        return self.raw[self.starts[n] : self.ends[n]].decode("utf-8", "replace")

    def lines_where(self, keep: Callable[[str], bool], first_byte: bytes) -> list[int]:
        """Lines whose first non-blank byte is one of ``first_byte`` and that ``keep``
        accepts (the candidates are few: headers)."""
        starts = self.starts.copy()
        last = self.size - 1
        for _ in range(4):  # a few leading blanks
            starts += (starts < self.ends) & (self.buf[np.minimum(starts, last)] == 32)
        lead = self.buf[np.minimum(starts, last)]
        candidates = np.flatnonzero(np.isin(lead, np.frombuffer(first_byte, np.uint8)))
        return [int(n) for n in candidates if keep(self.line(int(n)))]

    def blank(self) -> npt.NDArray[np.bool_]:
        """Lines of only blanks."""
        short = np.flatnonzero(self.ends - self.starts <= 8)
        out = np.zeros(self.starts.size, dtype=bool)
        out[short] = [not self.line(int(n)).strip() for n in short]
        return out

    def select(self, rows: npt.NDArray[np.bool_], width: int) -> None:
        """Take the lines ``rows`` (each with ``width`` fields) as the table's rows."""
        self.rows = np.flatnonzero(rows).astype(self.starts.dtype)
        self.width = width
        self.first = self.first_cut[self.rows]  # the row's first delimiter in cuts

    def field(self, k: int, subset: IntArray | None = None) -> npt.NDArray[np.bytes_] | None:
        """Field ``k`` of every row (or of the rows ``subset``, positions among the rows),
        blanks trimmed, as fixed-width bytes (``None`` when one is longer than
        :data:`MAX_FIELD_BYTES`)."""
        buf, last = self.buf, self.size - 1
        rows = self.rows if subset is None else self.rows[subset]
        first = self.first if subset is None else self.first[subset]
        start = self.starts[rows] if k == 0 else self.cuts[first + k - 1] + 1
        end = self.cuts[first + k] if k < self.width - 1 else self.ends[rows]
        start, end = start.astype(np.int64), end.astype(np.int64)
        for _ in range(4):  # ", " after each delimiter; padded columns have more
            start = start + ((start < end) & (buf[np.minimum(start, last)] == 32))
            end = end - ((end > start) & (buf[np.maximum(end - 1, 0)] == 32))
        length = end - start
        widest = max(int(length.max()) if length.size else 0, 1)
        if widest > MAX_FIELD_BYTES:
            return None
        matrix = np.zeros((length.size, widest), dtype=np.uint8)
        offsets = np.arange(widest)
        for lo in range(0, length.size, CHUNK_ROWS):  # bounded index arrays
            hi = lo + CHUNK_ROWS
            at = np.minimum(start[lo:hi, None] + offsets, last)
            chunk = buf[at]
            chunk[offsets >= length[lo:hi, None]] = 0
            matrix[lo:hi] = chunk
        return matrix.view(f"S{widest}").ravel()

    def convert(
        self, k: int, convert: Callable[[npt.NDArray[np.bytes_]], FloatArray | None]
    ) -> FloatArray | None:
        """``convert`` applied to field ``k`` a block of rows at a time (the bytes of one
        block at once), or ``None`` when a block is not convertible."""
        parts = []
        for lo in range(0, self.rows.size, CHUNK_ROWS * 4):
            values = self.field(k, np.arange(lo, min(lo + CHUNK_ROWS * 4, self.rows.size)))
            part = convert(values) if values is not None else None
            if part is None:
                return None
            parts.append(part)
        return np.concatenate(parts) if parts else np.empty(0)


def bytes_times(values: npt.NDArray[np.bytes_]) -> FloatArray | None:
    """Unix times [s] of ``2026/11/01 08:00:00.123``-like bytes, or ``None`` when one is not
    such a time (the caller reads them one by one)."""
    if values.size == 0:
        return np.empty(0)
    matrix = values.view(np.uint8).reshape(values.size, -1).copy()
    matrix[matrix == ord("/")] = ord("-")
    fixed = matrix.view(values.dtype).ravel()
    try:
        with catch_warnings():
            simplefilter("error")  # numpy takes a time zone with only a warning
            stamps = fixed.astype("datetime64[ms]")
    except (ValueError, UserWarning):
        return None
    if np.isnat(stamps).any():
        return None
    return stamps.astype(np.int64).astype(np.float64) / 1000.0


def bytes_numbers(values: npt.NDArray[np.bytes_]) -> FloatArray | None:
    """Numbers of bytes like ``45 %`` or ``45``, or ``None`` when one is not a finite number."""
    if values.size == 0:
        return np.empty(0)
    matrix = values.view(np.uint8).reshape(values.size, -1).copy()
    matrix[matrix == ord("%")] = ord(" ")
    try:
        numbers = matrix.view(values.dtype).ravel().astype(np.float64)
    except ValueError:
        return None
    if not np.isfinite(numbers).all():
        return None
    return numbers
