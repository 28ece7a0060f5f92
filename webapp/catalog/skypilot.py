"""Dated cloud rates from a SkyPilot catalog file (``vms.csv`` of one provider).

SkyPilot (github.com/skypilot-org/skypilot-catalog) publishes, per provider, a
CSV of instance types with the columns ``InstanceType, AcceleratorName,
AcceleratorCount, vCPUs, MemoryGiB, GpuInfo, Price, SpotPrice, Region`` and,
for AWS and GCP, ``AvailabilityZone``. Providers order the columns
differently: they are read by name. ``Price`` is the on-demand and
``SpotPrice`` the spot price of one instance-hour in US dollars.

The files are read as published:

- **One rate per region.** AWS and GCP list every availability zone on a row of
  its own (AWS sometimes twice, once without a spot price). The rows of an
  instance type in a region are aggregated to the region's **median** zone
  price, blank cells left out. On-demand prices are the same in every zone of a
  region, so the median is that price; spot prices differ by zone, and the
  median is what a job placed in any zone of the region typically pays, where
  the minimum would assume the cheapest zone always has spare capacity.
- **GCP accelerators are priced apart.** A GCP accelerator row has an empty
  ``InstanceType`` and prices the GPUs alone; the a2/a3 host rows price the
  host alone. A host's rate is its price plus the price of its GPUs (the
  accelerator and count that machine family carries, ``a3-highgpu-8g``: 8 ×
  H100) in the same zone, so that the rate is what the instance costs.
- **The GPU variant comes from memory and form factor.** The catalog GPU model
  of a row is the one whose SkyPilot name is of the same family (``A100``,
  ``A100-80GB`` and ``A100-80GB-SXM`` are all A100s), whose memory is the
  row's memory per GPU (``GpuInfo``, else the ``80GB`` in the name), and whose
  form factor (SXM or PCIe, read from the GPU model's name) is the instance's:
  SXM when the instance or accelerator name says so or the machine is an
  HGX/SXM family (AWS p4d/p4de/p5, GCP a2/a3, Azure ND), PCIe when the name
  says so, Azure's NC machines, and RunPod's unmarked names (RunPod marks its
  SXM GPUs ``-SXM``). An offering whose GPU model or count is not the row's is
  skipped with the reason, never priced from another variant's row.

:func:`import_skypilot` compares each region rate with the offering's rate in
effect on the date given:

- an offering matches when its provider is the ``provider`` given (any case;
  SkyPilot's cloud names ``aws``, ``gcp``, ``azure``, ``lambda``, ``runpod``
  name the catalog's providers too), its instance type is the row's
  ``InstanceType`` (any case) and its region the row's ``Region``; on-demand
  offerings take ``Price``, spot offerings ``SpotPrice``;
- a rate equal to the one in effect is *unchanged* (nothing is written); a
  different one is *changed* (a new dated rate, the old stays as history,
  reported with its change in per cent); an offering without any rate yet gets
  a *new* rate;
- with ``region`` given, that region's instance types the catalog does not have
  become *new offerings* (on-demand, and spot when priced) when their GPU model
  is found as above;
- everything else is *skipped*, with the reason.

All or nothing: every row is checked first, and a rate that would overwrite a
different price of the same offering and date is an error. ``dry_run`` (what
``catalog_import`` does unless told ``--apply``) reports without writing.
"""

from __future__ import annotations

import ast
import csv
import datetime
import io
import re
import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from django.db import IntegrityError
from django.utils.text import slugify

from webapp.catalog import selectors
from webapp.catalog.importer import NUL_MESSAGE, csv_error
from webapp.catalog.models import CloudOffering, CloudRate, GpuModel, PricingMode
from webapp.catalog.rate_import import (
    RATE_PLACES,
    RateImportError,
    RatePlan,
    RateReport,
    apply_plan,
    plan_rate,
)

REQUIRED_COLUMNS = ["InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region"]
MAX_ROWS = 200_000
MAX_GPU_INFO_CHARS = 2_000
"""A ``GpuInfo`` cell longer than this is not parsed (real ones are under 200 characters)."""

