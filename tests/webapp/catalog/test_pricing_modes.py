"""Pricing modes, clusters and useful life: what the resolver hands the engine."""

import datetime
import math
import re
from decimal import Decimal

import pytest
from django.utils import translation

from costmodel import compare
from costmodel.commitment import commitment_table
from costmodel.errors import with_fields
from webapp.catalog.models import BuildPreset, CloudOffering, CloudRate, GpuModel
from webapp.catalog.resolver import resolve_data
from webapp.catalog.resolver.rules import per_gpu_throughput
from webapp.planner.sources import localized_text

D = datetime.date


def _commitment(sibling: CloudOffering | None, slug: str = "cloud-1-3y") -> CloudOffering:
    ref = GpuModel.objects.get(slug="ref")
    offering = CloudOffering.objects.create(
        slug=slug, provider="P", instance_type="one", region="r", gpu_model=ref, gpu_count=1,
        pricing_mode="commit-3y", commitment_term_months=36, on_demand_sibling=sibling,
        commitment_upfront_per_instance=Decimal("100"), commitment_upfront_currency="USD",
    )  # fmt: skip
    CloudRate.objects.create(
        offering=offering, hourly_rate=Decimal("1.2"), currency="USD",
        effective_date=D(2024, 1, 1), source="test",
    )  # fmt: skip
    return offering


def _roles(resolution) -> dict[str, dict]:
    return {item["role"]: item for item in resolution.provenance}


def test_a_commitment_resolves_to_its_terms_and_the_siblings_rate_for_overflow(mini, selection):
    _commitment(CloudOffering.objects.get(slug="cloud-1"))
    resolution = resolve_data({**selection, "cloud_offering": "cloud-1-3y"})
    rent = resolution.scenario.rent
    # 1.2 USD × 7 CNY committed; the on-demand sibling's 2 USD × 7 for overflow hours
    assert rent.committed_hourly_rate == pytest.approx(8.4, rel=1e-12)
    assert rent.hourly_rate == pytest.approx(14.0, rel=1e-12)
    assert rent.commitment_term_months == 36
    assert rent.commitment_upfront_per_instance == pytest.approx(700.0, rel=1e-12)
    overflow = _roles(resolution)["overflow rate"]
    assert overflow["natural_key"] == ["cloud-1", "2024-01-01"]
    assert "on-demand rate of the same instance" in overflow["note"]


def _rent_present_value(scenario, committed):
    return compare(with_fields(scenario, {"rent.committed_instances": committed}))["rent"][
        "present_value"
    ]


def test_the_default_commitment_is_the_count_whose_rent_costs_least(mini, selection):
    _commitment(CloudOffering.objects.get(slug="cloud-1"))
    data = {**selection, "cloud_offering": "cloud-1-3y", "discount_rate_per_year": 0.08}
    resolution = resolve_data(data)
    scenario = resolution.scenario
    chosen = scenario.rent.committed_instances
    # the rent side's present value with each count the busiest month could use, by hand
    costs = [_rent_present_value(scenario, k) for k in range(0, 3)]
    assert chosen == costs.index(min(costs))
    [defaulted] = [d for d in resolution.defaulted if d.field == "committed_instances"]
    assert defaulted.value == chosen
    # said in words, naming the cost of the chosen count and of committing nothing
    assert "cheapest" in defaulted.reason
    assert f"{costs[0]:,.0f} CNY" in defaulted.reason or chosen == 0
    assert _roles(resolution)["committed instances"]["note"] == defaulted.reason


def test_the_default_commitment_is_not_the_average_need_rounded_up(mini, selection):
    # 60 % busy on a box worth 0.9 instances: the old default, ceil(0.6 × 0.9) = 1, paid for
    # 730 committed hours to use 394; the on-demand hours cost less.
    _commitment(CloudOffering.objects.get(slug="cloud-1"))
    data = {**selection, "cloud_offering": "cloud-1-3y"}
    data["workload"] = {"kind": "steady", "utilization": 0.6}
    scenario = resolve_data(data).scenario
    assert math.ceil(0.6 * 0.9) == 1
    assert _rent_present_value(scenario, 0) < _rent_present_value(scenario, 1)
    assert scenario.rent.committed_instances == 0


def test_a_selection_sets_the_committed_instances(mini, selection):
    _commitment(CloudOffering.objects.get(slug="cloud-1"))
    data = {**selection, "cloud_offering": "cloud-1-3y", "committed_instances": 3}
    resolution = resolve_data(data)
    assert resolution.scenario.rent.committed_instances == 3
    item = _roles(resolution)["committed instances"]
    assert item["note"] == "the count given in the selection"
    with translation.override("zh-hans"):
        assert localized_text(item, "note") == "选择中给出的数量"
    assert "committed_instances" not in [d.field for d in resolution.defaulted]


