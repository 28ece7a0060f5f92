"""What the database guarantees: a catalog import is all or nothing.

Runs on both databases; ``make test`` runs it on PostgreSQL too, where it
matters most (the production database). ``transaction=True`` so that the
import's own transaction is the real, outermost one, not a savepoint.
"""

import copy
import json
import shutil

import pytest
from django.apps import apps
from django.db import IntegrityError, connection

from webapp.catalog.fixtures_io import FIXTURES_DIR, load_catalog


def catalog_snapshot() -> dict[str, list[dict]]:
    """Every row of every catalog table, by primary key."""
    return {
        model._meta.label: list(model.objects.order_by("pk").values())
        for model in apps.get_app_config("catalog").get_models()
    }


def broken_copy(tmp_path):
    """The shipped fixtures, with early files changing and adding rows and the last one failing."""
    for path in FIXTURES_DIR.glob("*.json"):
        shutil.copy(path, tmp_path / path.name)
    parts = json.loads((tmp_path / "02-parts.json").read_text())
    price = next(row for row in parts if row["model"] == "catalog.partprice")
    price["fields"]["amount"] = "1.00"
    parts.append(
        {
            "model": "catalog.part",
            "fields": {"slug": "new-part-from-a-failed-import", "kind": "cpu", "name": "x"},
        }
    )
    (tmp_path / "02-parts.json").write_text(json.dumps(parts))
    presets = json.loads((tmp_path / "07-presets.json").read_text())
    # A new preset (so its lines are new rows: the import adds them) whose one line breaks a
    # constraint, in the last file: everything before it must be undone.
    preset = copy.deepcopy(next(row for row in presets if row["model"] == "catalog.buildpreset"))
    preset["fields"]["slug"] = "preset-from-a-failed-import"
    presets.append(preset)
    presets.append(
        {
            "model": "catalog.presetpart",
            "fields": {
                "preset": ["preset-from-a-failed-import"],
                "part": ["new-part-from-a-failed-import"],
                "quantity": 0,
            },
        }
    )
    (tmp_path / "07-presets.json").write_text(json.dumps(presets))
    return tmp_path


@pytest.mark.django_db(transaction=True)
def test_a_catalog_import_failing_halfway_leaves_the_database_exactly_as_it_was(tmp_path):
    load_catalog()
    before = catalog_snapshot()
    assert before["catalog.PartPrice"], "the shipped catalog should have part prices"

    with pytest.raises(IntegrityError, match="presetpart_quantity_ge_1"):
        load_catalog(broken_copy(tmp_path))

    assert catalog_snapshot() == before
    assert not connection.in_atomic_block


@pytest.mark.django_db(transaction=True)
def test_a_failed_import_into_an_empty_database_leaves_it_empty(tmp_path):
    with pytest.raises(IntegrityError, match="presetpart_quantity_ge_1"):
        load_catalog(broken_copy(tmp_path))

    assert all(rows == [] for rows in catalog_snapshot().values())
