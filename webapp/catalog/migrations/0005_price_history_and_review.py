"""Prices with history: every dated row (part prices, cloud rates, FX rates, tariffs with
their periods, hosting options) gets its audit trail, and tariffs and hosting options
become dated rows of an item named by their slug.

The rows already stored are kept as they are, each as the first revision of its item
(``revision`` 0, superseding nothing, not pending), recorded "now" by nobody: the
database did not know before this migration who entered them.
"""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('catalog', '0004_shared_cache_table'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterModelOptions(
            name='hostingoption',
            options={'ordering': ['slug', 'effective_date', 'revision'], 'verbose_name': 'hosting option', 'verbose_name_plural': 'hosting options'},
        ),
        migrations.AlterModelOptions(
            name='tariff',
            options={'ordering': ['slug', 'effective_date', 'revision'], 'verbose_name': 'electricity tariff', 'verbose_name_plural': 'electricity tariffs'},
        ),
        migrations.RemoveConstraint(
            model_name='cloudrate',
            name='cloudrate_one_per_offering_and_date',
        ),
        migrations.RemoveConstraint(
            model_name='fxrate',
            name='fxrate_one_per_pair_and_date',
        ),
        migrations.RemoveConstraint(
            model_name='partprice',
            name='partprice_one_per_part_and_date',
        ),
        migrations.AddField(
            model_name='cloudrate',
            name='approved_at',
            field=models.DateTimeField(blank=True, editable=False, null=True, verbose_name='approved at'),
        ),
        migrations.AddField(
            model_name='cloudrate',
            name='approved_by',
            field=models.ForeignKey(blank=True, editable=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='approved by'),
        ),
        migrations.AddField(
            model_name='cloudrate',
            name='pending',
            field=models.BooleanField(default=False, help_text='Held for review: not used until a staff user approves it.', verbose_name='pending review'),
        ),
        migrations.AddField(
            model_name='cloudrate',
            name='recorded_at',
            field=models.DateTimeField(default=django.utils.timezone.now, editable=False, verbose_name='recorded at'),
        ),
        migrations.AddField(
            model_name='cloudrate',
            name='recorded_by',
            field=models.ForeignKey(blank=True, editable=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='recorded by'),
        ),
        migrations.AddField(
            model_name='cloudrate',
            name='revision',
            field=models.PositiveSmallIntegerField(default=0, editable=False, help_text='0: as first recorded; n: the n-th correction of it.', verbose_name='revision'),
        ),
        migrations.AddField(
            model_name='cloudrate',
            name='supersedes',
            field=models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.RESTRICT, related_name='superseded_by', to='catalog.cloudrate', verbose_name='supersedes (correction of)'),
        ),
        migrations.AddField(
            model_name='fxrate',
            name='approved_at',
            field=models.DateTimeField(blank=True, editable=False, null=True, verbose_name='approved at'),
        ),
        migrations.AddField(
            model_name='fxrate',
            name='approved_by',
            field=models.ForeignKey(blank=True, editable=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='approved by'),
        ),
        migrations.AddField(
            model_name='fxrate',
            name='pending',
            field=models.BooleanField(default=False, help_text='Held for review: not used until a staff user approves it.', verbose_name='pending review'),
        ),
        migrations.AddField(
            model_name='fxrate',
            name='recorded_at',
            field=models.DateTimeField(default=django.utils.timezone.now, editable=False, verbose_name='recorded at'),
        ),
        migrations.AddField(
            model_name='fxrate',
            name='recorded_by',
            field=models.ForeignKey(blank=True, editable=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='recorded by'),
        ),
        migrations.AddField(
            model_name='fxrate',
            name='revision',
            field=models.PositiveSmallIntegerField(default=0, editable=False, help_text='0: as first recorded; n: the n-th correction of it.', verbose_name='revision'),
        ),
        migrations.AddField(
            model_name='fxrate',
            name='supersedes',
            field=models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.RESTRICT, related_name='superseded_by', to='catalog.fxrate', verbose_name='supersedes (correction of)'),
        ),
        migrations.AddField(
            model_name='hostingoption',
            name='approved_at',
            field=models.DateTimeField(blank=True, editable=False, null=True, verbose_name='approved at'),
        ),
        migrations.AddField(
            model_name='hostingoption',
            name='approved_by',
            field=models.ForeignKey(blank=True, editable=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='approved by'),
        ),
        migrations.AddField(
            model_name='hostingoption',
            name='pending',
            field=models.BooleanField(default=False, help_text='Held for review: not used until a staff user approves it.', verbose_name='pending review'),
        ),
        migrations.AddField(
            model_name='hostingoption',
            name='recorded_at',
            field=models.DateTimeField(default=django.utils.timezone.now, editable=False, verbose_name='recorded at'),
        ),
        migrations.AddField(
            model_name='hostingoption',
            name='recorded_by',
            field=models.ForeignKey(blank=True, editable=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='recorded by'),
        ),
        migrations.AddField(
            model_name='hostingoption',
            name='revision',
            field=models.PositiveSmallIntegerField(default=0, editable=False, help_text='0: as first recorded; n: the n-th correction of it.', verbose_name='revision'),
        ),
        migrations.AddField(
            model_name='hostingoption',
            name='supersedes',
            field=models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.RESTRICT, related_name='superseded_by', to='catalog.hostingoption', verbose_name='supersedes (correction of)'),
        ),
        migrations.AddField(
            model_name='partprice',
            name='approved_at',
            field=models.DateTimeField(blank=True, editable=False, null=True, verbose_name='approved at'),
        ),
        migrations.AddField(
            model_name='partprice',
            name='approved_by',
            field=models.ForeignKey(blank=True, editable=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='approved by'),
        ),
        migrations.AddField(
            model_name='partprice',
            name='pending',
            field=models.BooleanField(default=False, help_text='Held for review: not used until a staff user approves it.', verbose_name='pending review'),
        ),
        migrations.AddField(
            model_name='partprice',
            name='recorded_at',
            field=models.DateTimeField(default=django.utils.timezone.now, editable=False, verbose_name='recorded at'),
        ),
        migrations.AddField(
            model_name='partprice',
            name='recorded_by',
            field=models.ForeignKey(blank=True, editable=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='recorded by'),
        ),
        migrations.AddField(
            model_name='partprice',
            name='revision',
            field=models.PositiveSmallIntegerField(default=0, editable=False, help_text='0: as first recorded; n: the n-th correction of it.', verbose_name='revision'),
        ),
        migrations.AddField(
            model_name='partprice',
            name='supersedes',
            field=models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.RESTRICT, related_name='superseded_by', to='catalog.partprice', verbose_name='supersedes (correction of)'),
        ),
        migrations.AddField(
            model_name='tariff',
            name='approved_at',
            field=models.DateTimeField(blank=True, editable=False, null=True, verbose_name='approved at'),
        ),
        migrations.AddField(
            model_name='tariff',
            name='approved_by',
            field=models.ForeignKey(blank=True, editable=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='approved by'),
        ),
        migrations.AddField(
            model_name='tariff',
            name='pending',
            field=models.BooleanField(default=False, help_text='Held for review: not used until a staff user approves it.', verbose_name='pending review'),
        ),
        migrations.AddField(
            model_name='tariff',
            name='recorded_at',
            field=models.DateTimeField(default=django.utils.timezone.now, editable=False, verbose_name='recorded at'),
        ),
        migrations.AddField(
            model_name='tariff',
            name='recorded_by',
            field=models.ForeignKey(blank=True, editable=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='recorded by'),
        ),
        migrations.AddField(
            model_name='tariff',
            name='revision',
            field=models.PositiveSmallIntegerField(default=0, editable=False, help_text='0: as first recorded; n: the n-th correction of it.', verbose_name='revision'),
        ),
        migrations.AddField(
            model_name='tariff',
            name='supersedes',
            field=models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.RESTRICT, related_name='superseded_by', to='catalog.tariff', verbose_name='supersedes (correction of)'),
        ),
        migrations.AlterField(
            model_name='hostingoption',
            name='slug',
            field=models.SlugField(help_text='Stable identifier used in fixtures, the API and the command line; every dated row of the same item has the same slug.', max_length=80, verbose_name='slug'),
        ),
        migrations.AlterField(
            model_name='tariff',
            name='slug',
            field=models.SlugField(help_text='Stable identifier used in fixtures, the API and the command line; every dated row of the same item has the same slug.', max_length=80, verbose_name='slug'),
        ),
        migrations.AddConstraint(
            model_name='cloudrate',
            constraint=models.UniqueConstraint(fields=('offering', 'effective_date', 'revision'), name='cloudrate_one_per_date_and_revision'),
        ),
        migrations.AddConstraint(
            model_name='cloudrate',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('revision', 0), ('supersedes__isnull', True)), models.Q(('revision__gte', 1), ('supersedes__isnull', False)), _connector='OR'), name='cloudrate_revision_iff_correction'),
        ),
        migrations.AddConstraint(
            model_name='fxrate',
            constraint=models.UniqueConstraint(fields=('base_currency', 'quote_currency', 'effective_date', 'revision'), name='fxrate_one_per_date_and_revision'),
        ),
        migrations.AddConstraint(
            model_name='fxrate',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('revision', 0), ('supersedes__isnull', True)), models.Q(('revision__gte', 1), ('supersedes__isnull', False)), _connector='OR'), name='fxrate_revision_iff_correction'),
        ),
        migrations.AddConstraint(
            model_name='hostingoption',
            constraint=models.UniqueConstraint(fields=('slug', 'effective_date', 'revision'), name='hosting_one_per_date_and_revision'),
        ),
        migrations.AddConstraint(
            model_name='hostingoption',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('revision', 0), ('supersedes__isnull', True)), models.Q(('revision__gte', 1), ('supersedes__isnull', False)), _connector='OR'), name='hosting_revision_iff_correction'),
        ),
        migrations.AddConstraint(
            model_name='partprice',
            constraint=models.UniqueConstraint(fields=('part', 'effective_date', 'revision'), name='partprice_one_per_date_and_revision'),
        ),
        migrations.AddConstraint(
            model_name='partprice',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('revision', 0), ('supersedes__isnull', True)), models.Q(('revision__gte', 1), ('supersedes__isnull', False)), _connector='OR'), name='partprice_revision_iff_correction'),
        ),
        migrations.AddConstraint(
            model_name='tariff',
            constraint=models.UniqueConstraint(fields=('slug', 'effective_date', 'revision'), name='tariff_one_per_date_and_revision'),
        ),
        migrations.AddConstraint(
            model_name='tariff',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('revision', 0), ('supersedes__isnull', True)), models.Q(('revision__gte', 1), ('supersedes__isnull', False)), _connector='OR'), name='tariff_revision_iff_correction'),
        ),
    ]
