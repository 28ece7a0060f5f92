"""The resolver: figures checked by hand against the ``mini`` catalog and the shipped one."""

import datetime
import json
from decimal import Decimal

import pytest
from django.utils import translation
from numpy.testing import assert_allclose

from costmodel import ScenarioError, compare, parse_scenario
from costmodel.commitment import commitment_table
from webapp.catalog.models import BuildPreset, CloudOffering, GpuModel
from webapp.catalog.resolver import (
    defaults_for,
    parse_selection,
    resolve,
    resolve_build,
    resolve_data,
    resolve_rent,
)
from webapp.catalog.resolver.choose import choose
from webapp.catalog.resolver.rules import BUILD_RULES, RENT_RULES, RULES, commitment_rule
from webapp.catalog.selectors import CatalogSnapshot


def errors_of(data) -> list[str]:
    with pytest.raises(ScenarioError) as info:
        resolve_data(data)
    return [str(e) for e in info.value.errors]


def test_it_sums_parts_power_and_throughput_of_a_preset(mini, selection):
    build = resolve_data(selection).scenario.build
    # 2 × 1 000 USD × 7 + 2 000 + 500 + 300 CNY
    assert build.capex == pytest.approx(16_800)
    # 2 × 300 W board + 100 CPU + 40 PSU loss + 10 chassis; idle 2 × 30 + 20 + 10 + 5
    assert build.power_load_watts == 750
    assert build.power_idle_watts == 95
    # 0.5 per GPU × 0.9 scaling efficiency
    assert build.gpu_throughput == pytest.approx(0.45)
    assert build.gpu_count == 2
    assert build.electricity_price_per_kwh == pytest.approx(0.6)
    assert build.hosting_monthly == 0
    assert build.pue == 1.0
    assert build.maintenance_rate_per_year == pytest.approx(0.05)
    assert build.residual_value_retention_per_year == pytest.approx(0.6)
    assert build.ops_monthly == pytest.approx(100)


def test_it_converts_the_cloud_rate_at_the_fx_rate_of_the_as_of_date(mini, selection):
    rent = resolve_data(selection).scenario.rent
    assert rent.hourly_rate == pytest.approx(14)  # 2 USD × 7
    assert (rent.gpu_count, rent.gpu_throughput) == (1, 1.0)
    assert (rent.fixed_monthly, rent.annual_price_change) == (0, 0)


def test_it_uses_the_prices_in_effect_on_a_later_date(mini, selection):
    scenario = resolve_data({**selection, "as_of": "2025-07-01"}).scenario
    # the card fell to 800 USD on 2025-06-01 and 1 USD = 7.5 CNY from 2025-01-01
    assert scenario.build.capex == pytest.approx(2 * 800 * 7.5 + 2_800)
    assert scenario.rent.hourly_rate == pytest.approx(15)


def test_it_uses_the_old_price_the_day_before_a_new_one(mini, selection):
    scenario = resolve_data({**selection, "as_of": "2025-05-31"}).scenario
    assert scenario.build.capex == pytest.approx(2 * 1000 * 7.5 + 2_800)


def test_it_converts_cny_amounts_into_usd_by_the_inverse_rate(mini, selection):
    scenario = resolve_data({**selection, "currency": "USD"}).scenario
    assert scenario.currency == "USD"
    assert_allclose(scenario.build.capex, 2_000 + 2_800 / 7, rtol=1e-12)
    assert_allclose(scenario.build.electricity_price_per_kwh, 0.6 / 7, rtol=1e-12)
    assert_allclose(scenario.build.ops_monthly, 100 / 7, rtol=1e-12)
    assert scenario.rent.hourly_rate == pytest.approx(2)


def test_it_averages_a_time_of_use_tariff_weighted_by_hours(mini, selection):
    build = resolve_data({**selection, "tariff": "tou"}).scenario.build
    assert build.electricity_price_per_kwh == pytest.approx((6 * 1.2 + 18 * 0.3) / 24)


