"""Dated cloud rates from a SkyPilot catalog file (``vms.csv`` of one provider).

SkyPilot (github.com/skypilot-org/skypilot-catalog) publishes, per provider, a
CSV with the columns ``InstanceType, AcceleratorName, AcceleratorCount, vCPUs,
MemoryGiB, Price, Region, GpuInfo, SpotPrice`` (some providers add or reorder
columns: they are read by name). ``Price`` is the on-demand and ``SpotPrice``
the spot price of one instance-hour in US dollars.

:func:`import_skypilot` adds one dated rate point per matching offering:

- an offering matches a row when its provider is the ``provider`` given (any
  case), its instance type is the row's ``InstanceType`` (any case) and its
  region is the row's ``Region``; on-demand offerings take ``Price``, spot
  offerings ``SpotPrice`` (a blank spot price adds nothing);
- with ``region`` given, rows of that region whose instance type the catalog
  does not have yet become new offerings (on-demand, and spot when priced),
  but only when ``AcceleratorName`` is the SkyPilot name of exactly one GPU
  model of the catalog (``GpuModel.skypilot_name``);
- everything else is listed as skipped, with the reason.

All or nothing like the price CSV import: every row is checked first, and a
rate that would overwrite a different price of the same offering and date is
an error. ``dry_run`` reports without writing.
"""

from __future__ import annotations

import csv
import datetime
import io
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from django.db import IntegrityError, transaction
from django.utils.text import slugify

from webapp.catalog import selectors
from webapp.catalog.models import CloudOffering, CloudRate, GpuModel, PricingMode

REQUIRED_COLUMNS = ["InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region"]
MAX_ROWS = 200_000
RATE_PLACES = 4
"""Decimal places of a stored hourly rate; SkyPilot's prices are rounded to these."""


class SkyPilotImportError(ValueError):
    """The file cannot be imported; ``errors`` are ``row N: column: message`` lines."""

    def __init__(self, errors: list[str]) -> None:
        self.errors = errors
        super().__init__("; ".join(errors))


@dataclass(frozen=True)
class VmRow:
    number: int
    instance_type: str
    accelerator: str
    accelerator_count: int
    region: str
    price: Decimal | None
    spot_price: Decimal | None


@dataclass
class SkyPilotReport:
    added: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    new_offerings: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def _price(raw: str | None, number: int, column: str, errors: list[str]) -> Decimal | None:
    text = (raw or "").strip()
    if not text:
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        errors.append(f"row {number}: {column}: '{text}' is not a number")
        return None
    if not value.is_finite() or value < 0:
        errors.append(f"row {number}: {column}: must be a finite number ≥ 0")
        return None
    if value.adjusted() >= 8:
        errors.append(f"row {number}: {column}: is too large")
        return None
    return value.quantize(Decimal(1).scaleb(-RATE_PLACES))


def parse_vms_csv(text: str) -> list[VmRow]:
    """Validate a ``vms.csv``; every problem raises together in one :class:`SkyPilotImportError`."""
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = [h.strip() for h in (reader.fieldnames or [])]
    if not header:
        raise SkyPilotImportError(["row 1: columns: the file is empty (a header row is required)"])
    reader.fieldnames = header
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise SkyPilotImportError([f"row 1: columns: missing '{c}'" for c in missing])
    rows: list[VmRow] = []
    errors: list[str] = []
    for index, raw in enumerate(reader):
        number = index + 2
        if number - 1 > MAX_ROWS:
            raise SkyPilotImportError([f"row {number}: the file has more than {MAX_ROWS} rows"])
        if None in raw:
            errors.append(f"row {number}: columns: more cells than the header has columns")
            continue
        if not any((v or "").strip() for v in raw.values()):
            continue
        instance_type = (raw.get("InstanceType") or "").strip()
        if not instance_type:
            errors.append(f"row {number}: InstanceType: is required")
            continue
        count_text = (raw.get("AcceleratorCount") or "").strip()
        try:
            count = int(float(count_text)) if count_text else 0
        except ValueError:
            errors.append(f"row {number}: AcceleratorCount: '{count_text}' is not a number")
            continue
        rows.append(
            VmRow(
                number=number,
                instance_type=instance_type,
                accelerator=(raw.get("AcceleratorName") or "").strip(),
                accelerator_count=count,
                region=(raw.get("Region") or "").strip(),
                price=_price(raw.get("Price"), number, "Price", errors),
                spot_price=_price(raw.get("SpotPrice"), number, "SpotPrice", errors),
            )
        )
    if errors:
        raise SkyPilotImportError(errors)
    return rows


def _describe(offering: CloudOffering, rate: Decimal, as_of: datetime.date) -> str:
    return f"cloud_offering {offering.slug} {rate} USD from {as_of.isoformat()}"


@dataclass
class _Plan:
    """What the import would do: rate points to add, offerings to create."""

    rates: list[CloudRate] = field(default_factory=list)
    offerings: list[tuple[CloudOffering, list[CloudRate]]] = field(default_factory=list)


