"""Validate the catalog; exit status 1 with one line per problem."""

import datetime
import sys

from django.core.management.base import BaseCommand
from django.utils.translation import gettext_lazy as _

from webapp.catalog.checks import check_catalog


class Command(BaseCommand):
    @property
    def help(self) -> str:  # type: ignore[override]
        # argparse needs a real str; a property translates when the parser is built.
        return str(
            _(
                "Check the price catalog: every price sourced and dated, every preset resolvable "
                "into a valid scenario, no orphan rows. Exit status 1 if anything is wrong."
            )
        )

    def add_arguments(self, parser):
        parser.add_argument(
            "--as-of",
            type=datetime.date.fromisoformat,
            default=None,
            help=_("resolve presets with the prices in effect on this date (default: today)"),
        )

    def handle(self, *args, **options):
        problems = check_catalog(options["as_of"])
        if problems:
            for problem in problems:
                self.stdout.write(problem)
            self.stderr.write(f"{len(problems)} problem(s) found")
            sys.exit(1)
        self.stdout.write("catalog OK")
