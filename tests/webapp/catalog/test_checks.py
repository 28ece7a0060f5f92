"""catalog_check's logic: the shipped catalog passes; each kind of problem is reported."""

import datetime
from decimal import Decimal

from webapp.catalog.checks import check_catalog
from webapp.catalog.models import (
    BuildPreset,
    CloudOffering,
    GpuModel,
    Part,
    PartPrice,
    PresetPart,
    TariffPeriod,
)

AS_OF = datetime.date(2024, 6, 1)


def test_the_shipped_catalog_has_no_problems(shipped):
    assert check_catalog() == []


def test_the_mini_catalog_has_no_problems(mini):
    assert check_catalog(AS_OF) == []


def test_it_reports_a_price_without_source_that_is_not_an_estimate(mini):
    PartPrice.objects.filter(part__slug="cpu").update(source="")
    assert check_catalog(AS_OF) == [
        "catalog.partprice cpu/2024-01-01: no source (give one, or mark the figure an estimate)"
    ]


def test_it_accepts_an_unsourced_estimate(mini):
    PartPrice.objects.filter(part__slug="cpu").update(source="", estimate=True)
    assert check_catalog(AS_OF) == []


def test_it_reports_orphan_rows(mini):
    Part.objects.create(slug="lonely", kind="network", name="NIC")
    CloudOffering.objects.create(
        slug="no-rate",
        provider="P",
        instance_type="t",
        region="r",
        gpu_model=GpuModel.objects.get(slug="ref"),
        gpu_count=1,
        pricing_mode="spot",
    )
    TariffPeriod.objects.filter(name="valley").update(hours_per_day=Decimal(10))
    problems = check_catalog(AS_OF)
    assert "catalog.part lonely: has no price" in problems
    assert "catalog.cloudoffering no-rate: has no hourly rate" in problems
    assert "catalog.tariff tou/2024-01-01: time-of-use periods cover 16.00 h, not 24 h" in problems


def test_it_reports_a_preset_whose_cards_do_not_match_its_gpu_count(mini):
    PresetPart.objects.filter(preset__slug="duo", part__slug="gpu-x").update(quantity=3)
    assert "catalog.buildpreset duo: lists 3 GPU cards but gpu_count is 2" in check_catalog(AS_OF)


def test_it_reports_a_power_supply_with_less_than_30_percent_headroom(mini):
    Part.objects.filter(slug="psu").update(rated_watts=800)
    # peak DC draw: 2 × 300 + 100 CPU + 10 chassis = 710 W; 1.3 × 710 = 923 W > 800 W
    assert (
        "catalog.buildpreset duo: power supplies give 800 W (gold), less than 1.3 × the "
        "710 W peak draw or below 80 Plus Gold" in check_catalog(AS_OF)
    )


def test_it_reports_a_preset_that_does_not_resolve_on_the_date(mini):
    BuildPreset.objects.get(slug="duo")
    problems = check_catalog(datetime.date(2023, 6, 1))
    assert any(
        p.startswith("resolve preset=duo") and "as_of: no price for part 'cpu' on 2023-06-01" in p
        for p in problems
    ), problems
