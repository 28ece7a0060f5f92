"""Add price points from a CSV file, all or nothing (columns: see docs/catalog.md)."""

import datetime
import sys
from pathlib import Path
from typing import Any

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
                "currency, effective_date, source, note, estimate (see docs/catalog.md). A bad "
                "row names its row number and field, and nothing is written."
            )
        )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("csv_file", type=Path, help=_("the CSV file ('-' for standard input)"))
        parser.add_argument(
            "--dry-run", action="store_true", help=_("report what would change, write nothing")
        )
        parser.add_argument(
            "--provider",
            help=_(
                "read the file as a SkyPilot catalog vms.csv of this provider (as the catalog's "
                "offerings name it, e.g. Lambda)"
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
        if options["provider"] is not None:
            self._skypilot(data, options)
            return
        try:
            report = import_prices(decode(data), dry_run=options["dry_run"])
        except CsvImportError as exc:
            for error in exc.errors:
                self.stderr.write(error)
            self.stderr.write("nothing was written")
            sys.exit(2)
        verb = "would add" if options["dry_run"] else "added"
        for line in report.added:
            self.stdout.write(f"{verb} {line}")
        for line in report.unchanged:
            self.stdout.write(f"unchanged {line}")
        self.stdout.write(
            f"{len(report.added)} {verb}, {len(report.unchanged)} unchanged"
            + (" (dry run: nothing written)" if options["dry_run"] else "")
        )

    def _skypilot(self, data: bytes, options: dict[str, Any]) -> None:
        if options["as_of"] is None:
            self.stderr.write("--as-of: is required with --provider (the date of the rates)")
            sys.exit(2)
        dry_run = options["dry_run"]
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
            for error in exc.errors:
                self.stderr.write(error)
            self.stderr.write("nothing was written")
            sys.exit(2)
        verb = "would add" if dry_run else "added"
        for line in report.added:
            self.stdout.write(f"{verb} {line}")
        for line in report.new_offerings:
            self.stdout.write(f"{verb} new offering {line}")
        for line in report.unchanged:
            self.stdout.write(f"unchanged {line}")
        for line in report.skipped:
            self.stdout.write(f"skipped {line}")
        self.stdout.write(
            f"{len(report.added)} rate(s) {verb}, {len(report.new_offerings)} new offering(s), "
            f"{len(report.unchanged)} unchanged, {len(report.skipped)} skipped"
            + (" (dry run: nothing written)" if dry_run else "")
        )
