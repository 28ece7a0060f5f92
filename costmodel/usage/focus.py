"""Cloud bills in FOCUS 1.x, the FinOps Open Cost and Usage Specification: one reader for
AWS, Microsoft Azure, Google Cloud and Oracle Cloud exports.

A FOCUS row is a charge over ``[ChargePeriodStart, ChargePeriodEnd)`` of
``ConsumedQuantity`` in ``ConsumedUnit``. Rows of ``ChargeCategory`` Usage
measured in hours are instance-hours; the instance type is read where each
provider puts it (the specification leaves it to the provider):

1. ``SkuPriceDetails`` (the specification's key-value column, JSON): a key
   ``InstanceType``, ``VMSize``, ``MachineType`` or ``ServiceType``;
2. an ``x_`` column (provider extensions): ``x_InstanceType``, AWS's
   ``x_UsageType`` (``USE1-BoxUsage:p4d.24xlarge``), Azure's ``x_SkuDetails``
   (JSON, ``ServiceType``/``VMSize``) or ``x_SkuMeterName``;
3. the ``ChargeDescription``: AWS's ``… per On Demand Linux g5.4xlarge
   Instance Hour``, Azure's ``Virtual Machines NCads A100 v4 Series - NC24ads
   A100 v4 - US East`` (→ ``Standard_NC24ads_A100_v4``), and Google Cloud's
   GPU SKUs ``Nvidia Tesla A100 GPU running in Americas``, which are GPU-hours
   themselves.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Mapping

import numpy as np

from costmodel.usage.bills import known_rows
from costmodel.usage.bounds import (
    BILL_PERIOD_AHEAD_S,
    CLOCK_LEEWAY_S,
    check_gpus_at_once,
    check_times,
)
from costmodel.usage.errors import fail
from costmodel.usage.months import MeasuredUsage, peak_concurrency, report
from costmodel.usage.notices import (
    RowSkipped,
    field_count,
)
from costmodel.usage.text import check_text, numbers, timestamps

GPU_SKU = "gpu:"
"""Prefix of a Google Cloud GPU SKU read as its own kind: one GPU per unit."""

_HOURS = re.compile(r"^(1 )?(hours?|hrs?|h)$", re.IGNORECASE)
_DETAIL_KEYS = ("InstanceType", "x_InstanceType", "VMSize", "MachineType", "ServiceType")
_AWS_USAGE_TYPE = re.compile(r"(?:^|-)(?:BoxUsage|SpotUsage|HeavyUsage|DedicatedUsage)[^:]*:(.+)$")
_AWS_DESCRIPTION = re.compile(
    r"\b(?:On Demand|Spot|Reserved|Dedicated)\b.* (\S+\.\S+) Instance Hour"
)
_AZURE_DESCRIPTION = re.compile(r"^Virtual Machines .*? - ([A-Z][^/]*?)(?:/[^-]*)? - ")
_GCP_GPU = re.compile(r"^(Nvidia [\w -]+?) GPU (?:running|attached)", re.IGNORECASE)


def _detail(value: str, keys: tuple[str, ...]) -> str:
    """The first of ``keys`` in a JSON object text (``SkuPriceDetails``), or ""."""
    value = value.strip()
    if not value.startswith("{"):
        return ""
    try:
        details = json.loads(value)
    except ValueError:
        return ""
    if not isinstance(details, dict):
        return ""
    return next((str(details[k]) for k in keys if details.get(k)), "")


def instance_type(row: Mapping[str, str]) -> str:
    """Where the provider puts the instance type (module docstring), or ""."""
    found = (
        _detail(row.get("SkuPriceDetails", ""), _DETAIL_KEYS)
        or row.get("x_InstanceType", "").strip()
    )
    if not found and row.get("x_UsageType"):
        match = _AWS_USAGE_TYPE.search(row["x_UsageType"].strip())
        found = match.group(1) if match else ""
    if not found and row.get("x_SkuDetails"):
        found = _detail(row["x_SkuDetails"], ("ServiceType", "VMSize", "VmSize"))
    if not found and row.get("x_SkuMeterName", "").strip():
        found = _azure_size(row["x_SkuMeterName"].strip())
    description = row.get("ChargeDescription", "").strip()
    if not found and description:
        aws = _AWS_DESCRIPTION.search(description)
        azure = _AZURE_DESCRIPTION.search(description)
        gpu = _GCP_GPU.search(description)
        if aws:
            found = aws.group(1)
        elif azure:
            found = _azure_size(azure.group(1))
        elif gpu:
            found = GPU_SKU + gpu.group(1)
    return found


def _azure_size(meter: str) -> str:
    """An Azure meter name as its VM size: ``NC24ads A100 v4`` → ``Standard_NC24ads_A100_v4``."""
    meter = meter.replace(" Spot", "").replace(" Low Priority", "").strip()
    if meter.startswith("Standard_") or not re.match(r"^[A-Z]+\d", meter):
        return meter
    return "Standard_" + meter.replace(" ", "_")


REQUIRED = ("ChargePeriodStart", "ChargePeriodEnd", "ChargeCategory")


def read_focus(
    text: str, gpus_per_instance: Mapping[str, tuple[int, str]], *, now: float | None = None
) -> MeasuredUsage:
    """Read a FOCUS 1.x cost and usage CSV of any provider.

    Parameters
    ----------
    text : str
        The export: ``ChargePeriodStart``, ``ChargePeriodEnd``, ``ChargeCategory``
        and ``ConsumedQuantity``/``ConsumedUnit`` (else ``PricingQuantity``/
        ``PricingUnit``); ISO dates, with or without a UTC offset.
    gpus_per_instance : mapping
        Instance type → (GPUs per instance, GPU model name), from the catalog's offerings.
    now : float, optional
        The time of reading [Unix s], default the clock's.

    Returns
    -------
    MeasuredUsage
        ``ConsumedQuantity [instance-h] × GPUs`` per Usage row in hours, spread over its
        charge period. Instance types not in the mapping are reported with their hours.

    Raises
    ------
    UsageError
        ``not_focus`` (the header lacks the columns), ``no_focus_usage``,
        ``unreadable_bill_dates`` (no row's dates can be read, naming the first), or
        ``no_known_gpu_instance`` listing the instance types seen with their hours; the
        bounds of :mod:`costmodel.usage.bounds` (``time_too_early``, ``time_in_future``:
        a ChargePeriodStart later than ``now`` plus a day, a ChargePeriodEnd more than 32
        days after it; ``usage_above_limit``), naming the line.
    """
    check_text(text)
    reader = csv.DictReader(io.StringIO(text))
    header = [h.strip() for h in reader.fieldnames or []]
    reader.fieldnames = header
    quantity = "ConsumedQuantity" if "ConsumedQuantity" in header else "PricingQuantity"
    unit = "ConsumedUnit" if "ConsumedUnit" in header else "PricingUnit"
    missing = [c for c in (*REQUIRED, quantity, unit) if c not in header]
    if missing:
        raise fail(
            f"line 1: is not a FOCUS header: it has no {', '.join(missing)} column (export "
            "the provider's FOCUS 1.x cost and usage data)",
            "not_focus",
            line=1,
            columns=", ".join(missing),
        )
    starts, ends, amounts, types, where = [], [], [], [], []
    skipped: list[RowSkipped] = []
    width = len(header)
    for number, row in enumerate(reader, start=2):
        if None in row or any(v is None for v in row.values()):
            count = (
                width + len(row.get(None) or [])
                if None in row
                else sum(v is not None for v in row.values())
            )
            skipped.append(field_count(number, count, width))
            continue
        if row["ChargeCategory"].strip().lower() != "usage":
            continue
        if not _HOURS.match(row[unit].strip()):
            continue
        kind = instance_type(row)
        if not kind:
            continue  # storage, transfer, a NAT gateway: hours, but not of an instance
        starts.append(row["ChargePeriodStart"])
        ends.append(row["ChargePeriodEnd"])
        amounts.append(row[quantity])
        types.append(kind)
        where.append(number)
    if not starts:
        raise fail(
            "line 2: the bill has no usage in hours of an instance type (ChargeCategory Usage, "
            "ConsumedUnit Hours)",
            "no_focus_usage",
            line=2,
        )
    start_s, bad_start = timestamps(starts)
    end_s, bad_end = timestamps(ends)
    amount, bad_amount = numbers(amounts)
    bad = bad_start | bad_end | bad_amount
    if (bad_start | bad_end).all():
        line = where[0]
        raise fail(
            f"line {line}: the start {starts[0].strip()} is not a date and time "
            "(ISO 8601, 2026-10-01T00:00:00Z or +00:00)",
            "unreadable_bill_dates",
            line=line,
            date=starts[0].strip(),
        )
    skipped += [
        RowSkipped(line=where[i], reason="unreadable_date_or_amount") for i in np.flatnonzero(bad)
    ]

    def place(i: int) -> dict[str, int | str]:
        return {"line": where[i]}

    check_times(
        [
            ("ChargePeriodStart", start_s, CLOCK_LEEWAY_S),
            ("ChargePeriodEnd", end_s, BILL_PERIOD_AHEAD_S),
        ],
        place,
        now,
        readable=~(bad_start | bad_end),
    )
    mapping = dict(gpus_per_instance)
    for kind in set(types):
        if kind.startswith(GPU_SKU):
            mapping[kind] = (1, kind.removeprefix(GPU_SKU))
    gpus = np.array([mapping[t][0] if t in mapping else 0 for t in types])
    check_gpus_at_once(amount, (end_s - start_s) / 3600, gpus, types, quantity, place, ~bad)
    known = np.array([t in mapping for t in types])
    use, notices = known_rows(types, known, bad, amount, skipped)
    models = sorted({mapping[types[i]][1] for i in np.flatnonzero(use)})
    start_u, end_u = start_s[use], np.maximum(end_s[use], start_s[use])
    gpu_hours = amount[use] * gpus[use]
    length_h = np.maximum(end_u - start_u, 1.0) / 3600
    busy = (start_u, end_u, gpu_hours)
    observed = (start_s[~bad], np.maximum(end_s[~bad], start_s[~bad]))
    peak = peak_concurrency(start_u, end_u, gpu_hours / length_h)
    return report(busy, observed, int(np.ceil(peak - 1e-9)), models, notices)
