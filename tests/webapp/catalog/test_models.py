"""Catalog models: database constraints, natural keys, price history by date."""

import datetime
from decimal import Decimal

import pytest
from django.apps import apps
from django.db import IntegrityError, connection, models, transaction

from webapp.catalog.models import (
    BuildPreset,
    CloudOffering,
    CloudRate,
    FxRate,
    GpuModel,
    HostingOption,
    Part,
    PartPrice,
    PresetPart,
    Tariff,
)

D = datetime.date


def named_constraint(name: str) -> tuple[type[models.Model], models.BaseConstraint]:
    for model in apps.get_app_config("catalog").get_models():
        for constraint in model._meta.constraints:
            if constraint.name == name:
                return model, constraint
    raise AssertionError(f"no catalog constraint named {name!r}")


def violates(name: str, fn) -> None:
    """``fn`` fails on the database constraint called ``name``, not on any other.

    PostgreSQL names the violated constraint in its message, and so does SQLite
    for a CHECK constraint; for a unique one SQLite names the index's columns
    instead, so those must be exactly the named constraint's.
    """
    model, constraint = named_constraint(name)
    with pytest.raises(IntegrityError) as info, transaction.atomic():
        fn()
    message = str(info.value)
    if connection.vendor == "sqlite" and isinstance(constraint, models.UniqueConstraint):
        columns = [
            f"{model._meta.db_table}.{model._meta.get_field(f).column}" for f in constraint.fields
        ]
        assert message == "UNIQUE constraint failed: " + ", ".join(columns)
    else:
        assert name in message, message


def test_it_rejects_a_negative_part_price(mini):
    part = Part.objects.get(slug="cpu")
    violates(
        "partprice_amount_ge_0",
        lambda: PartPrice.objects.create(
            part=part, amount=Decimal(-1), currency="CNY", effective_date=D(2025, 1, 1)
        ),
    )


def test_it_rejects_a_negative_cloud_rate(mini):
    offering = CloudOffering.objects.get(slug="cloud-1")
    violates(
        "cloudrate_hourly_rate_ge_0",
        lambda: CloudRate.objects.create(
            offering=offering, hourly_rate=Decimal(-1), currency="USD", effective_date=D(2025, 1, 1)
        ),
    )


def test_it_rejects_an_unknown_currency(mini):
    part = Part.objects.get(slug="cpu")
    violates(
        "partprice_currency_known",
        lambda: PartPrice.objects.create(
            part=part, amount=Decimal(1), currency="EUR", effective_date=D(2025, 1, 1)
        ),
    )


def test_it_rejects_idle_power_above_load_power(db):
    violates(
        "part_idle_le_load_power",
        lambda: Part.objects.create(
            slug="hot", kind="cpu", name="Hot", idle_power_watts=200, load_power_watts=100
        ),
    )
    violates(
        "gpumodel_idle_le_board_power",
        lambda: GpuModel.objects.create(
            slug="g", vendor="v", name="g", vram_gb=8, board_power_watts=100, idle_power_watts=150
        ),
    )


def test_it_rejects_a_gpu_card_without_a_gpu_model(db):
    violates(
        "part_gpu_model_iff_gpu",
        lambda: Part.objects.create(slug="card", kind="gpu", name="Card"),
    )


def test_it_rejects_a_gpu_card_with_its_own_power_draw(mini):
    gpu = GpuModel.objects.get(slug="x")
    violates(
        "part_gpu_power_from_gpu_model",
        lambda: Part.objects.create(
            slug="card2", kind="gpu", name="Card", gpu_model=gpu, load_power_watts=300
        ),
    )


def test_it_rejects_a_power_supply_without_rating(db):
    violates(
        "part_psu_rated_and_graded",
        lambda: Part.objects.create(slug="psu2", kind="psu", name="PSU", efficiency_grade="gold"),
    )


