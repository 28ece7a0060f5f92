"""``manage.py usage FORMAT FILE|-``: GPU-hours per month from a log, accounting or bill."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils.translation import gettext as _
from pydantic_core import to_json

from costmodel import FieldError, ScenarioError
from costmodel.cli import STDIN
from costmodel.usage import FORMATS, file_bytes
from webapp.usage.services import measured_usage, usage_answer

EXIT_BAD_INPUT = 2


def read_file(source: str) -> bytes:
    """The bytes of ``source`` (``-``: standard input), read once: a 50 MB log is not
    copied again (emptiness and text are :func:`costmodel.usage.file_bytes`' checks)."""
    try:
        return sys.stdin.buffer.read() if source == STDIN else Path(source).read_bytes()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise ScenarioError(
            [FieldError("(input)", f"cannot read {source!r}: {reason}", "unreadable")]
        ) from None


class Command(BaseCommand):
    # Reads a file and prints JSON: the project's system checks are the server's business.
    requires_system_checks: list[str] = []

    @property
    def help(self) -> str:  # type: ignore[override]
        return _(
            "Read a GPU log (nvidia-smi, DCGM from Prometheus), Slurm accounting (sacct) or an "
            "AWS Cost and Usage Report and print GPU-hours per month as JSON, the same JSON "
            "as POST /api/v1/usage."
        )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("format", choices=FORMATS, help=_("the file's format"))
        parser.add_argument("file", help=_("path of the file, or - for standard input"))
        parser.add_argument(
            "--columns",
            help=_(
                "the field order of a file without a header: sacct's --format fields, or "
                "xdmod; nvidia-smi's --query-gpu fields"
            ),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            # A gzip file (.csv.gz) is inflated, to at most 1 GiB; the bytes are read as
            # they are, without a text-sized copy.
            text = file_bytes(read_file(options["file"]))
            usage = measured_usage(options["format"], text, options["columns"])
        except ScenarioError as exc:
            for error in exc.errors:
                self.stderr.write(str(error))
            sys.exit(EXIT_BAD_INPUT)
        self.stdout.write(to_json(usage_answer(usage).model_dump(), indent=2).decode())
