"""Every value the resolver fills in on the user's behalf, and why: one table."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext_noop

from webapp.catalog.models import (
    HostingKind,
)


@dataclass(frozen=True)
class Default:
    """A value the resolver fills in when the selection does not say, and why (in English;
    translated when reported)."""

    value: Any
    reason: str


CUSTOM_BOX = "custom box"
"""The key of :data:`DEFAULTS` rows that apply to a custom parts list (presets carry their own)."""

DEFAULTS: dict[tuple[str, str], Default] = {
    # A custom parts list has no preset to carry its running costs.
    ("build.maintenance_rate_per_year", CUSTOM_BOX): Default(
        Decimal("0.05"),
        gettext_noop(
            "a custom box has no preset: 5 % of the purchase price a year for spares and "
            "repairs, the presets' most common figure (they range from 3 to 8 %)"
        ),
    ),
    ("build.residual_value_retention_per_year", CUSTOM_BOX): Default(
        Decimal("0.70"),
        gettext_noop(
            "a custom box has no preset: it keeps 70 % of its value each year, within the "
            "presets' 61–75 %"
        ),
    ),
    ("build.ops_monthly", CUSTOM_BOX): Default(
        Decimal(0),
        gettext_noop("a custom box has no preset: no administration cost, the team runs it"),
    ),
    ("build.useful_life_months", CUSTOM_BOX): Default(
        None,
        gettext_noop(
            "a custom box has no preset: no useful life is assumed, so it is not replaced "
            "within the horizon"
        ),
    ),
    # Where a custom box runs: a GPU server sold whole needs a rack; a box of cards does not.
    ("hosting kind", CUSTOM_BOX + " with a GPU server"): Default(
        HostingKind.COLOCATION,
        gettext_noop(
            "the parts list holds a GPU server, which needs rack power and cooling: colocation"
        ),
    ),
    ("hosting kind", CUSTOM_BOX): Default(
        HostingKind.OFFICE,
        gettext_noop("a parts list without a GPU server is a desk-side box: office, no fee"),
    ),
    # The currency's region: its tariff, its hosting of each kind, a cloud offering of its market.
    ("tariff", "CNY"): Default(
        "cn-business-average",
        gettext_noop("a CNY plan runs in China: the national average business tariff"),
    ),
    ("tariff", "USD"): Default(
        "us-va-commercial",
        gettext_noop(
            "a USD plan runs in the US: Virginia's commercial tariff (EIA), the largest US "
            "data-centre market"
        ),
    ),
    ("hosting office", "CNY"): Default(
        "office-deskside", gettext_noop("desk-side in an office: no fee, no cooling overhead")
    ),
    ("hosting office", "USD"): Default(
        "office-deskside", gettext_noop("desk-side in an office: no fee, no cooling overhead")
    ),
    ("hosting colocation", "CNY"): Default(
        "cn-colo-all-in",
        gettext_noop("colocation in China billed per kW (power included), PUE 1.5"),
    ),
    ("hosting colocation", "USD"): Default(
        "us-colo-wholesale",
        gettext_noop(
            "US wholesale colocation billed per kW (CBRE), with the Uptime Institute's average PUE"
        ),
    ),
    ("cloud_offering", "CNY"): Default(
        "aliyun-gn7e-c16g1-4xlarge",
        gettext_noop(
            "a CNY plan rents in China: Alibaba Cloud's on-demand instance of the reference "
            "GPU (one A100 80GB)"
        ),
    ),
    ("cloud_offering", "USD"): Default(
        "azure-nc24ads-a100-v4",
        gettext_noop(
            "a USD plan rents in the US market: Azure's on-demand instance of the reference "
            "GPU (one A100 80GB)"
        ),
    ),
}
"""Every value the resolver fills in on the user's behalf, keyed by (field, what it applies
to): a custom box, or a currency. Presets carry their own running costs and hosting kind
(with sources, in the catalog); the committed count is the cheapest one
(:func:`commitment_rule`)."""


def default(name: str, applies_to: str) -> Default:
    return DEFAULTS[(name, applies_to)]
