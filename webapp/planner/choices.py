"""What a person picks from on the planner form: the catalog's rows as labelled choices.

Presets, parts by kind, cloud offerings grouped by provider with the rate in
effect today, tariffs, hosting options and benchmarks; each list is read
through :mod:`webapp.catalog.selectors`. Labels are for people only: nothing
here converts or sums a price (the resolver does, for the plan).
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal

from django.utils.translation import gettext as _

from webapp.catalog import selectors
from webapp.catalog.models import CloudOffering, CloudRate, Tariff
from webapp.planner.formatting import money

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
    return _(
        "%(instance)s · %(count)d× %(gpu)s · %(mode)s · %(rate)s per hour (as of %(date)s)"
    ) % {
        "instance": offering.instance_type,
        "count": offering.gpu_count,
        "gpu": offering.gpu_model.localized_name(),
        "mode": offering.get_pricing_mode_display(),
        "rate": price(rate.hourly_rate, rate.currency),
        "date": rate.effective_date.isoformat(),
    }


def is_reference_instance(offering: CloudOffering) -> bool:
    """One reference GPU (A100) per instance: the natural first comparison."""
    return offering.gpu_count == 1 and "a100" in offering.gpu_model.slug


def offering_choices(today: datetime.date) -> tuple[Grouped, str | None]:
    """Offerings with a rate in effect ``today``, grouped by provider; and the default one."""
    by_provider: dict[str, Choices] = defaultdict(list)
    default = None
    for offering, rate in selectors.offerings_with_rate_on(today):
        by_provider[offering.provider].append((offering.slug, offering_label(offering, rate)))
        if default is None and is_reference_instance(offering):
            default = offering.slug
    return sorted(by_provider.items()), default


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
    offerings, default_offering = offering_choices(today or datetime.date.today())
    if not presets or not offerings:
        return None
    hostings, default_hosting = hosting_choices()
    benchmarks = benchmark_choices()
    return CatalogChoices(
        presets=presets,
        parts=part_choices(),
        offerings=offerings,
        tariffs=tariff_choices(),
        hostings=hostings,
        benchmarks=benchmarks,
        default_benchmark=DEFAULT_BENCHMARK
        if any(slug == DEFAULT_BENCHMARK for slug, _label in benchmarks)
        else None,
        default_offering=default_offering,
        default_hosting=default_hosting,
    )