PROVIDER_NAMES = {
    "aws": "AWS",
    "gcp": "Google Cloud",
    "azure": "Microsoft Azure",
    "lambda": "Lambda",
    "runpod": "RunPod",
}
"""SkyPilot's cloud names → the providers' names in the catalog."""

PROVIDER_NAMES_ZH = {
    "AWS": "AWS",
    "Google Cloud": "谷歌云",
    "Microsoft Azure": "微软 Azure",
    "Lambda": "Lambda",
    "RunPod": "RunPod",
}

GCP_HOST_ACCELERATORS = {
    "a2-highgpu": "A100",
    "a2-megagpu": "A100",
    "a2-ultragpu": "A100-80GB",
    "a3-highgpu": "H100",
    "a3-edgegpu": "H100",
    "a3-megagpu": "H100-MEGA",
}
"""GCP machine family → the accelerator its ``-Ng`` machine types carry N of."""
_GCP_HOST = re.compile(r"^(?P<family>[a-z][a-z0-9]*-[a-z]+gpu)-(?P<count>\d+)g(-.*)?$")

_SXM_INSTANCE_PREFIXES = ("p4d.", "p4de.", "p5.", "p5e.", "p5en.", "a2-", "a3-", "standard_nd")
_PCIE_INSTANCE_PREFIXES = ("standard_nc",)
_PCIE_UNLESS_MARKED = {"runpod"}
_FAMILY_SUFFIX = re.compile(r"-(\d+GB|SXM\d?|PCIE|MEGA|NVL)$", re.IGNORECASE)
_MEMORY_IN_NAME = re.compile(r"(\d+)\s*GB", re.IGNORECASE)


class SkyPilotImportError(RateImportError):
    """The file cannot be imported; ``errors`` are ``row N: column: message`` lines."""


@dataclass(frozen=True)
class VmRow:
    """One row of the file, as read."""

    number: int
    instance_type: str
    accelerator: str
    accelerator_count: int
    region: str
    zone: str
    price: Decimal | None
    spot_price: Decimal | None
    gpu_memory_gb: int | None


@dataclass(frozen=True)
class RegionRate:
    """An instance type's rates in one region: the median of its zone rows [USD/h]."""

    instance_type: str
    region: str
    accelerator: str
    accelerator_count: int
    gpu_memory_gb: int | None
    price: Decimal | None
    spot_price: Decimal | None
    rows: tuple[int, ...]
    exact_price: Decimal | None = None
    """The median as computed, before rounding to the stored places (compared with the
    stored rate: a difference below the stored precision is no change)."""
    exact_spot_price: Decimal | None = None

    @property
    def where(self) -> str:
        rows = ", ".join(str(n) for n in self.rows[:3]) + ("…" if len(self.rows) > 3 else "")
        return f"{self.instance_type} {self.region} (row{'s' if len(self.rows) > 1 else ''} {rows})"


SkyPilotReport = RateReport
"""What an import adds, changes, leaves and skips (the report every rate import gives)."""


def _price(raw: str | None, number: int, column: str, errors: list[str]) -> Decimal | None:
    text = (raw or "").strip()
    if not text:
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        errors.append(f"row {number}: {column}: '{text[:40]}' is not a number")
        return None
    if not value.is_finite() or value < 0:
        errors.append(f"row {number}: {column}: must be a finite number ≥ 0")
        return None
    if value.adjusted() >= 8:
        errors.append(f"row {number}: {column}: is too large")
        return None
    return value


def _gpu_memory_gb(gpu_info: str, accelerator: str) -> int | None:
    """Memory of one GPU [GB] from ``GpuInfo`` (``MemoryInfo.SizeInMiB``), else from the name."""
    text = gpu_info.strip()
    if text.startswith("{") and len(text) <= MAX_GPU_INFO_CHARS:
        try:
            info = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            info = None
        try:
            mib = info["Gpus"][0]["MemoryInfo"]["SizeInMiB"]
        except (TypeError, KeyError, IndexError):
            mib = None
        if isinstance(mib, int | float) and mib > 0:
            return round(mib / 1024)
    match = _MEMORY_IN_NAME.search(accelerator) or _MEMORY_IN_NAME.search(text)
    return int(match.group(1)) if match else None