def test_it_charges_colocation_per_rack_unit_and_per_kw_of_load(mini, selection):
    build = resolve_data({**selection, "hosting": "colo-metered"}).scenario.build
    assert build.hosting_monthly == pytest.approx(50 * 4 + 100 * 0.75)
    assert build.pue == 1.5
    assert build.electricity_price_per_kwh == pytest.approx(0.6)


def test_it_zeroes_the_tariff_when_the_hosting_fee_includes_power(mini, selection):
    build = resolve_data({**selection, "hosting": "colo-all-in"}).scenario.build
    assert build.hosting_monthly == pytest.approx((10 * 4 + 200 * 0.75) * 7)
    assert build.electricity_price_per_kwh == 0
    assert build.pue == 1.4


def test_it_applies_the_offerings_scaling_efficiency_to_the_rent_side(mini, selection):
    rent = resolve_data({**selection, "cloud_offering": "cloud-8"}).scenario.rent
    assert rent.gpu_count == 8
    assert rent.gpu_throughput == pytest.approx(0.9)
    assert rent.hourly_rate == pytest.approx(80)


def test_it_resolves_a_custom_parts_list_with_custom_box_defaults(mini, selection):
    custom = {k: v for k, v in selection.items() if k != "preset"}
    custom["parts"] = [
        {"part": "gpu-x", "quantity": 2},
        {"part": "cpu", "quantity": 1},
        {"part": "psu", "quantity": 1},
    ]
    custom["scaling_efficiency"] = 0.8
    build = resolve_data(custom).scenario.build
    assert build.capex == pytest.approx(14_000 + 2_000 + 500)
    assert build.power_load_watts == 600 + 100 + 40
    assert build.gpu_throughput == pytest.approx(0.4)
    assert build.maintenance_rate_per_year == pytest.approx(0.05)
    assert build.residual_value_retention_per_year == pytest.approx(0.7)
    assert build.ops_monthly == 0


def test_it_feeds_the_engine_the_same_numbers_as_a_hand_written_scenario(mini, selection):
    resolved = resolve_data(selection).scenario
    by_hand = parse_scenario(
        {
            "currency": "CNY",
            "horizon_months": 24,
            "workload": {"kind": "steady", "utilization": 0.5},
            "build": {
                "gpu_count": 2,
                "gpu_throughput": 0.45,
                "capex": 16_800,
                "power_load_watts": 750,
                "power_idle_watts": 95,
                "electricity_price_per_kwh": 0.6,
                "hosting_monthly": 0,
                "maintenance_rate_per_year": 0.05,
                "ops_monthly": 100,
                "residual_value_retention_per_year": 0.6,
            },
            "rent": {"gpu_count": 1, "gpu_throughput": 1.0, "hourly_rate": 14},
        }
    )
    got, expected = compare(resolved), compare(by_hand)
    assert_allclose(got["build"]["cumulative"], expected["build"]["cumulative"], rtol=1e-12)
    assert_allclose(got["rent"]["cumulative"], expected["rent"]["cumulative"], rtol=1e-12)


def test_its_provenance_names_every_row_and_the_fx_rate(mini, selection):
    resolution = resolve_data(selection)
    provenance = resolution.provenance
    parts = {tuple(p["natural_key"]) for p in provenance if p["role"] == "part"}
    assert parts == {
        ("gpu-x", "2024-01-01"),
        ("cpu", "2024-01-01"),
        ("psu", "2024-01-01"),
        ("case", "2024-01-01"),
    }
    card = next(p for p in provenance if p["natural_key"] == ["gpu-x", "2024-01-01"])
    assert card["amount"] == "1000"
    assert card["currency"] == "USD"
    assert card["fx_rate"] == "7"
    assert card["converted_amount"] == "7000"
    assert card["quantity"] == 2
    assert "build.capex" in card["fields"]
    fx = [p for p in provenance if p["role"] == "fx"]
    assert [p["natural_key"] for p in fx] == [["USD", "CNY", "2024-01-01"]]
    rate = next(p for p in provenance if p["role"] == "cloud rate")
    assert rate["fields"] == ["rent.hourly_rate"]
    assert json.loads(json.dumps(resolution.as_dict()))["provenance"] == provenance


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"preset": "nope"}, "preset: no build preset with slug 'nope'"),
        ({"cloud_offering": "zzz"}, "cloud_offering: no cloud offering with slug 'zzz'"),
        ({"tariff": "zzz"}, "tariff: no electricity tariff with slug 'zzz'"),
        ({"hosting": "zzz"}, "hosting: no hosting option with slug 'zzz'"),
        ({"benchmark": "zzz"}, "benchmark: no benchmark with slug 'zzz'"),
        ({"as_of": "2023-12-31"}, "as_of: no price for part 'cpu' on 2023-12-31"),
        ({"currency": "EUR"}, "currency: must be 'CNY' or 'USD'"),
        ({"horizon_months": 0}, "horizon_months: must be greater than or equal to 1"),
        ({"workload": {"kind": "steady", "utilization": 9}}, "workload.utilization:"),
        ({"parts": [{"part": "cpu", "quantity": 1}]}, "preset: give either a preset"),
        ({"colour": "red"}, "colour: is not a known field"),
    ],
)
def test_it_names_the_field_it_cannot_resolve(mini, selection, change, expected):
    assert any(e.startswith(expected) for e in errors_of({**selection, **change}))


