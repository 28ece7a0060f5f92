"""Running migrations to a point and back, for the tests of a data migration."""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate(targets: list[tuple[str, str]]) -> Any:
    """Migrate the test database to ``targets``; the apps registry of that state."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@contextmanager
def migrated_to(targets: list[tuple[str, str]]) -> Iterator[Any]:
    """The database at ``targets`` (its apps registry), migrated back to the latest state after."""
    apps = migrate(targets)
    try:
        yield apps
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())
