"""Dated cloud rates from the providers' own price files, into the same report as SkyPilot's.

Three first-hand readers, each turning one provider's published file into
:class:`PublishedRate` rows of one region (instance type, pricing mode, USD per
instance-hour as published):

- **AWS Price List offer file** (``offers/v1.0/aws/AmazonEC2/current/<region>/index.json``):
  ``products`` keyed by SKU, ``terms.OnDemand`` and ``terms.Reserved`` keyed by SKU and offer
  term. A product counts when it is a shared-tenancy Linux ``Compute Instance`` without
  pre-installed software or licence, used capacity, sold on demand (not a Capacity Block).
  On-demand: its ``Hrs`` price dimension. Commitments: the *standard, no-upfront* reserved
  term of 1 or 3 years (``LeaseContractLength`` ``1yr``/``3yr``), whose hourly price is
  billed every hour of the term.
- **Azure Retail Prices API answer** (``prices.azure.com/api/retail/prices``, one JSON page
  or several): ``Items`` of the ``Virtual Machines`` service priced per ``1 Hour``. Linux
  only (a ``productName`` ending in ``Windows`` is the Windows licence); ``Consumption``
  items are on demand, or spot when the meter says ``Spot``; ``Low Priority`` and
  ``DevTestConsumption`` are left out. ``Reservation`` items price a whole 1- or 3-year
  term per VM: the hourly rate is that price ÷ 8 760 h or ÷ 26 280 h.
- **Google Cloud Billing Catalog SKU list** (``cloudbilling.googleapis.com/v1/services/
  6F81-5844-456A/skus``): GCP prices a GPU machine in parts — its vCPUs, its memory and its
  GPUs, each a SKU per pricing mode (``OnDemand``, ``Preemptible`` = spot, ``Commit1Yr``,
  ``Commit3Yr``). A machine's rate is vCPUs × core price + GiB × memory price + GPUs × GPU
  price (:data:`GCP_MACHINES`), in a mode only when all three parts are priced in it.

Bad input is refused before anything is compared, naming the line (a file that is not
whole JSON: truncated, cut) or the key (``offerCode``, ``Items[3].currencyCode``,
``products.<sku>.attributes.regionCode``): a file of another provider or service, of another
region than the one asked for, or priced in another currency than US dollars.

:func:`import_published` then compares the rates with the catalog's like
:func:`webapp.catalog.skypilot.import_skypilot` does (and with the same report): known
offerings of the provider, instance type, region and mode get a new dated rate when the price
moved by at least the stored precision; with ``region`` given, the instance types of
:data:`AWS_FAMILIES`, :data:`AZURE_FAMILIES` or
:data:`GCP_MACHINES` the catalog lacks become new offerings.
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from django.db import IntegrityError

from webapp.catalog import selectors
from webapp.catalog.models import CloudOffering, CloudRate, GpuModel, PricingMode
from webapp.catalog.rate_import import (
    RateImportError,
    RatePlan,
    RateReport,
    apply_plan,
    plan_rate,
    stored_amount,
)
from webapp.catalog.skypilot import PROVIDER_NAMES_ZH, offering_slug

MAX_ERRORS = 20
HOURS_PER_TERM = {12: Decimal(8760), 36: Decimal(26280)}
COMMIT_MODES = {12: PricingMode.COMMIT_1Y, 36: PricingMode.COMMIT_3Y}

PROVIDERS = {"aws": "AWS", "azure": "Microsoft Azure", "gcp": "Google Cloud"}
"""``--provider`` → the provider's name in the catalog."""

ENDPOINTS = {
    "aws": "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/{region}/index.json",
    "azure": (
        "https://prices.azure.com/api/retail/prices?$filter=serviceName eq 'Virtual Machines'"
        " and armRegionName eq '{region}' and contains(armSkuName, '_N')"
    ),
    "gcp": "https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus",
}
"""The providers' public endpoints (``catalog_refresh`` fetches them when online; GCP's needs
an API key, given in ``GCP_API_KEY``)."""

