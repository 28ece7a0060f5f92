"""catalog_check's warnings, the Chinese names and the round trip of the new fields."""

import datetime
import io
from decimal import Decimal

from django.core.management import call_command
from django.utils import translation

from webapp.catalog import check_queries
from webapp.catalog.checks import (
    catalog_warnings,
    check_catalog,
    commitment_rate_warnings,
    estimate_price_rows,
    superseded_estimate_rows,
)
from webapp.catalog.fixtures_io import export_catalog, load_catalog
from webapp.catalog.models import (
    Benchmark,
    BuildPreset,
    CloudOffering,
    CloudRate,
    GpuModel,
    HostingOption,
    Part,
    PartPrice,
    PresetPart,
    Tariff,
)

AS_OF = datetime.date(2024, 6, 1)


def _name_everything() -> None:
    for model in (Benchmark, GpuModel, Part, BuildPreset, Tariff, HostingOption, CloudOffering):
        model.objects.update(name_zh="中文")


def test_the_mini_catalog_warns_about_every_row_without_a_chinese_name(mini):
    warnings = catalog_warnings(AS_OF)
    assert "catalog.benchmark bench: no Chinese name (the English name is shown)" in warnings
    assert "catalog.cloudoffering cloud-8: no Chinese name (the English name is shown)" in warnings
    _name_everything()
    assert not [w for w in catalog_warnings(AS_OF) if "Chinese name" in w]


def test_it_warns_about_chinese_offering_names_copied_from_identifiers_or_english(mini):
    _name_everything()
    CloudOffering.objects.filter(slug="cloud-1").update(name_zh="Lambda gpu_1x_h100_sxm5（按需）")
    CloudOffering.objects.filter(slug="cloud-8").update(name_zh="vast.ai A100 (marketplace)")
    assert [w for w in catalog_warnings(AS_OF) if "machine-made" in w] == [
        "catalog.cloudoffering cloud-1: the Chinese name 'Lambda gpu_1x_h100_sxm5（按需）' reads "
        "machine-made; name the provider, GPUs and pricing mode in Chinese",
        "catalog.cloudoffering cloud-8: the Chinese name 'vast.ai A100 (marketplace)' reads "
        "machine-made; name the provider, GPUs and pricing mode in Chinese",
    ]


def test_every_shipped_offering_has_a_natural_chinese_name(shipped):
    assert [w for w in catalog_warnings() if "Chinese name" in w] == []


def test_it_warns_about_spot_without_rework_commitments_without_sibling_and_no_life(mini):
    ref = GpuModel.objects.get(slug="ref")
    CloudOffering.objects.create(
        slug="c1y", provider="P", instance_type="one", region="r", gpu_model=ref, gpu_count=1,
        pricing_mode="commit-1y", commitment_term_months=12,
    )  # fmt: skip
    warnings = catalog_warnings(AS_OF)
    assert "catalog.cloudoffering cloud-8: spot offering without a rework fraction (0 is used)" in (
        warnings
    )
    assert any(w.startswith("catalog.cloudoffering c1y: commitment without") for w in warnings)
    assert "catalog.buildpreset duo: preset without a useful life" in warnings


def test_it_warns_about_prices_older_than_twelve_months(mini):
    warnings = catalog_warnings(datetime.date(2026, 6, 1))
    assert (
        "catalog.partprice gpu-x/2025-06-01: newest price is from 2025-06-01, "
        "more than 12 months ago" in warnings
    )
    assert not [w for w in catalog_warnings(datetime.date(2026, 5, 31)) if "gpu-x/" in w]
    # only the newest point of an item counts: the 2024 price of gpu-x is history
    assert not [w for w in catalog_warnings(datetime.date(2026, 6, 1)) if "gpu-x/2024" in w]


