"""Saved-scenario operations: the planner's pages and the API both call these.

A saved scenario stores a validated :class:`costmodel.Scenario` in its JSON
form; it is read back (and validated, once) where it leaves the database.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Sequence
from datetime import date
from typing import Any

from django.conf import settings
from django.contrib.sessions.backends.base import SessionBase
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from costmodel import FieldError, Scenario, ScenarioError, project
from costmodel.errors import with_fields
from costmodel.paths import get_path
from costmodel.projection import ProjectionOverflowError
from costmodel.ranges import Range, check_ranges, customized, with_defaults
from webapp.accounts.models import Team
from webapp.accounts.selectors import is_member
from webapp.catalog.resolver import Resolution, parse_selection, resolve
from webapp.catalog.selectors import CatalogSnapshot, catalog_version, forget_catalog_version
from webapp.release import DECIDING, release_digest
from webapp.scenarios import decisions
from webapp.scenarios.models import SavedScenario
from webapp.scenarios.selectors import User, saved_from_the_catalog


def overflow_error() -> FieldError:
    """The error of a valid scenario whose results overflow float64 (say, capex 1e308)."""
    return FieldError(
        "(scenario)",
        _("inputs are so large that the results are not finite numbers; check the amounts"),
    )


def ensure_computable(scenario: Scenario) -> None:
    """Run the engine on ``scenario``; :class:`ScenarioError` if its results are not finite.

    Every field can be within its bounds while the results still overflow
    (a capex, an hourly rate and a fixed fee of 1e308 each). A saved scenario
    is shown on pages and in CSV files for as long as it exists, so one that
    cannot be computed is refused when it is saved, not each time it is read.
    """
    try:
        project([scenario])
    except ProjectionOverflowError:
        raise ScenarioError([overflow_error()]) from None


def stored_scenario(saved: SavedScenario) -> Scenario:
    """The explicit scenario of a saved row (validated where it leaves the database)."""
    return Scenario.model_validate(saved.scenario)


def stored_ranges(saved: SavedScenario, scenario: Scenario | None = None) -> list[Range] | None:
    """The uncertainty ranges of a saved row: its custom ones completed with the defaults of
    ``scenario`` (default: the row's own); ``None`` when it keeps the defaults.

    Rows are checked when they are written; one that no longer fits its scenario
    (a hand-edited row) falls back to the defaults rather than breaking its pages.
    """
    if not saved.ranges:
        return None
    scenario = scenario or stored_scenario(saved)
    try:
        custom = [Range(r["path"], r["low"], r["mode"], r["high"]) for r in saved.ranges]
        check_ranges(scenario, custom)
    except (KeyError, TypeError, ScenarioError):
        return None
    return with_defaults(scenario, custom)


def create_saved_scenario(
    *,
    name: str,
    scenario: Scenario,
    provenance: list[dict[str, Any]] | None = None,
    overrides: list[str] | None = None,
    user: User | None = None,
    session_key: str | None = None,
    selection: dict[str, Any] | None = None,
    ranges: Sequence[Range] | None = None,
    team: Team | None = None,
) -> SavedScenario:
    """Store an explicit scenario under ``name``, owned by ``user`` or, if anonymous, the session.

    ``scenario`` is stored in its JSON form with defaults filled in, and with the
    decision its results page states (:mod:`webapp.scenarios.decisions`).
    ``selection`` (optional) is the catalog selection it was resolved from,
    kept so it can be re-run later. ``ranges`` (optional) are the uncertainty
    ranges of its analyses; only those that differ from the scenario's
    defaults are stored. ``team`` (optional) shares it with that team, one of
    ``user``'s.

    Raises
    ------
    ScenarioError
        If ``team`` is not one of the user's (field ``team``), if the engine's
        results for ``scenario`` overflow (:func:`ensure_computable`),
        or a range is not one of the scenario's or out of bounds
        (:func:`costmodel.ranges.check_ranges`).
    """
    owner: Any = user if user is not None and user.is_authenticated else None
    check_team(owner, team)
    ensure_computable(scenario)
    custom = customized(scenario, ranges or [])
    check_ranges(scenario, custom)
    try:  # the verdict also sweeps the box's use from idle to flat out, which may overflow
        decision = decisions.stored(
            decisions.decision_of(scenario, with_defaults(scenario, custom), provenance or ())
        )
    except ProjectionOverflowError:
        raise ScenarioError([overflow_error()]) from None
    return SavedScenario.objects.create(
        **decisions.saved_fields(decision),
        name=name,
        scenario=scenario.model_dump(mode="json"),
        provenance=list(provenance or []),
        overrides=sorted(set(overrides or [])),
        selection=selection,
        ranges=[{"path": r.path, "low": r.low, "mode": r.mode, "high": r.high} for r in custom]
        or None,
        owner=owner,
        team=team,
        session_key="" if owner is not None else (session_key or ""),
    )


ANONYMOUS_SAVES = "planner:anonymous_saves_key"
"""Session entry naming the session key that anonymous saves were stored under.

Logging in gives the browser a new session key (against session fixation)
but keeps the session's data, so this entry survives the login and tells
:func:`claim_anonymous_saves` which rows to hand to the user.
"""


def anonymous_owner_key(session: SessionBase) -> str:
    """The session key to store an anonymous save under; remembered in the session itself."""
    if not session.session_key:
        session.save()
    key = str(session.session_key)
    session[ANONYMOUS_SAVES] = key
    return key


def claim_anonymous_saves(user: User, session: SessionBase) -> int:
    """Give ``user`` the scenarios this browser saved before logging in; return how many.

    Called when a user logs in (``user_logged_in``): without it the saves would
    stay keyed by the session key the login just replaced and vanish from
    "Saved".
    """
    key = session.pop(ANONYMOUS_SAVES, None)
    if not key or not user.is_authenticated:
        return 0
    return SavedScenario.objects.filter(owner__isnull=True, session_key=key).update(
        owner=user, session_key=""
    )


def rename(saved: SavedScenario, name: str) -> SavedScenario:
    """Give a saved scenario a new name; its figures never change."""
    saved.name = name
    saved.save(update_fields=["name", "updated_at"])
    return saved


def check_team(owner: Any, team: Team | None) -> None:
    """:class:`ScenarioError` (field ``team``) unless ``team`` is empty or one of ``owner``'s."""
    if team is None:
        return
    if owner is None:
        raise ScenarioError([FieldError("team", _("sign in to share a scenario with a team"))])
    if not is_member(owner, team.pk):
        raise ScenarioError([FieldError("team", _("you are not a member of this team"))])


def share(saved: SavedScenario, team: Team | None) -> SavedScenario:
    """Share ``saved`` with ``team`` (one of its owner's teams), or with no one (``None``).

    Raises :class:`ScenarioError` (field ``team``) if the owner is not a member of ``team``.
    """
    check_team(saved.owner, team)
    saved.team = team
    saved.save(update_fields=["team", "updated_at"])
    return saved


def delete(saved: SavedScenario) -> None:
    saved.delete()


def resolve_at_todays_prices(
    saved: SavedScenario, catalog: CatalogSnapshot | None = None
) -> tuple[Resolution, Scenario]:
    """``saved``'s catalog selection resolved at today's prices, and the scenario it makes
    with the user's overrides kept (each overridden field takes the saved value again).

    ``catalog`` (optional) is today's catalog, read once for many scenarios.

    Raises :class:`costmodel.ScenarioError` if there is no selection or the catalog can no
    longer resolve it.
    """
    if not saved.selection:
        raise ScenarioError(
            [FieldError("selection", _("this scenario was entered by hand: no catalog prices"))]
        )
    selection = parse_selection({**saved.selection, "as_of": None})
    resolution = resolve(selection, catalog)
    kept = {path: get_path(saved.scenario, path) for path in saved.overrides}
    scenario = with_fields(
        resolution.scenario, {path: value for path, value in kept.items() if value is not None}
    )
    return resolution, scenario


REPRICE_CHUNK = 200
"""Saved scenarios re-priced, then written, at a time: a worker stopped mid-run keeps every
chunk it wrote, and the next run takes up the rows still due."""


def repricing_key(item: SavedScenario) -> str:
    """What a saved scenario's scenario at today's prices depends on besides today's catalog:
    its catalog selection and the values of the fields its user typed in (its overrides)."""
    kept = {path: get_path(item.scenario, path) for path in item.overrides}
    return json.dumps([item.selection, kept], sort_keys=True, default=str)


@functools.cache
def release() -> str:
    """The code that decides, as running (:data:`webapp.release.DECIDING`): a decision stored
    by another release of it is made again. Templates, translations and the rest of the web
    app are not part of it: a stored decision is figures and a verdict code, no words."""
    return release_digest(settings.BASE_DIR, DECIDING)


def inputs_digest(scenario: Scenario) -> str:
    """What a decision at today's prices rests on: the scenario and the code deciding it."""
    identity = json.dumps([release(), scenario.model_dump(mode="json")], sort_keys=True)
    return hashlib.blake2b(identity.encode(), digest_size=16).hexdigest()


class Repricing:
    """One run of the re-pricing at catalog ``version``: today's catalog read once
    (``catalog``), each distinct selection with its typed-in values resolved once
    (:func:`repricing_key`), each distinct scenario at today's prices decided once, and none
    decided again that a row was already decided at by this release (:func:`inputs_digest`)."""

    def __init__(self, version: str, catalog: CatalogSnapshot | None = None) -> None:
        self.version = version
        self.catalog = catalog
        self.resolved: dict[str, tuple[Scenario | None, str, str]] = {}
        self.decided: dict[str, decisions.Today] = {}

    def scenario_today(self, item: SavedScenario) -> tuple[Scenario | None, str, str]:
        """``item``'s scenario at today's prices (:func:`resolve_at_todays_prices`), why the
        catalog can no longer price it (or ""), and the scenario's :func:`inputs_digest` (or
        ""): each once for all the rows of one :func:`repricing_key`."""
        key = repricing_key(item)
        if key not in self.resolved:
            try:
                scenario = resolve_at_todays_prices(item, self.catalog)[1]
                self.resolved[key] = scenario, "", inputs_digest(scenario)
            except ScenarioError as exc:
                problem = _("can no longer be priced: %(reason)s") % {"reason": exc}
                self.resolved[key] = None, problem, ""
        return self.resolved[key]

    def reprice(self, item: SavedScenario) -> SavedScenario:
        """Store ``item``'s decision at today's prices beside its saved one (not saved yet).

        One the catalog can no longer price stores why, in words (``today_problem``), and
        no figures. ``changed_today`` marks a verdict that differs (build, rent, close
        call: :func:`webapp.scenarios.decisions.side`). The saved figures are not touched.
        """
        scenario, problem, inputs = self.scenario_today(item)
        today: decisions.StoredDecision | None = None
        if scenario is None:
            pass
        elif inputs == item.today_inputs and item.today_code and not item.today_problem:
            today = decisions.StoredDecision(  # decided at these inputs already: kept
                code=item.today_code,
                savings=item.today_savings if item.today_savings is not None else 0.0,
                present_value_savings=item.today_present_value_savings,
                probability_agreeing=None,
            )
        else:
            if inputs not in self.decided:
                self.decided[inputs] = decisions.decide_today(scenario)
            today, problem = self.decided[inputs]
        item.today_code = today["code"] if today else ""
        item.today_savings = today["savings"] if today else None
        item.today_present_value_savings = today["present_value_savings"] if today else None
        item.today_problem = problem
        item.today_inputs = inputs if today else ""
        item.today_catalog_version = self.version
        item.today_computed_at = timezone.now()
        item.changed_today = bool(
            today
            and item.decision_code
            and decisions.side(
                item.decision_code, item.decision_savings, item.decision_present_value_savings
            )
            != decisions.side(today["code"], today["savings"], today["present_value_savings"])
        )
        return item


def reprice(
    item: SavedScenario, version: str, catalog: CatalogSnapshot | None = None
) -> SavedScenario:
    """Store ``item``'s decision at today's prices beside its saved one (not saved yet): a
    :class:`Repricing` of this one row."""
    return Repricing(version, catalog).reprice(item)


TODAY_FIELDS = [
    "today_inputs",
    "today_code",
    "today_savings",
    "today_present_value_savings",
    "today_problem",
    "today_catalog_version",
    "today_computed_at",
    "changed_today",
]

REPRICING_READS = [
    "pk",
    "scenario",
    "selection",
    "overrides",
    "decision_code",
    "decision_savings",
    "decision_present_value_savings",
    "today_code",
    "today_savings",
    "today_present_value_savings",
    "today_problem",
    "today_inputs",
]
"""The columns re-pricing reads (not the provenance, ranges and the rest)."""


def due_for_repricing(version: str) -> QuerySet[SavedScenario]:
    """The saved scenarios from the catalog not yet re-priced at catalog ``version``."""
    return saved_from_the_catalog().exclude(today_catalog_version=version)


def due_count() -> int:
    """How many saved scenarios from the catalog wait for re-pricing at the current version."""
    return due_for_repricing(catalog_version()).count()


def write_today(priced: Sequence[SavedScenario]) -> None:
    """Write the re-priced rows in one transaction: one UPDATE for all the rows that store the
    same values (rows saved from one selection mostly do), so a chunk costs a few statements."""
    alike: dict[tuple[Any, ...], list[Any]] = {}
    for item in priced:
        alike.setdefault(tuple(getattr(item, name) for name in TODAY_FIELDS), []).append(item.pk)
    with transaction.atomic():
        for values, pks in alike.items():
            SavedScenario.objects.filter(pk__in=pks).update(
                **dict(zip(TODAY_FIELDS, values, strict=True))
            )


def reprice_due(*, limit: int | None = None) -> int:
    """Re-price every saved scenario from the catalog that the current catalog version has
    not priced yet (:func:`reprice`), :data:`REPRICE_CHUNK` rows a transaction; return how
    many. Run again (a new catalog change, a worker killed mid-run), it takes up where the
    last run stopped; run twice for one version, the second finds nothing due.

    Today's catalog is read once for the whole run, each distinct selection and typed-in
    values resolved once and each distinct scenario decided once; a row whose scenario at
    today's prices is the one this release already decided keeps that decision
    (:class:`Repricing`)."""
    forget_catalog_version()
    version = catalog_version()
    run = Repricing(version, CatalogSnapshot(date.today()))
    done = 0
    while limit is None or done < limit:
        size = REPRICE_CHUNK if limit is None else min(REPRICE_CHUNK, limit - done)
        due = due_for_repricing(version).only(*REPRICING_READS).order_by("pk")
        chunk = list(due[:size])
        if not chunk:
            break
        now = timezone.now()
        priced = [run.reprice(item) for item in chunk]
        for item in priced:  # one time for the chunk: its rows are written together
            item.today_computed_at = now
        write_today(priced)
        done += len(chunk)
    return done


def store_analysed_decision(item: SavedScenario, decision: decisions.StoredDecision) -> None:
    """Store the decision of ``item``'s analyses (the share of draws agreeing included)."""
    fields = decisions.saved_fields(decision)
    SavedScenario.objects.filter(pk=item.pk).update(
        **fields, analysed_at=fields["decision_computed_at"]
    )


def workload_sources(provenance: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The provenance items that say where the workload came from: each field they feed is
    under ``workload.`` (measured usage, described training jobs). The catalog resolver
    writes none of these; a re-run keeps the workload as saved, so they stay true."""
    return [
        item
        for item in provenance
        if item.get("fields") and all(str(path).startswith("workload.") for path in item["fields"])
    ]


def rerun_at_todays_prices(
    saved: SavedScenario, *, user: User | None, session_key: str | None
) -> SavedScenario:
    """Resolve ``saved``'s catalog selection at today's prices and save the result as new.

    The user's overrides are kept: each overridden field takes the saved value
    again; so are the uncertainty ranges the user chose (the others follow the
    new scenario's defaults), and the record of where the workload came from
    (:func:`workload_sources`: the workload is part of the selection, kept as
    saved). Raises :class:`costmodel.ScenarioError` if there is no selection or
    the catalog can no longer resolve it.
    """
    resolution, scenario = resolve_at_todays_prices(saved)
    selection = parse_selection({**(saved.selection or {}), "as_of": None})
    return create_saved_scenario(
        name=f"{saved.name} ({date.today().isoformat()})"[:200],
        scenario=scenario,
        provenance=resolution.provenance + workload_sources(saved.provenance or []),
        overrides=saved.overrides,
        selection=selection.model_dump(mode="json"),
        ranges=stored_ranges(saved, scenario),
        user=user,
        session_key=session_key,
    )
