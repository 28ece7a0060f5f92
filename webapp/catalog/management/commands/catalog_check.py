"""Validate the catalog; exit status 1 with one line per problem (warnings do not fail)."""

import datetime
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils.translation import gettext as _

from webapp.catalog.checks import (
    catalog_warnings,
    check_catalog,
    estimate_price_rows,
    superseded_estimate_rows,
)
from webapp.catalog.freshness import freshness


class Command(BaseCommand):
    @property
    def help(self) -> str:  # type: ignore[override]
        # argparse needs a real str; a property translates when the parser is built.
        return str(
            _(
                "Check the price catalog: every price sourced and dated, every preset resolvable "
                "into a valid scenario, no orphan rows. Exit status 1 if anything is wrong. "
                "Warnings (stale prices, missing pricing-mode data or Chinese names) are printed "
                "and fail only with --strict."
            )
        )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--as-of",
            type=datetime.date.fromisoformat,
            default=None,
            help=_("resolve presets with the prices in effect on this date (default: today)"),
        )
        parser.add_argument(
            "--strict", action="store_true", help=_("exit with status 1 on warnings too")
        )
        parser.add_argument(
            "--estimates",
            action="store_true",
            help=_("also list the price rows still flagged as estimates, with their reasons"),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        problems = check_catalog(options["as_of"])
        warnings = catalog_warnings(options["as_of"])
        for warning in warnings:
            self.stdout.write(f"warning: {warning}")
        fresh = freshness(options["as_of"])
        self.stdout.write(fresh.summary())
        for row in fresh.stale:
            self.stdout.write(f"stale: {row.line()}")
        self.stdout.write(
            f"estimates: {fresh.estimates} of {fresh.total} current rows flagged as estimates"
        )
        self.stdout.write(fresh.sources_summary())
        for line in fresh.unvouched:
            self.stdout.write(f"unsourced: {line}")
        if options["estimates"]:
            estimates = estimate_price_rows()
            for line in estimates:
                self.stdout.write(f"estimate: {line}")
            self.stdout.write(f"{len(estimates)} price row(s) flagged as estimates")
            replaced = superseded_estimate_rows()
            if replaced:
                self.stdout.write(
                    f"{replaced} older estimate row(s) replaced by a later price (kept as history)"
                )
        if problems:
            for problem in problems:
                self.stdout.write(problem)
            self.stderr.write(f"{len(problems)} problem(s) found")
            sys.exit(1)
        if warnings and options["strict"]:
            self.stderr.write(f"{len(warnings)} warning(s) found (--strict)")
            sys.exit(1)
        self.stdout.write("catalog OK" + (f" ({len(warnings)} warning(s))" if warnings else ""))