def test_it_reports_every_unresolvable_field_at_once(mini, selection):
    errors = errors_of({**selection, "cloud_offering": "a", "tariff": "b", "hosting": "c"})
    assert [e.split(":")[0] for e in errors] == ["cloud_offering", "tariff", "hosting"]


def test_it_reports_a_missing_fx_rate(mini, selection):
    from webapp.catalog.models import FxRate

    FxRate.objects.all().delete()
    assert "as_of: no FX rate USD→CNY on 2024-06-01" in errors_of(selection)


def test_it_refuses_a_tariff_not_yet_in_effect(mini, selection):
    from webapp.catalog.models import Tariff

    Tariff.objects.filter(slug="flat").update(effective_date="2024-07-01")
    assert any("tariff 'flat' is effective from 2024-07-01" in e for e in errors_of(selection))


@pytest.mark.parametrize(
    ("parts", "extra", "expected"),
    [
        ([{"part": "cpu"}], {}, "parts: must include the GPU cards"),
        ([{"part": "gpu-x", "quantity": 2}], {}, "scaling_efficiency: is required"),
        ([{"part": "gpu-x"}], {"gpu_count": 3}, "gpu_count: the parts list holds 1 GPU cards"),
        ([{"part": "gpu-x"}], {"gpu_model": "ref"}, "gpu_model: the parts list holds 'x'"),
        ([{"part": "gpu-x"}, {"part": "ghost"}], {}, "parts.1.part: no part with slug 'ghost'"),
        ([{"part": "gpu-x", "quantity": 0}], {}, "parts.0.quantity: must be greater"),
    ],
)
def test_it_checks_a_custom_parts_list(mini, selection, parts, extra, expected):
    custom = {k: v for k, v in selection.items() if k != "preset"}
    errors = errors_of({**custom, "parts": parts, **extra})
    assert any(e.startswith(expected) for e in errors), errors


def test_it_needs_a_preset_or_a_parts_list(mini, selection):
    custom = {k: v for k, v in selection.items() if k != "preset"}
    assert errors_of(custom) == ["preset: is required (or a custom box in parts)"]


def test_it_rejects_a_selection_that_is_not_an_object(db):
    assert errors_of([1, 2]) == ["(selection): must be a JSON object"]


# --- the shipped catalog ---------------------------------------------------------------------

SHIPPED = {
    "preset": "entry-rtx4090",
    "cloud_offering": "aliyun-gn7e-c16g1-4xlarge",
    "tariff": "cn-business-average",
    "hosting": "office-deskside",
    "benchmark": "resnet50-fp16",
    "workload": {"kind": "steady", "utilization": 1.0},
    "horizon_months": 36,
    "currency": "CNY",
    "as_of": "2026-12-01",
}


