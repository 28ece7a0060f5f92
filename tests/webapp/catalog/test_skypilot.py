"""catalog_import reading SkyPilot's vms.csv files as published: region rates, GPU variants,
GCP accelerator prices, a dry-run report, and new offerings."""

import datetime
from decimal import Decimal
from pathlib import Path

import pytest

from webapp.catalog.models import CloudOffering, CloudRate, GpuModel
from webapp.catalog.skypilot import (
    SkyPilotImportError,
    by_region,
    import_skypilot,
    parse_vms_csv,
    with_gcp_accelerators,
)

from .test_commands import run

FILES = Path(__file__).parent / "skypilot"
AS_OF = datetime.date(2026, 12, 5)


def real(provider: str) -> str:
    return (FILES / f"{provider}-vms.csv").read_text(encoding="utf-8")


def rate(slug: str, day: datetime.date = AS_OF) -> Decimal:
    return CloudRate.objects.get(offering__slug=slug, effective_date=day).hourly_rate


def lines(out: str, label: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith(label + " ")]


# What the shipped offerings cost in the checked-in rows (region medians; GCP host + GPUs).
EXPECTED = {
    "aws": {"aws-p4d-24xlarge": "32.7726", "aws-p4de-24xlarge": "40.9658",
            "aws-p5-48xlarge": "98.3200"},
    "gcp": {"gcp-a2-highgpu-1g-on-demand": "3.6734", "gcp-a2-highgpu-1g-spot": "1.4430",
            "gcp-a3-highgpu-1g-on-demand": "5.7526", "gcp-a3-highgpu-1g-spot": "2.5249",
            "gcp-a3-highgpu-8g-on-demand": "46.0208", "gcp-a3-highgpu-8g-spot": "20.1995"},
    "lambda": {"lambda-1x-h100-sxm5": "3.2900", "lambda-8x-h100-sxm5": "23.9200",
               "lambda-8x-a100-80gb-sxm4": "14.3200"},
}  # fmt: skip


@pytest.mark.parametrize("provider", ["aws", "gcp", "lambda"])
def test_a_dry_run_of_a_real_file_reports_every_shipped_offerings_region_rate(
    shipped, tmp_path, provider
):
    before = CloudRate.objects.count(), CloudOffering.objects.count()
    path = tmp_path / "vms.csv"
    path.write_text(real(provider), encoding="utf-8")

    code, out, err = run(
        "catalog_import", str(path), "--provider", provider, "--as-of", "2026-12-05"
    )

    assert (code, err) == (0, "")
    reported = lines(out, "changed") + lines(out, "unchanged") + lines(out, "new rate")
    for slug, amount in EXPECTED[provider].items():
        assert any(line.split()[1] == slug and f"{amount} USD" in line for line in reported), slug
        assert not any(f" {slug}:" in line for line in lines(out, "skipped")), slug
    assert out.splitlines()[-1].endswith("(dry run: nothing written; --apply writes)")
    assert (CloudRate.objects.count(), CloudOffering.objects.count()) == before


def test_a_changed_rate_is_reported_with_its_change_in_per_cent(shipped, tmp_path):
    path = tmp_path / "vms.csv"
    path.write_text(real("aws"), encoding="utf-8")
    _, out, _ = run("catalog_import", str(path), "--provider", "AWS", "--as-of", "2026-12-05")
    # the file's rows are from before AWS's June 2025 price cut
    assert "changed aws-p5-48xlarge 55.0400 USD → 98.3200 USD (+78.6 %) from 2026-12-05" in out
    assert "unchanged lambda" not in out


def test_a_rate_equal_to_the_one_in_effect_is_unchanged_and_not_written_again(shipped):
    report = import_skypilot(real("lambda"), provider="Lambda", as_of=AS_OF)
    assert "lambda-1x-h100-sxm5 3.2900 USD (in effect since 2026-12-03)" in report.unchanged
    assert not CloudRate.objects.filter(offering__slug="lambda-1x-h100-sxm5", effective_date=AS_OF)


