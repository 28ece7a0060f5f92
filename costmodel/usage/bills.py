"""What every cloud bill's reader (AWS CUR, FOCUS) does alike once its rows are read: sort the
rows into instance types the catalog knows and the rest, list the rest with their hours, and
refuse a bill with no known GPU instance type, naming what it holds."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from costmodel.usage.errors import fail
from costmodel.usage.notices import InstanceTypeUnknown, RowSkipped, UsageNotice, add_skipped


def known_rows(
    types: Sequence[str],
    known: npt.NDArray[np.bool_],
    bad: npt.NDArray[np.bool_],
    amount: npt.NDArray[np.float64],
    skipped: Sequence[RowSkipped],
) -> tuple[npt.NDArray[np.bool_], list[UsageNotice]]:
    """The rows to count (readable, of a known GPU instance type) and the bill's notices: the
    skipped rows, then each unknown instance type with its hours.

    Raises the usage error ``no_known_gpu_instance`` when no row is left, listing the ten
    instance types with the most hours (all of them in its parameters).
    """
    unknown_hours: dict[str, float] = {}
    for i in np.flatnonzero(~known & ~bad).tolist():
        unknown_hours[types[i]] = unknown_hours.get(types[i], 0.0) + float(amount[i])
    notices: list[UsageNotice] = []
    add_skipped(notices, skipped)
    notices += [
        InstanceTypeUnknown(instance_type=kind, hours=hours)
        for kind, hours in sorted(unknown_hours.items())
    ]
    use = ~bad & known
    if not use.any():
        seen = sorted(unknown_hours.items(), key=lambda item: -abs(item[1]))
        listed = ", ".join(f"{kind} ({hours:g} h)" for kind, hours in seen[:10])
        raise fail(
            "the bill has no usage of a GPU instance type the catalog knows; it holds "
            f"{len(seen)} instance types: {listed}",
            "no_known_gpu_instance",
            count=len(seen),
            listed=listed,
            types=[{"instance_type": k, "hours": h} for k, h in seen],
        )
    return use, notices
