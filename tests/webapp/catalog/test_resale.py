"""Resale from observations: the retention per year fitted by least squares of ln price on age,
refused with the reason when it cannot stand; the resolver uses it, or the preset's stated
figure marked as an estimate."""

import datetime
import math
from decimal import Decimal

import pytest
from django.db import IntegrityError, transaction

from webapp.catalog import services
from webapp.catalog.models import BuildPreset, GpuModel, UsedGpuPrice
from webapp.catalog.resale import FitRefused, fit_retention, retention_fit
from webapp.catalog.resolver import resolve_data

TODAY = datetime.date(2026, 12, 7)


def test_a_price_halving_every_year_is_a_retention_of_one_half():
    assert fit_retention([0, 1, 2], [100, 50, 25]) == pytest.approx(0.5)


def test_the_fit_is_least_squares_of_log_price_on_age():
    ages, prices = [0, 1, 2, 4], [100.0, 70.0, 52.0, 22.0]
    logs = [math.log(p) for p in prices]
    mean_a, mean_l = sum(ages) / 4, sum(logs) / 4
    slope = sum((a - mean_a) * (y - mean_l) for a, y in zip(ages, logs, strict=True)) / sum(
        (a - mean_a) ** 2 for a in ages
    )
    assert fit_retention(ages, prices) == pytest.approx(math.exp(slope))


@pytest.mark.parametrize(
    ("ages", "prices", "reason"),
    [
        ([0, 1], [100, 60], "2 observation(s) with an age; a fit needs at least 3"),
        ([1, 1, 1], [100, 60, 50], "every observation has the same age"),
        ([0, 1, 2], [100, 120, 150], "above 1: the observations say the card gains value"),
        ([0, 1, 2], [100, 10, 1], "below 0.2: the card would lose more than four fifths"),
    ],
)
def test_a_fit_that_cannot_stand_is_refused_with_the_reason(ages, prices, reason):
    with pytest.raises(FitRefused, match=reason.replace("(", r"\(").replace(")", r"\)")):
        fit_retention(ages, prices)


def test_the_shipped_h100_observations_fit_a_retention_of_0_62_to_0_72(shipped):
    fit = retention_fit(GpuModel.objects.get(slug="h100-sxm5"), TODAY)
    assert fit.usable and 0.62 <= fit.retention <= 0.72
    assert fit.retention_decimal == Decimal("0.677")
    assert (len(fit.fitted), fit.currency, fit.as_of) == (5, "USD", datetime.date(2026, 1, 8))
    # market quotes that do not say how old the cards were are shown, not fitted
    assert {o.slug for o, _ in fit.left_out} == {
        "h100-sxm5-runlocalai-used",
        "h100-compute-forecast-used",
    }
    assert all(reason == "its age is not stated" for _, reason in fit.left_out)


@pytest.mark.parametrize("gpu", ["h100-sxm5", "a100-80gb-sxm4", "rtx-4090"])
def test_at_least_five_sourced_observations_ship_per_gpu(shipped, gpu):
    rows = UsedGpuPrice.objects.filter(gpu_model__slug=gpu)
    assert rows.count() >= 5
    assert all("https://" in row.source for row in rows)


def test_an_observation_in_another_currency_is_left_out_with_the_reason(shipped):
    gpu = GpuModel.objects.get(slug="rtx-4090")
    UsedGpuPrice.objects.create(
        slug="xianyu-test", gpu_model=gpu, amount=Decimal(9000), currency="CNY",
        age_years=Decimal(2), effective_date=datetime.date(2026, 6, 1), source="test",
    )  # fmt: skip
    fit = retention_fit(gpu, TODAY)
    assert ("xianyu-test", "in CNY; the fit is in USD") in [(o.slug, r) for o, r in fit.left_out]


def test_a_fit_over_an_estimated_observation_is_an_estimate(shipped):
    fit = retention_fit(GpuModel.objects.get(slug="rtx-4090"), TODAY)
    assert fit.usable and fit.estimate  # the used cards' age is assumed


def test_before_its_observations_a_gpu_has_no_fit(shipped):
    fit = retention_fit(GpuModel.objects.get(slug="h100-sxm5"), datetime.date(2025, 6, 1))
    assert not fit.usable
    assert fit.refused == "1 observation(s) with an age; a fit needs at least 3"


def test_a_new_observation_moving_too_far_waits_for_review_like_every_price(shipped):
    old = UsedGpuPrice.objects.get(slug="h100-sxm5-glri-year-1")
    new = UsedGpuPrice(
        slug=old.slug, gpu_model=old.gpu_model, amount=Decimal(12000), currency="USD",
        age_years=old.age_years, effective_date=datetime.date(2026, 12, 1), source="test",
    )  # fmt: skip
    assert services.record_price(new) == ["amount 25000.00 → 12000 (-52%)"]
    assert new.pending


def test_the_database_refuses_a_negative_age(shipped):
    gpu = GpuModel.objects.get(slug="rtx-4090")
    with pytest.raises(IntegrityError), transaction.atomic():
        UsedGpuPrice.objects.create(
            slug="bad", gpu_model=gpu, amount=Decimal(1), currency="USD",
            age_years=Decimal(-1), effective_date=TODAY, source="test",
        )  # fmt: skip


def _resolve(preset: str, day: datetime.date) -> tuple[float, dict]:
    resolution = resolve_data(
        {
            "preset": preset,
            "cloud_offering": "aws-p5-48xlarge",
            "tariff": "us-va-commercial",
            "hosting": "us-colo-wholesale",
            "benchmark": "bert-large-fp16",
            "workload": {"kind": "steady", "utilization": 0.5},
            "horizon_months": 36,
            "currency": "USD",
            "as_of": day.isoformat(),
        }
    )
    items = [p for p in resolution.provenance if p["role"] == "resale retention"]
    return resolution.scenario.build.residual_value_retention_per_year, items[0]


def test_the_resolver_uses_the_fit_with_its_observations_as_the_source(shipped):
    retention, item = _resolve("cluster-4x-hgx-h100", TODAY)
    assert retention == pytest.approx(0.677)
    assert item["model"] == "catalog.gpumodel" and item["natural_key"] == ["h100-sxm5"]
    assert "v2-pseo-ai.pages.dev" in item["source"] and not item["estimate"]
    assert "fitted from 5 used-price observation(s)" in item["note"]


def test_without_a_fit_the_resolver_keeps_the_stated_figure_as_an_estimate(shipped):
    preset = BuildPreset.objects.get(slug="multi-4x-a100-80gb")  # A100 PCIe: no observations
    retention, item = _resolve(preset.slug, TODAY)
    assert retention == pytest.approx(float(preset.residual_value_retention_per_year))
    assert item["model"] == "catalog.buildpreset" and item["estimate"] is True
    assert "no fit for a100-80gb-pcie" in item["note"]