def test_a_wrong_sibling_is_a_problem(mini):
    ref = GpuModel.objects.get(slug="ref")
    CloudOffering.objects.create(
        slug="c3y", provider="P", instance_type="one", region="r", gpu_model=ref, gpu_count=1,
        pricing_mode="commit-3y", commitment_term_months=36,
        on_demand_sibling=CloudOffering.objects.get(slug="cloud-8"),
    )  # fmt: skip
    CloudRate.objects.create(
        offering=CloudOffering.objects.get(slug="c3y"), hourly_rate=Decimal(1), currency="USD",
        effective_date=datetime.date(2024, 1, 1), source="test",
    )  # fmt: skip
    assert any(p.startswith("catalog.cloudoffering c3y: on-demand sibling cloud-8") for p in (
        check_catalog(AS_OF)
    ))  # fmt: skip


def _commitment_of_cloud_1(rate: str, day: datetime.date) -> None:
    offering = CloudOffering.objects.create(
        slug="cloud-1-1y", provider="P", instance_type="one", region="r",
        gpu_model=GpuModel.objects.get(slug="ref"), gpu_count=1, pricing_mode="commit-1y",
        commitment_term_months=12, on_demand_sibling=CloudOffering.objects.get(slug="cloud-1"),
        name_zh="P 单卡 1 年期承诺",
    )  # fmt: skip
    CloudRate.objects.create(
        offering=offering, hourly_rate=Decimal(rate), currency="USD", effective_date=day,
        source="https://example.com/commitments",
    )  # fmt: skip


def _commitment_warnings(as_of: datetime.date) -> list[str]:
    return [w for w in catalog_warnings(as_of) if w.startswith("catalog.cloudoffering cloud-1-1y")]


def test_it_warns_about_a_commitment_that_costs_no_less_than_its_on_demand_sibling(mini):
    # cloud-1 is on demand at 2 USD/h; a 1-year commitment at 2.10 is no discount: a typo
    _commitment_of_cloud_1("2.10", datetime.date(2024, 1, 1))
    assert _commitment_warnings(AS_OF) == [
        "catalog.cloudoffering cloud-1-1y: committed rate 2.1000 USD is not below the on-demand "
        "rate 2.0000 USD of its sibling cloud-1"
    ]


def test_it_warns_when_the_on_demand_rate_moved_after_the_commitment_rate(mini):
    _commitment_of_cloud_1("1.30", datetime.date(2024, 1, 1))
    assert _commitment_warnings(AS_OF) == []
    # the provider cuts its on-demand list by a third; the committed rate of January is stale
    CloudRate.objects.create(
        offering=CloudOffering.objects.get(slug="cloud-1"), hourly_rate=Decimal("1.34"),
        currency="USD", effective_date=datetime.date(2024, 3, 1), source="https://example.com/od",
    )  # fmt: skip
    assert _commitment_warnings(datetime.date(2024, 2, 1)) == []
    assert _commitment_warnings(AS_OF) == [
        "catalog.cloudoffering cloud-1-1y: rate of 2024-01-01, but its sibling cloud-1 has moved "
        "from 2.0000 to 1.3400 USD since (from 2024-03-01); record the commitment's current rate"
    ]
    # a new committed rate after the cut settles it
    CloudRate.objects.create(
        offering=CloudOffering.objects.get(slug="cloud-1-1y"), hourly_rate=Decimal("0.87"),
        currency="USD", effective_date=datetime.date(2024, 3, 1), source="https://example.com/c",
    )  # fmt: skip
    assert _commitment_warnings(AS_OF) == []


def test_an_on_demand_rate_recorded_again_with_more_decimals_is_not_a_move(mini):
    _commitment_of_cloud_1("1.30", datetime.date(2024, 1, 1))
    CloudRate.objects.create(
        offering=CloudOffering.objects.get(slug="cloud-1"), hourly_rate=Decimal("1.9976"),
        currency="USD", effective_date=datetime.date(2024, 3, 1), source="https://example.com/od",
    )  # fmt: skip
    assert _commitment_warnings(AS_OF) == []


def test_no_shipped_commitment_is_suspect_against_its_on_demand_sibling(shipped):
    assert commitment_rate_warnings(datetime.date(2026, 12, 4)) == []


