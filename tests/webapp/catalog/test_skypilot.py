"""catalog_import reading SkyPilot's vms.csv: dated rates, new offerings, skipped rows."""

import datetime
from decimal import Decimal

import pytest

from webapp.catalog.models import CloudOffering, CloudRate, GpuModel
from webapp.catalog.skypilot import SkyPilotImportError, import_skypilot

from .test_commands import run

AS_OF = datetime.date(2026, 11, 1)
HEADER = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n"
)
VMS = HEADER + (
    "one,Ref,1.0,8.0,64.0,2.5,r,\"{'Gpus': []}\",\n"
    "one,Ref,1.0,8.0,64.0,2.7,elsewhere,,\n"
    "eight,Ref,8.0,96.0,1024.0,20.0,r,,9.5\n"
    "big,Ref,4.0,48.0,512.0,10.0,r,,4.0\n"
    "odd,Mystery,1.0,8.0,64.0,1.0,r,,\n"
    "cpu-only,,,4.0,16.0,0.2,r,,\n"
)  # fmt: skip


@pytest.fixture
def skypilot_names(mini):
    GpuModel.objects.filter(slug="ref").update(skypilot_name="Ref")


def test_it_adds_dated_rates_to_the_matching_offerings(skypilot_names):
    CloudOffering.objects.filter(slug="cloud-8").update(provider="P")
    report = import_skypilot(VMS, provider="p", as_of=AS_OF)
    assert CloudRate.objects.get(offering__slug="cloud-1", effective_date=AS_OF).hourly_rate == (
        Decimal("2.5")
    )
    # the spot offering of "eight" takes SpotPrice
    spot = CloudRate.objects.get(offering__slug="cloud-8", effective_date=AS_OF)
    assert (spot.hourly_rate, spot.currency) == (Decimal("9.5"), "USD")
    assert len(report.added) == 2
    assert any("elsewhere" in line and "another region" in line for line in report.skipped)
    assert any("big" in line and "--region" in line for line in report.skipped)


def test_it_adds_new_offerings_only_for_known_gpus_of_the_region(skypilot_names):
    report = import_skypilot(VMS, provider="P", as_of=AS_OF, region="r")
    big = CloudOffering.objects.get(slug="p-big-r")
    assert (big.gpu_model.slug, big.gpu_count, big.pricing_mode) == ("ref", 4, "on-demand")
    assert CloudOffering.objects.get(slug="p-big-r-spot").pricing_mode == "spot"
    assert CloudRate.objects.get(offering=big).hourly_rate == Decimal("10")
    assert any("Mystery" in line and "not in the catalog" in line for line in report.skipped)
    assert any("cpu-only" in line and "no accelerator" in line for line in report.skipped)
    assert not CloudOffering.objects.filter(instance_type="odd").exists()


def test_a_dry_run_writes_nothing(skypilot_names):
    before = CloudRate.objects.count(), CloudOffering.objects.count()
    report = import_skypilot(VMS, provider="P", as_of=AS_OF, region="r", dry_run=True)
    assert report.added and report.new_offerings
    assert (CloudRate.objects.count(), CloudOffering.objects.count()) == before


def test_it_never_overwrites_a_different_price_and_writes_nothing(skypilot_names):
    CloudRate.objects.create(
        offering=CloudOffering.objects.get(slug="cloud-1"), hourly_rate=Decimal("3"),
        currency="USD", effective_date=AS_OF, source="test",
    )  # fmt: skip
    before = CloudRate.objects.count()
    with pytest.raises(SkyPilotImportError) as info:
        import_skypilot(VMS, provider="P", as_of=AS_OF, region="r")
    assert "cloud-1 already has 3" in info.value.errors[0]
    assert CloudRate.objects.count() == before
    assert not CloudOffering.objects.filter(slug="p-big-r").exists()


def test_it_names_the_row_and_column_of_a_bad_price(mini):
    with pytest.raises(SkyPilotImportError) as info:
        import_skypilot(HEADER + "one,Ref,1,8,64,cheap,r,,\n", provider="P", as_of=AS_OF)
    assert info.value.errors == ["row 2: Price: 'cheap' is not a number"]


def test_it_reads_columns_by_name_in_any_order(skypilot_names):
    reordered = (
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Region,SpotPrice,"
        "Price,AvailabilityZone\none,Ref,1.0,8.0,80.0,Ref,r,1.19,1.64,r-1\n"
    )
    import_skypilot(reordered, provider="P", as_of=AS_OF)
    assert CloudRate.objects.get(offering__slug="cloud-1", effective_date=AS_OF).hourly_rate == (
        Decimal("1.64")
    )


def test_the_command_imports_a_skypilot_file(skypilot_names, tmp_path):
    path = tmp_path / "vms.csv"
    path.write_text(VMS, encoding="utf-8")
    code, out, err = run(
        "catalog_import", str(path), "--provider", "P", "--as-of", "2026-11-01", "--dry-run"
    )
    assert (code, err) == (0, "")
    assert "would add cloud_offering cloud-1 2.5000 USD from 2026-11-01" in out
    assert out.splitlines()[-1].endswith("(dry run: nothing written)")
    code, out, err = run("catalog_import", str(path), "--provider", "P")
    assert code == 2 and "--as-of: is required" in err
