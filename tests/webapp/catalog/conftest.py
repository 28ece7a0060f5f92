"""Catalog test fixtures: the shipped catalog, and a tiny hand-made one with round numbers."""

import datetime
from decimal import Decimal

import pytest

from webapp.catalog.models import (
    Benchmark,
    BuildPreset,
    CloudOffering,
    CloudRate,
    FxRate,
    GpuModel,
    GpuThroughput,
    HostingOption,
    Part,
    PartPrice,
    PresetPart,
    Tariff,
    TariffPeriod,
    UsedGpuPrice,
)

D = datetime.date


@pytest.fixture
def shipped(shipped_catalog):
    """The catalog as `make run` loads it from fixtures/ (read once per session: tests/conftest)."""


@pytest.fixture
def mini(db):
    """A two-GPU box, a cloud instance, tariffs and hosting with figures easy to check by hand.

    Box ``duo``: 2 × card "gpu-x" (1 000 USD each from 2024-01-01; 800 USD from 2025-06-01),
    one CPU (2 000 CNY, 100 W load / 20 W idle), one PSU (500 CNY, 40 W / 10 W loss, 1 200 W),
    one chassis (300 CNY, 4 U, 10 W / 5 W). GPU "x": 300 W board, 30 W idle, throughput 0.5
    on "bench"; scaling efficiency 0.9. FX: 1 USD = 7 CNY from 2024-01-01, 7.5 from 2025-01-01.
    """
    bench = Benchmark.objects.create(slug="bench", name="Bench", unit="items/s")
    gpu_x = GpuModel.objects.create(
        slug="x", vendor="V", name="X", vram_gb=24, board_power_watts=300, idle_power_watts=30
    )
    gpu_ref = GpuModel.objects.create(
        slug="ref", vendor="V", name="Ref", vram_gb=80, board_power_watts=400, idle_power_watts=50
    )
    GpuThroughput.objects.create(
        gpu_model=gpu_x, benchmark=bench, relative_throughput=Decimal("0.5"), source="test"
    )
    GpuThroughput.objects.create(
        gpu_model=gpu_ref, benchmark=bench, relative_throughput=Decimal("1"), source="test"
    )
    # one observation of the reference GPU: no fit, a row for the admin to show
    UsedGpuPrice.objects.create(
        slug="ref-used", gpu_model=gpu_ref, amount=Decimal(500), currency="USD",
        age_years=Decimal(2), effective_date=D(2024, 1, 1), source="test",
    )  # fmt: skip
    card = Part.objects.create(slug="gpu-x", kind="gpu", name="Card X", gpu_model=gpu_x)
    cpu = Part.objects.create(
        slug="cpu", kind="cpu", name="CPU", idle_power_watts=20, load_power_watts=100
    )
    psu = Part.objects.create(
        slug="psu",
        kind="psu",
        name="PSU",
        idle_power_watts=10,
        load_power_watts=40,
        rated_watts=1200,
        efficiency_grade="gold",
    )
    case = Part.objects.create(
        slug="case", kind="chassis", name="Case", idle_power_watts=5, load_power_watts=10,
        rack_units=4,
    )  # fmt: skip
    for part, amount, currency, day in [
        (card, "1000", "USD", D(2024, 1, 1)),
        (card, "800", "USD", D(2025, 6, 1)),
        (cpu, "2000", "CNY", D(2024, 1, 1)),
        (psu, "500", "CNY", D(2024, 1, 1)),
        (case, "300", "CNY", D(2024, 1, 1)),
    ]:
        PartPrice.objects.create(
            part=part, amount=Decimal(amount), currency=currency, effective_date=day, source="test"
        )
    FxRate.objects.create(
        base_currency="USD", quote_currency="CNY", rate=Decimal(7), effective_date=D(2024, 1, 1),
        source="test",
    )  # fmt: skip
    FxRate.objects.create(
        base_currency="USD", quote_currency="CNY", rate=Decimal("7.5"),
        effective_date=D(2025, 1, 1), source="test",
    )  # fmt: skip
    preset = BuildPreset.objects.create(
        slug="duo",
        name="Duo",
        tier="multi",
        gpu_model=gpu_x,
        gpu_count=2,
        scaling_efficiency=Decimal("0.9"),
        maintenance_rate_per_year=Decimal("0.05"),
        residual_value_retention_per_year=Decimal("0.6"),
        ops_monthly=Decimal("100"),
        ops_currency="CNY",
    )
    for part, quantity in [(card, 2), (cpu, 1), (psu, 1), (case, 1)]:
        PresetPart.objects.create(preset=preset, part=part, quantity=quantity)
    single = CloudOffering.objects.create(
        slug="cloud-1", provider="P", instance_type="one", region="r", gpu_model=gpu_ref,
        gpu_count=1, pricing_mode="on-demand",
    )  # fmt: skip
    CloudRate.objects.create(
        offering=single, hourly_rate=Decimal("2"), currency="USD", effective_date=D(2024, 1, 1),
        source="test",
    )  # fmt: skip
    eight = CloudOffering.objects.create(
        slug="cloud-8", provider="Q", instance_type="eight", region="r", gpu_model=gpu_ref,
        gpu_count=8, pricing_mode="spot", scaling_efficiency=Decimal("0.9"),
    )  # fmt: skip
    CloudRate.objects.create(
        offering=eight, hourly_rate=Decimal("80"), currency="CNY", effective_date=D(2024, 1, 1),
        source="test",
    )  # fmt: skip
    Tariff.objects.create(
        slug="flat", name="Flat", region="r", country="CN", price_per_kwh=Decimal("0.6"),
        currency="CNY", effective_date=D(2024, 1, 1), source="test",
    )  # fmt: skip
    tou = Tariff.objects.create(
        slug="tou", name="ToU", region="r", country="CN", kind="tou", currency="CNY",
        effective_date=D(2024, 1, 1), source="test",
    )  # fmt: skip
    TariffPeriod.objects.create(
        tariff=tou, name="peak", hours_per_day=Decimal(6), price_per_kwh=Decimal("1.2")
    )
    TariffPeriod.objects.create(
        tariff=tou, name="valley", hours_per_day=Decimal(18), price_per_kwh=Decimal("0.3")
    )
    HostingOption.objects.create(
        slug="desk", name="Desk", kind="office", region="r", currency="CNY",
        effective_date=D(2024, 1, 1), source="test",
    )  # fmt: skip
    HostingOption.objects.create(
        slug="colo-metered", name="Colo metered", kind="colocation", region="r", currency="CNY",
        per_u_monthly=Decimal("50"), per_kw_monthly=Decimal("100"), pue=Decimal("1.5"),
        power_metered_separately=True, effective_date=D(2024, 1, 1), source="test",
    )  # fmt: skip
    HostingOption.objects.create(
        slug="colo-all-in", name="Colo all-in", kind="colocation", region="r", currency="USD",
        per_u_monthly=Decimal("10"), per_kw_monthly=Decimal("200"), pue=Decimal("1.4"),
        power_metered_separately=False, effective_date=D(2024, 1, 1), source="test",
    )  # fmt: skip


@pytest.fixture
def selection() -> dict:
    """A selection of the ``mini`` catalog, as decoded JSON."""
    return {
        "preset": "duo",
        "cloud_offering": "cloud-1",
        "tariff": "flat",
        "hosting": "desk",
        "benchmark": "bench",
        "workload": {"kind": "steady", "utilization": 0.5},
        "horizon_months": 24,
        "currency": "CNY",
        "as_of": "2024-06-01",
    }
