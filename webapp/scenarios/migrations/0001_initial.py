"""Saved scenarios, moved from the planner app with their rows (see planner/0003).

The table already exists (planner/0003 renamed it), so the model enters this
app's state without touching the database; only its index gets this app's name.
"""

import uuid

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def move_content_type(apps, schema_editor):
    """Permissions and admin history that named planner.savedscenario follow the model."""
    content_types = apps.get_model("contenttypes", "ContentType")
    if not content_types.objects.filter(app_label="scenarios", model="savedscenario").exists():
        content_types.objects.filter(app_label="planner", model="savedscenario").update(
            app_label="scenarios"
        )


def restore_content_type(apps, schema_editor):
    content_types = apps.get_model("contenttypes", "ContentType")
    if not content_types.objects.filter(app_label="planner", model="savedscenario").exists():
        content_types.objects.filter(app_label="scenarios", model="savedscenario").update(
            app_label="planner"
        )


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("planner", "0003_move_saved_scenario_to_scenarios"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name="SavedScenario",
                    fields=[
                        ("id", models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                        ("name", models.CharField(max_length=200, verbose_name="name")),
                        ("scenario", models.JSONField(help_text="The engine input, as Scenario.model_dump(mode='json').", verbose_name="explicit scenario")),
                        ("provenance", models.JSONField(blank=True, default=list, help_text="Catalog rows, prices, sources and dates behind each scenario field.", verbose_name="provenance")),
                        ("overrides", models.JSONField(blank=True, default=list, help_text="Dotted scenario field paths whose value the user typed in.", verbose_name="overrides")),
                        ("selection", models.JSONField(blank=True, help_text="The catalog choices the scenario was resolved from (presets, offering, tariff…), so it can be re-run at later prices; empty for scenarios entered by hand.", null=True, verbose_name="catalog selection")),
                        ("session_key", models.CharField(blank=True, max_length=40, verbose_name="session key")),
                        ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="created at")),
                        ("updated_at", models.DateTimeField(auto_now=True, verbose_name="updated at")),
                        ("owner", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name="saved_scenarios", to=settings.AUTH_USER_MODEL, verbose_name="owner")),
                    ],
                    options={
                        "verbose_name": "saved scenario",
                        "verbose_name_plural": "saved scenarios",
                        "ordering": ["-created_at"],
                        "indexes": [models.Index(fields=["session_key"], name="planner_saved_session_idx")],
                    },
                ),
            ],
        ),
        migrations.RenameIndex(
            model_name="savedscenario",
            new_name="scenarios_saved_session_idx",
            old_name="planner_saved_session_idx",
        ),
        migrations.RunPython(move_content_type, restore_content_type),
    ]
