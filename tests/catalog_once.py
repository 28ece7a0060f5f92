"""The shipped catalog for the tests: read from fixtures/ once per test session (``read``, by
the root conftest's ``django_db_setup``), written into each test's database in a few inserts
(``restore``) instead of ``load_catalog`` parsing and checking every fixture file each time."""

from __future__ import annotations

import copy
from typing import Any

SHIPPED: list[tuple[Any, list[Any]]] = []
"""Every catalog row ``load_catalog`` writes, by model in dependency order."""


def read() -> None:
    """Run ``load_catalog`` once in a transaction, keep the rows it wrote, roll it back."""
    from django.apps import apps
    from django.core.serializers import sort_dependencies
    from django.db import transaction

    from webapp.catalog.fixtures_io import load_catalog

    config = apps.get_app_config("catalog")
    models = sort_dependencies([(config, list(config.get_models()))])
    with transaction.atomic():
        load_catalog()
        rows = [(model, list(model.objects.order_by("pk"))) for model in models]
        transaction.set_rollback(True)
    SHIPPED[:] = [(model, items) for model, items in rows if items]


def restore() -> None:
    """Write the shipped catalog into the test's database as ``load_catalog`` would (the same
    rows, the same keys); then give the catalog a new version, as it does."""
    from webapp.catalog.services import bump_catalog_version

    if not SHIPPED:
        read()
    for model, items in SHIPPED:
        model.objects.bulk_create([copy.copy(item) for item in items])
    bump_catalog_version()
