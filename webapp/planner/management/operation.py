"""The commands tornado, uncertainty, fleet, commitment and options: one request JSON in, one
answer out."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils.functional import Promise
from django.utils.translation import gettext as _

from costmodel import ScenarioError
from costmodel.cli import run_operation, write_atomically

EXIT_BAD_INPUT = 2


class OperationCommand(BaseCommand):
    """Reads an operation request (a path or ``-``), prints the answer; bad input exits 2."""

    operation: str
    description: str | Promise

    @property
    def help(self) -> str:  # type: ignore[override]
        return str(self.description)

    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("request", help=_("path of the request JSON file, or - for stdin"))
        parser.add_argument(
            "--output", metavar="PATH", help=_("write to this file instead of standard output")
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            encoding = "utf-8" if options["output"] else self.stdout.encoding or "utf-8"
            text = run_operation(
                self.operation, options["request"], stdin=sys.stdin.buffer, encoding=encoding
            )
            if options["output"]:
                write_atomically(options["output"], text)
            else:
                self.stdout.write(text, ending="")
        except ScenarioError as exc:
            for error in exc.errors:
                self.stderr.write(str(error))
            sys.exit(EXIT_BAD_INPUT)