def _reader(text: str) -> csv.DictReader[str]:
    return csv.DictReader(io.StringIO(text, newline=""), strict=True)


def parse_vms_csv(text: str) -> list[VmRow]:
    """Validate a ``vms.csv``; every problem raises together in one :class:`SkyPilotImportError`."""
    reader = _reader(text)
    try:
        fieldnames = reader.fieldnames
    except csv.Error as exc:
        raise SkyPilotImportError([f"row 1: not readable as CSV ({exc})"]) from None
    header = [h.strip() for h in (fieldnames or [])]
    if not header:
        raise SkyPilotImportError(["row 1: columns: the file is empty (a header row is required)"])
    if any("\x00" in h for h in header):
        raise SkyPilotImportError([f"row 1: columns: {NUL_MESSAGE}"])
    reader.fieldnames = header
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise SkyPilotImportError([f"row 1: columns: missing '{c}'" for c in missing])
    rows: list[VmRow] = []
    errors: list[str] = []
    number = 1
    while True:
        number += 1
        try:
            raw = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            errors.append(csv_error(number, exc))
            break
        if number - 1 > MAX_ROWS:
            errors.append(f"row {number}: the file has more than {MAX_ROWS} rows")
            break
        if None in raw:
            errors.append(f"row {number}: columns: more cells than the header has columns")
            continue
        nul = [column for column, value in raw.items() if value and "\x00" in value]
        if nul:
            errors.append(f"row {number}: {nul[0]}: {NUL_MESSAGE}")
            continue
        if not any((v or "").strip() for v in raw.values()):
            continue
        instance_type = (raw.get("InstanceType") or "").strip()
        accelerator = (raw.get("AcceleratorName") or "").strip()
        if not instance_type and not accelerator:
            errors.append(f"row {number}: InstanceType: is required (or AcceleratorName)")
            continue
        count_text = (raw.get("AcceleratorCount") or "").strip()
        try:
            count = int(float(count_text)) if count_text else 0
        except ValueError:
            errors.append(f"row {number}: AcceleratorCount: '{count_text[:40]}' is not a number")
            continue
        rows.append(
            VmRow(
                number=number,
                instance_type=instance_type,
                accelerator=accelerator,
                accelerator_count=count,
                region=(raw.get("Region") or "").strip(),
                zone=(raw.get("AvailabilityZone") or "").strip(),
                price=_price(raw.get("Price"), number, "Price", errors),
                spot_price=_price(raw.get("SpotPrice"), number, "SpotPrice", errors),
                gpu_memory_gb=_gpu_memory_gb(raw.get("GpuInfo") or "", accelerator),
            )
        )
    if errors:
        raise SkyPilotImportError(errors)
    return rows


def _add(a: Decimal | None, b: Decimal | None) -> Decimal | None:
    return None if a is None or b is None else a + b


def with_gcp_accelerators(rows: list[VmRow]) -> tuple[list[VmRow], list[str], int]:
    """Host rows with their GPUs' prices added; the skipped host rows; the accelerator rows read.

    Notes
    -----
    rate[host, zone] = Price[host, zone] + Price[accelerator × N, zone], and the
    same for ``SpotPrice``; N and the accelerator come from the host's machine
    family (:data:`GCP_HOST_ACCELERATORS`).
    """
    accelerators: dict[tuple[str, int, str, str], VmRow] = {}
    hosts: list[VmRow] = []
    for row in rows:
        if row.instance_type:
            hosts.append(row)
        else:
            key = (row.accelerator.lower(), row.accelerator_count, row.region, row.zone)
            accelerators.setdefault(key, row)
    if not accelerators:
        return rows, [], 0
    priced: list[VmRow] = []
    skipped: list[str] = []
    for row in hosts:
        match = _GCP_HOST.match(row.instance_type.lower())
        family = GCP_HOST_ACCELERATORS.get(match.group("family")) if match else None
        if match is None or family is None or row.accelerator:
            priced.append(row)
            continue
        count = int(match.group("count"))
        gpus = accelerators.get((family.lower(), count, row.region, row.zone))
        if gpus is None:
            skipped.append(
                f"row {row.number}: {row.instance_type} {row.zone or row.region}: no price for "
                f"its {count} × {family} in this zone (GCP prices the GPUs on rows of their own)"
            )
            continue
        priced.append(
            VmRow(
                number=row.number,
                instance_type=row.instance_type,
                accelerator=family,
                accelerator_count=count,
                region=row.region,
                zone=row.zone,
                price=_add(row.price, gpus.price),
                spot_price=_add(row.spot_price, gpus.spot_price),
                gpu_memory_gb=gpus.gpu_memory_gb,
            )
        )
    return priced, skipped, len(rows) - len(hosts)