def test_apply_adds_new_dated_rates_and_keeps_the_old_ones(shipped, tmp_path):
    path = tmp_path / "vms.csv"
    path.write_text(real("gcp"), encoding="utf-8")
    code, out, err = run(
        "catalog_import", str(path), "--provider", "gcp", "--as-of", "2026-12-05", "--apply"
    )
    assert (code, err) == (0, "")
    assert "dry run" not in out
    assert rate("gcp-a3-highgpu-8g-on-demand") == Decimal("46.0208")
    assert rate("gcp-a3-highgpu-8g-on-demand", datetime.date(2025, 3, 6)) == Decimal("88.4900")


def test_a_gcp_host_is_priced_with_its_gpus_not_alone():
    rows, skipped, accelerator_rows = with_gcp_accelerators(parse_vms_csv(real("gcp")))
    rates = {(r.instance_type, r.region): r for r in by_region(rows)}
    a2 = rates[("a2-highgpu-1g", "us-central1")]
    # host 0.73948 + one A100 2.93391 (the host alone would understate the rate by 80 %)
    assert (a2.price, a2.spot_price) == (Decimal("3.6734"), Decimal("1.4430"))
    assert (a2.accelerator, a2.accelerator_count, a2.gpu_memory_gb) == ("A100", 1, 40)
    assert rates[("a2-highgpu-1g", "europe-west4")].price == Decimal("2.4277")
    assert accelerator_rows == 15
    assert skipped == []


def test_zone_rows_are_aggregated_to_the_regions_median():
    rates = {(r.instance_type, r.region): r for r in by_region(parse_vms_csv(real("aws")))}
    p5 = rates[("p5.48xlarge", "us-east-1")]
    # six zones' spot prices; the median of 25.8774 and 27.6948
    assert (p5.price, p5.spot_price, len(p5.rows)) == (Decimal("98.32"), Decimal("26.7861"), 6)
    # p4de is listed twice in some zones, once without a spot price: blanks are left out
    p4de = rates[("p4de.24xlarge", "us-east-1")]
    assert (p4de.price, p4de.spot_price) == (Decimal("40.9658"), Decimal("6.8234"))
    assert rates[("p5.48xlarge", "us-west-1")].spot_price == Decimal("17.1371")


@pytest.mark.parametrize(
    ("provider", "instance_type", "gpu"),
    [
        ("runpod", "1x_A100-80GB_SECURE", "a100-80gb-pcie"),  # RunPod marks only SXM
        ("runpod", "1x_A100-80GB-SXM_SECURE", "a100-80gb-sxm4"),
        ("runpod", "1x_H100_SECURE", "h100-pcie"),
        ("runpod", "1x_H100-SXM_SECURE", "h100-sxm5"),
        ("lambda", "gpu_1x_h100_pcie", "h100-pcie"),  # Lambda's "H100" PCIe instance
        ("lambda", "gpu_8x_a100", "a100-40gb-sxm4"),  # 40 GB: the only A100 of that memory
        ("gcp", "a2-ultragpu-1g", "a100-80gb-sxm4"),
    ],
)
def test_new_offerings_take_the_gpu_variant_of_the_instances_memory_and_form_factor(
    shipped, provider, instance_type, gpu
):
    region = {"runpod": "US", "lambda": "us-east-1", "gcp": "us-central1"}[provider]
    CloudOffering.objects.filter(instance_type=instance_type).delete()
    import_skypilot(real(provider), provider=provider, as_of=AS_OF, region=region)
    offering = CloudOffering.objects.get(instance_type=instance_type, pricing_mode="on-demand")
    assert offering.gpu_model.slug == gpu


def test_an_offering_of_another_gpu_variant_is_skipped_with_the_reason(shipped):
    CloudOffering.objects.create(
        slug="lambda-h100-mislabelled", provider="Lambda", instance_type="gpu_1x_h100_pcie",
        region="us-east-1", gpu_model=GpuModel.objects.get(slug="h100-sxm5"), gpu_count=1,
        pricing_mode="on-demand",
    )  # fmt: skip
    report = import_skypilot(real("lambda"), provider="Lambda", as_of=AS_OF)
    assert any(
        "lambda-h100-mislabelled: the file's GPU is H100 80GB PCIe, the offering's H100 80GB SXM5"
        in line
        for line in report.skipped
    )
    assert not CloudRate.objects.filter(offering__slug="lambda-h100-mislabelled").exists()


