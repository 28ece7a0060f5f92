"""Load the shipped price catalog from fixtures/: add what is missing, report what differs."""

from typing import Any

from django.core.management.base import BaseCommand
from django.utils.translation import gettext as _

from webapp.catalog.fixtures_io import load_catalog
from webapp.catalog.signals import catalog_loaded


class Command(BaseCommand):
    @property
    def help(self) -> str:  # type: ignore[override]
        # argparse needs a real str; a property translates when the parser is built.
        return str(
            _(
                "Add the catalog rows of fixtures/ that the database lacks, in one transaction; "
                "report shipped rows that differ from the stored ones, changing none (except "
                "empty Chinese texts, which shipped translations fill in)."
            )
        )

    def handle(self, *args: Any, **options: Any) -> None:
        report = load_catalog()
        if report.added:  # rows saved raw send no post_save a receiver acts on: say so here
            catalog_loaded.send(sender=self.__class__, added=report.added)
        if not report.files:
            self.stdout.write("no fixtures to load")
            return
        for line in report.translated:
            self.stdout.write(f"translation added: {line}")
        for line in report.differences:
            self.stdout.write(f"differs: {line}")
        filled = (
            f", filled {len(report.translated)} empty Chinese text(s)" if report.translated else ""
        )
        self.stdout.write(
            f"read {report.files} fixture files: added {len(report.added)} rows{filled}, "
            f"{len(report.differences)} shipped values differ from the database (kept)"
        )