def _exact_median(values: Iterable[Decimal | None]) -> Decimal | None:
    present = [v for v in values if v is not None]
    if not present:
        return None
    return Decimal(statistics.median(present))


def _median(values: Iterable[Decimal | None]) -> Decimal | None:
    exact = _exact_median(values)
    return None if exact is None else exact.quantize(Decimal(1).scaleb(-RATE_PLACES))


def by_region(rows: list[VmRow]) -> list[RegionRate]:
    """One :class:`RegionRate` per (instance type, region), in the file's order.

    Notes
    -----
    rate[type, region] = median over the region's zone rows of the price, blank
    cells left out; rounded to :data:`RATE_PLACES` places.
    """
    groups: dict[tuple[str, str], list[VmRow]] = {}
    for row in rows:
        groups.setdefault((row.instance_type.lower(), row.region.lower()), []).append(row)
    rates = []
    for group in groups.values():
        first = group[0]
        memory = next((r.gpu_memory_gb for r in group if r.gpu_memory_gb), None)
        rates.append(
            RegionRate(
                instance_type=first.instance_type,
                region=first.region,
                accelerator=first.accelerator,
                accelerator_count=first.accelerator_count,
                gpu_memory_gb=memory,
                price=_median(r.price for r in group),
                spot_price=_median(r.spot_price for r in group),
                rows=tuple(r.number for r in group),
                exact_price=_exact_median(r.price for r in group),
                exact_spot_price=_exact_median(r.spot_price for r in group),
            )
        )
    return rates


def gpu_family(name: str) -> str:
    """``A100-80GB-SXM`` → ``A100``: a SkyPilot accelerator name without memory or form factor."""
    family = name.strip().upper()
    while True:
        shorter = _FAMILY_SUFFIX.sub("", family)
        if shorter == family:
            return family
        family = shorter


def form_factor_of_instance(provider: str, instance_type: str, accelerator: str) -> str | None:
    """``sxm``, ``pcie`` or None (not said, or a card that has only one)."""
    names = f"{instance_type} {accelerator}".lower()
    if "sxm" in names:
        return "sxm"
    if "pcie" in names:
        return "pcie"
    instance = instance_type.lower()
    if instance.startswith(_SXM_INSTANCE_PREFIXES):
        return "sxm"
    if instance.startswith(_PCIE_INSTANCE_PREFIXES) or provider.lower() in _PCIE_UNLESS_MARKED:
        return "pcie"
    return None


def form_factor_of_gpu(gpu: GpuModel) -> str | None:
    name = gpu.name.lower()
    return "sxm" if "sxm" in name else "pcie" if "pcie" in name else None


