"""The guide's claims, as data: which presets, offerings, workloads, horizon and verdict rule.

Each :class:`Claim` quotes the guide and lists the :class:`Check` objects that
test it. A check names the box side by catalog slugs (:class:`Setup`), the
cloud side as catalog queries (:class:`Offerings`: one case per offering
found), the workload and horizon of every case, and the verdict rule
(:mod:`webapp.advisor.verdicts`) with its thresholds. :mod:`webapp.advisor.guide`
runs any list of claims; nothing here computes.

The figures quoted from the guides and the assumptions that make a claim
testable ("high frequency" = 80 % busy, "a few days" = 4 days) are the named
constants below; ``docs/advisor.md`` explains each choice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from webapp.advisor.verdicts import (
    BuyingBeatsRentingBeyond,
    HourlyBeatsReservation,
    NotFromCostData,
    PaysBackAfterAbout,
    PriceWithin,
    RentingCheaper,
    Rule,
    ThroughputWithin,
)
from webapp.catalog.pricing_modes import PricingMode

CURRENCY = "CNY"
"""The guides quote CNY; every scenario here is priced in CNY."""

BENCHMARK = "resnet50-fp16"
"""Throughput normalisation of the boxes (the guides' example workload)."""

CLUSTER_BENCHMARK = "bert-large-fp16"
"""Throughput normalisation of the cluster: transformer training, what clusters are built for."""

HORIZON_MONTHS = 36
"""Horizon of the buy-vs-rent scenarios: three years, within the 5 years of useful life."""

USEFUL_LIFE_MONTHS = 60
"""The cluster's second horizon: the useful life the catalog gives data-centre servers."""

HIGH_UTILIZATION = 0.8
"""The guide's "training runs at high frequency": 80 % of every month."""

CONTINUOUS_UTILIZATION = 1.0
"""'Continuous use': the box trains around the clock."""

CLUSTER_HIGH_UTILIZATION = 0.9
"""A cluster at high frequency: 90 % busy (a tuned pipeline reaches 90 – 95 %)."""

CLUSTER_HALF_UTILIZATION = 0.5
"""A cluster at half use: the contrast that shows what high frequency buys."""

TIDAL_ACTIVE_DAYS = 4
"""'A few days a month': 4 active days of 24 h."""

SHORT_PROJECT_MONTHS = 3
"""A short project: 3 months at high utilization."""

FLUCTUATING_PROFILE = (0.9, 0.1, 0.6, 0.0, 0.3, 0.8, 0.0, 0.2, 0.5, 0.1, 0.0, 0.4)
"""Fluctuating demand over one year (mean 32.5 %), horizon 12 months."""

PAYBACK_MONTHS = 12
""""More than a year": building must pay back within 12 months to beat renting beyond it."""

ABOUT_PAYBACK_MONTHS = 6
"""The 4060 Ti box "pays for itself after about six months"."""

SERVER_PRICE_CNY = (150_000, 200_000)
"""The 4 × RTX 4090 dual-Xeon server "costs about 150 000 – 200 000 CNY"."""

BOX_PRICE_CNY = (6_000, 8_000)
"""The self-built RTX 4060 Ti server "costs about 6 000 – 8 000 CNY"."""

RESNET50_IMAGES_PER_SECOND = (300, 500)
"""The RTX 4090 "trains ResNet-50 at about 300 – 500 images/s" (batch 32)."""


@dataclass(frozen=True)
class Setup:
    """The box side of a check: a preset, where it runs, and the benchmark (catalog slugs)."""

    preset: str
    tariff: str
    hosting: str
    benchmark: str = BENCHMARK


@dataclass(frozen=True)
class Offerings:
    """A catalog query for the cloud side (every filter optional).

    ``gpu`` is a case-insensitive pattern on the GPU model's name, ``vram_gb``
    its memory, ``modes`` the pricing modes, ``gpu_count`` the GPUs per instance.
    """

    gpu: str | None = None
    vram_gb: int | None = None
    modes: tuple[str, ...] | None = None
    gpu_count: int | None = None


@dataclass(frozen=True)
class Check:
    """One testable part of a claim: a question, the scenarios that answer it, a rule.

    One case per offering the queries find (in query order, each offering
    once), or only the first when ``first_offering_only`` (a check of the box
    alone, such as its price, still needs a complete scenario). No setup: the
    claim cannot be checked from cost data.
    """

    key: str
    question: Promise
    rule: Rule
    setup: Setup | None = None
    scenario: Promise | None = None
    """The scenario in words, before the offering's name in each case's label."""
    offerings: tuple[Offerings, ...] = ()
    first_offering_only: bool = False
    workload: Mapping[str, Any] | None = None
    horizon_months: int = HORIZON_MONTHS
    committed_instances: int | None = None
    """Instances committed to when a case's offering is a commitment: a claim about "a
    reservation of the instance" reserves one. None: the resolver's default, the cheapest
    count for the workload (which can be none at all, and then it is no reservation)."""


@dataclass(frozen=True)
class Claim:
    """A claim of the guides in their words, a short title, and the checks that test it."""

    key: str
    title: Promise
    text: Promise
    checks: tuple[Check, ...]


def steady(utilization: float) -> dict[str, Any]:
    return {"kind": "steady", "utilization": utilization}


SERVER = Setup("multi-4x-rtx4090", tariff="cn-industrial-average", hosting="cn-colo-metered")
A100_SERVER = Setup("multi-4x-a100-80gb", tariff="cn-industrial-average", hosting="cn-colo-metered")
BUDGET_BOX = Setup("budget-rtx4060ti", tariff="cn-business-average", hosting="office-deskside")
ENTRY_BOX = Setup("entry-rtx4090", tariff="cn-business-average", hosting="office-deskside")
CLUSTER = Setup(
    "cluster-4x-hgx-h100",
    tariff="us-va-commercial",
    hosting="us-colo-wholesale",
    benchmark=CLUSTER_BENCHMARK,
)
"""The 4-node H100 cluster in US wholesale colocation billed per kW (H100 prices are US prices)."""

A100_80GB = Offerings(gpu="A100", vram_gb=80)
GEFORCE = Offerings(gpu="RTX ?[0-9]{4}")
GEFORCE_40 = Offerings(gpu="RTX ?40[5-9]0")
A100_80GB_HOURLY = Offerings(gpu="A100", vram_gb=80, modes=(PricingMode.ON_DEMAND,))
GEFORCE_40_HOURLY = Offerings(gpu="RTX ?40[5-9]0", modes=(PricingMode.ON_DEMAND,))
RESERVED_1Y_SINGLE_GPU = Offerings(modes=(PricingMode.COMMIT_1Y,), gpu_count=1)
H100_NODES = Offerings(gpu="H100", gpu_count=8)
"""8 × H100 instances in every pricing mode: on demand, spot, 1- and 3-year commitments."""

HIGH = steady(HIGH_UTILIZATION)
CONTINUOUS = steady(CONTINUOUS_UTILIZATION)
TIDAL = {"kind": "tidal", "active_days_per_month": TIDAL_ACTIVE_DAYS, "hours_per_active_day": 24}
FLUCTUATING = {"kind": "profile", "monthly_utilization": list(FLUCTUATING_PROFILE)}

CLAIMS: tuple[Claim, ...] = (
    Claim(
        key="server-4x4090",
        title=_("4 × RTX 4090 server: price, and payback within a year"),
        text=_(
            "A dual-Xeon server with 4 × RTX 4090 costs about 150 000 – 200 000 CNY. Buying "
            "beats renting when training runs for more than a year at high frequency; owners "
            "must also pay colocation, electricity, maintenance and failed-part replacement."
        ),
        checks=(
            Check(
                key="price",
                question=_("Does the server cost 150 000 – 200 000 CNY?"),
                rule=PriceWithin(*SERVER_PRICE_CNY),
                setup=SERVER,
                scenario=_("4 × RTX 4090 server, purchase price"),
                offerings=(A100_80GB, GEFORCE_40),
                first_offering_only=True,
                workload=HIGH,
            ),
            Check(
                key="payback-hourly",
                question=_(
                    # xgettext:no-python-format (the % is literal, never formatted)
                    "At 80 % utilization in metered colocation, with maintenance, does "
                    "building pay back within a year (and so beat renting for longer runs)?"
                ),
                rule=BuyingBeatsRentingBeyond(PAYBACK_MONTHS),
                setup=SERVER,
                scenario=_("4 × RTX 4090 server in colocation, 80 % busy"),
                offerings=(A100_80GB, GEFORCE_40),
                workload=HIGH,
            ),
            Check(
                key="payback-reserved",
                question=_(
                    "Against 1-year reservations of single-GPU cloud instances (hours beyond "
                    "them at the on-demand rate), does the server still pay back within a year?"
                ),
                rule=BuyingBeatsRentingBeyond(PAYBACK_MONTHS),
                setup=SERVER,
                scenario=_("4 × RTX 4090 server in colocation, 80 % busy"),
                offerings=(RESERVED_1Y_SINGLE_GPU,),
                workload=HIGH,
            ),
            Check(
                key="a100-server",
                question=_(
                    # xgettext:no-python-format (the % is literal, never formatted)
                    "The guide's other multi-GPU option, a 4 × A100 80GB server at 80 %: does "
                    "it pay back within a year against A100 80GB rentals and 1-year reservations?"
                ),
                rule=BuyingBeatsRentingBeyond(PAYBACK_MONTHS),
                setup=A100_SERVER,
                scenario=_("4 × A100 80GB server in colocation, 80 % busy"),
                offerings=(A100_80GB, RESERVED_1Y_SINGLE_GPU),
                workload=HIGH,
            ),
        ),
    ),
    Claim(
        key="cluster-h100",
        title=_("Cluster tier, 4 × 8 H100: buying beats renting beyond a year of heavy use"),
        text=_(
            "Buying beats renting when training runs for more than a year at high frequency — "
            "here for the cluster tier, against reserved and on-demand H100 nodes."
        ),
        checks=(
            Check(
                key="high-3y",
                question=_(
                    # xgettext:no-python-format (the % is literal, never formatted)
                    "At 90 % use over three years, does the 4-node H100 cluster pay back within "
                    "a year against 8 × H100 cloud nodes on demand, on spot, and reserved for 1 "
                    "or 3 years?"
                ),
                rule=BuyingBeatsRentingBeyond(PAYBACK_MONTHS),
                setup=CLUSTER,
                scenario=_("4 × 8 H100 cluster in US colocation, 90 % busy, 3 years"),
                offerings=(H100_NODES,),
                workload=steady(CLUSTER_HIGH_UTILIZATION),
            ),
            Check(
                key="high-5y",
                question=_(
                    # xgettext:no-python-format (the % is literal, never formatted)
                    "Over five years, the servers' useful life, at 90 % use?"
                ),
                rule=BuyingBeatsRentingBeyond(PAYBACK_MONTHS),
                setup=CLUSTER,
                scenario=_("4 × 8 H100 cluster in US colocation, 90 % busy, 5 years"),
                offerings=(H100_NODES,),
                workload=steady(CLUSTER_HIGH_UTILIZATION),
                horizon_months=USEFUL_LIFE_MONTHS,
            ),
            Check(
                key="half-3y",
                question=_(
                    # xgettext:no-python-format (the % is literal, never formatted)
                    "Does it take high frequency? At 50 % use over three years, is renting "
                    "cheaper, in cash and net of resale?"
                ),
                rule=RentingCheaper(),
                setup=CLUSTER,
                scenario=_("4 × 8 H100 cluster in US colocation, 50 % busy, 3 years"),
                offerings=(H100_NODES,),
                workload=steady(CLUSTER_HALF_UTILIZATION),
            ),
            Check(
                key="half-5y",
                question=_(
                    # xgettext:no-python-format (the % is literal, never formatted)
                    "At 50 % use over five years, is renting cheaper, in cash and net of resale?"
                ),
                rule=RentingCheaper(),
                setup=CLUSTER,
                scenario=_("4 × 8 H100 cluster in US colocation, 50 % busy, 5 years"),
                offerings=(H100_NODES,),
                workload=steady(CLUSTER_HALF_UTILIZATION),
                horizon_months=USEFUL_LIFE_MONTHS,
            ),
        ),
    ),
    Claim(
        key="server-4060ti",
        title=_("RTX 4060 Ti box: price, and payback in about six months"),
        text=_(
            "A self-built RTX 4060 Ti server costs about 6 000 – 8 000 CNY and pays for itself "
            "after about six months of continuous use against cloud capacity of the same class."
        ),
        checks=(
            Check(
                key="price",
                question=_("Does the box cost 6 000 – 8 000 CNY?"),
                rule=PriceWithin(*BOX_PRICE_CNY),
                setup=BUDGET_BOX,
                scenario=_("RTX 4060 Ti box, purchase price"),
                offerings=(GEFORCE, A100_80GB),
                first_offering_only=True,
                workload=CONTINUOUS,
            ),
            Check(
                key="payback",
                question=_(
                    "Running around the clock, does it pay back after about six months "
                    "(4 – 9) against GeForce-class rentals?"
                ),
                rule=PaysBackAfterAbout(ABOUT_PAYBACK_MONTHS),
                setup=BUDGET_BOX,
                scenario=_("RTX 4060 Ti desk-side box, continuous use"),
                offerings=(GEFORCE,),
                workload=CONTINUOUS,
            ),
        ),
    ),
    Claim(
        key="tidal",
        title=_("A few busy days a month: renting is cheaper"),
        text=_("Tidal workloads (training only a few days a month) are cheaper to rent."),
        checks=(
            Check(
                key="hourly",
                question=_(
                    "With 4 busy days a month over three years, is renting cheaper than an "
                    "RTX 4090 desk-side box, in cash and net of resale?"
                ),
                rule=RentingCheaper(),
                setup=ENTRY_BOX,
                scenario=_("RTX 4090 desk-side box, 4 busy days a month"),
                offerings=(A100_80GB, GEFORCE_40),
                workload=TIDAL,
            ),
            Check(
                key="reserved",
                question=_(
                    "Reserved instead, a single-GPU instance on a 1-year commitment: is renting "
                    "still cheaper than the box?"
                ),
                rule=RentingCheaper(),
                setup=ENTRY_BOX,
                scenario=_("RTX 4090 desk-side box, 4 busy days a month"),
                offerings=(RESERVED_1Y_SINGLE_GPU,),
                workload=TIDAL,
                committed_instances=1,
            ),
        ),
    ),
    Claim(
        key="short-projects",
        title=_("Short projects and fluctuating demand: renting is cheaper"),
        text=_("Short projects and fluctuating demand suit hourly cloud billing."),
        checks=(
            Check(
                key="short",
                question=_(
                    # xgettext:no-python-format (the % is literal, never formatted)
                    "For a 3-month project at 80 %, is on-demand renting cheaper than buying "
                    "an RTX 4090 box, in cash and net of resale?"
                ),
                rule=RentingCheaper(),
                setup=ENTRY_BOX,
                scenario=_("RTX 4090 desk-side box, 3-month project at 80 %"),
                offerings=(A100_80GB_HOURLY, GEFORCE_40_HOURLY),
                workload=HIGH,
                horizon_months=SHORT_PROJECT_MONTHS,
            ),
            Check(
                key="fluctuating",
                question=_(
                    # xgettext:no-python-format (the % is literal, never formatted)
                    "For a year of fluctuating demand (32.5 % on average), is on-demand "
                    "renting cheaper, in cash and net of resale?"
                ),
                rule=RentingCheaper(),
                setup=ENTRY_BOX,
                scenario=_("RTX 4090 desk-side box, fluctuating demand for a year"),
                offerings=(A100_80GB_HOURLY, GEFORCE_40_HOURLY),
                workload=FLUCTUATING,
                horizon_months=len(FLUCTUATING_PROFILE),
            ),
            Check(
                key="short-vs-reserved",
                question=_(
                    "For the same 3-month project, is hourly billing cheaper than a 1-year "
                    "reservation of the same instance?"
                ),
                rule=HourlyBeatsReservation(),
                setup=ENTRY_BOX,
                scenario=_("3-month project at 80 %, reserved for a year"),
                offerings=(RESERVED_1Y_SINGLE_GPU,),
                workload=HIGH,
                horizon_months=SHORT_PROJECT_MONTHS,
                committed_instances=1,
            ),
            Check(
                key="fluctuating-vs-reserved",
                question=_(
                    "For the year of fluctuating demand, is hourly billing cheaper than a "
                    "1-year reservation of the same instance?"
                ),
                rule=HourlyBeatsReservation(),
                setup=ENTRY_BOX,
                scenario=_("Fluctuating demand for a year, reserved"),
                offerings=(RESERVED_1Y_SINGLE_GPU,),
                workload=FLUCTUATING,
                horizon_months=len(FLUCTUATING_PROFILE),
                committed_instances=1,
            ),
        ),
    ),
    Claim(
        key="resnet50-throughput",
        title=_("RTX 4090 trains ResNet-50 at 300 – 500 images/s"),
        text=_(
            "Entry tier (RTX 4090, batch 32): ResNet-50 trains at about 300 – 500 images/s "
            "on an ImageNet subset."
        ),
        checks=(
            Check(
                key="measured",
                question=_(
                    "Does the catalog's RTX 4090 ResNet-50 figure fall in 300 – 500 images/s?"
                ),
                rule=ThroughputWithin("rtx-4090", *RESNET50_IMAGES_PER_SECOND),
                setup=ENTRY_BOX,
                scenario=_(
                    "RTX 4090 desk-side box, 80 % busy, where the throughput figure is used"
                ),
                offerings=(A100_80GB, GEFORCE_40),
                first_offering_only=True,
                workload=HIGH,
            ),
        ),
    ),
    Claim(
        key="speedups",
        title=_("Mixed precision, pipeline tuning and TFRecord speed-ups"),
        text=_(
            "Mixed precision gives 1.5 – 3× on V100-and-newer GPUs; pipeline tuning gives "
            "+30 – 50 % throughput; TFRecord loading is 3 – 5× faster than reading raw image "
            "files."
        ),
        checks=(
            Check(
                key="speedups",
                question=_("Can cost data check these speed-ups?"),
                rule=NotFromCostData(),
            ),
        ),
    ),
)
"""Every claim of the guides, in the order the page shows them."""
