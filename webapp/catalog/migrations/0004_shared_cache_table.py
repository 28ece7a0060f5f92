"""The table of the "shared" cache (settings.CACHES), where the catalog's version lives.

``manage.py createcachetable`` creates it; running it here means ``migrate``
alone prepares a database, as before. It does nothing when the table exists.
"""

from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor):
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):

    dependencies = [
        ("catalog", "0003_cluster_tier_pricing_modes_chinese_names"),
    ]

    operations = [
        migrations.RunPython(create_cache_table, migrations.RunPython.noop),
    ]
