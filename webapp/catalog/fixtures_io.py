"""Catalog ⇄ fixture files: the shipped catalog lives in ``fixtures/*.json``.

Files hold natural keys only (no database ids), one file per group of models,
rows sorted by natural key, two-space indentation and a final newline, so that
``export_catalog`` after ``load_catalog`` reproduces the shipped files byte for
byte and an admin's change is a readable diff.
"""

from __future__ import annotations

from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.core import serializers
from django.core.management import call_command
from django.db import transaction

from webapp.catalog import selectors
from webapp.catalog.services import bump_catalog_version

FIXTURES_DIR = Path(settings.BASE_DIR) / "fixtures"

FIXTURE_FILES: dict[str, list[str]] = {
    "01-gpus.json": ["catalog.benchmark", "catalog.gpumodel", "catalog.gputhroughput"],
    "02-parts.json": ["catalog.part", "catalog.partprice"],
    "03-fx.json": ["catalog.fxrate"],
    "04-electricity.json": ["catalog.tariff", "catalog.tariffperiod"],
    "05-hosting.json": ["catalog.hostingoption"],
    "06-cloud.json": ["catalog.cloudoffering", "catalog.cloudrate"],
    "07-presets.json": ["catalog.buildpreset", "catalog.presetpart"],
}
"""File name → models it holds, in dependency order (a file only refers to earlier ones)."""

# Sort keys: the natural key, spelled as database lookups so the order is the database's.
_ORDERING: dict[str, list[str]] = {
    "catalog.benchmark": ["slug"],
    "catalog.gpumodel": ["slug"],
    "catalog.gputhroughput": ["gpu_model__slug", "benchmark__slug"],
    "catalog.part": ["slug"],
    "catalog.partprice": ["part__slug", "effective_date"],
    "catalog.fxrate": ["base_currency", "quote_currency", "effective_date"],
    "catalog.tariff": ["slug"],
    "catalog.tariffperiod": ["tariff__slug", "name"],
    "catalog.hostingoption": ["slug"],
    "catalog.cloudoffering": ["slug"],
    "catalog.cloudrate": ["offering__slug", "effective_date"],
    "catalog.buildpreset": ["slug"],
    "catalog.presetpart": ["preset__slug", "part__slug"],
}


def catalog_models() -> list[type]:
    return [apps.get_model(label) for labels in FIXTURE_FILES.values() for label in labels]


def serialize_group(labels: list[str]) -> str:
    """The text of one fixture file holding ``labels``' rows, in natural-key order."""
    objects: list = []
    for label in labels:
        model = apps.get_model(label)
        objects.extend(selectors.rows_in_order(model, _ORDERING[label]))
    text = serializers.serialize(
        "json",
        objects,
        indent=2,
        use_natural_foreign_keys=True,
        use_natural_primary_keys=True,
    )
    return str(text) + "\n"


def export_catalog(directory: Path = FIXTURES_DIR) -> list[tuple[Path, bool]]:
    """Write every fixture file into ``directory``; return ``(path, changed)`` per file.

    A file whose content would not change is not rewritten (its mtime stays).
    """
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, labels in FIXTURE_FILES.items():
        path = directory / name
        text = serialize_group(labels)
        changed = not path.exists() or path.read_text(encoding="utf-8") != text
        if changed:
            path.write_text(text, encoding="utf-8")
        written.append((path, changed))
    return written


def fixture_paths(directory: Path = FIXTURES_DIR) -> list[Path]:
    return [directory / name for name in FIXTURE_FILES if (directory / name).exists()]


def load_catalog(directory: Path = FIXTURES_DIR, *, keep_existing: bool = False) -> int:
    """Load the fixture files in one transaction; return how many files were loaded.

    Idempotent: rows are matched by natural key and updated in place, never duplicated.
    With ``keep_existing`` a row whose natural key is already in the database is left
    exactly as it is (an admin's edit survives a restart); only new rows are added.
    """
    files = fixture_paths(directory)
    if not files:
        return 0
    with transaction.atomic():
        _load(files, keep_existing=keep_existing)
        bump_catalog_version()  # fixture rows are saved raw: no per-row signal bumps it
    return len(files)


LISTS: dict[str, tuple[str, str]] = {
    "catalog.presetpart": ("catalog.buildpreset", "preset"),
    "catalog.tariffperiod": ("catalog.tariff", "tariff"),
}
"""Rows that are one item of a list owned by another row: ``child → (owner, its field)``.

A preset's parts list and a tariff's time-of-use periods are summed by the
resolver, so each list is loaded as a whole: a line the fixtures no longer
hold must not stay behind (it would add a removed part to the capex), and a
list kept by an admin must not gain the fixtures' lines.
"""


def _load(files: list[Path], *, keep_existing: bool) -> None:
    if not keep_existing:
        call_command("loaddata", *[str(f) for f in files], verbosity=0)
        _drop_lines_the_fixtures_no_hold(files)
        return
    kept_owners = {owner: selectors.stored_keys(owner) for owner, _ in LISTS.values()}
    deferred = []
    for path in files:
        with path.open(encoding="utf-8") as handle:
            for item in serializers.deserialize("json", handle, handle_forward_references=True):
                # The deserializer fills in the primary key of a row it found by
                # natural key; no key means the row is new.
                if item.object.pk is not None and selectors.row_exists(item.object):
                    continue
                owner_of = LISTS.get(item.object._meta.label_lower)
                if owner_of is not None:
                    owner, field = owner_of
                    if getattr(item.object, f"{field}_id") in kept_owners[owner]:
                        continue  # an existing list is the admin's, as it stands
                item.save()
                if item.deferred_fields:
                    deferred.append(item)
    for item in deferred:
        item.save_deferred_fields()


def _drop_lines_the_fixtures_no_hold(files: list[Path]) -> None:
    """Delete list lines of owners loaded from the fixtures that the fixtures do not hold."""
    loaded: dict[str, set[int]] = {label: set() for label in LISTS}
    owners: dict[str, set[int]] = {owner: set() for owner, _ in LISTS.values()}
    for path in files:
        with path.open(encoding="utf-8") as handle:
            for item in serializers.deserialize("json", handle, handle_forward_references=True):
                label = item.object._meta.label_lower
                if label in loaded:
                    loaded[label].add(item.object.pk)
                elif label in owners:
                    owners[label].add(item.object.pk)
    for label, (owner, field) in LISTS.items():
        selectors.delete_lines_not_in(label, field, owners[owner], loaded[label])
