"""The first-hand readers: AWS Price List offer files, Azure Retail Prices API pages and the
Google Cloud Billing Catalog SKU list, read from real public samples (tests/webapp/catalog/
providers/README.md names each one's repository, path and commit) into catalog_refresh's
report; bad files refused naming the line or key, nothing written."""

import datetime
import json
from decimal import Decimal
from pathlib import Path

import pytest

from webapp.catalog.models import CloudOffering, CloudRate, PricingMode
from webapp.catalog.provider_files import (
    ProviderFileError,
    import_published,
    read_aws_offer,
    read_azure_pages,
    read_gcp_skus,
)

from .test_commands import run

FILES = Path(__file__).parent / "providers"
AS_OF = datetime.date(2026, 12, 5)


def sample(name: str) -> str:
    return (FILES / name).read_text(encoding="utf-8")


def refused(reader, *args) -> list[str]:
    with pytest.raises(ProviderFileError) as info:
        reader(*args)
    return info.value.errors


def refresh(*args: str) -> tuple[int, str, str]:
    return run("catalog_refresh", "--as-of", AS_OF.isoformat(), *args)


# --- AWS -------------------------------------------------------------------------------------


def test_aws_reads_the_linux_on_demand_rate_and_leaves_the_capacity_block_out():
    (rate,) = read_aws_offer(sample("aws-us-east-1.json"), "us-east-1")
    assert (rate.instance_type, rate.mode, rate.price, rate.gpu_count) == (
        "p4d.24xlarge",
        PricingMode.ON_DEMAND,
        Decimal("32.7726000000"),
        8,
    )
    assert rate.where == (
        "terms.OnDemand.H7NGEAC6UEHNTKSJ.H7NGEAC6UEHNTKSJ.JRTCKXETXF.priceDimensions."
        "H7NGEAC6UEHNTKSJ.JRTCKXETXF.6YS6EN2CT7"
    )


def test_the_shipped_aws_gpu_offerings_are_those_of_the_september_2026_offer_file(shipped):
    rates = read_aws_offer(sample("aws-us-east-1-2026-09.json"), "us-east-1")
    report = import_published(
        rates, provider="aws", as_of=AS_OF, source="test", region="us-east-1", dry_run=True
    )
    assert report.unchanged == [
        "aws-g4dn-xlarge-us-east-1 0.5260 USD (in effect since 2026-09-10)",
        "aws-g5-2xlarge-us-east-1 1.2120 USD (in effect since 2026-09-10)",
        "aws-g6-xlarge-us-east-1 0.8048 USD (in effect since 2026-09-10)",
        # 21.957642 published, 21.9576 stored: the same within the stored precision
        "aws-p4d-24xlarge 21.9576 USD (in effect since 2026-09-10)",
        "aws-p5-48xlarge 55.0400 USD (in effect since 2026-09-10)",
    ]
    assert (report.new_offerings, report.changed, report.new_rates) == ([], [], [])


def test_aws_leaves_windows_byol_and_upfront_fees_out():
    # the file prices p3.8xlarge only for Windows with its own licence (12.24 USD/h) and
    # m5.large only by a 3-year convertible upfront fee: no Linux hourly rate to read
    assert read_aws_offer(sample("aws-us-east-2.json"), "us-east-2") == []


def test_aws_file_of_another_region_is_refused_naming_the_key():
    errors = refused(read_aws_offer, sample("aws-us-east-2.json"), "us-east-1")
    assert (
        "products.9ZEEN7WWWQKAG292.attributes.regionCode: 'us-east-2', not the region asked "
        "for (us-east-1): another region's offer file"
    ) in errors


def test_aws_file_in_another_currency_is_refused_naming_the_key():
    errors = refused(read_aws_offer, sample("aws-cn-northwest-1.json"), "cn-northwest-1")
    assert errors == [
        "terms.OnDemand.R83VXG9NAPDASEGN.R83VXG9NAPDASEGN.5Y9WH78GDR.priceDimensions."
        "R83VXG9NAPDASEGN.5Y9WH78GDR.Q7UJUT2CE6.pricePerUnit: priced in CNY, not USD"
    ]


