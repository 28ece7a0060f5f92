"""``manage.py usage FORMAT FILE|-``: GPU-hours per month from a log, accounting or bill."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils.translation import gettext as _
from pydantic_core import to_json

from costmodel import ScenarioError
from costmodel.cli import read_source
from costmodel.usage import FORMATS, decode_text
from webapp.usage.services import measured_usage, usage_answer

EXIT_BAD_INPUT = 2


class Command(BaseCommand):
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
            # A gzip file (.csv.gz) is inflated, to at most 1 GiB.
            text = decode_text(read_source(options["file"], sys.stdin.buffer))
            usage = measured_usage(options["format"], text, options["columns"])
        except ScenarioError as exc:
            for error in exc.errors:
                self.stderr.write(str(error))
            sys.exit(EXIT_BAD_INPUT)
        self.stdout.write(to_json(usage_answer(usage).model_dump(), indent=2).decode())
