"""Add price points from a CSV file, all or nothing (columns: see docs/catalog.md)."""

import datetime
import sys
from pathlib import Path
from typing import Any, NoReturn

from django.core.management.base import BaseCommand, CommandParser
from django.utils.translation import gettext as _

from webapp.catalog.importer import CsvImportError, decode, import_prices
from webapp.catalog.skypilot import SkyPilotImportError, import_skypilot


class Command(BaseCommand):
    @property
    def help(self) -> str:  # type: ignore[override]
        # argparse needs a real str; a property translates when the parser is built.
        return str(
            _(
                "Add price points from a CSV file with the columns item_type, item, amount, "
                "currency, effective_date, source, note, estimate (see docs/catalog.md), or a "
                "SkyPilot vms.csv with --provider. Reports what would change; --apply writes it. "
                "A bad row names its row number and field, and nothing is written."
            )
        )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("csv_file", type=Path, help=_("the CSV file ('-' for standard input)"))
        writes = parser.add_mutually_exclusive_group()
        writes.add_argument(
            "--dry-run",
            action="store_true",
            help=_("report what would change and write nothing (what happens without --apply)"),
        )
        writes.add_argument(
            "--apply",
            action="store_true",
            help=_("write the changes the report lists, all or nothing (without it: a dry run)"),
        )
        parser.add_argument(
            "--provider",
            help=_(
                "read the file as a SkyPilot catalog vms.csv of this provider (as the catalog's "
                "offerings name it, e.g. Lambda, or by SkyPilot's cloud name: aws, gcp, azure, "
                "lambda, runpod)"
            ),
        )
        parser.add_argument(
            "--as-of",
            type=datetime.date.fromisoformat,
            help=_("SkyPilot import: the date the rates take effect (YYYY-MM-DD)"),
        )
        parser.add_argument(
            "--region",
            help=_("SkyPilot import: add new offerings for this region's unknown instance types"),
        )
        parser.add_argument("--source", help=_("SkyPilot import: the source to record"))

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["csv_file"]
        try:
            data = sys.stdin.buffer.read() if str(path) == "-" else path.read_bytes()
        except OSError as exc:
            self.stderr.write(f"csv_file: cannot read {path}: {exc.strerror}")
            sys.exit(2)
        dry_run = not options["apply"]
        if options["provider"] is not None:
            self._skypilot(data, options, dry_run)
            return
        try:
            report = import_prices(decode(data), dry_run=dry_run)
        except CsvImportError as exc:
            self._fail(exc.errors)
        verb = "would add" if dry_run else "added"
        for line in report.added:
            self.stdout.write(f"{verb} {line}")
        for line in report.unchanged:
            self.stdout.write(f"unchanged {line}")
        self.stdout.write(
            f"{len(report.added)} {verb}, {len(report.unchanged)} unchanged" + _dry(dry_run)
        )

    def _fail(self, errors: list[str]) -> NoReturn:
        for error in errors:
            self.stderr.write(error)
        self.stderr.write("nothing was written")
        sys.exit(2)

    def _skypilot(self, data: bytes, options: dict[str, Any], dry_run: bool) -> None:
        if options["as_of"] is None:
            self.stderr.write("--as-of: is required with --provider (the date of the rates)")
            sys.exit(2)
        try:
            report = import_skypilot(
                decode(data),
                provider=options["provider"],
                as_of=options["as_of"],
                region=options["region"],
                source=options["source"],
                dry_run=dry_run,
            )
        except (CsvImportError, SkyPilotImportError) as exc:
            self._fail(exc.errors)
        for line in report.lines(verbose=options["verbosity"] > 1):
            self.stdout.write(line)
        if report.not_in_catalog and options["verbosity"] <= 1:
            self.stdout.write(
                f"skipped {len(report.not_in_catalog)} instance type(s) and region(s) the catalog "
                "has no offering for (--verbosity 2 lists them)"
            )
        if report.accelerator_rows:
            self.stdout.write(
                f"read {report.accelerator_rows} GPU price row(s) and added them to their hosts"
            )
        self.stdout.write(
            f"{len(report.new_offerings)} new offering(s), {len(report.new_rates)} new rate(s), "
            f"{len(report.changed)} changed, {len(report.unchanged)} unchanged, "
            f"{len(report.skipped) + len(report.not_in_catalog)} skipped" + _dry(dry_run)
        )


def _dry(dry_run: bool) -> str:
    return " (dry run: nothing written; --apply writes)" if dry_run else ""