def test_a_truncated_file_is_refused_naming_the_line():
    text = sample("aws-us-east-1.json")
    cut = text[: len(text) // 2]
    (error,) = refused(read_aws_offer, cut, "us-east-1")
    line = cut.count("\n") + 1
    assert error.startswith(f"line {line} column ")
    assert error.endswith("(the file ends early: truncated?)")


def test_another_providers_file_is_refused_by_each_reader():
    assert refused(read_aws_offer, sample("gcp-skus.json"), "us-east-1") == [
        "offerCode: missing: not an AWS Price List offer file (another provider's file?)"
    ]
    assert refused(read_azure_pages, [sample("aws-us-east-1.json")], "eastus") == [
        "page 1: Items: missing: not an Azure Retail Prices answer (another provider's file?)"
    ]
    assert refused(read_gcp_skus, [sample("azure-westeurope.json")], "us-central1") == [
        "page 1: skus: missing: not a Cloud Billing Catalog SKU list (another provider's file?)"
    ]


def test_refresh_reports_a_change_held_for_review_and_a_second_apply_records_nothing(
    shipped, tmp_path
):
    path = tmp_path / "index.json"
    path.write_text(sample("aws-us-east-1.json"), encoding="utf-8")
    args = ("--provider", "aws", "--region", "us-east-1", "--file", str(path))
    before = CloudRate.objects.count()

    code, out, err = refresh(*args)
    assert (code, err) == (0, "")
    assert (
        "changed aws-p4d-24xlarge 21.9576 USD → 32.7726 USD (+49.3 %) from 2026-12-05 "
        "(held for review: hourly_rate 21.9576 → 32.7726 (+49%))"
    ) in out
    assert out.splitlines()[-1].endswith("(dry run: nothing written; --apply writes)")
    assert CloudRate.objects.count() == before

    assert refresh(*args, "--apply")[0] == 0
    new = CloudRate.objects.get(offering__slug="aws-p4d-24xlarge", effective_date=AS_OF)
    assert (new.hourly_rate, new.pending) == (Decimal("32.7726"), True)
    assert new.source.startswith("https://pricing.us-east-1.amazonaws.com/offers/")

    code, out, _ = refresh(*args, "--apply")
    assert code == 0
    assert "unchanged aws-p4d-24xlarge 32.7726 USD (already recorded 2026-12-05, waiting" in out
    assert CloudRate.objects.count() == before + 1


def test_refresh_refuses_a_bad_file_with_exit_2_and_writes_nothing(shipped, tmp_path):
    path = tmp_path / "index.json"
    path.write_text(sample("aws-cn-northwest-1.json"), encoding="utf-8")
    before = CloudRate.objects.count()
    code, _, err = refresh(
        "--provider", "aws", "--region", "us-east-1", "--file", str(path), "--apply"
    )
    assert code == 2
    assert "attributes.regionCode: 'cn-northwest-1', not the region asked for" in err
    assert err.splitlines()[-1] == "nothing was written"
    assert CloudRate.objects.count() == before


# --- Google Cloud ----------------------------------------------------------------------------


def test_gcp_prices_a_machine_from_its_cores_memory_and_gpus():
    rates = {r.instance_type: r for r in read_gcp_skus([sample("gcp-skus.json")], "us-central1")}
    assert set(rates) == {"a2-highgpu-1g", "a2-highgpu-8g"}  # the file has the 40GB A100 only
    one = rates["a2-highgpu-1g"]
    # 12 vCPUs × 0.031611 + 85 GiB × 0.004237 + 1 × 2.933908
    assert one.price == Decimal("3.673385")
    assert one.mode == PricingMode.ON_DEMAND
    assert rates["a2-highgpu-8g"].price == Decimal("96") * Decimal("0.031611") + Decimal(
        "680"
    ) * Decimal("0.004237") + 8 * Decimal("2.933908")


def test_gcp_list_without_the_region_is_refused():
    assert refused(read_gcp_skus, [sample("gcp-skus.json")], "asia-east1") == [
        "serviceRegions: no SKU of the file is priced in asia-east1: another region's list?"
    ]


def test_gcp_skus_in_another_currency_that_price_no_gpu_machine_do_not_matter():
    # the real page also carries E2 and T2D SKUs priced in IDR; no GPU machine uses them
    rates = read_gcp_skus([sample("gcp-skus.json")], "us-central1")
    assert {r.instance_type for r in rates} == {"a2-highgpu-1g", "a2-highgpu-8g"}


def test_gcp_price_in_another_currency_is_refused_naming_the_key():
    data = json.loads(sample("gcp-skus.json"))
    data["skus"][1]["pricingInfo"][0]["pricingExpression"]["tieredRates"][0]["unitPrice"][
        "currencyCode"
    ] = "EUR"
    assert refused(read_gcp_skus, [json.dumps(data)], "us-central1") == [
        "page 1: skus[1].pricingInfo[0].pricingExpression.tieredRates[-1].unitPrice."
        "currencyCode: 'EUR', not USD"
    ]


def test_refresh_gcp_finds_the_shipped_rate_unchanged_and_adds_the_8_gpu_machine(shipped, tmp_path):
    path = tmp_path / "skus.json"
    path.write_text(sample("gcp-skus.json"), encoding="utf-8")
    code, out, err = refresh(
        "--provider", "gcp", "--region", "us-central1", "--file", str(path), "--add-offerings",
        "--apply",
    )  # fmt: skip
    assert (code, err) == (0, "")
    # 3.673385 is the stored 3.6734 within the stored precision
    assert "unchanged gcp-a2-highgpu-1g-on-demand 3.6734 USD (in effect since 2026-08-20)" in out
    offering = CloudOffering.objects.get(slug="google-cloud-a2-highgpu-8g-us-central1")
    assert (offering.gpu_count, offering.gpu_model.vram_gb, offering.pricing_mode) == (
        8,
        40,
        PricingMode.ON_DEMAND,
    )
    # 96 × 0.031611 + 680 × 0.004237 + 8 × 2.933908 = 29.38708
    assert offering.rates.get().hourly_rate == Decimal("29.3871")


# --- Azure -----------------------------------------------------------------------------------


def test_azure_leaves_windows_devtest_and_spot_of_windows_out():
    assert read_azure_pages([sample("azure-westeurope.json")], "westeurope") == []


def test_azure_reservation_is_the_term_price_per_hour_of_the_term():
    (rate,) = read_azure_pages([sample("azure-southcentralus.json")], "southcentralus")
    assert (rate.instance_type, rate.mode, rate.where) == (
        "Standard_E64_v4",
        PricingMode.COMMIT_1Y,
        "page 1: Items[0]",
    )
    assert rate.price == Decimal("25007.0") / 8760


def test_azure_page_of_another_region_or_currency_is_refused_naming_the_item():
    assert refused(read_azure_pages, [sample("azure-westeurope.json")], "eastus") == [
        "page 1: Items[0].armRegionName: 'westeurope', not the region asked for (eastus): "
        "another region's prices"
    ]
    data = json.loads(sample("azure-southcentralus.json"))
    data["Items"][0]["currencyCode"] = "EUR"
    assert refused(read_azure_pages, [json.dumps(data)], "southcentralus") == [
        "page 1: Items[0].currencyCode: 'EUR', not USD"
    ]


def test_azure_gpu_rates_compare_with_the_catalogs(shipped):
    # a page shaped as the API answers, with the list price the catalog ships for this size
    page = {
        "BillingCurrency": "USD",
        "Items": [
            {
                "currencyCode": "USD", "retailPrice": 3.673, "armRegionName": "eastus",
                "serviceName": "Virtual Machines",
                "productName": "Virtual Machines NCads A100 v4 Series",
                "meterName": "NC24ads A100 v4", "skuName": "NC24ads A100 v4",
                "unitOfMeasure": "1 Hour", "type": "Consumption",
                "armSkuName": "Standard_NC24ads_A100_v4",
            }
        ],
        "NextPageLink": None,
    }  # fmt: skip
    rates = read_azure_pages([json.dumps(page)], "eastus")
    report = import_published(rates, provider="azure", as_of=AS_OF, source="test", dry_run=True)
    assert report.unchanged == ["azure-nc24ads-a100-v4 3.6730 USD (in effect since 2026-11-01)"]
