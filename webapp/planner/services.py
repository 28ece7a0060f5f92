"""The planner's operations: from what a person typed into the form to a plan.

A plan is a :class:`~webapp.planner.permalink.Permalink`: an explicit, validated
:class:`costmodel.Scenario` with its provenance, the fields the user overrode,
the catalog selection it came from and the uncertainty ranges the user chose,
the one value the results page, its link and the ranking read.
:func:`plan_from_form` is what the planner view calls: the form checks what was
typed and is read once into a :class:`~webapp.planner.plan_input.PlanInput`;
:func:`make_plan` resolves its catalog selection, applies the values the user
changed (the overrides, recorded by dotted field path), validates the result
once with the engine's own schema and projects it once (does it compute?).
Errors come back on the form, beside the field they name.

:func:`planner_form` builds the form a visitor opens: blank, for a preset
(``?preset=…``) or for a permalink (``?from=…``), with every Advanced field
prefilled with the catalog's value at today's prices and the uncertainty
ranges with their defaults (:func:`costmodel.ranges.default_ranges`).

What the form showed travels in its hidden ``basis`` field (``path → value``
in the scenario's units): a value the user left as shown follows the plan (a
catalog price follows the chosen preset; a range follows the planned
utilization), a value the user changed is theirs.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from costmodel import Scenario, ScenarioError
from costmodel.errors import with_fields
from costmodel.paths import get_path
from costmodel.ranges import Range, check_ranges, customized, default_ranges, with_defaults
from webapp.catalog import selectors as catalog_selectors
from webapp.catalog.resolver import Resolution, Selection, resolve
from webapp.catalog.resolver.box import hosting_kind
from webapp.catalog.resolver.choose import default_hosting
from webapp.catalog.selectors import snapshot
from webapp.planner import chosen, market, ranking
from webapp.planner.choices import CatalogChoices
from webapp.planner.fields import CATALOG_FIELDS, RANGE_ENDS, same_value
from webapp.planner.form_fields import RANGE_BY_PATH
from webapp.planner.form_initial import draft_initial, initial_from_link, range_basis
from webapp.planner.forms import PlannerForm
from webapp.planner.jobs import (
    Holder,
    MemoryRefusal,
    box_memory,
    job_memory,
    memory_needed,
    memory_refusal,
    with_memory,
)
from webapp.planner.permalink import Permalink, PermalinkError, decode
from webapp.planner.plan_input import PlanInput, plan_input, selection_of
from webapp.scenarios import selectors as saved_selectors
from webapp.scenarios import services as saved_services
from webapp.scenarios.models import SavedScenario
from webapp.scenarios.services import ensure_computable


class MemoryRefused(Exception):
    """A described transformer job does not fit the box: the plan is refused."""

    def __init__(self, refusal: MemoryRefusal) -> None:
        super().__init__(refusal.job.name)
        self.refusal = refusal


def _overrides(typed: Mapping[str, Any], resolved: Scenario) -> dict[str, Any]:
    """The values the user changed (:attr:`PlanInput.typed`) that differ from the catalog's."""
    data = resolved.model_dump(mode="json")
    return {p: v for p, v in typed.items() if not same_value(v, get_path(data, p))}


def ranges_from(inp: PlanInput, scenario: Scenario) -> list[Range] | None:
    """The uncertainty ranges the input asks for: each default of ``scenario``, with every
    end the user changed over it.

    Returns ``None`` when every range is the scenario's default.

    Raises
    ------
    ScenarioError
        Naming ``distributions.<path>.low`` (``.mode``, ``.high``) when a range is out of
        order or outside its field's bounds.
    """
    chosen = []
    for d in default_ranges(scenario):
        if d.path in RANGE_BY_PATH:
            ends = [inp.ranges.get(f"ranges.{d.path}.{a}", getattr(d, a)) for _s, a in RANGE_ENDS]
            chosen.append(Range(d.path, *ends))  # low, mode, high
    custom = customized(scenario, chosen)
    check_ranges(scenario, custom)
    return with_defaults(scenario, custom)


