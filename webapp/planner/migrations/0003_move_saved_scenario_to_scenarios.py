"""Saved scenarios move to their own app (``webapp.scenarios``), rows and all.

The table is renamed, not copied: every saved row keeps its id (its link),
its owner and its dates. The model leaves the planner's state here and enters
the scenarios app's state in ``scenarios/0001``, which depends on this one.
"""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("planner", "0002_saved_scenario_selection"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.AlterModelTable(name="savedscenario", table="scenarios_savedscenario"),
            ],
            state_operations=[
                migrations.DeleteModel(name="SavedScenario"),
            ],
        ),
    ]