AWS_FAMILIES: tuple[tuple[str, str], ...] = (
    ("g4dn.", "t4"),
    ("g5.", "a10g"),
    ("g6e.", "l40s"),
    ("g6.", "l4"),
    ("p3dn.", "v100-32gb-sxm2"),
    ("p3.", "v100-16gb-sxm2"),
    ("p4de.", "a100-80gb-sxm4"),
    ("p4d.", "a100-40gb-sxm4"),
    ("p5en.", "h200-sxm"),
    ("p5e.", "h200-sxm"),
    ("p5.", "h100-sxm5"),
)
"""AWS instance families (by prefix) → the catalog GPU model they carry; the count is the
offer file's ``gpu`` attribute."""

AZURE_FAMILIES: tuple[tuple[str, str, str], ...] = (
    ("standard_nc", "_a100_v4", "a100-80gb-pcie"),
    ("standard_nc", "_h100_v5", "h100-nvl"),
    ("standard_nd", "_a100_v4", "a100-80gb-sxm4"),
    ("standard_nd", "_h100_v5", "h100-sxm5"),
)
"""Azure sizes (by prefix and suffix) → the catalog GPU model they carry."""

AZURE_GPU_COUNTS = {
    "standard_nc24ads_a100_v4": 1,
    "standard_nc48ads_a100_v4": 2,
    "standard_nc96ads_a100_v4": 4,
    "standard_nc40ads_h100_v5": 1,
    "standard_nc80adis_h100_v5": 2,
    "standard_nd96asr_v4": 8,
    "standard_nd96amsr_a100_v4": 8,
    "standard_nd96isr_h100_v5": 8,
}


@dataclass(frozen=True)
class GcpMachine:
    family: str
    """The family word of its core and memory SKUs (``A2`` in "A2 Instance Core ...")."""
    vcpus: int
    memory_gib: Decimal
    gpu: str
    """The GPU of its GPU SKUs, as the SKU descriptions name it."""
    gpu_count: int
    gpu_model: str
    """The catalog GPU model's slug."""


GCP_MACHINES = {
    "a2-highgpu-1g": GcpMachine("A2", 12, Decimal(85), "A100 40GB", 1, "a100-40gb-sxm4"),
    "a2-highgpu-8g": GcpMachine("A2", 96, Decimal(680), "A100 40GB", 8, "a100-40gb-sxm4"),
    "a2-ultragpu-1g": GcpMachine("A2", 12, Decimal(170), "A100 80GB", 1, "a100-80gb-sxm4"),
    "a2-ultragpu-8g": GcpMachine("A2", 96, Decimal(1360), "A100 80GB", 8, "a100-80gb-sxm4"),
    "a3-highgpu-1g": GcpMachine("A3", 26, Decimal(234), "H100 80GB", 1, "h100-sxm5"),
    "a3-highgpu-8g": GcpMachine("A3", 208, Decimal(1872), "H100 80GB", 8, "h100-sxm5"),
    "a3-megagpu-8g": GcpMachine("A3 Mega", 208, Decimal(1872), "H100 Mega", 8, "h100-sxm5"),
    "g2-standard-4": GcpMachine("G2", 4, Decimal(16), "L4", 1, "l4"),
    "g2-standard-8": GcpMachine("G2", 8, Decimal(32), "L4", 1, "l4"),
    "g2-standard-48": GcpMachine("G2", 48, Decimal(192), "L4", 4, "l4"),
    "g2-standard-96": GcpMachine("G2", 96, Decimal(384), "L4", 8, "l4"),
}
"""GCP GPU machine types: vCPUs, memory [GiB] and GPUs, as Google's machine-type tables
state them (cloud.google.com/compute/docs/gpus and .../accelerator-optimized-machines)."""


MODE_ZH = {
    PricingMode.ON_DEMAND: "按需实例",
    PricingMode.SPOT: "抢占式实例",
    PricingMode.COMMIT_1Y: "1 年期承诺",
    PricingMode.COMMIT_3Y: "3 年期承诺",
}


class ProviderFileError(RateImportError):
    """The file cannot be imported; ``errors`` name the line or key of each problem."""