def make_plan(inp: PlanInput) -> Permalink:
    """The plan of a submitted input: its explicit scenario with provenance, overrides, catalog
    selection and uncertainty ranges, checked to compute (the one projection of the request).

    Raises
    ------
    ScenarioError
        Naming selection fields (``preset``, ``cloud_offering``, ``as_of`` …)
        or scenario fields (``build.capex`` …), or the scenario's results overflow.
    MemoryRefused
        A described job fits neither the box nor the plan's cloud instance.
    """
    plan = _catalog_plan(inp, inp.selection) if inp.selection is not None else _typed_plan(inp)
    ensure_computable(plan.scenario)
    return plan


def _typed_plan(inp: PlanInput) -> Permalink:
    """The plan of a scenario typed without the catalog."""
    assert inp.scenario is not None
    return Permalink(
        scenario=inp.scenario,
        provenance=[dict(item) for item in inp.job_items],
        ranges=ranges_from(inp, inp.scenario),
    )


def _catalog_plan(inp: PlanInput, selection: Selection) -> Permalink:
    """The plan of a catalog selection: resolved (the best way to rent it when the offering
    is left to the catalog), with the values the user typed over the catalog's."""
    job_items = [dict(item) for item in inp.job_items]
    jobs = list(inp.jobs)
    if jobs:
        box = box_memory(selection.model_dump(mode="json"))
        refusal = _memory_refusal(jobs, box, selection)
        if refusal is not None:
            raise MemoryRefused(refusal)
        with_memory(job_items, job_memory(jobs, box))
    resolution = _resolve_holding(selection, jobs)
    ranked_items: list[dict[str, Any]] = []
    if selection.cloud_offering is None:  # left to the catalog: the best way to rent it
        resolution, ranked_items = _best_rent(selection, resolution, inp.typed)
    changes = _overrides(inp.typed, resolution.scenario)
    if inp.name:
        changes["name"] = inp.name
    scenario = with_fields(resolution.scenario, changes) if changes else resolution.scenario
    return Permalink(
        scenario=scenario,
        provenance=resolution.provenance + ranked_items + job_items,
        overrides=[path for path in changes if path != "name"],
        selection=selection.model_dump(mode="json"),
        ranges=ranges_from(inp, scenario),
    )


def _best_rent(
    selection: Selection, resolution: Resolution, typed: Mapping[str, Any]
) -> tuple[Resolution, list[dict[str, Any]]]:
    """The plan compared with the best way to rent its work: the offering of the best rent
    plan among every offering of the plan's market that can do it (the options operation,
    :func:`webapp.planner.ranking.best_rent`), and the record of that choice; the resolver's
    default when none can be ranked.

    The plan ranked is the user's: the catalog's figures with the ``typed`` values over them
    (a box's throughput or GPU count typed in changes the work rented, and so which offering
    rents it cheapest). The results page ranks the same plan, so the offering chosen is the
    first rent row of its "Every way to do this work" (and that ranking is computed once)."""
    data = selection.model_dump(mode="json")
    changes = _overrides(typed, resolution.scenario)
    planned = with_fields(resolution.scenario, changes) if changes else resolution.scenario
    best = ranking.best_rent(planned, data)
    if best is None:
        return resolution, []
    slug, weighed = best
    default = next((d.value for d in resolution.defaulted if d.field == "cloud_offering"), None)
    if slug != default:
        try:
            resolution = resolve(
                selection.model_copy(update={"cloud_offering": slug}), snapshot(selection.day)
            )
        except ScenarioError:
            return resolution, []
    item = {
        "role": chosen.RANKING_ROLE,
        "label": slug,
        "model": "options",
        "natural_key": [],
        "fields": ["rent.hourly_rate"],
        "source": "",
        "offering": slug,
        "weighed": weighed,
    }
    return resolution, [item]


