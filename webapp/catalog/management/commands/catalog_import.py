"""Add price points from a CSV file, all or nothing (columns: see docs/catalog.md)."""

import sys
from pathlib import Path

from django.core.management.base import BaseCommand
from django.utils.translation import gettext_lazy as _

from webapp.catalog.importer import CsvImportError, decode, import_prices


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

    def add_arguments(self, parser):
        parser.add_argument("csv_file", type=Path, help=_("the CSV file ('-' for standard input)"))
        parser.add_argument(
            "--dry-run", action="store_true", help=_("report what would change, write nothing")
        )

    def handle(self, *args, **options):
        path: Path = options["csv_file"]
        try:
            data = sys.stdin.buffer.read() if str(path) == "-" else path.read_bytes()
        except OSError as exc:
            self.stderr.write(f"csv_file: cannot read {path}: {exc.strerror}")
            sys.exit(2)
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