def test_without_a_sibling_the_overflow_rate_is_the_committed_rate(mini, selection):
    _commitment(None)
    resolution = resolve_data({**selection, "cloud_offering": "cloud-1-3y"})
    rent = resolution.scenario.rent
    assert rent.hourly_rate == rent.committed_hourly_rate == pytest.approx(8.4, rel=1e-12)
    item = _roles(resolution)["overflow rate"]
    assert item["note"] == (
        "no on-demand sibling in the catalog: hours beyond the committed instances are billed "
        "at the committed rate"
    )
    assert item["notes"] == [{"code": "overflow_no_sibling", "params": {}}]
    with translation.override("zh-hans"):
        assert localized_text(item, "note") == (
            "目录中没有对应的按需实例：超出承诺实例的小时按承诺价计费"
        )


def test_a_sibling_without_a_rate_on_the_day_is_named_in_the_overflow_note(mini, selection):
    sibling = CloudOffering.objects.get(slug="cloud-1")
    _commitment(sibling)
    CloudRate.objects.filter(offering=sibling).update(effective_date=D(2030, 1, 1))
    resolution = resolve_data({**selection, "cloud_offering": "cloud-1-3y"})
    rent = resolution.scenario.rent
    assert rent.hourly_rate == rent.committed_hourly_rate
    item = _roles(resolution)["overflow rate"]
    note = item["note"]
    match = re.fullmatch(
        r"the on-demand sibling cloud-1 has no rate on (\d{4}-\d\d-\d\d): hours beyond the "
        r"committed instances are billed at the committed rate",
        note,
    )
    assert match, note
    with translation.override("zh-hans"):
        assert localized_text(item, "note") == (
            f"对应的按需实例 cloud-1 在 {match.group(1)} 没有价格：超出承诺实例的小时按承诺价计费"
        )


def test_a_spot_offering_passes_its_rework_fraction(mini, selection):
    CloudOffering.objects.filter(slug="cloud-8").update(
        rework_fraction=Decimal("0.15"), rework_source="test", rework_estimate=True
    )
    resolution = resolve_data({**selection, "cloud_offering": "cloud-8"})
    assert resolution.scenario.rent.rework_fraction == pytest.approx(0.15)
    assert resolution.scenario.rent.committed_instances == 0
    assert _roles(resolution)["spot rework"]["estimate"] is True


def test_an_on_demand_offering_leaves_the_version_2_rent_fields_at_their_defaults(mini, selection):
    rent = resolve_data(selection).scenario.rent
    assert (rent.rework_fraction, rent.committed_instances, rent.committed_hourly_rate) == (
        0.0,
        0,
        0.0,
    )


def test_a_presets_useful_life_becomes_the_scenarios(mini, selection):
    BuildPreset.objects.filter(slug="duo").update(useful_life_months=48)
    assert resolve_data(selection).scenario.build.useful_life_months == 48
    BuildPreset.objects.filter(slug="duo").update(useful_life_months=None)
    assert resolve_data(selection).scenario.build.useful_life_months is None


def test_multi_node_efficiency_applies_only_across_servers():
    relative, intra, multi = Decimal("1.71"), Decimal("0.94"), Decimal("0.9")
    assert per_gpu_throughput(relative, 8, 4, intra, multi) == pytest.approx(1.71 * 0.94 * 0.9)
    assert per_gpu_throughput(relative, 8, 1, intra, multi) == pytest.approx(1.71 * 0.94)
    assert per_gpu_throughput(relative, 1, 1, intra, multi) == pytest.approx(1.71)


def test_a_cluster_presets_throughput_includes_both_efficiencies(shipped):
    preset = BuildPreset.objects.get(slug="cluster-4x-hgx-h100")
    scenario = resolve_data(
        {
            "preset": preset.slug,
            "cloud_offering": "gcp-a3-highgpu-8g-on-demand",
            "tariff": "us-va-commercial",
            "hosting": "us-colo-wholesale",
            "benchmark": "resnet50-fp16",
            "workload": {"kind": "steady", "utilization": 0.9},
            "horizon_months": 36,
            "currency": "USD",
        }
    ).scenario
    assert scenario.build.gpu_count == 32
    expected = 1.71 * float(preset.scaling_efficiency) * float(preset.multi_node_scaling_efficiency)
    assert scenario.build.gpu_throughput == pytest.approx(expected, rel=1e-12)
    # the same work on 8-GPU instances: capacity ratio = 32 × 1.3852 / (8 × 1.71 × 0.94)
    ratio = (32 * scenario.build.gpu_throughput) / (
        scenario.rent.gpu_count * scenario.rent.gpu_throughput
    )
    assert ratio == pytest.approx(4 * 0.9, rel=1e-12)