def _resolve_holding(selection: Selection, jobs: list[Any]) -> Resolution:
    """The selection resolved; when its offering is left to the catalog and the default
    instance cannot hold a described job, resolved first with the market's smallest
    offering that holds them all (the ranking then picks the best one)."""
    try:
        return resolve(selection, snapshot(selection.day))
    except ScenarioError:
        needed = [memory_needed(job) or 0.0 for job in jobs]
        if selection.cloud_offering is not None or not any(needed):
            raise
        catalog = snapshot(selection.day)
        offered = market.offered(selection.currency, selection.all_markets, catalog)
        holder = market.smallest_holding(offered, max(needed))
        if holder is None:
            raise
        return resolve(selection.model_copy(update={"cloud_offering": holder.slug}), catalog)


def _memory_refusal(jobs: list[Any], box: Any, selection: Selection) -> MemoryRefusal | None:
    """A described job that fits neither the box nor the plan's cloud instance (the chosen
    offering; left to the catalog, any offering of the plan's market), with the smallest
    preset and the smallest offering of the market that would hold it; a job that fits the
    instance is rented."""
    catalog = snapshot(selection.day)
    offered = market.offered(selection.currency, selection.all_markets, catalog)
    if selection.cloud_offering is None:  # left to the catalog: any offering of the market
        capacity = max((market.instance_memory_gb(o) for o in offered), default=None)
    else:
        offering = catalog.offerings.get(selection.cloud_offering)
        capacity = None if offering is None else market.instance_memory_gb(offering)

    def holder(needed: float) -> Holder | None:
        found = market.smallest_holding(offered, needed)
        if found is None:
            return None
        return Holder(found.slug, found.localized_name(), market.instance_memory_gb(found))

    return memory_refusal(jobs, box, capacity, holder)


def plan_from_form(form: PlannerForm) -> Permalink | None:
    """The plan of a submitted planner form (its :class:`PlanInput`, read once), or ``None``
    with the errors put on the form."""
    if not form.is_valid():
        return None
    try:
        plan = make_plan(plan_input(form))
    except ScenarioError as exc:
        form.add_engine_errors(exc)
        return None
    except MemoryRefused as refused:
        form.refuse_for_memory(refused.refusal)
        return None
    form.overrides = plan.overrides
    return plan


def catalog_values(scenario: Scenario) -> dict[str, Any]:
    """``path → value`` of every field the catalog prefills, as ``scenario`` holds it."""
    data = scenario.model_dump(mode="json")
    return {f.path: get_path(data, f.path) for f in CATALOG_FIELDS}


def saved_link(item: SavedScenario) -> Permalink:
    """A saved scenario as the permalink it would be: its scenario, provenance, overrides,
    selection and ranges."""
    scenario = saved_services.stored_scenario(item)
    return Permalink(
        scenario=scenario,
        provenance=item.provenance,
        overrides=item.overrides,
        selection=item.selection,
        ranges=saved_services.stored_ranges(item, scenario),
    )


def link_from(params: Mapping[str, Any]) -> Permalink | None:
    """The plan a query names: ``?from=<permalink code>`` or ``?saved=<saved scenario id>``."""
    return _link(params)


def _link(params: Mapping[str, Any]) -> Permalink | None:
    """The inputs to reopen the planner on: a permalink code (``?from=``) or a saved
    scenario's id (``?saved=``, for a scenario too large for a link)."""
    if params.get("saved"):
        try:
            item = saved_selectors.saved_scenario(uuid.UUID(str(params["saved"])))
        except ValueError:
            return None
        return None if item is None else saved_link(item)
    try:
        return decode(params["from"]) if params.get("from") else None
    except PermalinkError:
        return None