def test_the_shipped_entry_box_matches_the_figures_worked_by_hand(shipped):
    scenario = resolve_data(SHIPPED).scenario
    # 23 250 card (its 2026-09-21 price) + 6 500 CPU + 3 250 board + 1 500 NVMe + 2 000 PSU
    # + 1 150 case, all CNY, + the 64 GB DDR5 kit at 549.99 USD (its 2025-12-03 price) and the
    # 360 mm cooler at 84.99 USD (2025-07-23) × 6.9843 CNY/USD (the central parity of
    # 2026-01-26, the latest rate on 2026-12-01)
    assert scenario.build.capex == pytest.approx(37_650 + (549.99 + 84.99) * 6.9843)
    # 450 GPU + 230 CPU + 25 board + 15 RAM + 8 NVMe + 80 PSU loss + 10 case + 15 cooler
    assert scenario.build.power_load_watts == 833
    assert scenario.build.power_idle_watts == 20 + 30 + 15 + 8 + 3 + 12 + 5 + 8
    assert scenario.build.gpu_throughput == pytest.approx(0.85)
    # 0.09 USD/kWh × 6.9843 CNY/USD
    assert scenario.build.electricity_price_per_kwh == pytest.approx(0.09 * 6.9843)
    assert scenario.rent.hourly_rate == pytest.approx(34.742)


def test_the_shipped_dual_xeon_box_converts_its_usd_cpus(shipped):
    scenario = resolve_data({**SHIPPED, "preset": "multi-4x-rtx4090"}).scenario
    # the CPUs (3 950 USD), the 16 TB drives (284.99 USD since July 2025), the 2 050 W
    # supplies (540.99 USD) and the 32 GB RDIMMs (105 USD) are priced in USD
    usd = (2 * 3_950 + 2 * 284.99 + 2 * 540.99 + 8 * 105) * 6.9843
    rest = 4 * 23_250 + 6_000 + 1_500 + 1_500 + 12_000 + 600
    assert scenario.build.capex == pytest.approx(usd + rest)
    assert scenario.build.gpu_throughput == pytest.approx(0.85 * 0.9)


# Every pair resolved (the queries of the single resolutions above, which run on both databases,
# repeated for each pair) and handed to the engine: once, in the SQLite pass.
@pytest.mark.reads_only
def test_every_shipped_preset_against_every_a100_offering_gives_a_valid_scenario(shipped):
    presets = BuildPreset.objects.values_list("slug", flat=True)
    offerings = CloudOffering.objects.filter(gpu_model__slug__startswith="a100").values_list(
        "slug", flat=True
    )
    assert len(presets) >= 5
    assert len(offerings) >= 8
    pairs = [(p, o, "CNY") for p in presets for o in offerings]
    pairs += [(p, offerings[0], "USD") for p in presets]
    for preset, offering, currency in pairs:
        data = {**SHIPPED, "preset": preset, "cloud_offering": offering, "currency": currency}
        scenario = resolve_data(data).scenario
        again = parse_scenario(scenario.model_dump(mode="json"))
        assert again == scenario
        assert compare(again)["scenario"]["currency"] == currency


@pytest.mark.parametrize("as_of", [0, True, "1700000000", "1 March 2026", 20260301])
def test_it_takes_the_as_of_date_only_as_a_date_written_yyyy_mm_dd(as_of):
    data = {
        "preset": "entry-rtx4090",
        "cloud_offering": "any",
        "tariff": "any",
        "hosting": "any",
        "benchmark": "resnet50-fp16",
        "workload": {"kind": "steady", "utilization": 0.5},
        "horizon_months": 12,
        "currency": "CNY",
        "as_of": as_of,
    }
    with pytest.raises(ScenarioError) as caught:
        parse_selection(data)
    assert [e.field for e in caught.value.errors] == ["as_of"]
    data["as_of"] = "2026-03-01"
    assert str(parse_selection(data).as_of) == "2026-03-01"


# --- one read of the catalog ------------------------------------------------------------------


def test_resolutions_from_one_snapshot_read_the_catalog_once(
    mini, selection, django_assert_num_queries
):
    catalog = CatalogSnapshot(datetime.date(2024, 6, 1))
    first = resolve_data(selection, catalog)
    with django_assert_num_queries(0):
        again = [
            resolve_data({**selection, "cloud_offering": "cloud-8"}, catalog),
            resolve_data({**selection, "tariff": "tou", "hosting": "colo-all-in"}, catalog),
        ]
    assert again[0].scenario.rent.gpu_count == 8
    assert again[1].scenario.build.electricity_price_per_kwh == 0  # the fee includes power
    assert first.scenario == resolve_data(selection).scenario


