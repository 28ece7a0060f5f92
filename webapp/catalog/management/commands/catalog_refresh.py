"""Refresh cloud rates from a provider's own price file (AWS, Azure, Google Cloud).

Fetches the provider's public price list when the machine is online (or reads recorded files
given with --file), reads one region's rates and compares them with the catalog's, in the same
report as catalog_import: new, changed with its change in per cent, unchanged, skipped with the
reason. A dry run unless --apply. See docs/catalog.md.
"""

import datetime
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, NoReturn

from django.core.management.base import BaseCommand, CommandParser
from django.utils.translation import gettext as _

from webapp.catalog import provider_files
from webapp.catalog.rate_import import RateImportError

FETCH_TIMEOUT_S = 60
MAX_PAGES = 200


class Command(BaseCommand):
    @property
    def help(self) -> str:  # type: ignore[override]
        return str(
            _(
                "Refresh cloud rates from a provider's own price file: the AWS Price List "
                "offer file, the Azure Retail Prices API or the Google Cloud Billing Catalog. "
                "Fetches it when online, or reads recorded files (--file). Reports what would "
                "change; --apply writes it. A bad file names its line or key, and nothing is "
                "written."
            )
        )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--provider", required=True, choices=sorted(provider_files.PROVIDERS))
        parser.add_argument(
            "--region", required=True, help=_("the region to read (us-east-1, eastus, ...)")
        )
        parser.add_argument(
            "--file",
            type=Path,
            action="append",
            help=_("a recorded price file (Azure and GCP: one per page); without it: fetch"),
        )
        parser.add_argument(
            "--as-of",
            type=datetime.date.fromisoformat,
            default=None,
            help=_("the date the rates take effect (YYYY-MM-DD; default: today)"),
        )
        parser.add_argument("--source", help=_("the source to record (default: the endpoint)"))
        parser.add_argument(
            "--add-offerings",
            action="store_true",
            help=_("add offerings for the region's GPU instance types the catalog lacks"),
        )
        parser.add_argument(
            "--apply",
            action="store_true",
            help=_("write the changes the report lists, all or nothing (without it: a dry run)"),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        provider, region = options["provider"], options["region"]
        endpoint = provider_files.ENDPOINTS[provider].format(region=region)
        if options["file"]:
            texts = [self._read(path) for path in options["file"]]
        else:
            texts = self._fetch(provider, endpoint)
        as_of = options["as_of"] or datetime.date.today()
        dry_run = not options["apply"]
        try:
            rates = provider_files.read(provider, texts, region)
            report = provider_files.import_published(
                rates,
                provider=provider,
                as_of=as_of,
                source=options["source"] or endpoint,
                region=region if options["add_offerings"] else None,
                dry_run=dry_run,
            )
        except RateImportError as exc:
            self._fail(exc.errors)
        for line in report.lines(verbose=options["verbosity"] > 1):
            self.stdout.write(line)
        self.stdout.write(
            f"read {len(rates)} rate(s) of {region}: {len(report.new_offerings)} new "
            f"offering(s), {len(report.new_rates)} new rate(s), {len(report.changed)} changed, "
            f"{len(report.unchanged)} unchanged, "
            f"{len(report.skipped) + len(report.not_in_catalog)} skipped"
            + (" (dry run: nothing written; --apply writes)" if dry_run else "")
        )

    def _fail(self, errors: list[str]) -> NoReturn:
        for error in errors:
            self.stderr.write(error)
        self.stderr.write("nothing was written")
        sys.exit(2)

    def _read(self, path: Path) -> str:
        try:
            return path.read_bytes().decode("utf-8-sig")
        except OSError as exc:
            self._fail([f"--file: cannot read {path}: {exc.strerror}"])
        except UnicodeDecodeError:
            self._fail([f"--file: {path} is not UTF-8 text"])

    def _get(self, url: str) -> str:
        request = urllib.request.Request(url, headers={"User-Agent": "catalog_refresh"})
        try:
            with urllib.request.urlopen(request, timeout=FETCH_TIMEOUT_S) as response:
                body: bytes = response.read()
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            self._fail(
                [f"(network): cannot fetch {url}: {reason}; give --file with a recorded answer"]
            )
        return body.decode("utf-8")

    def _fetch(self, provider: str, endpoint: str) -> list[str]:
        """The provider's answer, every page of it."""
        if provider == "aws":
            return [self._get(endpoint)]
        pages: list[str] = []
        url: str | None = endpoint
        if provider == "gcp":
            key = os.environ.get("GCP_API_KEY", "")
            if not key:
                self._fail(["GCP_API_KEY: the Cloud Billing Catalog needs an API key to fetch"])
            url = f"{endpoint}?{urllib.parse.urlencode({'key': key, 'currencyCode': 'USD'})}"
        while url and len(pages) < MAX_PAGES:
            text = self._get(url.replace(" ", "%20").replace("'", "%27"))
            pages.append(text)
            url = _next_page(provider, text, endpoint)
        return pages


def _next_page(provider: str, text: str, endpoint: str) -> str | None:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return None  # the reader names the line
    if not isinstance(data, dict):
        return None
    if provider == "azure":
        link = data.get("NextPageLink")
        return str(link) if link else None
    token = data.get("nextPageToken")
    if not token:
        return None
    query = {"key": os.environ.get("GCP_API_KEY", ""), "currencyCode": "USD", "pageToken": token}
    return f"{endpoint}?{urllib.parse.urlencode(query)}"