def test_a_gpu_server_counts_its_gpus_and_its_built_in_supplies(mini):
    node = Part.objects.create(
        slug="node", kind="node", name="Node", gpu_model=GpuModel.objects.get(slug="x"),
        gpu_count=2, load_power_watts=300, idle_power_watts=100, rated_watts=1000,
        efficiency_grade="titanium", rack_units=2,
    )  # fmt: skip
    PartPrice.objects.create(
        part=node, amount=Decimal(5000), currency="USD",
        effective_date=datetime.date(2024, 1, 1), source="test",
    )  # fmt: skip
    preset = BuildPreset.objects.get(slug="duo")
    PresetPart.objects.filter(preset=preset).delete()
    PresetPart.objects.create(preset=preset, part=node, quantity=1)
    # peak 2 × 300 + 300 = 900 W; 1.3 × 900 = 1 170 W > 1 000 W rated
    assert any("power supplies give 1000 W (titanium)" in p for p in check_catalog(AS_OF))
    Part.objects.filter(slug="node").update(rated_watts=1200)
    assert check_catalog(AS_OF) == []


def test_the_shipped_catalog_has_no_problems_and_names_every_row_in_chinese(shipped):
    assert check_catalog() == []
    assert not [w for w in catalog_warnings() if "Chinese name" in w or "without" in w]


def test_every_shipped_estimate_says_why(shipped):
    estimates = estimate_price_rows()
    assert estimates
    assert all(line.split(": ", 1)[1].strip() for line in estimates)


def test_localized_names_fall_back_to_english(shipped):
    preset = BuildPreset.objects.get(slug="cluster-4x-hgx-h100")
    gpu = GpuModel.objects.get(slug="h100-sxm5")
    with translation.override("zh-hans"):
        assert preset.localized_name() == preset.name_zh
        assert gpu.localized_name() == "NVIDIA H100 80GB SXM5"
    with translation.override("en"):
        assert preset.localized_name() == preset.name
    BuildPreset.objects.filter(pk=preset.pk).update(name_zh="")
    preset.refresh_from_db()
    assert preset.localized_name("zh-hans") == preset.name


def test_the_new_fields_round_trip_through_export_and_load(shipped, tmp_path, django_db_blocker):
    BuildPreset.objects.filter(slug="cluster-2x-hgx-h100").update(
        name_zh="改过的名字", useful_life_months=48, multi_node_scaling_efficiency=Decimal("0.8")
    )
    CloudOffering.objects.filter(slug="gcp-a3-highgpu-8g-spot").update(
        rework_fraction=Decimal("0.2")
    )
    export_catalog(tmp_path)
    # Loading never changes a stored row: the exported rows come back into a database
    # that lacks them.
    BuildPreset.objects.filter(slug="cluster-2x-hgx-h100").delete()
    CloudOffering.objects.filter(slug="gcp-a3-highgpu-8g-spot").delete()
    load_catalog(tmp_path)
    preset = BuildPreset.objects.get(slug="cluster-2x-hgx-h100")
    assert (preset.name_zh, preset.useful_life_months, preset.multi_node_scaling_efficiency) == (
        "改过的名字",
        48,
        Decimal("0.800"),
    )
    spot = CloudOffering.objects.get(slug="gcp-a3-highgpu-8g-spot")
    assert spot.rework_fraction == Decimal("0.200")
    assert CloudOffering.objects.get(slug="gcp-a3-highgpu-8g-commit-1y").on_demand_sibling.slug == (
        "gcp-a3-highgpu-8g-on-demand"
    )


def test_it_warns_about_a_region_default_the_catalog_does_not_hold(shipped):
    assert not [w for w in catalog_warnings() if w.startswith("resolver default")]
    Tariff.objects.filter(slug="us-va-commercial").delete()
    assert [w for w in catalog_warnings() if w.startswith("resolver default")] == [
        "resolver default tariff for USD: no row 'us-va-commercial' in effect "
        "(a plan in this currency that leaves it out cannot be resolved)"
    ]