def import_skypilot(
    text: str,
    *,
    provider: str,
    as_of: datetime.date,
    region: str | None = None,
    source: str | None = None,
    dry_run: bool = False,
) -> SkyPilotReport:
    """Add the file's on-demand and spot rates to the provider's offerings, all or nothing."""
    rows = parse_vms_csv(text)
    source = source or f"SkyPilot catalog vms.csv for {provider} (skypilot-org/skypilot-catalog)"
    known = selectors.offerings_by_provider_and_type(provider)
    gpus = selectors.gpu_models_by_skypilot_name()
    report = SkyPilotReport()
    plan = _Plan()
    errors: list[str] = []
    seen: dict[tuple[str, datetime.date], int] = {}
    new_types: dict[str, VmRow] = {}
    for row in rows:
        key = row.instance_type.lower()
        modes = {
            PricingMode.ON_DEMAND: row.price,
            PricingMode.SPOT: row.spot_price,
        }
        matched_any = False
        matched_region = False
        for mode, price in modes.items():
            offerings = known.get((key, mode), [])
            in_region = [o for o in offerings if o.region.lower() == row.region.lower()]
            matched_any = matched_any or bool(offerings)
            matched_region = matched_region or bool(in_region)
            for offering in in_region:
                if price is None:
                    report.skipped.append(
                        f"row {row.number}: {row.instance_type} {row.region}: no {mode} price"
                    )
                    continue
                if (offering.slug, as_of) in seen:
                    errors.append(
                        f"row {row.number}: {offering.slug}: also priced by row "
                        f"{seen[(offering.slug, as_of)]}"
                    )
                    continue
                seen[(offering.slug, as_of)] = row.number
                _plan_rate(offering, price, as_of, source, row, plan, report, errors)
        if matched_any:
            if not matched_region:
                report.skipped.append(
                    f"row {row.number}: {row.instance_type} {row.region}: the catalog's "
                    "offerings of this type are in another region"
                )
            continue
        if region is not None and row.region.lower() == region.lower():
            if key not in new_types:
                new_types[key] = row
            else:
                report.skipped.append(
                    f"row {row.number}: {row.instance_type} {row.region}: listed twice"
                )
            continue
        report.skipped.append(
            f"row {row.number}: {row.instance_type} {row.region}: no offering in the catalog"
            + ("" if region is not None else " (give --region to add new offerings)")
        )
    for row in new_types.values():
        _plan_new_offering(row, provider, region or "", gpus, as_of, source, plan, report)
    if errors:
        raise SkyPilotImportError(errors)
    if not dry_run:
        try:
            with transaction.atomic():
                for offering, rates in plan.offerings:
                    offering.save()
                    for rate in rates:
                        rate.offering = offering
                        rate.save()
                for rate in plan.rates:
                    rate.save()
        except IntegrityError as exc:
            raise SkyPilotImportError([f"(database): {exc}"]) from None
    return report


def _plan_rate(
    offering: CloudOffering,
    price: Decimal,
    as_of: datetime.date,
    source: str,
    row: VmRow,
    plan: _Plan,
    report: SkyPilotReport,
    errors: list[str],
) -> None:
    existing = selectors.rate_on_date(offering, as_of)
    if existing is not None:
        if existing.hourly_rate == price and existing.currency == "USD":
            report.unchanged.append(_describe(offering, price, as_of))
        else:
            errors.append(
                f"row {row.number}: {offering.slug} already has {existing.hourly_rate} "
                f"{existing.currency} from {as_of.isoformat()}; prices are never overwritten, "
                "use a new --as-of date"
            )
        return
    plan.rates.append(
        CloudRate(
            offering=offering,
            hourly_rate=price,
            currency="USD",
            effective_date=as_of,
            source=source,
            note=f"{row.instance_type} in {row.region}",
        )
    )
    report.added.append(_describe(offering, price, as_of))


def _plan_new_offering(
    row: VmRow,
    provider: str,
    region: str,
    gpus: dict[str, list[GpuModel]],
    as_of: datetime.date,
    source: str,
    plan: _Plan,
    report: SkyPilotReport,
) -> None:
    candidates = gpus.get(row.accelerator.lower(), [])
    where = f"row {row.number}: {row.instance_type} {row.region}"
    if len(candidates) != 1 or row.accelerator_count < 1:
        reason = (
            "no accelerator"
            if not row.accelerator or row.accelerator_count < 1
            else f"GPU '{row.accelerator}' is not in the catalog"
            if not candidates
            else f"GPU '{row.accelerator}' matches several catalog GPU models"
        )
        report.skipped.append(f"{where}: {reason}")
        return
    gpu = candidates[0]
    efficiency = Decimal(1)
    if row.accelerator_count > 1:
        efficiency = selectors.scaling_efficiency_of_like_offerings(
            gpu, row.accelerator_count
        ) or Decimal("0.900")
    for mode, price in ((PricingMode.ON_DEMAND, row.price), (PricingMode.SPOT, row.spot_price)):
        if price is None:
            continue
        suffix = "" if mode == PricingMode.ON_DEMAND else "-spot"
        slug = slugify(f"{provider}-{row.instance_type}-{region}")[:75] + suffix
        offering = CloudOffering(
            slug=slug,
            provider=provider,
            instance_type=row.instance_type,
            region=row.region,
            gpu_model=gpu,
            gpu_count=row.accelerator_count,
            pricing_mode=mode,
            scaling_efficiency=efficiency,
            note=f"Added by catalog_import from SkyPilot's vms.csv on {as_of.isoformat()}.",
        )
        rate = CloudRate(
            hourly_rate=price,
            currency="USD",
            effective_date=as_of,
            source=source,
            note=f"{row.instance_type} in {row.region}",
        )
        plan.offerings.append((offering, [rate]))
        report.new_offerings.append(
            f"{slug}: {provider} {row.instance_type} ({mode}), {row.accelerator_count} × "
            f"{gpu.slug}, {price} USD from {as_of.isoformat()}"
        )
