"""Labels for the result schema's headline figures, keyed by their path in the result.

The names are :mod:`costmodel.results`'s (``savings``, ``build.total_net`` …);
this table adds only what people read (a translated label) and how a figure
is rounded for display and export. Flat outputs (CSV columns) write a path
with ``_`` for ``.``, the rule :mod:`costmodel.tables` applies to the monthly
series: ``build.total_net`` is the column ``build_total_net``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from costmodel.paths import get_path

Kind = Literal["money", "months", "fraction", "quantity"]


@dataclass(frozen=True)
class Figure:
    path: str  # where the figure sits in a result: "savings", "build.total_net"
    label: Promise
    kind: Kind  # money: the currency's minor unit; months: 0.01; fraction: 0.0001

    @property
    def column(self) -> str:
        """The figure's name in flat outputs: ``build.total_net`` → ``build_total_net``."""
        return self.path.replace(".", "_")

    def value(self, result: Mapping[str, Any]) -> Any:
        return get_path(result, self.path)


FIGURES: dict[str, Figure] = {
    f.path: f
    for f in (
        Figure("break_even_month", _("Break-even month"), "months"),
        Figure(
            "savings", _("Savings of building over the horizon, in cash (resale credited)"), "money"
        ),
        Figure(
            "present_value_savings",
            _("Present-value savings of building over the horizon (what the verdict weighs)"),
            "money",
        ),
        Figure("build.total_net", _("Build: total net of resale"), "money"),
        Figure("rent.total", _("Rent: total"), "money"),
        Figure("build.resale_value", _("Resale value at the end"), "money"),
        Figure("build.present_value", _("Build: present value"), "money"),
        Figure("rent.present_value", _("Rent: present value"), "money"),
        Figure(
            "build.cost_per_reference_gpu_hour",
            _("Build: cost per reference GPU-hour"),
            "money",
        ),
        Figure("rent.cost_per_reference_gpu_hour", _("Rent: cost per reference GPU-hour"), "money"),
        Figure("break_even_utilization", _("Break-even utilization"), "fraction"),
        Figure("work_reference_gpu_hours", _("Work done [reference GPU-hours]"), "quantity"),
    )
}
"""The headline figures the pages and exports show, in the order they list them."""