def test_new_offerings_get_slugs_of_lowercase_words_and_hyphens_and_chinese_names(shipped):
    CloudOffering.objects.filter(instance_type="gpu_1x_h100_pcie").delete()
    report = import_skypilot(real("lambda"), provider="lambda", as_of=AS_OF, region="us-east-1")
    pcie = CloudOffering.objects.get(slug="lambda-gpu-1x-h100-pcie-us-east-1")
    assert (pcie.provider, pcie.gpu_count) == ("Lambda", 1)
    assert pcie.name_zh == "Lambda 1×H100 80GB PCIe 按需实例"
    # its notes come in both languages, as the shipped rows' do
    assert pcie.untranslated() == [] and pcie.rates.get().untranslated() == []
    assert pcie.rates.get().note_zh == "us-east-1 区域的 gpu_1x_h100_pcie：1 条可用区记录的中位数"
    assert rate("lambda-gpu-1x-h100-pcie-us-east-1") == Decimal("2.49")
    assert all("_" not in line.split(":")[0] for line in report.new_offerings)
    assert any("gpu_1x_gh200" in line and "'GH200' is not in the catalog" in line
               for line in report.skipped)  # fmt: skip
    assert any("cpu_4x_general" in line and "no GPU" in line for line in report.skipped)


def test_rows_of_another_region_are_skipped_with_the_region_the_catalog_has(shipped):
    report = import_skypilot(real("aws"), provider="AWS", as_of=AS_OF)
    assert any(
        line.startswith("p5.48xlarge us-west-1 (rows")
        and "the catalog's offerings of this type are in another region (us-east-1)" in line
        for line in report.skipped
    )
    assert any(line.startswith("a1.large us-east-1") for line in report.not_in_catalog)


def test_it_never_overwrites_a_different_price_of_the_same_day_and_writes_nothing(shipped):
    CloudRate.objects.create(
        offering=CloudOffering.objects.get(slug="aws-p5-48xlarge"), hourly_rate=Decimal("55.04"),
        currency="USD", effective_date=AS_OF, source="test",
    )  # fmt: skip
    before = CloudRate.objects.count()
    with pytest.raises(SkyPilotImportError) as info:
        import_skypilot(real("aws"), provider="AWS", as_of=AS_OF)
    assert "aws-p5-48xlarge already has 55.0400 USD from 2026-12-05" in info.value.errors[0]
    assert CloudRate.objects.count() == before


def test_it_names_the_row_and_column_of_a_bad_price(mini):
    text = real("lambda").replace("23.92,us-west-1", "cheap,us-west-1")
    with pytest.raises(SkyPilotImportError) as info:
        import_skypilot(text, provider="Lambda", as_of=AS_OF)
    assert info.value.errors == ["row 11: Price: 'cheap' is not a number"]


@pytest.mark.parametrize(
    ("damage", "error"),
    [
        (("3.29,us-west-1", "3.29,us-\x00west-1"),
         "row 9: Region: contains a NUL character, which the database cannot store"),
        (("98304}\",\n", "98304},\n"),
         "row 12: a quoted cell is never closed (a '\"' is missing); the rest of the file was "
         "not read"),
    ],
)  # fmt: skip
def test_a_nul_byte_or_an_unclosed_quote_names_the_row_and_exits_2(
    shipped, tmp_path, damage, error
):
    path = tmp_path / "vms.csv"
    path.write_text(real("lambda").replace(*damage, 1), encoding="utf-8")
    before = CloudRate.objects.count(), CloudOffering.objects.count()
    code, out, err = run(
        "catalog_import", str(path), "--provider", "lambda", "--as-of", "2026-12-05", "--apply",
        "--region", "us-east-1",
    )  # fmt: skip
    assert (code, out) == (2, "")
    assert err.splitlines() == [error, "nothing was written"]
    assert (CloudRate.objects.count(), CloudOffering.objects.count()) == before


def test_the_command_needs_a_date_for_a_skypilot_file(mini, tmp_path):
    path = tmp_path / "vms.csv"
    path.write_text(real("lambda"), encoding="utf-8")
    code, _, err = run("catalog_import", str(path), "--provider", "Lambda")
    assert code == 2 and "--as-of: is required" in err
