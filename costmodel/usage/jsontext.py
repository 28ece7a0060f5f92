"""JSON content read with bounds: keys, nesting depth and the length of a number.

A file's JSON (a Prometheus answer) arrives inside a request's ``content``
string or as an upload, so the bounds the API puts on a request body do not
see it. :func:`load_json_bounded` puts its own on it, before and while
parsing, and names the place (line and column) of what it refuses:

- at most :data:`MAX_CONTENT_KEYS` keys (colons outside strings): a million
  keys cost seconds and half a gigabyte to parse;
- at most :data:`MAX_DEPTH` levels of ``[`` and ``{``: a Prometheus answer
  has five; 100 000 levels would exhaust the parser's stack;
- numbers of at most :data:`MAX_NUMBER_CHARS` characters, and finite: a
  400-digit integer is no time and no utilization (checked where the reader
  converts them to floats; :func:`number_too_long` names the place).
"""

from __future__ import annotations

import json
import re

import numpy as np

from costmodel.usage.errors import UsageError, fail

MAX_CONTENT_KEYS = 50_000
"""Most keys a JSON file may hold: a Prometheus answer has about 15 per GPU series."""
MAX_DEPTH = 32
"""Deepest nesting of arrays and objects read."""
MAX_NUMBER_CHARS = 32
"""Longest number literal read (a Unix time with milliseconds has 14 characters)."""

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]|-?[0-9][0-9.eE+-]*')


def _place(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _too_deep(text: str) -> UsageError | None:
    """The error naming the first bracket past :data:`MAX_DEPTH` (a scan stopping there);
    ``None`` when no bracket outside a string is that deep."""
    depth = 0
    for token in _TOKEN.finditer(text):
        first = token.group()[0]
        if first in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                line, column = _place(text, token.start())
                return fail(
                    f"line {line:,} column {column:,}: nested more than {MAX_DEPTH} levels deep; "
                    "a Prometheus answer has five",
                    "nested_too_deep",
                    line=line,
                    column=column,
                    limit=MAX_DEPTH,
                )
        elif first in "]}":
            depth -= 1
    return None


def number_too_long(text: str) -> UsageError:
    """The error naming the first number literal too long or too large to read."""
    for token in _TOKEN.finditer(text):
        value = token.group()
        if value[0] in '"[]{}':
            continue
        try:
            fits = len(value) <= MAX_NUMBER_CHARS and bool(np.isfinite(float(value)))
        except ValueError:
            fits = True  # not a number: the parser refused it already
        if not fits:
            line, column = _place(text, token.start())
            return fail(
                f"line {line:,} column {column:,}: a number too long or too large to read "
                f"(at most {MAX_NUMBER_CHARS} characters, and finite)",
                "number_too_long",
                line=line,
                column=column,
                limit=MAX_NUMBER_CHARS,
            )
    return fail("holds a number too long or too large to read", "number_too_long")


def _constant(name: str) -> float:
    """``NaN``, ``Infinity``: not JSON, but Python's parser takes them; keep them as values
    for the reader to skip (Prometheus writes its NaN as the string ``"NaN"``)."""
    return float(name.lower().replace("infinity", "inf"))


_BRACKETS = bytes(range(256)).translate(None, b"[]{}")
"""Every byte but the brackets: ``bytes.translate`` deletes them, leaving the brackets."""


def _max_depth(text: str) -> int:
    """Deepest nesting of brackets, strings not told apart (a bound only: the exact place
    is found by :func:`_too_deep` when this is over the limit)."""
    brackets = np.frombuffer(text.encode("utf-8", "replace").translate(None, _BRACKETS), np.uint8)
    if brackets.size == 0:
        return 0
    step = np.where((brackets == ord("[")) | (brackets == ord("{")), 1, -1).astype(np.int32)
    return int(np.cumsum(step).max())


def load_json_bounded(text: str, *, what: str = "a Prometheus answer") -> object:
    """Parse ``text`` as JSON within the bounds of the module docstring.

    A number too long or too large for a float is found where the reader converts it
    (:func:`number_too_long` names its place).

    Raises
    ------
    UsageError
        On ``content``: ``too_many_keys`` (params ``keys``, ``limit``), ``nested_too_deep``,
        ``number_too_long`` (params ``line``, ``column``, ``limit``), ``not_json`` (``line``).
    """
    if text.count(":") > MAX_CONTENT_KEYS:
        keys = _STRING.sub("", text).count(":")
        if keys > MAX_CONTENT_KEYS:
            raise fail(
                f"holds {keys:,} keys, more than the limit of {MAX_CONTENT_KEYS:,}: query fewer "
                "series or a shorter range",
                "too_many_keys",
                keys=keys,
                limit=MAX_CONTENT_KEYS,
            )
    deep = _too_deep(text) if _max_depth(text) > MAX_DEPTH else None
    if deep is not None:
        raise deep
    try:
        return json.loads(text, parse_constant=_constant)
    except RecursionError:
        raise _too_deep(text) or fail(
            f"nested more than {MAX_DEPTH} levels deep", "nested_too_deep", limit=MAX_DEPTH
        ) from None
    except ValueError as exc:
        if not isinstance(exc, json.JSONDecodeError):  # an integer of over 4 300 digits
            raise number_too_long(text) from None
        line = int(exc.lineno)
        raise fail(f"line {line}: is not JSON, so not {what}", "not_json", line=line) from None