def _resolution(form: PlannerForm) -> Resolution | None:
    """The form's initial catalog selection resolved at today's prices, if it has one."""
    values = form.initial_selection()
    if values is None:
        return None
    try:
        return resolve(selection_of(values, None))
    except (ScenarioError, KeyError, TypeError):
        return None  # the catalog can no longer resolve this selection: keep the link's values


def planner_form(params: Mapping[str, Any], catalog: CatalogChoices | None) -> PlannerForm:
    """An unbound planner form for ``?preset=<slug>``, ``?from=<permalink code>`` or
    ``?saved=<saved scenario id>``.

    Advanced fields are prefilled with the catalog's values for the initial
    selection (at today's prices); values the link's user overrode stay theirs.
    The uncertainty ranges show the link's (or the defaults around the plan),
    and a 1- or 3-year commitment says how many instances it reserves by default.
    """
    link = _link(params)
    initial: dict[str, Any] = {}
    if link is not None:
        initial = initial_from_link(link)
    elif catalog is not None and params.get("preset") in catalog.preset_slugs():
        if params.get("workload_kind"):  # a reopen link: the form as typed, another preset
            draft = PlannerForm(params, catalog=catalog)
            initial = draft_initial(draft)
            initial["jobs"] = draft.cleaned_data.get("jobs") or []
        initial.update({"box": "preset", "preset": params["preset"]})
    form = PlannerForm(initial=initial, catalog=catalog)
    if link is not None:
        form.overrides = list(link.overrides)
    basis: dict[str, Any] = {}
    resolution = _resolution(form)
    resolved = None if resolution is None else resolution.scenario
    if resolution is not None and resolved is not None:
        form.show_defaults([(d.field, d.value, d.reason) for d in resolution.defaulted])
        from_catalog = catalog_values(resolved)
        form.prefill(from_catalog)
        basis.update(from_catalog)
        offering = form.get_initial_for_field(form.fields["cloud_offering"], "cloud_offering")
        if form.is_commitment(offering):
            form.committed_default = resolved.rent.committed_instances
    planned = link.scenario if link is not None else resolved
    if planned is not None:
        defaults = default_ranges(planned)
        basis.update(range_basis(defaults))
        if link is None or not link.ranges:
            form.prefill_ranges(defaults)
    if basis:
        form.set_basis(basis)
    return form


CURRENCIES = ("CNY", "USD")


def hosting_hints(form: PlannerForm) -> dict[str, dict[str, str]]:
    """``currency → preset slug → hint``: what the hosting field says the catalog picks when
    it is left to the catalog, for every preset and currency the form offers, so the page's
    script shows the chosen preset's at once (the resolver's own rule,
    :func:`~webapp.catalog.resolver.choose.default_hosting`; the same words as
    :meth:`PlannerForm.show_defaults`)."""
    if form.catalog is None:
        return {}
    presets = list(catalog_selectors.presets_for_choice())
    hints: dict[str, dict[str, str]] = {}
    for currency in CURRENCIES:
        hints[currency] = {}
        for preset in presets:
            picked = default_hosting(currency, hosting_kind(preset, ()))
            hints[currency][preset.slug] = form.defaulted_hint(
                "hosting", picked.value, picked.reason
            )
    return hints


def committed_default(form: PlannerForm) -> int | None:
    """The resolver's default count of committed instances for a (bound) form's choices:
    ``None`` unless they name a 1- or 3-year commitment the catalog resolves.

    Only the fields the catalog selection needs must be valid; the rest of the
    form (a half-typed Advanced value) does not matter here.
    """
    form.is_valid()
    data = form.cleaned_data
    if not form.uses_catalog() or not form.is_commitment(data.get("cloud_offering")):
        return None
    try:
        selection = selection_of(form.selection_data(), None)
        uncommitted = selection.model_copy(update={"committed_instances": None})
        return resolve(uncommitted).scenario.rent.committed_instances
    except (ScenarioError, KeyError, TypeError):
        return None
