"""Catalog ⇄ fixture files: the shipped catalog lives in ``fixtures/*.json``.

Files hold natural keys only (no database ids), one file per group of models,
rows sorted by natural key, two-space indentation and a final newline, so that
``export_catalog`` after ``load_catalog`` reproduces the shipped files byte for
byte and an admin's change is a readable diff.

Loading never changes a row the database holds: the database is the record of
what admins and imports entered (prices are append-only, see
:class:`~webapp.catalog.models.PricePoint`), the files are what the project
ships. ``load_catalog`` adds the rows the database lacks and reports, without
touching them, the rows whose shipped values differ from the stored ones. The
one thing it writes into a stored row is a Chinese text (a ``*_zh`` field) the
row lacks: a translation shipped later fills an empty field, and is reported;
a Chinese text the database holds is never replaced.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core import serializers
from django.core.exceptions import ObjectDoesNotExist
from django.core.serializers.base import DeserializationError
from django.core.serializers.json import Serializer as JsonSerializer
from django.db import transaction
from django.db.models import Model

from webapp.catalog import selectors
from webapp.catalog.models import HISTORY_FIELDS, PricePoint
from webapp.catalog.services import bump_catalog_version

FIXTURES_DIR = Path(settings.BASE_DIR) / "fixtures"

FIXTURE_FILES: dict[str, list[str]] = {
    "01-gpus.json": [
        "catalog.benchmark",
        "catalog.gpumodel",
        "catalog.gputhroughput",
        "catalog.usedgpuprice",
    ],
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
    "catalog.usedgpuprice": ["slug", "effective_date", "revision"],
    "catalog.part": ["slug"],
    "catalog.partprice": ["part__slug", "effective_date", "revision"],
    "catalog.fxrate": ["base_currency", "quote_currency", "effective_date", "revision"],
    "catalog.tariff": ["slug", "effective_date", "revision"],
    "catalog.tariffperiod": ["tariff__slug", "tariff__effective_date", "tariff__revision", "name"],
    "catalog.hostingoption": ["slug", "effective_date", "revision"],
    "catalog.cloudoffering": ["slug"],
    "catalog.cloudrate": ["offering__slug", "effective_date", "revision"],
    "catalog.buildpreset": ["slug"],
    "catalog.presetpart": ["preset__slug", "part__slug"],
}

_DEFAULT_HISTORY = {"revision": 0, "supersedes": None}
"""History fields a fixture row carries only when they differ from these (a correction)."""


class _CatalogSerializer(JsonSerializer):
    """Django's JSON serializer, without the audit trail of each row.

    Who recorded a row and when, and who approved it, belong to the database that
    recorded it, not to the shipped files; a correction keeps its ``revision`` and
    the row it ``supersedes`` (so the history it stands in reads the same anywhere).
    """

    def get_dump_object(self, obj: Model) -> dict[str, Any]:
        data: dict[str, Any] = super().get_dump_object(obj)
        if isinstance(obj, PricePoint):
            fields = data["fields"]
            for name in HISTORY_FIELDS:
                if name in _DEFAULT_HISTORY and fields.get(name) != _DEFAULT_HISTORY[name]:
                    continue
                fields.pop(name, None)
        return data


def catalog_models() -> list[type]:
    return [apps.get_model(label) for labels in FIXTURE_FILES.values() for label in labels]


def serialize_group(labels: list[str]) -> str:
    """The text of one fixture file holding ``labels``' rows, in natural-key order."""
    objects: list = []
    for label in labels:
        model = apps.get_model(label)
        objects.extend(selectors.rows_in_order(model, _ORDERING[label]))
    text = _CatalogSerializer().serialize(
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


@dataclass
class LoadReport:
    """What :func:`load_catalog` did: files read, rows added, rows it left as stored."""

    files: int = 0
    added: list[str] = field(default_factory=list)
    translated: list[str] = field(default_factory=list)
    """``model key: field``, one line per empty Chinese text of a stored row filled in."""
    differences: list[str] = field(default_factory=list)
    """``model key: field: shipped …, stored … (kept)``, one line per field that differs."""


def load_catalog(directory: Path = FIXTURES_DIR) -> LoadReport:
    """Add the fixture rows the database lacks, in one transaction; change nothing else.

    A row is matched by its natural key. A stored row is never changed, even when
    the shipped files say otherwise: each field whose shipped value differs is
    reported instead. The exception is a Chinese text (``*_zh``) the stored row has
    left empty: the shipped translation fills it (and is reported in ``translated``).
    The lines of a list a stored row owns (a preset's parts, a time-of-use tariff's
    periods) are the list's, as it stands: a shipped line the stored list lacks is
    reported, not added, since the resolver adds the lines up.
    """
    files = fixture_paths(directory)
    report = LoadReport(files=len(files))
    if not files:
        return report
    # First a pass that only reads. A database that already holds every shipped row (each
    # start of `make run` and `make serve` loads the catalog) is left as it is: no
    # transaction that writes, so no writer waits for SQLite's one write lock meanwhile,
    # and no new catalog version, so no worker forgets what it read from the catalog.
    try:
        _load(files, report, write=False)
        if not report.added and not report.translated:
            return report
    except (DeserializationError, ObjectDoesNotExist):
        pass  # a shipped row refers to one the database lacks: rows to add (or a bad file,
        # which the pass below reports as it always has)
    report = LoadReport(files=len(files))
    with transaction.atomic():
        _load(files, report)
        bump_catalog_version()  # fixture rows are saved raw: no per-row signal bumps it
    return report


LISTS: dict[str, tuple[str, str]] = {
    "catalog.presetpart": ("catalog.buildpreset", "preset"),
    "catalog.tariffperiod": ("catalog.tariff", "tariff"),
}
"""Rows that are one item of a list owned by another row: ``child → (owner, its field)``."""


def _label(row: Model) -> str:
    key = row.natural_key() if hasattr(row, "natural_key") else (row.pk,)
    return f"{row._meta.label_lower} {'/'.join(str(part) for part in key)}"


def _fill_translations(shipped: Model, stored: Model, write: bool = True) -> list[str]:
    """Copy into ``stored`` (and the database) each Chinese text it lacks that ``shipped`` has;
    one line per field filled (or, with ``write`` false, that would be: nothing is copied)."""
    values = {
        model_field.name: model_field.value_from_object(shipped)
        for model_field in shipped._meta.concrete_fields
        if model_field.name.endswith("_zh")
        and model_field.value_from_object(shipped)
        and not model_field.value_from_object(stored)
    }
    if not values or not write:
        return [f"{_label(stored)}: {name}" for name in values]
    # An update, not save(): the row's figures and history are not touched.
    type(stored)._default_manager.filter(pk=stored.pk).update(**values)
    for name, value in values.items():
        setattr(stored, name, value)
    return [f"{_label(stored)}: {name}" for name in values]


def _differences(shipped: Model, stored: Model) -> list[str]:
    lines = []
    for model_field in shipped._meta.concrete_fields:
        if model_field.primary_key or model_field.name in HISTORY_FIELDS:
            continue
        if model_field.value_from_object(shipped) != model_field.value_from_object(stored):
            lines.append(
                f"{_label(stored)}: {model_field.name}: shipped "
                f"{model_field.value_to_string(shipped)!r}, stored "
                f"{model_field.value_to_string(stored)!r} (kept)"
            )
    return lines


def _load(files: list[Path], report: LoadReport, write: bool = True) -> None:
    """Compare the shipped rows with the stored ones into ``report``; with ``write`` (inside
    the caller's transaction) also add the missing rows and fill the empty Chinese texts,
    without it only report what would be added or filled."""
    stored_owners = {owner: selectors.stored_keys(owner) for owner, _ in LISTS.values()}
    shipped_owners: dict[str, set[int]] = {owner: set() for owner, _ in LISTS.values()}
    shipped_lines: dict[str, set[int]] = {label: set() for label in LISTS}
    deferred = []
    for path in files:
        with path.open(encoding="utf-8") as handle:
            for item in serializers.deserialize("json", handle, handle_forward_references=True):
                row = item.object
                # The deserializer fills in the primary key of a row it found by
                # natural key; no key means the row is new.
                stored = selectors.stored_row(row) if row.pk is not None else None
                label = row._meta.label_lower
                if label in shipped_owners:
                    shipped_owners[label].add(row.pk)
                elif label in shipped_lines:
                    shipped_lines[label].add(row.pk)
                if stored is not None:
                    report.translated.extend(_fill_translations(row, stored, write))
                    report.differences.extend(_differences(row, stored))
                    continue
                owner_of = LISTS.get(row._meta.label_lower)
                if owner_of is not None:
                    owner, owner_field = owner_of
                    if getattr(row, f"{owner_field}_id") in stored_owners[owner]:
                        report.differences.append(
                            f"{_label(row)}: shipped, not in the stored list (kept as it stands)"
                        )
                        continue
                report.added.append(_label(row))
                if not write:
                    continue
                item.save()
                if item.deferred_fields:
                    deferred.append(item)
    for item in deferred:
        item.save_deferred_fields()
    for label, (owner, owner_field) in LISTS.items():
        owners = shipped_owners[owner] & stored_owners[owner]
        for line in selectors.lines_not_in(label, owner_field, owners, shipped_lines[label]):
            report.differences.append(f"{_label(line)}: stored, not shipped (kept)")
