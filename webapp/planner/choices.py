"""What a person picks from on the planner form: the catalog's rows as labelled choices.

Presets, parts by kind, cloud offerings grouped by pricing mode and provider
with the rate in effect today, tariffs, hosting options and benchmarks; each
list is read through :mod:`webapp.catalog.selectors`. Labels are for people
only, in the active language (catalog rows' Chinese names in the Chinese
interface, English where a row has none): nothing here converts or sums a
price (the resolver does, for the plan).
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from django.utils.translation import gettext as _

from webapp.catalog import selectors
from webapp.catalog.models import CloudOffering, CloudRate, PricingMode, Tariff
from webapp.formatting import money

Choices = list[tuple[str, str]]
Grouped = list[tuple[str, Choices]]

DEFAULT_BENCHMARK = "resnet50-fp16"


@dataclass(frozen=True)
class CatalogChoices:
    presets: Choices
    parts: Grouped
    offerings: Grouped
    tariffs: Choices
    hostings: Choices
    benchmarks: Choices
    default_benchmark: str | None = None
    default_offering: str | None = None
    default_hosting: str | None = None
    offering_modes: tuple[tuple[str, str], ...] = ()
    """``(offering slug, pricing mode)`` of every offering listed."""
    pricing_modes: Choices = field(default_factory=list)
    """The pricing modes the listed offerings use, in the catalog's order, labelled."""

    def preset_slugs(self) -> set[str]:
        return {slug for slug, _label in self.presets}


def price(amount: Decimal, currency: str) -> str:
    """A catalog price for a label: four decimals below 10 (a kWh, a cheap hour), else two."""
    return money(float(amount), currency, 4 if amount < 10 else 2)


def preset_choices() -> Choices:
    return [
        (p.slug, f"{p.localized_name()} ({p.get_tier_display()})")
        for p in selectors.presets_for_choice()
    ]


def part_choices() -> Grouped:
    """Parts grouped under their kind's label, in the selector's order."""
    by_kind: dict[str, Choices] = defaultdict(list)
    for part in selectors.parts_for_choice():
        by_kind[str(part.get_kind_display())].append((part.slug, part.localized_name()))
    return list(by_kind.items())


def offering_label(offering: CloudOffering, rate: CloudRate) -> str:
    """``Google Cloud a3-highgpu-1g (1-year commitment) · 1× NVIDIA H100 … · $… per hour``."""
    return _("%(name)s · %(count)d× %(gpu)s · %(rate)s per hour (as of %(date)s)") % {
        "name": offering.localized_name(),
        "count": offering.gpu_count,
        "gpu": offering.gpu_model.localized_name(),
        "rate": price(rate.hourly_rate, rate.currency),
        "date": rate.effective_date.isoformat(),
    }


MODE_ORDER = [mode.value for mode in PricingMode]
"""On-demand, spot, 1-year and 3-year commitments: the order of the offering groups."""


def is_reference_instance(offering: CloudOffering) -> bool:
    """One reference GPU (A100) per instance: the natural first comparison."""
    return offering.gpu_count == 1 and "a100" in offering.gpu_model.slug


@dataclass(frozen=True)
class Offerings:
    groups: Grouped
    default: str | None
    modes: tuple[tuple[str, str], ...]


def offering_choices(today: datetime.date) -> Offerings:
    """Offerings with a rate in effect ``today``, grouped by pricing mode then provider
    ("1-year commitment · Google Cloud"); the default one; each offering's pricing mode."""
    groups: dict[tuple[int, str], Choices] = defaultdict(list)
    labels: dict[tuple[int, str], str] = {}
    modes: list[tuple[str, str]] = []
    default = None
    for offering, rate in selectors.offerings_with_rate_on(today):
        key = (MODE_ORDER.index(offering.pricing_mode), offering.provider)
        labels[key] = f"{offering.get_pricing_mode_display()} · {offering.provider}"
        groups[key].append((offering.slug, offering_label(offering, rate)))
        modes.append((offering.slug, offering.pricing_mode))
        if (
            default is None
            and is_reference_instance(offering)
            and offering.pricing_mode == PricingMode.ON_DEMAND
        ):
            default = offering.slug
    return Offerings(
        groups=[(labels[key], groups[key]) for key in sorted(groups)],
        default=default,
        modes=tuple(modes),
    )


def tariff_choices() -> Choices:
    def label(t: Tariff) -> str:
        if t.price_per_kwh is not None:
            shown = f"{t.localized_name()} · {price(t.price_per_kwh, t.currency)}/kWh"
        else:
            shown = f"{t.localized_name()} · {t.get_kind_display()} ({t.currency})"
        return f"{shown} ({t.effective_date.isoformat()})"

    return [(t.slug, label(t)) for t in selectors.tariffs_for_choice()]


def hosting_choices() -> tuple[Choices, str | None]:
    """Hosting options, and the default: the first office (no fee)."""
    rows = list(selectors.hostings_for_choice())
    choices = [
        (h.slug, f"{h.localized_name()} · {h.get_kind_display()} ({h.effective_date.isoformat()})")
        for h in rows
    ]
    offices = [h.slug for h in rows if h.kind == "office"]
    return choices, offices[0] if offices else None


def benchmark_choices() -> Choices:
    return [(b.slug, b.localized_name()) for b in selectors.benchmarks_for_choice()]


def catalog_choices(today: datetime.date | None = None) -> CatalogChoices | None:
    """The lists of the planner form, or ``None`` when the catalog cannot be used.

    ``None`` when the catalog has no presets or no cloud offering with a rate:
    the form then asks for every explicit field.
    """
    presets = preset_choices()
    offerings = offering_choices(today or datetime.date.today())
    if not presets or not offerings.groups:
        return None
    used = {mode for _slug, mode in offerings.modes}
    hostings, default_hosting = hosting_choices()
    benchmarks = benchmark_choices()
    return CatalogChoices(
        presets=presets,
        parts=part_choices(),
        offerings=offerings.groups,
        tariffs=tariff_choices(),
        hostings=hostings,
        benchmarks=benchmarks,
        default_benchmark=DEFAULT_BENCHMARK
        if any(slug == DEFAULT_BENCHMARK for slug, _label in benchmarks)
        else None,
        default_offering=offerings.default,
        default_hosting=default_hosting,
        offering_modes=offerings.modes,
        pricing_modes=[(m.value, str(m.label)) for m in PricingMode if m.value in used],
    )
