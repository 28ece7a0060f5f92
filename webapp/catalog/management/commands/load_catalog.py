"""Load the shipped price catalog from fixtures/ (idempotent: natural keys update rows in place)."""

from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils.translation import gettext as _

from webapp.catalog.fixtures_io import load_catalog


class Command(BaseCommand):
    @property
    def help(self) -> str:  # type: ignore[override]
        # argparse needs a real str; a property translates when the parser is built.
        return str(
            _("Load every catalog fixture in fixtures/ in one transaction (safe to run twice).")
        )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--keep-existing",
            action="store_true",
            help=str(_("Only add rows that are not in the database yet; never change a row.")),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        count = load_catalog(keep_existing=options["keep_existing"])
        if count:
            self.stdout.write(f"loaded {count} fixture files")
        else:
            self.stdout.write("no fixtures to load")
