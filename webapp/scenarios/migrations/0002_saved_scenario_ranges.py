"""Saved scenarios keep the uncertainty ranges the user chose (null for rows saved before:
their ranges are the scenario's defaults, exactly what those rows showed)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('scenarios', '0001_initial'),
    ]

    operations = [
        migrations.AddField(
            model_name='savedscenario',
            name='ranges',
            field=models.JSONField(blank=True, help_text="The low / most likely / high values the user chose for the uncertainty analysis, as a list of {path, low, mode, high}; only those that differ from the scenario's defaults. Empty: the defaults.", null=True, verbose_name='uncertainty ranges'),
        ),
    ]
