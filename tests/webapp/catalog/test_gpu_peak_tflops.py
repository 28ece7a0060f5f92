"""Peak dense TFLOPS per GPU model: shipped with a datasheet source, never zero or negative."""

from decimal import Decimal

import pytest
from django.db import IntegrityError, transaction

from webapp.catalog.models import GpuModel


def test_every_shipped_gpu_model_has_a_sourced_peak(shipped):
    models = list(GpuModel.objects.all())
    assert models
    for gpu in models:
        assert gpu.peak_dense_tflops is not None and gpu.peak_dense_tflops > 0, gpu.slug
        assert "https://" in gpu.peak_tflops_source, gpu.slug


@pytest.mark.parametrize(
    ("slug", "tflops"),
    [
        ("a100-80gb-pcie", "312"),  # the methodology's worked example: A100 at 312 dense BF16
        ("h100-sxm5", "989"),
        ("rtx-4090", "165.2"),  # Ada whitepaper, FP16 with FP32 accumulate, dense
        ("rtx-3090", "71"),
        ("l40s", "362.05"),
    ],
)
def test_it_ships_the_datasheet_figure(shipped, slug, tflops):
    assert GpuModel.objects.get(slug=slug).peak_dense_tflops == Decimal(tflops)


def test_the_database_refuses_a_peak_of_zero(shipped):
    with pytest.raises(IntegrityError), transaction.atomic():
        GpuModel.objects.filter(slug="rtx-4090").update(peak_dense_tflops=Decimal(0))
