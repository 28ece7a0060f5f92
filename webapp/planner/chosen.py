"""What the catalog chose on the user's behalf, as a results page says it ("Chosen for you").

A plan resolved from the catalog keeps its selection (a choice left to the
catalog is ``None`` there) and the provenance of every row it used. For each
choice left to the catalog — the cloud offering, the electricity tariff, the
hosting, a commitment's count, a custom box's running costs — this module
names what the plan used (the catalog row as the "Catalog rows used" table
names it, or the scenario's value) and why. The why is the resolver's own
answer (:func:`webapp.catalog.resolver.defaults_for`, and
:func:`webapp.catalog.resolver.commitment_reason` over the engine's
commitment table), asked again when the page is shown so that it reads in the
page's language. When the plan used something other than what the catalog
would choose today (the catalog changed since), the page says that what it
used was the default when the plan was made, rather than give today's
reason. Nothing is computed here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from costmodel import Scenario, ScenarioError
from costmodel.commitment import commitment_table
from costmodel.paths import get_path
from webapp import formatting
from webapp.catalog.resolver import (
    CUSTOM_BOX_RUNNING_COSTS,
    Defaulted,
    Selection,
    commitment_reason,
    defaults_for,
    parse_selection,
)
from webapp.catalog.selectors import snapshot
from webapp.planner.fields import BY_PATH, SELECTION_FIELDS, field_value, same_value
from webapp.planner.permalink import Permalink
from webapp.planner.sources import catalog_sources


@dataclass(frozen=True)
class Chosen:
    """One choice the catalog made for the user."""

    field: str
    """The selection field (``tariff``) or, for a custom box's running cost, the scenario
    path (``build.ops_monthly``)."""
    label: str
    """The field's label, as the planner form names it."""
    value: str
    """What the plan used: the catalog row's name, or the value, for people."""
    reason: str
    """Why, in the page's language."""


ROW_ROLES = {"cloud_offering": "cloud rate", "tariff": "electricity", "hosting": "hosting"}
"""The catalog choices left to the resolver, and the provenance role of the row each gave."""


def chosen_for_you(link: Permalink, commitment: Mapping[str, Any] | None = None) -> list[Chosen]:
    """Every choice the catalog made for the plan of ``link``, in the form's order; empty
    for a scenario typed without the catalog, or one whose selection named everything.

    ``commitment`` is the engine's :func:`costmodel.commitment.commitment_table` of the
    scenario when it has a commitment (the page's table, so that it is computed once): the
    committed count's reason is read from it. Without it, it is asked for here.
    """
    if not link.selection:
        return []
    try:
        selection = parse_selection(link.selection)
    except ScenarioError:  # a selection this version can no longer read: nothing to say
        return []
    catalog = snapshot(selection.day)
    today = {item.field: item for item in defaults_for(selection, catalog)}
    used = _rows_used(link.provenance)
    names = catalog_sources(link.provenance).names  # as "Catalog rows used" names them
    chosen: list[Chosen] = []
    for field in SELECTION_FIELDS:
        name = field.selection
        item = used.get(name)
        if name not in ROW_ROLES or getattr(selection, name) is not None or item is None:
            continue
        slug = str(item["natural_key"][0])
        reason = _reason(today.get(name), slug, selection)
        best = (
            _ranked(link.provenance, slug, selection.all_markets)
            if name == "cloud_offering"
            else None
        )
        if best is not None:
            reason = best
        chosen.append(
            Chosen(
                field=name,
                label=str(field.label),
                value=_row_value(name, names.get(ROW_ROLES[name], item["label"]), link),
                reason=reason,
            )
        )
    committed = _committed(link, selection, commitment)
    if committed is not None:
        chosen.append(committed)
    if selection.preset is None:
        chosen += _running_costs(link, selection, today)
    return chosen


RANKING_ROLE = "cloud offering ranking"
"""The provenance record that the offering is the best rent plan's (webapp.planner.services)."""


def _ranked(provenance: Sequence[Mapping[str, Any]], slug: str, all_markets: bool) -> str | None:
    """Why the offering is the plan's when the planner chose it by ranking every way to rent
    the work (None: it did not)."""
    for item in provenance:
        if item.get("role") == RANKING_ROLE and item.get("offering") == slug:
            count = int(item.get("weighed") or 0)
            if all_markets:
                return ngettext(
                    "the cheapest way to rent this work, by present value, of the %(count)s "
                    "offering of every market that can do it, prices converted at the exchange "
                    "rate in effect on the plan's date (see “Every way to do this work”)",
                    "the cheapest way to rent this work, by present value, of the %(count)s "
                    "offerings of every market that can do it, prices converted at the exchange "
                    "rate in effect on the plan's date (see “Every way to do this work”)",
                    count,
                ) % {"count": count}
            return ngettext(
                "the cheapest way to rent this work, by present value, of the %(count)s "
                "offering of this market that can do it (see “Every way to do this work”)",
                "the cheapest way to rent this work, by present value, of the %(count)s "
                "offerings of this market that can do it (see “Every way to do this work”)",
                count,
            ) % {"count": count}
    return None