def test_a_snapshot_of_another_day_is_not_used_for_a_selection(mini, selection):
    later = CatalogSnapshot(datetime.date(2025, 7, 1))
    scenario = resolve_data(selection, later).scenario  # the selection is as of 2024-06-01
    assert scenario.build.capex == pytest.approx(16_800)


# --- rules of one shape -----------------------------------------------------------------------


@pytest.mark.parametrize("offering", ["cloud-1", "cloud-8", "cloud-1-3y"])
def test_no_two_rules_set_the_same_field(mini, selection, offering):
    commitment = CloudOffering.objects.create(
        slug="cloud-1-3y", provider="P", instance_type="one", region="r",
        gpu_model=GpuModel.objects.get(slug="ref"), gpu_count=1, pricing_mode="commit-3y",
        commitment_term_months=36, on_demand_sibling=CloudOffering.objects.get(slug="cloud-1"),
    )  # fmt: skip
    commitment.rates.create(hourly_rate=Decimal("1.2"), currency="USD", effective_date="2024-01-01")
    chosen = parse_selection({**selection, "cloud_offering": offering})
    catalog = CatalogSnapshot(chosen.day)
    choice = choose(chosen, catalog)
    fields = [path for rule in RULES for path in rule(choice, catalog).values]
    assert len(fields) == len(set(fields))
    draft = resolve(chosen, catalog).scenario
    committed = commitment_rule(choice, catalog, draft).values
    assert not committed.keys() & set(fields)
    assert bool(committed) == (offering == "cloud-1-3y")
    # each side's rules set that side's fields only, all of them but the committed count
    for rules, side in ((BUILD_RULES, "build."), (RENT_RULES, "rent.")):
        paths = [path for rule in rules for path in rule(choice, catalog).values]
        assert paths and all(path.startswith(side) for path in paths)
    assert RULES == BUILD_RULES + RENT_RULES


# --- one side alone: the ranking's boxes and offerings ----------------------------------------


def test_one_side_alone_is_that_side_of_the_whole_resolution(shipped):
    """Every shipped preset's box and every offering's instance, resolved by their side's rules
    alone, are the resolved scenario's, but for a commitment's count: left unset (not among
    the fields set), for whoever weighs the offering against the work to choose."""
    catalog = CatalogSnapshot(datetime.date(2026, 12, 1))
    job = {"name": "run", "reference_gpu_hours": 100, "runs_per_month": 1}
    jobs = {"kind": "jobs", "jobs": [job]}
    for currency in ("CNY", "USD"):
        for preset in catalog.presets:
            data = {**SHIPPED, "preset": preset, "currency": currency, "tariff": None}
            chosen = parse_selection({**data, "hosting": None})
            assert resolve_build(chosen, catalog) == resolve(chosen, catalog).scenario.build
        for offering in catalog.offerings.values():
            if catalog.rate(offering) is None:
                continue
            data = {**SHIPPED, "cloud_offering": offering.slug, "currency": currency}
            chosen = parse_selection({**data, "workload": jobs})
            whole = resolve(chosen, catalog).scenario.rent
            alone = resolve_rent(chosen, catalog)
            assert "committed_instances" not in alone.model_fields_set
            assert alone == whole.model_copy(update={"committed_instances": 0})
            assert (whole.committed_instances > 0) <= offering.is_commitment


def test_one_side_alone_does_not_depend_on_the_work(shipped):
    """A side is priced whatever the work: a job the box or the instance cannot hold refuses the
    plan (:func:`resolve`), not the box or the offering alone (the options operation lists
    them as unable to do that work)."""
    catalog = CatalogSnapshot(datetime.date(2026, 12, 1))
    huge = {"kind": "jobs", "jobs": [{"name": "big", "reference_gpu_hours": 9, "runs_per_month": 1,
                                      "memory_gb": 10_000}]}  # fmt: skip
    chosen = parse_selection({**SHIPPED, "workload": huge})
    with pytest.raises(ScenarioError) as refused:
        resolve(chosen, catalog)
    assert [e.field for e in refused.value.errors] == ["workload.jobs.0.memory_gb"]
    assert resolve_build(chosen, catalog).gpu_memory_gb == 24
    assert resolve_rent(chosen, catalog).gpu_count >= 1


