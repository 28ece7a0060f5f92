"""Load the shipped price catalog from fixtures/ (idempotent: natural keys update rows in place)."""

from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import transaction

FIXTURES_DIR = Path(settings.BASE_DIR) / "fixtures"


class Command(BaseCommand):
    help = "Load every fixture in fixtures/ in one transaction."

    def handle(self, *args, **options):
        files = sorted(FIXTURES_DIR.glob("*.json"))
        if not files:
            self.stdout.write("no fixtures to load")
            return
        with transaction.atomic():
            call_command("loaddata", *[str(f) for f in files], verbosity=0)
        self.stdout.write(f"loaded {len(files)} fixture files")
