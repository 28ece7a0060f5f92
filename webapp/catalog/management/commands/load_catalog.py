"""Load the shipped price catalog from fixtures/ (idempotent: natural keys update rows in place)."""

from django.core.management.base import BaseCommand

from webapp.catalog.fixtures_io import load_catalog


class Command(BaseCommand):
    help = "Load every catalog fixture in fixtures/ in one transaction (safe to run twice)."

    def handle(self, *args, **options):
        count = load_catalog()
        if count:
            self.stdout.write(f"loaded {count} fixture files")
        else:
            self.stdout.write("no fixtures to load")