def test_one_side_alone_names_what_it_cannot_resolve_as_resolve_does(mini, selection):
    unknown = parse_selection({**selection, "preset": "nope", "cloud_offering": "gone"})
    for one_side in (resolve_build, resolve_rent):
        with pytest.raises(ScenarioError) as caught:
            one_side(unknown)
        assert {e.field for e in caught.value.errors} == {"preset", "cloud_offering"}


# --- defaults that fit the box and the currency -----------------------------------------------

CLUSTER_VS_GCP = {
    "preset": "cluster-4x-hgx-h100",
    "cloud_offering": "gcp-a3-highgpu-8g-commit-3y",
    "benchmark": "resnet50-fp16",
    "workload": {"kind": "steady", "utilization": 0.3},
    "horizon_months": 36,
    "currency": "USD",
    "as_of": "2026-12-01",
}


def _defaulted(resolution) -> dict[str, object]:
    return {item.field: item.value for item in resolution.defaulted}


def test_a_cluster_in_usd_runs_in_us_colocation_billed_per_kw_at_a_us_tariff(shipped):
    resolution = resolve_data(CLUSTER_VS_GCP)
    assert _defaulted(resolution) == {
        "tariff": "us-va-commercial",
        "hosting": "us-colo-wholesale",
        "committed_instances": 1,
    }
    build = resolution.scenario.build
    assert build.hosting_monthly == pytest.approx(194.95 * build.power_load_watts / 1000)
    assert build.pue == 1.54
    assert build.electricity_price_per_kwh == pytest.approx(0.1301)  # EIA, February 2026
    reasons = {item.field: item.reason for item in resolution.defaulted}
    assert "colocation" in reasons["hosting"] and "per kW" in reasons["hosting"]


def test_the_colocation_version_of_2024_still_prices_a_cluster_resolved_as_of_2025(shipped):
    # the year-end 2025 fee (194.95, PUE 1.54) is a new dated version: the 2024 one stays
    build = resolve_data({**CLUSTER_VS_GCP, "as_of": "2025-06-01"}).scenario.build
    assert build.hosting_monthly == pytest.approx(184 * build.power_load_watts / 1000)
    assert build.pue == 1.58


def test_with_defaults_that_fit_the_cluster_renting_wins_where_the_old_ones_said_build(shipped):
    fitting = resolve_data(CLUSTER_VS_GCP).scenario
    # what the form used to leave in: desk-side with no fee, a China tariff, ceil(1.08) = 2
    old = {"hosting": "office-deskside", "tariff": "cn-business-average", "committed_instances": 2}
    unfit = resolve_data({**CLUSTER_VS_GCP, **old}).scenario
    assert fitting.rent.committed_instances == commitment_table(fitting)["best_committed_instances"]
    assert compare(unfit)["savings"] > 0
    assert compare(fitting)["savings"] < 0


def test_the_users_choices_win_over_the_currencys_defaults(shipped):
    chosen = {"tariff": "us-ca-commercial", "hosting": "office-deskside", "committed_instances": 2}
    resolution = resolve_data({**CLUSTER_VS_GCP, **chosen})
    assert resolution.defaulted == []
    assert resolution.scenario.rent.committed_instances == 2
    assert resolution.scenario.build.hosting_monthly == 0
    assert resolution.scenario.build.electricity_price_per_kwh == pytest.approx(0.2391)


def test_a_cny_plan_defaults_to_a_chinese_tariff_hosting_and_offering(shipped):
    data = {k: v for k, v in CLUSTER_VS_GCP.items() if k != "cloud_offering"}
    resolution = resolve_data({**data, "currency": "CNY"})
    assert _defaulted(resolution) == {
        "cloud_offering": "aliyun-gn7e-c16g1-4xlarge",
        "tariff": "cn-business-average",
        "hosting": "cn-colo-all-in",
    }
    assert resolution.scenario.build.pue == 1.5


