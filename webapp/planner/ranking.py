"""Every way to do this work: the plan's box, the presets near it and every offering of its
market, ranked by present value (methodology version 4, the options operation).

For a plan resolved from the catalog, :func:`ranking_request` asks the catalog
for each candidate as the plan would have it — the plan's box, the presets of
its tier and the next, and every offering of the plan's market
(:mod:`webapp.planner.market`) — each resolved with the plan's own choices
(benchmark, tariff, hosting, currency, date), and :func:`costmodel.options.options`
ranks them as plans doing the same work. Work stated as utilization may only
be rented on GPUs with at least the box's memory per GPU (what was sized for
the box must fit them); the others are listed as infeasible for memory, as are
the offerings and boxes the engine finds cannot hold a job. Nothing is
computed here: the present values, totals and placements are the engine's.

:func:`best_rent` is what the planner compares a box with when the plan leaves
the cloud offering to the catalog: the offering of the best rent plan.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.core.cache import caches
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from costmodel import Scenario, ScenarioError
from costmodel.options import options, parse_options, with_box
from costmodel.projection import job_times
from costmodel.scenario import Build, JobsWorkload, Rent
from webapp import formatting
from webapp.catalog.models import BuildPreset, CloudOffering, FxRate, Tier
from webapp.catalog.resolver import (
    Selection,
    parse_selection,
    resolve,
    resolve_build,
    resolve_rent,
    resolve_rents,
)
from webapp.catalog.selectors import CatalogSnapshot, catalog_version, snapshot
from webapp.planner import market
from webapp.planner.permalink import Permalink

TIERS = [tier.value for tier in Tier]
"""Preset tiers, smallest first: the ranking weighs the plan's tier and the next."""

THIS_BOX = "this-box"
"""The request's name of the plan's own box."""

CACHE = "default"
CACHE_SECONDS = 3600


@dataclass(frozen=True)
class Candidates:
    """What the options request weighs, and how to name and reopen each."""

    request: dict[str, Any]
    offerings: dict[str, CloudOffering]
    """Offering slug → row (the request names rents by slug)."""
    presets: dict[str, BuildPreset]
    """Preset slug → row (the request names builds by slug, the plan's own as THIS_BOX)."""
    rent_selections: dict[str, dict[str, Any]]
    build_selections: dict[str, dict[str, Any]]
    memory_refused: list[str] = field(default_factory=list)
    """Offerings left out before the engine: fewer GB per GPU than the box's (utilization
    work)."""
    exchange: list[FxRate] = field(default_factory=list)
    """The exchange rates that converted offerings' prices into the plan's currency."""
    all_markets: bool = False
    """Every market's offerings were weighed, not only the currency's market's."""
    day: datetime.date = datetime.date.min
    """The day of the prices and of the exchange rates."""


def _selection(link_selection: Mapping[str, Any], **changes: Any) -> dict[str, Any]:
    data = {**link_selection, **changes}
    if data.get("preset"):
        for key in ("parts", "gpu_model", "gpu_count", "scaling_efficiency"):
            data.pop(key, None)
        data.pop("multi_node_scaling_efficiency", None)
    return data


def _side(
    resolve_side: Callable[[Selection, CatalogSnapshot], Build | Rent],
    data: Mapping[str, Any],
    catalog: CatalogSnapshot,
) -> dict[str, Any] | None:
    """One side of the plan ``data`` (:func:`resolve_build` or :func:`resolve_rent`) as the
    options request names it, without a commitment's count (the operation commits at the
    best count for the work); None when the catalog cannot price it."""
    try:
        return resolve_side(parse_selection(dict(data)), catalog).model_dump(
            exclude={"committed_instances"}
        )
    except (ScenarioError, KeyError, TypeError, ValueError):
        return None


def _rents(
    selection: Mapping[str, Any], listed: list[CloudOffering], catalog: CatalogSnapshot
) -> list[dict[str, Any] | None]:
    """:func:`_side` of :func:`resolve_rent` for each offering of ``listed`` (the shared rows
    looked up once: :func:`resolve_rents`)."""
    slugs = [offering.slug for offering in listed]
    try:
        base = parse_selection(_selection(selection, committed_instances=None))
        rents = resolve_rents(base, slugs, catalog)
    except (ScenarioError, KeyError, TypeError, ValueError):  # each on its own, as _side does
        return [
            _side(
                resolve_rent,
                _selection(selection, cloud_offering=slug, committed_instances=None),
                catalog,
            )
            for slug in slugs
        ]
    return [
        None if rent is None else rent.model_dump(exclude={"committed_instances"}) for rent in rents
    ]


