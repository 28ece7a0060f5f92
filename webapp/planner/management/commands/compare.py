"""``manage.py compare SCENARIO.json``: evaluate one explicit scenario from the command line."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils.translation import gettext as _

from costmodel import ScenarioError
from costmodel.cli import OUTPUT_FORMATS, run_compare, write_atomically

EXIT_BAD_INPUT = 2


class Command(BaseCommand):
    @property
    def help(self) -> str:  # type: ignore[override]
        # Translated when the parser is built (argparse cannot format lazy strings).
        return _(
            "Compare building with renting for one explicit scenario (JSON file, or - for "
            "standard input) and print the result as JSON, or the monthly projection as CSV."
        )

    # Pure computation: no models or database involved, so no system checks to wait for.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("scenario", help=_("path of the scenario JSON file, or - for stdin"))
        parser.add_argument(
            "--format",
            choices=OUTPUT_FORMATS,
            default="json",
            help=_("json: the full result; csv: one row per month"),
        )
        parser.add_argument(
            "--output", metavar="PATH", help=_("write to this file instead of standard output")
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            encoding = "utf-8" if options["output"] else self.stdout.encoding or "utf-8"
            text = run_compare(
                options["scenario"], options["format"], stdin=sys.stdin.buffer, encoding=encoding
            )
            if options["output"]:
                write_atomically(options["output"], text)
            else:
                self.stdout.write(text, ending="")
        except ScenarioError as exc:
            for error in exc.errors:
                self.stderr.write(str(error))
            sys.exit(EXIT_BAD_INPUT)