def with_rows_used(
    selection: Mapping[str, Any] | None, provenance: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """A plan's selection with each catalog choice it left out (``None``) filled in with the
    slug of the row the plan used, from its provenance: what a page comparing plans names."""
    filled = dict(selection or {})
    for name, item in _rows_used(provenance).items():
        if filled and filled.get(name) is None:
            filled[name] = str(item["natural_key"][0])
    return filled


def _rows_used(provenance: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """The provenance item of each catalog choice's row, by selection field."""
    by_role = {item.get("role"): item for item in reversed(provenance) if item.get("natural_key")}
    return {name: by_role[role] for name, role in ROW_ROLES.items() if role in by_role}


def _row_value(name: str, row: str, link: Permalink) -> str:
    """The row's name, with what it gave the plan (each figure unless the user typed over
    it): a tariff its price per kWh (none when the hosting fee includes power), a hosting
    its monthly fee and PUE."""
    scenario = link.scenario
    build = scenario.build

    def shown(path: str, value: float) -> str | None:
        if path in link.overrides:
            return None
        return field_value(BY_PATH[path], value, scenario.currency)

    if name == "tariff" and build.electricity_price_per_kwh > 0:
        figure = shown("build.electricity_price_per_kwh", build.electricity_price_per_kwh)
    elif name == "hosting":
        fee = shown("build.hosting_monthly", build.hosting_monthly)
        pue = None if "build.pue" in link.overrides else formatting.number(build.pue, 2)
        if fee is not None and pue is not None:
            figure = _("%(fee)s, PUE %(pue)s") % {"fee": fee, "pue": pue}
        else:
            figure = fee or (None if pue is None else _("PUE %(pue)s") % {"pue": pue})
    else:
        figure = None
    if figure is None:
        return row
    return _("%(row)s (%(figure)s)") % {"row": row, "figure": figure}


def _then(selection: Selection) -> str:
    """Why, for a plan whose choice is no longer the catalog's default."""
    return _(
        "the catalog's default for these choices when this plan was made (prices as of "
        "%(date)s); it has changed since"
    ) % {"date": selection.day.isoformat()}


def _reason(today: Defaulted | None, used: Any, selection: Selection) -> str:
    """Today's reason when today's default is what the plan used, else :func:`_then`."""
    if today is not None and same_value(today.value, used):
        return today.reason
    return _then(selection)


def _committed(
    link: Permalink, selection: Selection, table: Mapping[str, Any] | None
) -> Chosen | None:
    """The committed count, when the resolver chose it (a commitment, no count given)."""
    rent = link.scenario.rent
    if (
        rent.committed_hourly_rate <= 0
        or selection.committed_instances is not None
        or "rent.committed_instances" in link.overrides
    ):
        return None
    count = rent.committed_instances
    if table is None:
        try:
            table = commitment_table(link.scenario)
        except ScenarioError:  # results that overflow: no reason rather than no page
            table = None
    if table is None:
        reason = _then(selection)
    elif table["best_committed_instances"] == count:
        scenario = link.scenario
        reason = commitment_reason(dict(table), scenario.currency, scenario.horizon_months)
    else:  # a figure typed over the catalog's (or the catalog) changed what is cheapest
        reason = _(
            "the cheapest count for these choices when this plan was made (prices as of "
            "%(date)s); with the figures this plan uses, the cheapest is %(best)s"
        ) % {
            "date": selection.day.isoformat(),
            "best": formatting.number(table["best_committed_instances"]),
        }
    field = BY_PATH["rent.committed_instances"]
    return Chosen("committed_instances", str(field.label), formatting.number(count), reason)


def _running_costs(
    link: Permalink, selection: Selection, today: Mapping[str, Defaulted]
) -> list[Chosen]:
    """A custom box's running costs the user did not type."""
    scenario: Scenario = link.scenario
    data = scenario.model_dump(mode="json")
    chosen = []
    for path in CUSTOM_BOX_RUNNING_COSTS:
        if path in link.overrides:
            continue
        value = get_path(data, path)
        field = BY_PATH[path]
        shown = _("none") if value is None else field_value(field, value, scenario.currency)
        chosen.append(
            Chosen(path, str(field.label), shown, _reason(today.get(path), value, selection))
        )
    return chosen