def nearby_presets(catalog: CatalogSnapshot, box_tier: str | None) -> list[BuildPreset]:
    """The presets of the plan's tier and the next one (all of the first tier for a custom
    box), by slug."""
    presets = sorted(catalog.presets.values(), key=lambda p: p.slug)
    tier = box_tier if box_tier in TIERS else TIERS[0]
    wanted = set(TIERS[TIERS.index(tier) : TIERS.index(tier) + 2])
    return [p for p in presets if p.tier in wanted]


def _catalog_part(selection: Mapping[str, Any]) -> dict[str, Any] | None:
    """The catalog's side of the candidates: each offering of the market resolved with the
    plan's choices, by the rent rules alone (:func:`resolve_rent`), and each nearby preset by
    the build rules alone (:func:`resolve_build`). It does not depend on the workload (a
    commitment's count is left to the options operation's best; whether a box or an
    instance can do the work is the operation's to say), so it is kept per selection without
    its workload and per catalog version: the next plan of the same choices is ranked
    without a database query. It names rows by slug (the catalog's rows are the shared
    :func:`snapshot`'s), so that it is stored and read without its rows' weight."""
    try:
        parsed = parse_selection(dict(selection))
    except ScenarioError:
        return None
    without_work = {k: v for k, v in selection.items() if k not in ("workload", "name")}
    identity = json.dumps([without_work, catalog_version()], sort_keys=True)
    key = "ranking:catalog:v3:" + hashlib.blake2b(identity.encode(), digest_size=16).hexdigest()
    cache = caches[CACHE]
    part: dict[str, Any] | None = cache.get(key)
    if part is not None:
        return part
    catalog = snapshot(parsed.day)
    box_preset = catalog.presets.get(parsed.preset or "")
    listed = market.offered(parsed.currency, parsed.all_markets, catalog)
    rents: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
    for offering, rent in zip(listed, _rents(selection, listed, catalog), strict=True):
        if rent is not None:
            data = _selection(selection, cloud_offering=offering.slug, committed_instances=None)
            rents.append((offering.slug, data, rent))
    builds: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
    for preset in nearby_presets(catalog, None if box_preset is None else box_preset.tier):
        if box_preset is not None and preset.slug == box_preset.slug:
            continue
        data = _selection(selection, preset=preset.slug)
        build = _side(resolve_build, data, catalog)
        if build is not None:
            builds.append((preset.slug, data, build))
    exchange = market.exchange_rates(parsed.currency, listed, catalog)
    part = {
        "box_preset": None if box_preset is None else box_preset.slug,
        "rents": rents,
        "builds": builds,
        "exchange": [(row.base_currency, row.quote_currency) for row in exchange],
        "day": parsed.day,
    }
    cache.set(key, part, CACHE_SECONDS)
    return part


def candidates(scenario: Scenario, selection: Mapping[str, Any]) -> Candidates | None:
    """The options request of a catalog plan: its box and scenario, the nearby presets and
    every offering of its market (of every market, when its selection says
    ``all_markets``); None for a plan typed without the catalog."""
    part = _catalog_part(selection)
    if part is None:
        return None
    catalog = snapshot(part["day"])
    box_memory = scenario.build.gpu_memory_gb
    jobs = isinstance(scenario.workload, JobsWorkload)
    offerings: dict[str, CloudOffering] = {}
    rents: list[dict[str, Any]] = []
    rent_selections: dict[str, dict[str, Any]] = {}
    refused: list[str] = []
    for slug, data, rent in part["rents"]:
        offering = offerings[slug] = catalog.offerings[slug]
        if not jobs and box_memory is not None and market.gpu_memory_gb(offering) < box_memory:
            refused.append(offering.slug)  # what was sized for the box must fit its GPUs
            continue
        rent_selections[offering.slug] = {**data, "workload": selection.get("workload")}
        rents.append({"name": offering.slug, "rent": rent})
    builds = [{"name": THIS_BOX, "build": scenario.build.model_dump()}]
    build_selections = {THIS_BOX: dict(selection)}
    presets: dict[str, BuildPreset] = {}
    for slug, data, build in part["builds"]:
        presets[slug] = catalog.presets[slug]
        build_selections[slug] = {**data, "workload": selection.get("workload")}
        builds.append({"name": slug, "build": build})
    if part["box_preset"] is not None:
        presets[THIS_BOX] = catalog.presets[part["box_preset"]]
    request = {"scenario": scenario.model_dump(mode="json"), "builds": builds, "rents": rents}
    return Candidates(
        request,
        offerings,
        presets,
        rent_selections,
        build_selections,
        refused,
        [catalog.fx_rates[pair] for pair in part["exchange"]],
        bool(selection.get("all_markets")),
        part["day"],
    )