def test_it_rejects_a_preset_with_zero_gpus_or_a_part_quantity_of_zero(mini):
    preset = BuildPreset.objects.get(slug="duo")
    violates(
        "preset_gpu_count_ge_1",
        lambda: BuildPreset.objects.filter(pk=preset.pk).update(gpu_count=0),
    )
    violates(
        "presetpart_quantity_ge_1",
        lambda: PresetPart.objects.filter(preset=preset).update(quantity=0),
    )


def test_it_rejects_scaling_efficiency_outside_zero_to_one(mini):
    violates(
        "preset_scaling_efficiency_in_0_1",
        lambda: BuildPreset.objects.filter(slug="duo").update(scaling_efficiency=Decimal("1.2")),
    )
    violates(
        "offering_single_gpu_scales_perfectly",
        lambda: CloudOffering.objects.filter(slug="cloud-1").update(
            scaling_efficiency=Decimal("0.5")
        ),
    )


def test_it_rejects_an_offering_with_zero_gpus(mini):
    violates(
        "offering_gpu_count_ge_1",
        lambda: CloudOffering.objects.filter(slug="cloud-8").update(gpu_count=0),
    )


def test_it_rejects_a_fee_for_office_hosting_and_a_pue_below_one(mini):
    violates(
        "hosting_office_has_no_fee",
        lambda: HostingOption.objects.filter(slug="desk").update(per_u_monthly=Decimal(10)),
    )
    violates(
        "hosting_pue_between_1_and_3",
        lambda: HostingOption.objects.filter(slug="desk").update(pue=Decimal("0.9")),
    )


def test_it_rejects_a_flat_tariff_without_a_price(mini):
    violates(
        "tariff_flat_has_price",
        lambda: Tariff.objects.filter(slug="flat").update(price_per_kwh=None),
    )


def test_it_rejects_an_fx_rate_between_one_currency_and_itself(db):
    violates(
        "fxrate_distinct_currencies",
        lambda: FxRate.objects.create(
            base_currency="USD", quote_currency="USD", rate=1, effective_date=D(2025, 1, 1)
        ),
    )


def test_it_keeps_one_price_per_part_and_date(mini):
    part = Part.objects.get(slug="cpu")
    violates(
        "partprice_one_per_date_and_revision",
        lambda: PartPrice.objects.create(
            part=part, amount=Decimal(1), currency="CNY", effective_date=D(2024, 1, 1)
        ),
    )


def test_the_price_on_a_date_is_the_latest_point_effective_then(mini):
    card = Part.objects.get(slug="gpu-x")
    prices = card.prices

    assert prices.effective_on(D(2023, 12, 31)).first() is None
    assert prices.effective_on(D(2024, 1, 1)).first().amount == 1000
    assert prices.effective_on(D(2025, 5, 31)).first().amount == 1000
    assert prices.effective_on(D(2025, 6, 1)).first().amount == 800
    assert prices.effective_on(D(2030, 1, 1)).first().amount == 800
    assert prices.count() == 2  # the old price is still there


def test_natural_keys_find_the_same_rows(mini):
    for model in (Part, PartPrice, CloudRate, FxRate, PresetPart, BuildPreset, Tariff):
        for row in model._default_manager.all():
            assert model._default_manager.get_by_natural_key(*row.natural_key()) == row


def test_a_price_is_stale_after_180_days():
    today = datetime.date.today()
    assert PartPrice(effective_date=today - datetime.timedelta(days=181)).is_stale
    assert not PartPrice(effective_date=today - datetime.timedelta(days=180)).is_stale


def test_an_fx_rate_converts_from_either_currency_of_its_pair():
    row = FxRate(base_currency="USD", quote_currency="CNY", rate=Decimal("8"))
    assert row.multiplier("USD") == Decimal("8")  # 1 USD = 8 CNY
    assert row.multiplier("CNY") == Decimal("0.125")  # 1 CNY = 1/8 USD