def gpu_model_for(
    rate: RegionRate, provider: str, gpus: list[GpuModel]
) -> tuple[GpuModel | None, str]:
    """The catalog GPU model of a row, or None and the reason."""
    if not rate.accelerator or rate.accelerator_count < 1:
        return None, "no GPU"
    family = gpu_family(rate.accelerator)
    candidates = [g for g in gpus if g.skypilot_name and gpu_family(g.skypilot_name) == family]
    if not candidates:
        return None, f"GPU '{rate.accelerator}' is not in the catalog"
    if rate.gpu_memory_gb is not None:
        candidates = [g for g in candidates if g.vram_gb == rate.gpu_memory_gb]
    else:
        # without the memory, a variant the catalog names by a marker (H100-NVL) is the row's
        # only when the row's name carries the marker too
        marked = "NVL" in rate.accelerator.upper()
        candidates = [g for g in candidates if ("NVL" in g.skypilot_name.upper()) == marked]
    form = form_factor_of_instance(provider, rate.instance_type, rate.accelerator)
    if form is not None:
        candidates = [g for g in candidates if form_factor_of_gpu(g) in (form, None)]
    described = " ".join(
        part
        for part in (
            family,
            f"{rate.gpu_memory_gb}GB" if rate.gpu_memory_gb else "",
            {"sxm": "SXM", "pcie": "PCIe"}.get(form or "", ""),
        )
        if part
    )
    if not candidates:
        return None, f"no {described} in the catalog"
    if len(candidates) > 1:
        return (
            None,
            f"{described} matches several catalog GPU models (memory or form factor unknown)",
        )
    return candidates[0], ""


def provider_name(provider: str) -> str:
    """The catalog's name of a provider given by its SkyPilot cloud name or its own name."""
    return PROVIDER_NAMES.get(provider.strip().lower(), provider.strip())


def offering_slug(provider: str, instance_type: str, region: str, mode: str) -> str:
    """``lambda-gpu-1x-h100-pcie-us-east-1``: lowercase words joined by ``-`` only."""
    words = re.sub(r"[^a-z0-9]+", "-", f"{provider} {instance_type} {region}".lower())
    slug = slugify(words).strip("-")[:75]
    return slug if mode == PricingMode.ON_DEMAND else f"{slug}-{mode}"


_Plan = RatePlan


def import_skypilot(
    text: str,
    *,
    provider: str,
    as_of: datetime.date,
    region: str | None = None,
    source: str | None = None,
    dry_run: bool = False,
) -> SkyPilotReport:
    """Compare the file's region rates with the catalog's and add the new ones, all or nothing."""
    provider = provider_name(provider)
    vm_rows = parse_vms_csv(text)
    report = SkyPilotReport()
    vm_rows, gcp_skipped, report.accelerator_rows = with_gcp_accelerators(vm_rows)
    report.skipped.extend(gcp_skipped)
    source = source or f"SkyPilot catalog vms.csv for {provider} (skypilot-org/skypilot-catalog)"
    known = selectors.offerings_by_provider_and_type(provider)
    gpus = [g for found in selectors.gpu_models_by_skypilot_name().values() for g in found]
    plan = _Plan()
    errors: list[str] = []
    new_types: list[RegionRate] = []
    for rate in by_region(vm_rows):
        key = rate.instance_type.lower()
        modes = {
            PricingMode.ON_DEMAND: rate.exact_price,
            PricingMode.SPOT: rate.exact_spot_price,
        }
        offerings = [o for mode in modes for o in known.get((key, mode), [])]
        in_region = [o for o in offerings if o.region.lower() == rate.region.lower()]
        if in_region:
            gpu, _ = gpu_model_for(rate, provider, gpus)
            for offering in in_region:
                price = modes[PricingMode(offering.pricing_mode)]
                reason = _mismatch(offering, rate, gpu)
                if reason:
                    report.skipped.append(f"{rate.where}: {offering.slug}: {reason}")
                elif price is None:
                    report.skipped.append(
                        f"{rate.where}: {offering.slug}: the file has no "
                        f"{offering.pricing_mode} price"
                    )
                else:
                    _plan_rate(offering, price, as_of, source, rate, plan, report, errors)
        elif offerings:
            report.skipped.append(
                f"{rate.where}: the catalog's offerings of this type are in another region "
                f"({', '.join(sorted({o.region for o in offerings}))})"
            )
        elif region is not None and rate.region.lower() == region.lower():
            new_types.append(rate)
        else:
            report.not_in_catalog.append(
                f"{rate.where}: no offering in the catalog"
                + ("" if region is not None else " (give --region to add new offerings)")
            )
    for rate in new_types:
        _plan_new_offering(rate, provider, gpus, as_of, source, plan, report)
    if errors:
        raise SkyPilotImportError(errors)
    if not dry_run:
        try:
            apply_plan(plan)
        except IntegrityError as exc:
            raise SkyPilotImportError([f"(database): {exc}"]) from None
    return report