def _key(scenario: Scenario, selection: Mapping[str, Any]) -> str:
    """The ranking's identity: the selection and the scenario, but for what the options
    operation replaces in each plan (the scenario's own offering, its name): the form's
    ranking, made while the plan's offering was still to be chosen, is the page's. The
    catalog's version is part of it: the other offerings' and presets' prices are read from
    the catalog, so a price recorded since makes a new ranking."""
    work = scenario.model_dump(mode="json", exclude={"rent", "name"})
    identity = json.dumps([work, selection, catalog_version()], sort_keys=True)
    digest = hashlib.blake2b(identity.encode(), digest_size=16).hexdigest()
    return f"ranking:v3:{digest}"


def ranked(
    scenario: Scenario, selection: Mapping[str, Any]
) -> tuple[Candidates, dict[str, Any]] | None:
    """The candidates of a catalog plan and the engine's options answer over them (None: a
    plan typed without the catalog, or one the engine refuses to rank); the answer cached
    (the candidates are made again from their cached catalog part: no rows are stored)."""
    chosen = candidates(scenario, selection)
    if chosen is None or not chosen.request["rents"]:
        return None
    key, cache = _key(scenario, selection), caches[CACHE]
    answer: dict[str, Any] | None = cache.get(key)
    if answer is None:
        try:
            answer = options(parse_options(chosen.request, bounded=False))  # the whole market
        except ScenarioError:
            return None
        cache.set(key, answer, CACHE_SECONDS)
    return chosen, answer


def best_rent(scenario: Scenario, selection: Mapping[str, Any]) -> tuple[str, int] | None:
    """The offering (slug) of the best rent plan for this work, and how many offerings of the
    market can do it; None when none can."""
    found = ranked(scenario, selection)
    if found is None:
        return None
    _chosen, answer = found
    rent_plans = [p for p in answer["plans"] if p["kind"] == "rent"]
    if not rent_plans:
        return None
    return str(rent_plans[0]["rent"]), len(rent_plans)


# --------------------------------------------------------------------------
# The results page's section
# --------------------------------------------------------------------------


def _reason(reason: str) -> str:
    if reason == "memory":
        return _("memory: a run of this work does not fit its GPUs")
    if reason == "capacity":
        return _("capacity: some month needs more than eight of these boxes")
    return reason


def _preset_label(slug: str, c: Candidates) -> str:
    if slug == THIS_BOX:
        preset = c.presets.get(THIS_BOX)
        name = preset.localized_name() if preset is not None else _("your custom box")
        return _("This box: %(name)s") % {"name": name}
    preset = c.presets.get(slug)
    return slug if preset is None else preset.localized_name()


def _offering_label(slug: str, c: Candidates) -> str:
    offering = c.offerings.get(slug)
    return slug if offering is None else offering.localized_name()