H100_OFFERINGS = [
    "aws-p5-48xlarge",
    "aws-p5-48xlarge-commit-1y",
    "aws-p5-48xlarge-commit-3y",
    "aws-p5-48xlarge-spot",
    "azure-nd96isr-h100-v5",
    "azure-nd96isr-h100-v5-commit-1y",
    "azure-nd96isr-h100-v5-commit-3y",
    "gcp-a3-highgpu-1g-commit-1y",
    "gcp-a3-highgpu-1g-commit-3y",
    "gcp-a3-highgpu-1g-on-demand",
    "gcp-a3-highgpu-1g-spot",
    "gcp-a3-highgpu-8g-commit-1y",
    "gcp-a3-highgpu-8g-commit-3y",
    "gcp-a3-highgpu-8g-on-demand",
    "gcp-a3-highgpu-8g-spot",
    "google-cloud-a3-megagpu-8g-us-east4",
    "google-cloud-a3-megagpu-8g-us-east4-commit-1y",
    "google-cloud-a3-megagpu-8g-us-east4-commit-3y",
    "google-cloud-a3-megagpu-8g-us-east4-spot",
    "lambda-1x-h100-sxm5",
    "lambda-8x-h100-sxm5",
]


def test_the_shipped_catalog_has_h100_offerings_in_every_pricing_mode(shipped):
    h100 = CloudOffering.objects.filter(gpu_model__slug="h100-sxm5")
    assert sorted(h100.values_list("slug", flat=True)) == H100_OFFERINGS
    assert set(h100.values_list("pricing_mode", flat=True)) == {
        "on-demand",
        "spot",
        "commit-1y",
        "commit-3y",
    }
    for offering in h100.exclude(pricing_mode__in=["on-demand", "spot"]):
        assert offering.on_demand_sibling.pricing_mode == "on-demand"


# Every pair resolved (the resolver's queries, which its own tests run on both databases,
# repeated for each pair) and handed to the engine: once, in the SQLite pass.
@pytest.mark.reads_only
@pytest.mark.parametrize("offering", H100_OFFERINGS)
def test_every_cluster_preset_against_every_h100_offering_is_a_scenario_compare_accepts(
    shipped, offering
):
    clusters = BuildPreset.objects.filter(tier="cluster").order_by("slug")
    assert clusters.count() >= 3
    for preset in clusters:
        for currency in ("USD", "CNY"):
            resolution = resolve_data(
                {
                    "preset": preset.slug,
                    "cloud_offering": offering,
                    "tariff": "us-va-commercial",
                    "hosting": "us-colo-wholesale",
                    "benchmark": "bert-large-fp16",
                    "workload": {"kind": "steady", "utilization": 0.5},
                    "horizon_months": 60,
                    "currency": currency,
                }
            )
            scenario = resolution.scenario
            assert scenario.build.useful_life_months == 60
            result = compare(scenario)
            assert len(result["months"]) == 61
            if "commit" in offering:
                best = commitment_table(scenario)["best_committed_instances"]
                assert scenario.rent.committed_instances == best
                assert scenario.rent.hourly_rate > scenario.rent.committed_hourly_rate
            if offering.endswith("spot"):
                assert scenario.rent.rework_fraction == pytest.approx(0.15)


def test_a_3_year_a100_commitment_at_30_percent_bills_every_committed_hour(shipped):
    # Issue "Engine v2": billed like on-demand (busy hours only) this comparison
    # showed 8 618 USD over 36 months; the bill is every hour of the term.
    resolution = resolve_data(
        {
            "preset": "entry-rtx4090",
            "cloud_offering": "gcp-a2-highgpu-1g-commit-3y",
            "committed_instances": 1,
            "tariff": "us-va-commercial",
            "hosting": "office-deskside",
            "benchmark": "resnet50-fp16",
            "workload": {"kind": "steady", "utilization": 0.3},
            "horizon_months": 36,
            "currency": "USD",
            "as_of": "2026-06-01",  # rows never change: that day's rate stays 1.286
        }
    )
    rent = resolution.scenario.rent
    assert rent.committed_instances == 1
    assert rent.committed_hourly_rate == pytest.approx(1.286)  # GCP's 3-year rate
    assert rent.commitment_term_months == 36
    result = compare(resolution.scenario)
    # 730 committed hours × 1.286 USD, every month, used or not: 33 796.08 USD
    assert result["rent"]["committed"][1:] == pytest.approx([730 * 1.286] * 36)
    assert result["rent"]["compute"] == [0.0] * 37  # 30 % of a box never overflows
    assert result["rent"]["total"] == pytest.approx(33_796.08)


def test_a_3_year_commitment_over_2_years_owes_the_third_year_at_the_horizon(shipped):
    data = {
        "preset": "entry-rtx4090",
        "cloud_offering": "gcp-a2-highgpu-1g-commit-3y",
        "committed_instances": 1,
        "tariff": "us-va-commercial",
        "hosting": "office-deskside",
        "benchmark": "resnet50-fp16",
        "workload": {"kind": "steady", "utilization": 0.3},
        "horizon_months": 24,
        "currency": "USD",
        "as_of": "2026-06-01",  # rows never change: that day's rate stays 1.286
    }
    result = compare(resolve_data(data).scenario)
    monthly = 730 * 1.286
    assert result["rent"]["committed"][24] == pytest.approx(monthly + 12 * monthly)
    assert result["rent"]["total"] == pytest.approx(36 * monthly)