@dataclass(frozen=True)
class PublishedRate:
    """One instance type's hourly rate in one region and pricing mode, as the file states it."""

    instance_type: str
    region: str
    mode: PricingMode
    price: Decimal
    """USD per instance-hour, with the file's own decimals."""
    where: str
    """The key or item of the file that states it."""
    gpu_count: int | None = None


def _load_json(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        end = " (the file ends early: truncated?)" if exc.pos >= len(text.rstrip()) else ""
        raise ProviderFileError(
            [f"{what}line {exc.lineno} column {exc.colno}: not readable as JSON ({exc.msg}){end}"]
        ) from None


def _decimal(value: Any, key: str, errors: list[str]) -> Decimal | None:
    try:
        number = Decimal(str(value).strip())
    except (InvalidOperation, ValueError):
        errors.append(f"{key}: '{str(value)[:40]}' is not a number")
        return None
    if not number.is_finite() or number < 0:
        errors.append(f"{key}: must be a finite number ≥ 0")
        return None
    return number


def _raise(errors: list[str]) -> None:
    if errors:
        extra = len(errors) - MAX_ERRORS
        shown = errors[:MAX_ERRORS] + ([f"… and {extra} more"] if extra > 0 else [])
        raise ProviderFileError(shown)


# --- AWS -------------------------------------------------------------------------------------


def _aws_counts(attributes: dict[str, Any]) -> bool:
    """Whether an offer-file product is a plain on-demand Linux instance."""
    return (
        attributes.get("operatingSystem") == "Linux"
        and attributes.get("tenancy") == "Shared"
        and attributes.get("preInstalledSw", "NA") == "NA"
        and attributes.get("licenseModel", "No License required") == "No License required"
        and attributes.get("capacitystatus", "Used") == "Used"
        and attributes.get("marketoption", "OnDemand") == "OnDemand"
    )


def _hourly_dimension(
    term: dict[str, Any], key: str, errors: list[str]
) -> tuple[Decimal | None, str]:
    """The term's price per hour (its ``Hrs`` dimension) and that dimension's key."""
    dimensions = term.get("priceDimensions")
    if not isinstance(dimensions, dict):
        errors.append(f"{key}.priceDimensions: missing")
        return None, key
    for code, dimension in dimensions.items():
        where = f"{key}.priceDimensions.{code}"
        if not isinstance(dimension, dict) or dimension.get("unit") != "Hrs":
            continue
        prices = dimension.get("pricePerUnit") or {}
        if "USD" not in prices:
            return None, where
        return _decimal(prices["USD"], f"{where}.pricePerUnit.USD", errors), where
    return None, key


def read_aws_offer(text: str, region: str) -> list[PublishedRate]:
    """The Linux on-demand and no-upfront reserved rates of one region's EC2 offer file."""
    data = _load_json(text, "")
    if not isinstance(data, dict) or "offerCode" not in data:
        raise ProviderFileError(
            ["offerCode: missing: not an AWS Price List offer file (another provider's file?)"]
        )
    if data["offerCode"] != "AmazonEC2":
        raise ProviderFileError(
            [
                f"offerCode: '{str(data['offerCode'])[:40]}': the offer file of another service, "
                "not AmazonEC2"
            ]
        )
    products, terms = data.get("products"), data.get("terms")
    errors: list[str] = []
    if not isinstance(products, dict):
        errors.append("products: missing")
    if not isinstance(terms, dict):
        errors.append("terms: missing")
    _raise(errors)
    assert isinstance(products, dict) and isinstance(terms, dict)
    instances: dict[str, dict[str, Any]] = {}
    for sku, product in products.items():
        attributes = product.get("attributes") or {} if isinstance(product, dict) else {}
        code = attributes.get("regionCode")
        if code is not None and code != region:
            errors.append(
                f"products.{sku}.attributes.regionCode: '{code}', not the region asked for "
                f"({region}): another region's offer file"
            )
            continue
        if product.get("productFamily") == "Compute Instance" and _aws_counts(attributes):
            instances[sku] = attributes
    for kind, by_sku in terms.items():
        for sku, offers in (by_sku or {}).items():
            for offer, term in (offers or {}).items():
                for code, dimension in (term.get("priceDimensions") or {}).items():
                    prices = dimension.get("pricePerUnit") or {}
                    if prices and "USD" not in prices:
                        errors.append(
                            f"terms.{kind}.{sku}.{offer}.priceDimensions.{code}.pricePerUnit: "
                            f"priced in {', '.join(sorted(prices))}, not USD"
                        )
    _raise(errors)
    rates: list[PublishedRate] = []
    for sku, attributes in instances.items():
        instance_type = str(attributes.get("instanceType", ""))
        count = _int_or_none(attributes.get("gpu"))
        for offer, term in (terms.get("OnDemand", {}).get(sku) or {}).items():
            key = f"terms.OnDemand.{sku}.{offer}"
            price, where = _hourly_dimension(term, key, errors)
            if price:
                rates.append(
                    PublishedRate(instance_type, region, PricingMode.ON_DEMAND, price, where, count)
                )
        for offer, term in (terms.get("Reserved", {}).get(sku) or {}).items():
            attributes_of_term = term.get("termAttributes") or {}
            months = {"1yr": 12, "3yr": 36}.get(str(attributes_of_term.get("LeaseContractLength")))
            if (
                months is None
                or attributes_of_term.get("OfferingClass") != "standard"
                or attributes_of_term.get("PurchaseOption") != "No Upfront"
            ):
                continue
            price, where = _hourly_dimension(term, f"terms.Reserved.{sku}.{offer}", errors)
            if price:
                rates.append(
                    PublishedRate(instance_type, region, COMMIT_MODES[months], price, where, count)
                )
    _raise(errors)
    return rates


def _int_or_none(value: Any) -> int | None:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return None


# --- Azure -----------------------------------------------------------------------------------


def read_azure_pages(texts: Iterable[str], region: str) -> list[PublishedRate]:
    """The Linux virtual-machine rates of one region in Retail Prices API pages."""
    rates: list[PublishedRate] = []
    errors: list[str] = []
    for number, text in enumerate(texts, start=1):
        page = f"page {number}: "
        data = _load_json(text, page)
        if not isinstance(data, dict) or not isinstance(data.get("Items"), list):
            raise ProviderFileError(
                [
                    f"{page}Items: missing: not an Azure Retail Prices answer "
                    "(another provider's file?)"
                ]
            )
        billing = data.get("BillingCurrency", "USD")
        if billing != "USD":
            errors.append(f"{page}BillingCurrency: '{billing}', not USD")
        for index, item in enumerate(data["Items"]):
            key = f"{page}Items[{index}]"
            if not isinstance(item, dict):
                errors.append(f"{key}: not an object")
                continue
            if item.get("currencyCode", "USD") != "USD":
                errors.append(f"{key}.currencyCode: '{item.get('currencyCode')}', not USD")
                continue
            if str(item.get("armRegionName", "")).lower() != region.lower():
                errors.append(
                    f"{key}.armRegionName: '{item.get('armRegionName')}', not the region asked "
                    f"for ({region}): another region's prices"
                )
                continue
            rate = _azure_rate(item, key, region, errors)
            if rate is not None:
                rates.append(rate)
    _raise(errors)
    return rates


def _azure_rate(
    item: dict[str, Any], key: str, region: str, errors: list[str]
) -> PublishedRate | None:
    names = f"{item.get('meterName', '')} {item.get('skuName', '')}"
    if (
        item.get("serviceName") != "Virtual Machines"
        or item.get("unitOfMeasure") != "1 Hour"
        or str(item.get("productName", "")).endswith("Windows")
        or "Low Priority" in names
        or not item.get("armSkuName")
    ):
        return None
    price = _decimal(item.get("retailPrice"), f"{key}.retailPrice", errors)
    if not price:
        return None
    instance_type = str(item["armSkuName"])
    if item.get("type") == "Consumption":
        mode = PricingMode.SPOT if "Spot" in names else PricingMode.ON_DEMAND
        return PublishedRate(instance_type, region, mode, price, key)
    if item.get("type") == "Reservation":
        months = {"1 Year": 12, "3 Years": 36}.get(str(item.get("reservationTerm")))
        if months is None:
            return None
        hourly = price / HOURS_PER_TERM[months]
        return PublishedRate(instance_type, region, COMMIT_MODES[months], hourly, key)
    return None


# --- Google Cloud ----------------------------------------------------------------------------

_GCP_MODES = {
    "OnDemand": PricingMode.ON_DEMAND,
    "Preemptible": PricingMode.SPOT,
    "Commit1Yr": PricingMode.COMMIT_1Y,
    "Commit3Yr": PricingMode.COMMIT_3Y,
}
_GCP_SPECIAL = re.compile(r"DWS|Reserved|Calendar|Defined Duration|Sole Tenancy|Custom|Premium")
_GCP_GPU = re.compile(
    r"Nvidia (?:Tesla )?(?P<model>A100 80GB|A100|H100 80GB Plus|H100 Mega 80GB|H100 80GB|H100|L4)"
    r"\b",
    re.IGNORECASE,
)
_GCP_PART = re.compile(
    r"\b(?P<family>A2|A3 Mega|A3|G2) (?:Instance )?(?P<part>Core|Cpu|Ram)\b", re.IGNORECASE
)
_GPU_NAMES = {
    "a100": "A100 40GB",
    "a100 80gb": "A100 80GB",
    "h100": "H100 80GB",
    "h100 80gb": "H100 80GB",
    "h100 80gb plus": "H100 Mega",
    "h100 mega 80gb": "H100 Mega",
    "l4": "L4",
}


def _unit_price(sku: dict[str, Any], key: str, errors: list[str]) -> Decimal | None:
    try:
        price = sku["pricingInfo"][0]["pricingExpression"]["tieredRates"][-1]["unitPrice"]
    except (KeyError, IndexError, TypeError):
        errors.append(f"{key}.pricingInfo: no unit price")
        return None
    path = f"{key}.pricingInfo[0].pricingExpression.tieredRates[-1].unitPrice"
    if price.get("currencyCode", "USD") != "USD":
        errors.append(f"{path}.currencyCode: '{price.get('currencyCode')}', not USD")
        return None
    units = _decimal(price.get("units", "0"), f"{path}.units", errors)
    nanos = _decimal(price.get("nanos", 0), f"{path}.nanos", errors)
    if units is None or nanos is None:
        return None
    return units + nanos / Decimal(1_000_000_000)


def read_gcp_skus(texts: Iterable[str], region: str) -> list[PublishedRate]:
    """The rates of :data:`GCP_MACHINES` in one region, from Cloud Billing Catalog SKU pages."""
    parts: dict[tuple[str, str, PricingMode], tuple[Decimal, str]] = {}
    errors: list[str] = []
    priced_here = 0
    for number, text in enumerate(texts, start=1):
        page = f"page {number}: "
        data = _load_json(text, page)
        if not isinstance(data, dict) or not isinstance(data.get("skus"), list):
            raise ProviderFileError(
                [
                    f"{page}skus: missing: not a Cloud Billing Catalog SKU list "
                    "(another provider's file?)"
                ]
            )
        for index, sku in enumerate(data["skus"]):
            key = f"{page}skus[{index}]"
            if not isinstance(sku, dict) or region not in (sku.get("serviceRegions") or []):
                continue
            priced_here += 1
            category = sku.get("category") or {}
            mode = _GCP_MODES.get(category.get("usageType", ""))
            description = str(sku.get("description", ""))
            name = _gcp_part(description, category.get("resourceGroup", ""))
            if name is None or mode is None or _GCP_SPECIAL.search(description):
                continue  # a SKU no GPU machine is priced from (its currency does not matter)
            price = _unit_price(sku, key, errors)
            if price is not None:
                parts.setdefault((name, "", mode), (price, key))
    if priced_here == 0 and not errors:
        errors.append(
            f"serviceRegions: no SKU of the file is priced in {region}: another region's list?"
        )
    _raise(errors)
    rates = []
    for machine_type, machine in GCP_MACHINES.items():
        for mode in _GCP_MODES.values():
            core = parts.get((f"{machine.family} core", "", mode))
            ram = parts.get((f"{machine.family} ram", "", mode))
            gpu = parts.get((f"gpu {machine.gpu}", "", mode))
            if core is None or ram is None or gpu is None:
                continue
            price = machine.vcpus * core[0] + machine.memory_gib * ram[0]
            price += machine.gpu_count * gpu[0]
            where = f"{gpu[1]} + {core[1]} + {ram[1]}"
            rates.append(PublishedRate(machine_type, region, mode, price, where, machine.gpu_count))
    return rates


def _gcp_part(description: str, group: str) -> str | None:
    """``gpu A100 40GB``, ``A2 core``, ``A2 ram``, or None for any other SKU."""
    if group == "GPU":
        match = _GCP_GPU.search(description)
        if match is None:
            return None
        return f"gpu {_GPU_NAMES[match.group('model').lower()]}"
    match = _GCP_PART.search(description)
    if match is None:
        return None
    part = "core" if match.group("part").lower() in ("core", "cpu") else "ram"
    family = {"a2": "A2", "a3": "A3", "a3 mega": "A3 Mega", "g2": "G2"}[
        match.group("family").lower()
    ]
    return f"{family} {part}"


# --- the import ------------------------------------------------------------------------------


def read(provider: str, texts: list[str], region: str) -> list[PublishedRate]:
    """The rates of ``provider``'s file(s) (``aws``, ``azure`` or ``gcp``) in ``region``."""
    if provider == "aws":
        if len(texts) != 1:
            raise ProviderFileError(["--file: an AWS offer file is one file"])
        return read_aws_offer(texts[0], region)
    if provider == "azure":
        return read_azure_pages(texts, region)
    if provider == "gcp":
        return read_gcp_skus(texts, region)
    raise ProviderFileError([f"--provider: '{provider}' is not one of aws, azure, gcp"])


def gpu_of(provider: str, instance_type: str) -> tuple[str, int | None] | None:
    """The catalog GPU model slug and count (None: the file says) of an instance type."""
    name = instance_type.lower()
    if provider == "Google Cloud":
        machine = GCP_MACHINES.get(name)
        return (machine.gpu_model, machine.gpu_count) if machine else None
    if provider == "AWS":
        for prefix, slug in AWS_FAMILIES:
            if name.startswith(prefix):
                return slug, None
    if provider == "Microsoft Azure":
        for prefix, suffix, slug in AZURE_FAMILIES:
            if name.startswith(prefix) and name.endswith(suffix):
                return slug, AZURE_GPU_COUNTS.get(name)
    return None


def import_published(
    rates: list[PublishedRate],
    *,
    provider: str,
    as_of: datetime.date,
    source: str,
    region: str | None = None,
    dry_run: bool = False,
) -> RateReport:
    """Compare the published rates with the catalog's and add the new ones, all or nothing."""
    name = PROVIDERS.get(provider, provider)
    known = selectors.offerings_by_provider_and_type(name)
    report = RateReport()
    plan = RatePlan()
    errors: list[str] = []
    new_types: dict[str, list[PublishedRate]] = {}
    note = f"read from {name}'s own price file"
    note_zh = "取自服务商自己的价格文件"
    for rate in rates:
        offerings = [
            o
            for o in known.get((rate.instance_type.lower(), rate.mode), [])
            if o.region.lower() == rate.region.lower()
        ]
        for offering in offerings:
            if rate.gpu_count and rate.gpu_count != offering.gpu_count:
                report.skipped.append(
                    f"{rate.where}: {offering.slug}: the file's instance has {rate.gpu_count} "
                    f"GPUs, the offering {offering.gpu_count}"
                )
                continue
            plan_rate(
                offering,
                rate.price,
                currency="USD",
                as_of=as_of,
                source=source,
                note=f"{rate.instance_type} {rate.mode} in {rate.region}, {note}",
                note_zh=f"{rate.region} 区域的 {rate.instance_type}（{rate.mode}），{note_zh}",
                where=rate.where,
                plan=plan,
                report=report,
                errors=errors,
            )
        if offerings:
            continue
        if region is not None and gpu_of(name, rate.instance_type) is not None:
            new_types.setdefault(rate.instance_type, []).append(rate)
        elif gpu_of(name, rate.instance_type) is not None:
            report.not_in_catalog.append(
                f"{rate.instance_type} {rate.mode} {rate.region}: no offering in the catalog "
                "(give --region to add new offerings)"
            )
    for instance_type, its_rates in new_types.items():
        _plan_new_offerings(name, instance_type, its_rates, as_of, source, plan, report)
    if errors:
        raise ProviderFileError(errors)
    if not dry_run:
        try:
            apply_plan(plan)
        except IntegrityError as exc:
            raise ProviderFileError([f"(database): {exc}"]) from None
    return report


def _plan_new_offerings(
    provider: str,
    instance_type: str,
    rates: list[PublishedRate],
    as_of: datetime.date,
    source: str,
    plan: RatePlan,
    report: RateReport,
) -> None:
    found = gpu_of(provider, instance_type)
    assert found is not None
    slug, count = found
    count = count or next((r.gpu_count for r in rates if r.gpu_count), None)
    gpu = selectors.by_slug(GpuModel, slug)
    if gpu is None or not count:
        reason = f"GPU model '{slug}' is not in the catalog" if gpu is None else "GPU count unknown"
        report.skipped.append(f"{instance_type} {rates[0].region}: {reason}")
        return
    efficiency = Decimal(1)
    if count > 1:
        efficiency = selectors.scaling_efficiency_of_like_offerings(gpu, count) or Decimal("0.900")
    by_mode = {r.mode: r for r in rates}
    on_demand: CloudOffering | None = None
    provider_zh = PROVIDER_NAMES_ZH.get(provider, provider)
    for mode in PricingMode:
        rate = by_mode.get(mode)
        if rate is None:
            continue
        term = {PricingMode.COMMIT_1Y: 12, PricingMode.COMMIT_3Y: 36}.get(mode)
        if term is not None and on_demand is None:
            report.skipped.append(
                f"{rate.where}: {instance_type} {mode}: no on-demand rate to pay hours beyond "
                "the commitment"
            )
            continue
        offering = CloudOffering(
            slug=offering_slug(provider, instance_type, rate.region, mode),
            provider=provider,
            instance_type=instance_type,
            name_zh=(
                f"{provider_zh} {instance_type}（{count}×{gpu.name_zh or gpu.name}）{MODE_ZH[mode]}"
            ),
            region=rate.region,
            gpu_model=gpu,
            gpu_count=count,
            pricing_mode=mode,
            scaling_efficiency=efficiency,
            commitment_term_months=term,
            on_demand_sibling=on_demand if term is not None else None,
            note=f"Added by catalog_refresh from {provider}'s own price file on {as_of}.",
            note_zh=f"由 catalog_refresh 于 {as_of} 从服务商自己的价格文件添加。",
        )
        if mode == PricingMode.ON_DEMAND:
            on_demand = offering
        if mode == PricingMode.SPOT:
            offering.rework_fraction = Decimal("0.100")
            offering.rework_estimate = True
            offering.rework_source = (
                "Estimate: a tenth more instance-hours for interruptions (checkpoint every "
                "~30 min, a few preemptions a day), until measured"
            )
            offering.rework_source_zh = (
                "估计：中断多花十分之一的实例小时（约每 30 分钟保存检查点，每天被抢占数次），待实测"
            )
        price = stored_amount(rate.price)
        plan.offerings.append(
            (
                offering,
                [
                    CloudRate(
                        hourly_rate=price,
                        currency="USD",
                        effective_date=as_of,
                        source=source,
                        note=f"{instance_type} {mode} in {rate.region}, read from the provider's "
                        "own price file",
                        note_zh=(
                            f"{rate.region} 区域的 {instance_type}（{mode}），"
                            "取自服务商自己的价格文件"
                        ),
                    )
                ],
            )
        )
        report.new_offerings.append(
            f"{offering.slug}: {provider} {instance_type} ({mode}), {count} × {gpu.slug} "
            f"({gpu.vram_gb} GB each), {price} USD from {as_of.isoformat()}"
        )