def test_a_usd_plan_without_an_offering_rents_in_the_us_market(shipped):
    data = {k: v for k, v in CLUSTER_VS_GCP.items() if k != "cloud_offering"}
    resolution = resolve_data({**data, "preset": "entry-rtx4090"})
    assert _defaulted(resolution) == {
        "cloud_offering": "azure-nc24ads-a100-v4",
        "tariff": "us-va-commercial",
        "hosting": "office-deskside",
    }
    assert resolution.scenario.rent.hourly_rate == pytest.approx(3.673)
    assert resolution.scenario.build.hosting_monthly == 0


def test_every_shipped_preset_carries_the_hosting_its_tier_needs_with_a_reason(shipped):
    kinds = {"budget": "office", "entry": "office", "multi": "colocation", "cluster": "colocation"}
    presets = BuildPreset.objects.all()
    assert presets.count() >= 10
    for preset in presets:
        assert preset.hosting_kind == kinds[preset.tier], preset.slug
        assert len(preset.hosting_rationale) > 80, preset.slug


def test_a_custom_box_says_which_running_costs_it_was_given(mini, selection):
    custom = {k: v for k, v in selection.items() if k != "preset"}
    custom["parts"] = [{"part": "gpu-x", "quantity": 1}, {"part": "cpu"}]
    resolution = resolve_data(custom)
    given = _defaulted(resolution)
    assert given == {
        "build.maintenance_rate_per_year": Decimal("0.05"),
        "build.residual_value_retention_per_year": Decimal("0.70"),
        "build.ops_monthly": Decimal(0),
        "build.useful_life_months": None,
    }
    build = resolution.scenario.build
    assert (build.maintenance_rate_per_year, build.useful_life_months) == (0.05, None)
    assert [item["value"] for item in resolution.as_dict()["defaulted"]] == [
        "0.05",
        "0.7",
        "0",
        None,
    ]


def test_defaults_for_says_what_resolve_filled_in_in_the_language_of_the_moment(shipped):
    """The page of a plan made earlier asks the same question: the same rows, the same
    reasons, except that they come in the language active when asked."""
    data = {k: v for k, v in CLUSTER_VS_GCP.items() if k != "cloud_offering"}
    selection = parse_selection(data)
    with translation.override("en"):
        resolved = resolve(selection).defaulted
    snapshot = CatalogSnapshot(selection.day)
    with translation.override("en"):
        assert defaults_for(selection, snapshot) == resolved
    with translation.override("zh-hans"):
        chinese = defaults_for(selection, snapshot)
    assert [(d.field, d.value) for d in chinese] == [(d.field, d.value) for d in resolved]
    assert [d.field for d in chinese] == ["cloud_offering", "tariff", "hosting"]
    assert (
        chinese[1].reason == "美元方案在美国运行：弗吉尼亚州商业电价（EIA），美国最大的数据中心市场"
    )


def test_defaults_for_a_custom_box_gives_its_running_costs_but_no_committed_count(shipped):
    parts = [{"part": "gpu-rtx-4090", "quantity": 1}, {"part": "cpu-desktop-16c"}]
    data = {k: v for k, v in CLUSTER_VS_GCP.items() if k != "preset"}
    selection = parse_selection({**data, "parts": parts})
    resolved = resolve(selection).defaulted
    given = defaults_for(selection, CatalogSnapshot(selection.day))
    assert given == [d for d in resolved if d.field != "committed_instances"]
    assert "committed_instances" in [d.field for d in resolved]  # the 3-year commitment's


def test_a_default_the_catalog_lacks_is_named_by_its_field(mini, selection):
    # the mini catalog has no US tariff: a USD plan that names none cannot be resolved
    data = {k: v for k, v in selection.items() if k != "tariff"}
    errors = errors_of({**data, "currency": "USD"})
    assert errors == ["tariff: no electricity tariff with slug 'us-va-commercial'"]
