"""Peak dense 16-bit TFLOPS per GPU model, with its datasheet source.

A training run described by its model size and tokens becomes reference
GPU-hours through the reference GPU's peak (``costmodel.training``). Both
fields may stay empty: a GPU model without a figure only refuses that kind of
job.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0007_preset_hosting_default"),
    ]

    operations = [
        migrations.AddField(
            model_name="gpumodel",
            name="peak_dense_tflops",
            field=models.DecimalField(
                blank=True,
                decimal_places=2,
                help_text=(
                    "Peak dense tensor throughput at BF16 or FP16 with FP32 accumulate, without "
                    "sparsity [TFLOP/s], from the datasheet; converts a training run to GPU-hours."
                ),
                max_digits=7,
                null=True,
                verbose_name="peak dense 16-bit TFLOPS",
            ),
        ),
        migrations.AddField(
            model_name="gpumodel",
            name="peak_tflops_source",
            field=models.CharField(
                blank=True, max_length=500, verbose_name="source of the peak TFLOPS"
            ),
        ),
        migrations.AddConstraint(
            model_name="gpumodel",
            constraint=models.CheckConstraint(
                condition=models.Q(("peak_dense_tflops__isnull", True))
                | models.Q(("peak_dense_tflops__gt", 0)),
                name="gpumodel_peak_tflops_positive",
            ),
        ),
    ]
