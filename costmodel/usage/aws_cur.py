"""The AWS Cost and Usage Report."""

from __future__ import annotations

import csv
import io
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

_INSTANCE_USAGE = re.compile(r"(?:^|-)(?:BoxUsage|SpotUsage|HeavyUsage|DedicatedUsage)[^:]*:(.+)$")


_CUR_2_NAMES = {
    "line_item_usage_start_date": "lineItem/UsageStartDate",
    "line_item_usage_end_date": "lineItem/UsageEndDate",
    "line_item_usage_type": "lineItem/UsageType",
    "line_item_usage_amount": "lineItem/UsageAmount",
    "line_item_line_item_type": "lineItem/LineItemType",
    "product_instance_type": "product/instanceType",
}
"""Column names of the CUR 2.0 data export, as the legacy report names them."""


def read_aws_cur(
    text: str, gpus_per_instance: Mapping[str, tuple[int, str]], *, now: float | None = None
) -> MeasuredUsage:
    """Read an AWS Cost and Usage Report CSV.

    Parameters
    ----------
    text : str
        The report: ``lineItem/UsageStartDate``, ``lineItem/UsageAmount``
        [instance-h] and ``product/instanceType`` or ``lineItem/UsageType``
        (``USE1-BoxUsage:p4d.24xlarge``); ``lineItem/UsageEndDate`` optional. The
        CUR 2.0 export's names (``line_item_usage_start_date`` …) are read as well.
    gpus_per_instance : mapping
        Instance type → (GPUs per instance, GPU model name), from the catalog's offerings.
    now : float, optional
        The time of reading [Unix s], default the clock's.

    Returns
    -------
    MeasuredUsage
        ``UsageAmount × GPUs`` per line item, spread over its usage period.
        Instance types not in the mapping are reported, not guessed; rows that
        are not instance usage (storage, tax, credits) are left out.

    Raises
    ------
    UsageError
        Naming the line; among others the bounds of :mod:`costmodel.usage.bounds`: a
        start before 2000 or later than ``now`` plus a day, an end more than 32 days after
        ``now``, or more than a million GPUs at once (``usage_above_limit``).
    """
    check_text(text)
    reader = csv.reader(io.StringIO(text))
    try:
        written = [h.strip() for h in next(reader)]
    except StopIteration:
        raise fail("is empty", "empty") from None
    header = [_CUR_2_NAMES.get(h, h) for h in written]
    named = dict(zip(header, written, strict=True))  # the name as the file writes it
    need_type = ("product/instanceType", "lineItem/UsageType")
    missing = [c for c in ("lineItem/UsageStartDate", "lineItem/UsageAmount") if c not in header]
    if missing or not any(c in header for c in need_type):
        raise fail(
            "line 1: is not a Cost and Usage Report header: needs lineItem/UsageStartDate, "
            "lineItem/UsageAmount and product/instanceType or lineItem/UsageType",
            "not_cur",
            line=1,
        )
    col = {name: k for k, name in enumerate(header)}
    starts, ends, amounts, types, where = [], [], [], [], []
    skipped: list[RowSkipped] = []
    for number, row in enumerate(reader, start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            skipped.append(field_count(number, len(row), len(header)))
            continue
        kind = row[col["product/instanceType"]].strip() if "product/instanceType" in col else ""
        if not kind and "lineItem/UsageType" in col:
            match = _INSTANCE_USAGE.search(row[col["lineItem/UsageType"]].strip())
            kind = match.group(1) if match else ""
        if not kind:
            continue  # storage, data transfer, tax, credits: not instance-hours
        if "lineItem/LineItemType" in col and row[col["lineItem/LineItemType"]] not in (
            "Usage",
            "DiscountedUsage",
            "SavingsPlanCoveredUsage",
        ):
            continue
        starts.append(row[col["lineItem/UsageStartDate"]])
        ends.append(row[col["lineItem/UsageEndDate"]] if "lineItem/UsageEndDate" in col else "")
        amounts.append(row[col["lineItem/UsageAmount"]])
        types.append(kind)
        where.append(number)
    if not starts:
        raise fail("line 2: the report has no instance usage rows", "no_instance_usage", line=2)
    start_s, bad_start = timestamps(starts)
    amount, bad_amount = numbers(amounts)
    has_end = np.array([bool(e.strip()) for e in ends])
    end_s, bad_end = timestamps([e if e.strip() else s for e, s in zip(ends, starts, strict=True)])
    bad = bad_start | bad_amount | bad_end
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
    negative = np.flatnonzero(~bad & (amount < 0))
    if negative.size:
        line = where[negative[0]]
        raise fail(f"line {line}: UsageAmount must not be negative", "negative_amount", line=line)

    def place(i: int) -> dict[str, int | str]:
        return {"line": where[i]}

    check_times(
        [
            (named["lineItem/UsageStartDate"], start_s, CLOCK_LEEWAY_S),
            (named.get("lineItem/UsageEndDate", ""), end_s, BILL_PERIOD_AHEAD_S),
        ],
        place,
        now,
        readable=~(bad_start | bad_end),
    )
    end_s = np.where(has_end, end_s, start_s + 3600.0)
    gpus = np.array([gpus_per_instance[t][0] if t in gpus_per_instance else 0 for t in types])
    check_gpus_at_once(
        amount,
        (end_s - start_s) / 3600,
        gpus,
        types,
        named["lineItem/UsageAmount"],
        place,
        ~bad,
    )
    known = np.array([t in gpus_per_instance for t in types])
    use, notices = known_rows(types, known, bad, amount, skipped)
    models = sorted({gpus_per_instance[types[i]][1] for i in np.flatnonzero(use)})
    start_u, end_u = start_s[use], end_s[use]
    gpu_hours = amount[use] * gpus[use]
    length_h = np.maximum(end_u - start_u, 1.0) / 3600
    busy = (start_u, end_u, gpu_hours)
    observed = (start_s[~bad], end_s[~bad])
    peak = peak_concurrency(start_u, end_u, gpu_hours / length_h)
    return report(busy, observed, int(np.ceil(peak - 1e-9)), models, notices)
