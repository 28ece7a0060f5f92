"""Every text in the shipped fixtures fits its column: PostgreSQL refuses a value longer than a
``CharField``'s ``max_length`` that SQLite would store, so the check runs on the files."""

import json

from django.apps import apps
from django.db import models

from webapp.catalog.fixtures_io import FIXTURES_DIR


def test_every_shipped_text_fits_its_column():
    too_long = []
    for path in sorted(FIXTURES_DIR.glob("*.json")):
        for row in json.loads(path.read_text()):
            model = apps.get_model(row["model"])
            for name, value in row["fields"].items():
                field = model._meta.get_field(name)
                if isinstance(field, models.CharField) and isinstance(value, str):
                    if field.max_length is not None and len(value) > field.max_length:
                        too_long.append(f"{path.name} {row['model']}.{name}: {len(value)}")
    assert too_long == []
