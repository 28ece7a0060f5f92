"""Chinese companions of the catalog's explanatory texts: ``note_zh`` on every row with a
note, ``description_zh`` on benchmarks and presets, the presets' rationales and explanatory
sources, a spot offering's ``rework_source_zh``. All blank by default (the English is shown);
``load_catalog`` fills them from the shipped fixtures.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0008_gpu_peak_tflops"),
    ]

    operations = [
        migrations.AddField(
            model_name="benchmark",
            name="description_zh",
            field=models.TextField(
                blank=True,
                help_text="Shown in the Chinese interface; blank shows the English. Keep figures and units as in the English; leave product names, titles and URLs as published.",
                verbose_name="Chinese description",
            ),
        ),
        migrations.AddField(
            model_name="buildpreset",
            name="defaults_rationale_zh",
            field=models.TextField(
                blank=True,
                help_text="Shown in the Chinese interface; blank shows the English. Keep figures and units as in the English; leave product names, titles and URLs as published.",
                verbose_name="why these defaults, in Chinese",
            ),
        ),
        migrations.AddField(
            model_name="buildpreset",
            name="description_zh",
            field=models.TextField(
                blank=True,
                help_text="Shown in the Chinese interface; blank shows the English. Keep figures and units as in the English; leave product names, titles and URLs as published.",
                verbose_name="Chinese description",
            ),
        ),
        migrations.AddField(
            model_name="buildpreset",
            name="hosting_rationale_zh",
            field=models.TextField(
                blank=True,
                help_text="Shown in the Chinese interface; blank shows the English. Keep figures and units as in the English; leave product names, titles and URLs as published.",
                verbose_name="why this hosting, in Chinese",
            ),
        ),
        migrations.AddField(
            model_name="buildpreset",
            name="multi_node_source_zh",
            field=models.TextField(
                blank=True,
                help_text="Shown in the Chinese interface; blank shows the English. Keep figures and units as in the English; leave product names, titles and URLs as published.",
                verbose_name="Chinese multi-node efficiency source",
            ),
        ),
        migrations.AddField(
            model_name="buildpreset",
            name="retention_source_zh",
            field=models.TextField(
                blank=True,
                help_text="Shown in the Chinese interface; blank shows the English. Keep figures and units as in the English; leave product names, titles and URLs as published.",
                verbose_name="Chinese retention source",
            ),
        ),
        migrations.AddField(
            model_name="buildpreset",
            name="useful_life_source_zh",
            field=models.TextField(
                blank=True,
                help_text="Shown in the Chinese interface; blank shows the English. Keep figures and units as in the English; leave product names, titles and URLs as published.",
                verbose_name="Chinese useful life source",
            ),
        ),
        migrations.AddField(
            model_name="cloudoffering",
            name="note_zh",
            field=models.TextField(
                blank=True,
                help_text="Shown in the Chinese interface; blank shows the English. Keep figures and units as in the English; leave product names, titles and URLs as published.",
                verbose_name="Chinese note",
            ),
        ),
        migrations.AddField(
            model_name="cloudoffering",
            name="rework_source_zh",
            field=models.TextField(
                blank=True,
                help_text="Shown in the Chinese interface; blank shows the English. Keep figures and units as in the English; leave product names, titles and URLs as published.",
                verbose_name="Chinese rework fraction source",
            ),
        ),
        migrations.AddField(
            model_name="cloudrate",
            name="note_zh",
            field=models.TextField(
                blank=True,
                help_text="Shown in the Chinese interface; blank shows the English. Keep figures and units as in the English; leave product names, titles and URLs as published.",
                verbose_name="Chinese note",
            ),
        ),
        migrations.AddField(
            model_name="fxrate",
            name="note_zh",
            field=models.TextField(
                blank=True,
                help_text="Shown in the Chinese interface; blank shows the English. Keep figures and units as in the English; leave product names, titles and URLs as published.",
                verbose_name="Chinese note",
            ),
        ),
        migrations.AddField(
            model_name="gpumodel",
            name="note_zh",
            field=models.TextField(
                blank=True,
                help_text="Shown in the Chinese interface; blank shows the English. Keep figures and units as in the English; leave product names, titles and URLs as published.",
                verbose_name="Chinese note",
            ),
        ),
        migrations.AddField(
            model_name="gputhroughput",
            name="note_zh",
            field=models.TextField(
                blank=True,
                help_text="Shown in the Chinese interface; blank shows the English. Keep figures and units as in the English; leave product names, titles and URLs as published.",
                verbose_name="Chinese note",
            ),
        ),
        migrations.AddField(
            model_name="hostingoption",
            name="note_zh",
            field=models.TextField(
                blank=True,
                help_text="Shown in the Chinese interface; blank shows the English. Keep figures and units as in the English; leave product names, titles and URLs as published.",
                verbose_name="Chinese note",
            ),
        ),
        migrations.AddField(
            model_name="part",
            name="note_zh",
            field=models.TextField(
                blank=True,
                help_text="Shown in the Chinese interface; blank shows the English. Keep figures and units as in the English; leave product names, titles and URLs as published.",
                verbose_name="Chinese note",
            ),
        ),
        migrations.AddField(
            model_name="partprice",
            name="note_zh",
            field=models.TextField(
                blank=True,
                help_text="Shown in the Chinese interface; blank shows the English. Keep figures and units as in the English; leave product names, titles and URLs as published.",
                verbose_name="Chinese note",
            ),
        ),
        migrations.AddField(
            model_name="tariff",
            name="note_zh",
            field=models.TextField(
                blank=True,
                help_text="Shown in the Chinese interface; blank shows the English. Keep figures and units as in the English; leave product names, titles and URLs as published.",
                verbose_name="Chinese note",
            ),
        ),
    ]