def ranking_part(link: Permalink, link_for: Any) -> dict[str, Any] | None:
    """The "Every way to do this work" section of the plan ``link``: rows ranked by present value,
    the infeasible ones with their reason; None for a plan typed without the catalog.

    ``link_for(preset, offering)`` gives the address of a row's own results page (preset
    None: the plan's own box). A results page weighs its box against renting all the work:
    a build row opens its box against the offering it rents from when that offering can do
    all the work (it has a rent plan), else against the best rent plan's offering (a box
    that holds every job rents nothing, and the first offering by name may hold none).
    """
    scenario, selection = link.scenario, link.selection
    if not selection:
        return None
    found = ranked(scenario, selection)
    if found is None:
        return None
    c, answer = found
    cur = scenario.currency
    jobs = isinstance(scenario.workload, JobsWorkload)
    renting_all = [plan["rent"] for plan in answer["plans"] if plan["kind"] == "rent"]
    rows = []
    for rank, plan in enumerate(answer["plans"], start=1):
        if plan["kind"] == "build":
            name = plan["build"]
            label = _preset_label(name, c)
            rents = _offering_label(plan["rent"], c)
            preset = c.presets[name].slug if name in c.presets else ""
            offering = plan["rent"]
            opened = offering
            if offering not in renting_all and renting_all:
                opened = renting_all[0]  # the best rent plan: they are ranked
        else:
            label = _("Rent: %(offering)s") % {"offering": _offering_label(plan["rent"], c)}
            rents = _("everything")
            name = ""
            preset = ""
            offering = opened = plan["rent"]
        times = _times(scenario, plan, c) if jobs else ""
        rows.append(
            {
                "rank": rank,
                "kind": plan["kind"],
                "label": label,
                "preset": preset,
                "offering": offering,
                "present_value": formatting.money(plan["present_value"], cur),
                "total": formatting.money(plan["total"], cur),
                "rents": rents,
                "times": times,
                "this_box": plan["kind"] == "build" and plan["build"] == THIS_BOX,
                "url": link_for(
                    None if plan["kind"] == "rent" or name == THIS_BOX else name, opened
                ),
            }
        )
    infeasible = [
        {
            "label": _preset_label(item["build"], c)
            if item["kind"] == "build"
            else _("Rent: %(offering)s") % {"offering": _offering_label(item["rent"], c)},
            "preset": c.presets[item["build"]].slug
            if item["kind"] == "build" and item["build"] in c.presets
            else "",
            "offering": item.get("rent") or "",
            "reason": _reason(item["reason"]),
        }
        for item in answer["infeasible"]
    ]
    box_memory = scenario.build.gpu_memory_gb
    infeasible += [
        {
            "label": _("Rent: %(offering)s") % {"offering": _offering_label(slug, c)},
            "preset": "",
            "offering": slug,
            "reason": _(
                "memory: %(gpu)s GB per GPU, less than the %(box)s GB per GPU the work was "
                "sized for"
            )
            % {
                "gpu": formatting.number(market.gpu_memory_gb(c.offerings[slug])),
                "box": formatting.number(box_memory or 0),
            },
        }
        for slug in c.memory_refused
    ]
    return {
        "rows": rows,
        "infeasible": infeasible,
        "jobs": jobs,
        "language": get_language(),
        "all_markets": c.all_markets,
        "day": c.day.isoformat(),
        "exchange": [
            {
                "base": row.base_currency,
                "quote": row.quote_currency,
                "rate": formatting.number(row.rate, 4),
                "effective": row.effective_date.isoformat(),
                "source": str(row.source),
            }
            for row in c.exchange
        ],
    }


def _times(scenario: Scenario, plan: Mapping[str, Any], c: Candidates) -> str:
    """Time to result per job of a plan: wall hours of one run where it runs (the engine's
    job times of the plan's box and offering)."""
    build_data = c.request["builds"]
    rent_data = {r["name"]: r["rent"] for r in c.request["rents"]}
    build = next((b["build"] for b in build_data if b["name"] == plan.get("build")), None)
    update: dict[str, Any] = {"rent": scenario.rent.model_validate(rent_data[plan["rent"]])}
    if build is not None:
        update["build"] = scenario.build.model_validate(build)
    try:
        variant = scenario.model_copy(update=update)
        rows = job_times(variant)
    except (ScenarioError, ValueError):
        return ""
    parts = []
    for row in rows:
        if plan["kind"] == "build" and row["placement"] == "box":
            hours = row["build_hours_per_run"]
        else:
            hours = row["rent_instance_hours_per_run"]
        parts.append(
            _("%(job)s: %(hours)s h") % {"job": row["name"], "hours": formatting.number(hours, 1)}
        )
    return "; ".join(parts)


def variant(plan: Permalink, *, preset: str | None, offering: str | None) -> Permalink | None:
    """A row of the ranking as a plan of its own: ``plan`` (made from the catalog) with
    another box (``preset``, None: the plan's) and another offering, resolved from the
    catalog, doing the same work (work stated as utilization is the same reference GPU-hours
    on the other box, as the options operation holds it). None when the catalog cannot
    resolve it."""
    scenario, selection, provenance = plan.scenario, plan.selection or {}, plan.provenance
    changes: dict[str, Any] = {}
    if preset:
        changes["preset"] = preset
    if offering:
        changes.update(cloud_offering=offering, committed_instances=None)
    data = _selection(selection, **changes)
    try:
        parsed = parse_selection(data)
        resolution = resolve(parsed, snapshot(parsed.day))
    except (ScenarioError, KeyError, TypeError, ValueError):
        return None
    resolved = resolution.scenario
    if preset and not isinstance(scenario.workload, JobsWorkload):
        # the engine's own conversion (costmodel.options): the same work on the other box
        same = with_box(scenario, resolved.build)
        resolved = resolved.model_copy(update={"workload": same.workload})
    workload_items = [
        dict(item)
        for item in provenance
        if item.get("fields") and all(str(p).startswith("workload.") for p in item["fields"])
    ]
    kept = [dict(item) for item in resolution.provenance] + workload_items
    return Permalink(scenario=resolved, provenance=kept, selection=parsed.model_dump(mode="json"))
