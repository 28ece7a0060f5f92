"""Write the catalog back to the fixture files (byte-for-byte stable when nothing changed)."""

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils.translation import gettext as _

from webapp.catalog.fixtures_io import FIXTURES_DIR, export_catalog


class Command(BaseCommand):
    @property
    def help(self) -> str:  # type: ignore[override]
        # argparse needs a real str; a property translates when the parser is built.
        return str(_("Export the catalog to fixtures/*.json (natural keys, stable order)."))

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--output",
            type=Path,
            default=FIXTURES_DIR,
            help=_("directory to write into (default: fixtures/)"),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        for path, changed in export_catalog(options["output"]):
            self.stdout.write(f"{'wrote' if changed else 'unchanged'} {path}")
