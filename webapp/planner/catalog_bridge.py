"""The planner's window on the price catalog: choices for the form, and resolution.

Everything the planner needs from ``webapp.catalog`` goes through here: the
lists a person picks from (presets, parts, cloud offerings grouped by provider
with their current rate, tariffs, hosting, benchmarks) and the call to the
catalog resolver that turns a selection into an explicit scenario plus
provenance. No price arithmetic happens here: the resolver does it.
"""

from __future__ import annotations

import datetime
import json
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from costmodel import FieldError, Scenario, ScenarioError, parse_scenario
from webapp.planner.fields import get_path

Choices = list[tuple[str, str]]
Grouped = list[tuple[str, Choices]]


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


@dataclass(frozen=True)
class Resolved:
    scenario: Scenario
    provenance: list[dict[str, Any]]
    selection: dict[str, Any]


def resolver_available() -> bool:
    try:
        from webapp.catalog import resolver  # noqa: F401
    except ImportError:
        return False
    return True


def _money(amount: Any, currency: str) -> str:
    from webapp.planner.formatting import money

    decimals = 4 if amount is not None and float(amount) < 10 else 2
    return money(float(amount), currency, decimals)


def catalog_choices(today: datetime.date | None = None) -> CatalogChoices | None:
    """The lists of the planner form, or ``None`` when the catalog cannot be used.

    ``None`` when the resolver is not installed or the catalog has no presets
    or no cloud offerings: the form then asks for every explicit field.
    """
    if not resolver_available():
        return None
    from webapp.catalog import selectors

    today = today or datetime.date.today()
    presets = [
        (p.slug, f"{p.localized_name()} ({p.get_tier_display()})")
        for p in selectors.presets_for_choice()
    ]
    parts_by_kind: dict[str, Choices] = defaultdict(list)
    kind_labels: dict[str, str] = {}
    for part in selectors.parts_for_choice():
        kind_labels[part.kind] = str(part.get_kind_display())
        parts_by_kind[part.kind].append((part.slug, part.localized_name()))
    offerings_by_provider: dict[str, Choices] = defaultdict(list)
    default_offering = None
    for offering in selectors.offerings_with_rates():
        rates = sorted(
            (r for r in offering.rates.all() if r.effective_date <= today),
            key=lambda r: r.effective_date,
        )
        if not rates:
            continue
        rate = rates[-1]
        label = _(
            "%(instance)s · %(count)d× %(gpu)s · %(mode)s · %(rate)s per hour (as of %(date)s)"
        ) % {
            "instance": offering.instance_type,
            "count": offering.gpu_count,
            "gpu": offering.gpu_model.localized_name(),
            "mode": offering.get_pricing_mode_display(),
            "rate": _money(rate.hourly_rate, rate.currency),
            "date": rate.effective_date.isoformat(),
        }
        offerings_by_provider[offering.provider].append((offering.slug, label))
        # The reference GPU (A100 80GB), one per instance, is the natural first comparison.
        if (
            default_offering is None
            and offering.gpu_count == 1
            and "a100" in offering.gpu_model.slug
        ):
            default_offering = offering.slug
    if not presets or not offerings_by_provider:
        return None
    tariffs = [
        (
            t.slug,
            (
                f"{t.localized_name()} · {_money(t.price_per_kwh, t.currency)}/kWh"
                if t.price_per_kwh is not None
                else f"{t.localized_name()} · {t.get_kind_display()} ({t.currency})"
            )
            + f" ({t.effective_date.isoformat()})",
        )
        for t in selectors.tariffs_for_choice()
    ]
    hosting_rows = list(selectors.hostings_for_choice())
    hostings = [
        (
            h.slug,
            f"{h.localized_name()} · {h.get_kind_display()} ({h.effective_date.isoformat()})",
        )
        for h in hosting_rows
    ]
    office = [h.slug for h in hosting_rows if h.kind == "office"]
    benchmarks = [(b.slug, b.localized_name()) for b in selectors.benchmarks_for_choice()]
    slugs = [slug for slug, _label in benchmarks]
    return CatalogChoices(
        presets=presets,
        parts=[(kind_labels[k], v) for k, v in parts_by_kind.items()],
        offerings=sorted(offerings_by_provider.items()),
        tariffs=tariffs,
        hostings=hostings,
        benchmarks=benchmarks,
        default_benchmark="resnet50-fp16" if "resnet50-fp16" in slugs else None,
        default_offering=default_offering,
        default_hosting=office[0] if office else None,
    )


def resolve(selection: dict[str, Any]) -> Resolved:
    """Resolve a selection (the resolver's ``Selection`` as JSON-ready data).

    Raises :class:`costmodel.ScenarioError` naming the selection field that failed.
    """
    from webapp.catalog.resolver import parse_selection
    from webapp.catalog.resolver import resolve as catalog_resolve

    parsed = parse_selection(json.loads(json.dumps(selection)))
    resolution = catalog_resolve(parsed)
    return Resolved(
        scenario=resolution.scenario,
        provenance=list(resolution.provenance),
        selection=parsed.model_dump(mode="json"),
    )


def apply_overrides(scenario: Scenario, values: dict[str, Any], overrides: list[str]) -> Scenario:
    """``scenario`` with each overridden dotted field set to its value in ``values``."""
    data = scenario.model_dump(mode="json")
    for path in overrides:
        value = get_path(values, path)
        if value is None:
            continue
        node = data
        *parents, leaf = path.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return parse_scenario(data)


def resolve_today(
    selection: dict[str, Any], saved_scenario: dict[str, Any], overrides: list[str]
) -> Resolved:
    """Resolve a stored selection at today's prices, keeping the user's overrides."""
    if not resolver_available():
        raise ScenarioError([FieldError("selection", _("the price catalog is not available"))])
    today = {**selection, "as_of": None}
    resolved = resolve(today)
    return Resolved(
        scenario=apply_overrides(resolved.scenario, saved_scenario, overrides),
        provenance=resolved.provenance,
        selection=resolved.selection,
    )