def test_an_estimate_replaced_by_a_sourced_price_is_history_not_a_current_estimate(mini):
    cpu = Part.objects.get(slug="cpu")
    PartPrice.objects.create(
        part=cpu, amount=Decimal(2100), currency="CNY", effective_date=datetime.date(2024, 3, 1),
        estimate=True, note="Estimate: no listing found.",
    )  # fmt: skip
    listed = "catalog.partprice cpu/2024-03-01: Estimate: no listing found."
    assert estimate_price_rows() == [listed]
    assert superseded_estimate_rows() == 0
    PartPrice.objects.create(
        part=cpu, amount=Decimal(2200), currency="CNY", effective_date=datetime.date(2024, 5, 1),
        source="https://example.com/listing",
    )  # fmt: skip
    assert estimate_price_rows() == []
    assert superseded_estimate_rows() == 1
    assert PartPrice.objects.filter(part=cpu, estimate=True).count() == 1


def test_a_hosting_option_estimate_replaced_by_a_newer_version_is_history(mini):
    """A hosting option (or tariff) is its newest version: the estimate it replaced no
    longer counts as one the catalog uses, even when the new version is an estimate too."""
    fields = {
        "slug": "colo-all-in", "name": "Colo all-in", "kind": "colocation", "region": "r",
        "currency": "USD", "pue": Decimal("1.4"), "power_metered_separately": False,
    }  # fmt: skip
    HostingOption.objects.create(
        **fields, per_u_monthly=Decimal("10"), per_kw_monthly=Decimal("150"),
        effective_date=datetime.date(2024, 3, 1), estimate=True, note="Estimate: a guess.",
    )  # fmt: skip
    assert estimate_price_rows() == [
        "catalog.hostingoption colo-all-in/2024-03-01: Estimate: a guess."
    ]
    assert superseded_estimate_rows() == 0
    HostingOption.objects.create(
        **fields, per_u_monthly=Decimal("0"), per_kw_monthly=Decimal("120"),
        effective_date=datetime.date(2024, 5, 1), estimate=True, source="https://example.com/tender",
        note="Estimate: a tender ceiling.",
    )  # fmt: skip
    assert estimate_price_rows() == [
        "catalog.hostingoption colo-all-in/2024-05-01: Estimate: a tender ceiling."
    ]
    assert superseded_estimate_rows() == 1
    assert HostingOption.objects.filter(slug="colo-all-in", estimate=True).count() == 2


def test_catalog_check_lists_current_estimates_and_counts_the_replaced_ones(mini):
    cloud = CloudOffering.objects.get(slug="cloud-1")
    for day, estimate in ((datetime.date(2024, 2, 1), True), (datetime.date(2024, 4, 1), False)):
        CloudRate.objects.create(
            offering=cloud, hourly_rate=Decimal("2.5"), currency="USD", effective_date=day,
            estimate=estimate, source="" if estimate else "https://example.com/rates",
            note="Estimate: an index's cheapest listing." if estimate else "",
        )  # fmt: skip
    out = io.StringIO()
    call_command("catalog_check", "--estimates", "--as-of", "2024-06-01", stdout=out)
    lines = out.getvalue().splitlines()
    assert "0 price row(s) flagged as estimates" in lines
    assert "1 older estimate row(s) replaced by a later price (kept as history)" in lines


def test_the_shipped_catalog_keeps_few_estimates_and_most_prices_on_a_url(shipped):
    # December 2026: rows an audit found more than 10 % off their best public source are
    # flagged as estimates (with the reason) until re-read, rather than left unmarked
    assert len(estimate_price_rows()) <= 25
    rows = [row for rows in check_queries.dated_price_rows().values() for row in rows]
    with_url = [row for row in rows if "https://" in row.source or "http://" in row.source]
    assert len(with_url) >= 0.8 * len(rows)