def _mismatch(offering: CloudOffering, rate: RegionRate, gpu: GpuModel | None) -> str:
    """Why the row does not price this offering, or ''."""
    if rate.accelerator_count and rate.accelerator_count != offering.gpu_count:
        return (
            f"the file's instance has {rate.accelerator_count} GPUs, the offering "
            f"{offering.gpu_count}"
        )
    if gpu is not None and gpu.pk != offering.gpu_model_id:
        return (
            f"the file's GPU is {gpu.name}, the offering's {offering.gpu_model.name} "
            "(a different variant)"
        )
    return ""


def _plan_rate(
    offering: CloudOffering,
    price: Decimal,
    as_of: datetime.date,
    source: str,
    rate: RegionRate,
    plan: RatePlan,
    report: RateReport,
    errors: list[str],
) -> None:
    plan_rate(
        offering,
        price,
        currency="USD",
        as_of=as_of,
        source=source,
        where=f"row {rate.rows[0]}",
        plan=plan,
        report=report,
        errors=errors,
        **zone_notes(rate),
    )


def zone_notes(rate: RegionRate) -> dict[str, str]:
    """The note of a rate taken from a region's zone rows, in English and Chinese."""
    where, zones = f"{rate.instance_type} in {rate.region}", len(rate.rows)
    return {
        "note": f"{where}: median of {zones} zone row(s)",
        "note_zh": f"{rate.region} 区域的 {rate.instance_type}：{zones} 条可用区记录的中位数",
    }


def _plan_new_offering(
    rate: RegionRate,
    provider: str,
    gpus: list[GpuModel],
    as_of: datetime.date,
    source: str,
    plan: _Plan,
    report: SkyPilotReport,
) -> None:
    gpu, reason = gpu_model_for(rate, provider, gpus)
    if gpu is None:
        report.skipped.append(f"{rate.where}: {reason}")
        return
    efficiency = Decimal(1)
    if rate.accelerator_count > 1:
        efficiency = selectors.scaling_efficiency_of_like_offerings(
            gpu, rate.accelerator_count
        ) or Decimal("0.900")
    provider_zh = PROVIDER_NAMES_ZH.get(provider, provider)
    for mode, price in ((PricingMode.ON_DEMAND, rate.price), (PricingMode.SPOT, rate.spot_price)):
        if price is None:
            continue
        slug = offering_slug(provider, rate.instance_type, rate.region, mode)
        mode_zh = "按需实例" if mode == PricingMode.ON_DEMAND else "抢占式实例"
        offering = CloudOffering(
            slug=slug,
            provider=provider,
            instance_type=rate.instance_type,
            name_zh=f"{provider_zh} {rate.accelerator_count}×{gpu.name_zh or gpu.name} {mode_zh}",
            region=rate.region,
            gpu_model=gpu,
            gpu_count=rate.accelerator_count,
            pricing_mode=mode,
            scaling_efficiency=efficiency,
            note=f"Added by catalog_import from SkyPilot's vms.csv on {as_of.isoformat()}.",
            note_zh=f"由 catalog_import 于 {as_of.isoformat()} 从 SkyPilot 的 vms.csv 添加。",
        )
        new_rate = CloudRate(
            hourly_rate=price,
            currency="USD",
            effective_date=as_of,
            source=source,
            **zone_notes(rate),
        )
        plan.offerings.append((offering, [new_rate]))
        report.new_offerings.append(
            f"{slug}: {provider} {rate.instance_type} ({mode}), {rate.accelerator_count} × "
            f"{gpu.slug}, {price} USD from {as_of.isoformat()}"
        )
