"""What ``manage.py compare`` and the operation commands do, without Django.

``compare`` reads a scenario, evaluates it and renders it; ``tornado``,
``uncertainty``, ``fleet`` and ``commitment`` read an operation request and print its answer.

Every failure a user can cause — an unreadable file, text that is not JSON, a
scenario that breaks the methodology's bounds, inputs so large that a result
overflows, an output file that cannot be written — is raised as one
:class:`~costmodel.errors.ScenarioError` whose lines name the field (or
``(input)`` / ``--output``), so the command prints them and exits with status 2.
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from pathlib import Path
from typing import Any, BinaryIO, Literal

from costmodel import commitment, operations, options
from costmodel.errors import FieldError, ScenarioError, load_json, parse_scenario_json
from costmodel.projection import ProjectionOverflowError, compare
from costmodel.tables import monthly_table

OutputFormat = Literal["json", "csv"]
OUTPUT_FORMATS: tuple[OutputFormat, ...] = ("json", "csv")
STDIN = "-"


def read_source(source: str, stdin: BinaryIO) -> bytes:
    """Read the raw scenario document from a file path, or from ``stdin`` when ``source`` is ``-``.

    Raises
    ------
    ScenarioError
        ``(input): …`` if the file cannot be read or the input is empty.
    """
    try:
        data = stdin.read() if source == STDIN else Path(source).read_bytes()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise ScenarioError(
            [
                FieldError(
                    "(input)",
                    f"cannot read {source!r}: {reason}",
                    "unreadable",
                    {"reason": "cannot_read", "source": source, "detail": reason},
                )
            ]
        ) from None
    if not data.strip():
        where = "standard input" if source == STDIN else repr(source)
        raise ScenarioError(
            [FieldError("(input)", f"{where} is empty", "unreadable", {"reason": "empty"})]
        )
    return data


_NOT_FINITE = FieldError(
    "(scenario)", "inputs are so extreme that the results are not finite numbers", "overflow"
)


def evaluate(text: bytes | str) -> dict[str, Any]:
    """Decode, validate and evaluate one scenario document; return its result JSON (a dict).

    Raises
    ------
    ScenarioError
        For every way the text can fail to be a computable scenario.
    """
    scenario = parse_scenario_json(text)
    try:
        return compare(scenario)
    except ProjectionOverflowError:
        raise ScenarioError([_NOT_FINITE]) from None


def render(result: dict[str, Any], output_format: OutputFormat, encoding: str = "utf-8") -> str:
    """Render a result (or an operation's answer) as JSON, or a result as monthly CSV.

    JSON keeps the methodology's key order and writes ``null`` for missing.

    The CSV has the header of :data:`costmodel.tables.MONTHLY_COLUMNS` and one row
    per month, numbers at full precision (``repr`` of the float, which reads back exactly).
    JSON keeps non-ASCII text (a Chinese scenario name) readable unless ``encoding``,
    that of the stream it is headed for, cannot represent it; then it is escaped.
    """
    if output_format == "json":
        text = json.dumps(result, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
        try:
            text.encode(encoding)
        except (UnicodeEncodeError, LookupError):
            text = json.dumps(result, indent=2, ensure_ascii=True, allow_nan=False) + "\n"
        return text
    header, rows = monthly_table(result)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def write_atomically(path: str, text: str) -> None:
    """Write ``text`` to ``path`` so that the file is either complete or untouched.

    The text goes to a temporary file in the same directory which then replaces
    ``path`` in one step.

    Raises
    ------
    ScenarioError
        ``--output: cannot write …`` if the file cannot be written.
    """
    target = Path(path)
    tmp_name: str | None = None
    try:
        fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.chmod(tmp_name, 0o666 & ~_umask())
        os.replace(tmp_name, target)
    except OSError as exc:
        if tmp_name is not None:
            Path(tmp_name).unlink(missing_ok=True)
        reason = exc.strerror or str(exc)
        raise ScenarioError(
            [
                FieldError(
                    "--output",
                    f"cannot write {path!r}: {reason}",
                    "unreadable",
                    {"reason": "cannot_write", "path": path, "detail": reason},
                )
            ]
        ) from None


def _umask() -> int:
    # mkstemp creates the file 0600; give the result the permissions a plain open() would.
    current = os.umask(0)
    os.umask(current)
    return current


def run_compare(
    source: str, output_format: OutputFormat, stdin: BinaryIO, encoding: str = "utf-8"
) -> str:
    """Read the scenario at ``source`` (``-`` = ``stdin``) and return the rendered comparison.

    ``encoding`` is that of the destination (see :func:`render`).
    """
    return render(evaluate(read_source(source, stdin)), output_format, encoding)


OPERATIONS: dict[str, tuple[Any, Any]] = {
    "tornado": (operations.parse_tornado, operations.tornado),
    "uncertainty": (operations.parse_uncertainty, operations.uncertainty),
    "fleet": (operations.parse_fleet, operations.fleet),
    "commitment": (commitment.parse_commitment, commitment.commitment),
    "options": (options.parse_options, options.options),
}
"""Each operation's request parser and the operation itself."""


def run_operation(name: str, source: str, stdin: BinaryIO, encoding: str = "utf-8") -> str:
    """Read the request at ``source`` (``-`` = ``stdin``), run operation ``name``, render JSON.

    Raises
    ------
    ScenarioError
        For every way the input can fail to be a valid request, naming the field
        (``distributions.rent.hourly_rate.low: …``).
    """
    parse, operation = OPERATIONS[name]
    request = parse(load_json(read_source(source, stdin)))
    return render(operation(request), "json", encoding)
