"""From bytes to text, and columns of text to numbers and times."""

from __future__ import annotations

import codecs
import re
import zlib
from collections.abc import Callable, Sequence
from warnings import catch_warnings, simplefilter

import numpy as np
import numpy.typing as npt

from costmodel.usage.errors import fail
from costmodel.usage.months import FloatArray

MAX_INFLATED_BYTES = 1 << 30
"""Most bytes a gzip file may inflate to when the caller gives no limit (1 GiB)."""


def check_text(text: str | bytes) -> None:
    if not text or text.isspace():  # no copy, as text.strip() would make
        raise fail("is empty", "empty")
    nul = text.find("\x00") if isinstance(text, str) else text.find(b"\x00")
    if nul >= 0:
        line = text.count("\n" if isinstance(text, str) else b"\n", 0, nul) + 1  # type: ignore[arg-type]
        raise fail(
            f"line {line}: is not text (it holds NUL bytes): upload the log itself, not an archive",
            "holds_nul",
            line=line,
        )


GZIP_MAGIC = b"\x1f\x8b"
"""The first two bytes of a gzip file (``.csv.gz``, ``.json.gz``, ``.log.gz``)."""


def inflate(data: bytes, max_bytes: int) -> bytes:
    """The content of gzip ``data`` (several members are joined, as ``gunzip`` does).

    Inflated in steps of at most what is left of ``max_bytes``, so an archive that
    inflates past the limit is refused having used no more than the limit.

    Raises
    ------
    UsageError
        ``inflates_too_far`` (params ``limit``) or ``bad_gzip``.
    """
    parts: list[bytes] = []
    size = 0
    rest = data
    try:
        while rest:
            member = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
            pending = rest
            while pending and not member.eof:
                chunk = member.decompress(pending, max_bytes + 1 - size)
                size += len(chunk)
                parts.append(chunk)
                if size > max_bytes:
                    raise fail(
                        f"the gzip archive inflates to more than the limit of {max_bytes:,} "
                        "bytes: send a shorter period",
                        "inflates_too_far",
                        limit=max_bytes,
                    )
                pending = member.unconsumed_tail
                if not chunk and not pending:
                    break
            if not member.eof:
                raise zlib.error("truncated")
            rest = member.unused_data.lstrip(b"\x00")  # tape padding between members
            if rest and not rest.startswith(GZIP_MAGIC):
                break  # trailing bytes after the last member, as gunzip ignores them
    except zlib.error:
        raise fail(
            "is a gzip archive that cannot be inflated (cut short or damaged)", "bad_gzip"
        ) from None
    return b"".join(parts)


def file_bytes(data: bytes, max_bytes: int | None = None) -> bytes:
    """A file's bytes checked as UTF-8 text (a byte-order mark dropped), inflated first when
    it is gzip (``.csv.gz``), to at most ``max_bytes`` when given. The check decodes a block
    at a time, so no text-sized string is made: ``read_usage`` takes the bytes.

    Raises
    ------
    UsageError
        On ``content``: empty (0 bytes or only blanks), binary (NUL bytes or
        not UTF-8, naming the line of the first bad byte), or a gzip archive
        that is damaged or inflates past ``max_bytes``.
    """
    if data.startswith(GZIP_MAGIC):
        data = inflate(data, max_bytes if max_bytes is not None else MAX_INFLATED_BYTES)
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    if not data or data.isspace():  # no copy of the bytes, as data.strip() would make
        raise fail("is empty", "empty")
    nul = data.find(b"\x00")
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        for lo in range(0, len(data), 1 << 22):
            decoder.decode(data[lo : lo + (1 << 22)], final=lo + (1 << 22) >= len(data))
    except UnicodeDecodeError:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            nul = exc.start if nul < 0 else min(nul, exc.start)
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise fail(
            f"line {line}: is not text (binary or not UTF-8): upload the log itself, "
            "not an archive or a spreadsheet",
            "not_text",
            line=line,
        )
    return data


def decode_text(data: bytes, max_bytes: int | None = None) -> str:
    """The text of an uploaded or read file (:func:`file_bytes`, decoded).

    Raises
    ------
    UsageError
        As :func:`file_bytes`.
    """
    return file_bytes(data, max_bytes).decode("utf-8")


def parse_each(
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


_OFFSET = re.compile(r"([+-])([01]\d|2[0-3]):?([0-5]\d)$")
"""A UTC offset as ISO 8601 writes it, −23:59 to +23:59; anything else is no offset, so
the time it ends is refused as unreadable rather than moved by it."""


def _offsets(items: Sequence[str]) -> tuple[list[str], FloatArray] | None:
    """The timestamps without a trailing UTC offset (``+00:00``, ``-0500``) and the offsets
    [s]; ``None`` when none has one."""
    if not any(_OFFSET.search(v.strip()[-6:]) for v in (items[0], items[-1])):
        return None
    bare, shift = [], np.zeros(len(items))
    for i, value in enumerate(items):
        value = value.strip()
        match = _OFFSET.search(value) if len(value) > 10 else None
        if match:
            sign = 1 if match.group(1) == "+" else -1
            shift[i] = sign * (int(match.group(2)) * 3600 + int(match.group(3)) * 60)
            value = value[: match.start()]
        bare.append(value)
    return bare, shift


def timestamps(values: Sequence[str]) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
    """Unix times [s] of ISO-like timestamps (``2026/11/01 08:00:00.123``, ``…T…``, ``…Z``,
    ``…+00:00``: a UTC offset is taken off, so every time is UTC)."""
    shifted = _offsets(values) if values else None
    if shifted is not None:
        bare, shift = shifted
        times, bad = timestamps(bare)
        return times - shift, bad

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

    return parse_each(values, vector, one)


def numbers(values: Sequence[str]) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
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

    return parse_each(values, vector, one)
