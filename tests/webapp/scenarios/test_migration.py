"""Moving saved scenarios into their own app keeps every saved row (SQLite and PostgreSQL)."""

import pytest
from django.db import connection

from costmodel import parse_scenario
from tests.webapp.migrations import migrate, migrated_to

BEFORE = [
    ("planner", "0002_saved_scenario_selection"),
    ("contenttypes", "0002_remove_content_type_name"),
]
AFTER = [("scenarios", "0001_initial")]


@pytest.fixture
def at_the_planners_last_migration(transactional_db):
    """The database as it was before the move; migrated to the latest state afterwards."""
    with migrated_to(BEFORE) as apps:
        yield apps


def test_a_row_saved_in_the_planner_app_is_there_after_the_move(at_the_planners_last_migration):
    old_apps = at_the_planners_last_migration
    user = old_apps.get_model("auth", "User").objects.create(username="ann")
    old = old_apps.get_model("planner", "SavedScenario").objects.create(
        name="kept",
        scenario={"currency": "CNY"},
        provenance=[{"label": "a row"}],
        overrides=["build.capex"],
        selection={"preset": "entry-rtx4090"},
        owner_id=user.pk,
        session_key="",
    )
    old_apps.get_model("contenttypes", "ContentType").objects.get_or_create(
        app_label="planner", model="savedscenario"
    )

    new_apps = migrate(AFTER)

    moved = new_apps.get_model("scenarios", "SavedScenario").objects.get()
    assert moved.pk == old.pk  # the link to it still works
    assert (moved.name, moved.owner_id, moved.created_at) == ("kept", user.pk, old.created_at)
    assert moved.scenario == {"currency": "CNY"}
    assert moved.provenance == [{"label": "a row"}]
    assert moved.overrides == ["build.capex"]
    assert moved.selection == {"preset": "entry-rtx4090"}
    content_types = new_apps.get_model("contenttypes", "ContentType").objects
    assert content_types.filter(app_label="scenarios", model="savedscenario").exists()
    assert not content_types.filter(app_label="planner", model="savedscenario").exists()
    tables = connection.introspection.table_names()
    assert "scenarios_savedscenario" in tables and "planner_savedscenario" not in tables
    with connection.cursor() as cursor:
        indexes = connection.introspection.get_constraints(cursor, "scenarios_savedscenario")
    assert "scenarios_saved_session_idx" in indexes


def test_the_move_can_be_undone_without_losing_the_row(at_the_planners_last_migration):
    old_apps = at_the_planners_last_migration
    old_apps.get_model("planner", "SavedScenario").objects.create(
        name="round trip", scenario={}, session_key="abc"
    )
    migrate(AFTER)
    back = migrate(BEFORE)
    assert back.get_model("planner", "SavedScenario").objects.get().name == "round trip"


BEFORE_RANGES = [("scenarios", "0001_initial")]
AFTER_RANGES = [("scenarios", "0002_saved_scenario_ranges")]


@pytest.fixture
def before_the_ranges(transactional_db):
    """The database before saved scenarios kept ranges; migrated to the latest state afterwards."""
    with migrated_to(BEFORE_RANGES) as apps:
        yield apps


def test_rows_saved_before_ranges_existed_keep_the_defaults(before_the_ranges, scenario_data):
    from costmodel.ranges import Range, default_ranges
    from webapp.scenarios.services import stored_ranges

    old = before_the_ranges.get_model("scenarios", "SavedScenario").objects.create(
        name="old", scenario=scenario_data, session_key="s"
    )
    new_apps = migrate(AFTER_RANGES)
    row = new_apps.get_model("scenarios", "SavedScenario").objects.get(pk=old.pk)
    assert row.ranges is None
    mine = {"path": "workload.utilization", "low": 0.3, "mode": 0.8, "high": 0.9}
    row.ranges = [mine]
    row.save()
    row.refresh_from_db()
    assert row.ranges == [mine]  # a JSON list in either database
    full = stored_ranges(row)
    assert full[0] == Range(**mine)
    assert full[1:] == default_ranges(parse_scenario(scenario_data))[1:]


def test_the_ranges_migration_can_be_undone(before_the_ranges):
    migrate(AFTER_RANGES)
    back = migrate(BEFORE_RANGES)
    back.get_model("scenarios", "SavedScenario").objects.create(name="x", scenario={})
    with connection.cursor() as cursor:
        columns = [
            c.name
            for c in connection.introspection.get_table_description(
                cursor, "scenarios_savedscenario"
            )
        ]
    assert "ranges" not in columns
