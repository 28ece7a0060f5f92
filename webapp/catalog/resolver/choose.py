"""Choosing the rows: the ones the selection names, or the defaults (:data:`DEFAULTS`)."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext, gettext_noop

from costmodel import FieldError, ScenarioError
from webapp.catalog import selectors
from webapp.catalog.models import (
    Benchmark,
    BuildPreset,
    CloudOffering,
    HostingOption,
    Tariff,
)
from webapp.catalog.resolver.box import Box, box_from_parts, box_from_preset, hosting_kind
from webapp.catalog.resolver.defaults import CUSTOM_BOX, default
from webapp.catalog.resolver.provenance import Defaulted, Unresolvable
from webapp.catalog.resolver.selection import Selection
from webapp.catalog.selectors import CatalogSnapshot


@dataclass(frozen=True)
class Choice:
    """The selection with the rows it names (or the resolver chose) looked up in the snapshot."""

    selection: Selection
    box: Box
    offering: CloudOffering
    tariff: Tariff
    hosting: HostingOption
    benchmark: Benchmark
    defaulted: tuple[Defaulted, ...] = ()
    problems: tuple[FieldError, ...] = ()
    """Rows found but not in effect on the day (reported with the rules' problems)."""

    @property
    def currency(self) -> str:
        return self.selection.currency


class Attempts:
    """Runs lookups and rules, collecting every failure so that one answer names all problems."""

    def __init__(self) -> None:
        self.errors: list[FieldError] = []

    def __call__(self, function: Callable[..., Any], *args: Any) -> Any:
        try:
            return function(*args)
        except Unresolvable as exc:
            self.errors.append(exc.error)
        except ScenarioError as exc:
            self.errors.extend(exc.errors)
        return None

    def check(self) -> None:
        if self.errors:
            raise ScenarioError(list(dict.fromkeys(self.errors)))


TARIFF = (gettext_noop("electricity tariff"), gettext_noop("tariff"))
HOSTING = (gettext_noop("hosting option"), gettext_noop("hosting option"))
"""How a kind of dated row is named when it is unknown, and when it is not yet in effect."""


CUSTOM_BOX_RUNNING_COSTS = (
    "build.maintenance_rate_per_year",
    "build.residual_value_retention_per_year",
    "build.ops_monthly",
    "build.useful_life_months",
)
"""The running costs a preset carries and a custom parts list is given (:data:`DEFAULTS`)."""


def default_choices(
    selection: Selection, box_hosting: tuple[str, str] | None
) -> tuple[Defaulted, ...]:
    """The catalog rows picked for the choices ``selection`` leaves out, and why.

    The one definition of which default applies: the cloud offering and the tariff of the
    currency's region, and the hosting of the box's kind in that region (:data:`DEFAULTS`).
    ``box_hosting`` is the box's kind of hosting and why (:func:`hosting_kind`); ``None``
    when the box could not be looked up: then no hosting is picked. Reasons are translated
    into the language active at the call, so a page showing a plan made earlier
    (:func:`defaults_for`) gives them in its own language.
    """
    picked: list[Defaulted] = []
    for name in ("cloud_offering", "tariff"):
        if getattr(selection, name) is None:
            row = default(name, selection.currency)
            picked.append(Defaulted(name, row.value, gettext(row.reason)))
    if selection.hosting is None and box_hosting is not None:
        picked.append(default_hosting(selection.currency, box_hosting))
    return tuple(picked)


def default_hosting(currency: str, box_hosting: tuple[str, str]) -> Defaulted:
    """The hosting picked for a box of this kind (:func:`hosting_kind`) in the currency's
    region, and why (translated at the call)."""
    kind, why = box_hosting
    region = default(f"hosting {kind}", currency)
    reason = gettext(region.reason)
    if why:
        reason = gettext("%(where)s — %(why)s") % {"where": reason, "why": why}
    return Defaulted("hosting", region.value, reason)


def custom_box_defaults(selection: Selection) -> tuple[Defaulted, ...]:
    """The running costs a custom parts list is given (:data:`DEFAULTS`), with why
    (translated at the call); none for a preset, which carries its own."""
    if selection.preset is not None:
        return ()
    rows = {path: default(path, CUSTOM_BOX) for path in CUSTOM_BOX_RUNNING_COSTS}
    return tuple(Defaulted(path, row.value, gettext(row.reason)) for path, row in rows.items())


def defaults_for(selection: Selection, catalog: CatalogSnapshot) -> list[Defaulted]:
    """What :func:`resolve` fills in for ``selection`` on the snapshot's day, and why, without
    resolving it: the choices of :func:`default_choices` and a custom box's running costs
    (:func:`custom_box_defaults`). The committed count is not among them: it is the cheapest
    for the resolved scenario (:func:`commitment_rule`, :func:`commitment_reason`).

    For a page that shows a plan made earlier: reasons come in the language active now.
    A box the snapshot no longer has leaves the hosting out.
    """
    kind = None
    if selection.hosting is None:  # only the hosting's default depends on the box
        if selection.preset is not None:  # presets carry no date: the one row will do
            preset = selectors.by_slug(BuildPreset, selection.preset)
            kind = None if preset is None else hosting_kind(preset, ())
        else:
            try:
                kind = box_from_parts(selection, catalog).hosting_kind
            except (Unresolvable, ScenarioError):
                kind = None
    return [*default_choices(selection, kind), *custom_box_defaults(selection)]


def _offering(slug: str, catalog: CatalogSnapshot) -> CloudOffering:
    offering = catalog.offerings.get(slug)
    if offering is None:
        raise Unresolvable(
            "cloud_offering",
            gettext("no %(what)s with slug '%(slug)s'")
            % {"what": gettext("cloud offering"), "slug": slug},
        )
    return offering


def _tariff(slug: str, catalog: CatalogSnapshot) -> tuple[Tariff, FieldError | None]:
    return _in_effect(catalog.tariffs, Tariff, slug, "tariff", TARIFF, catalog.day)


def _hosting(slug: str, catalog: CatalogSnapshot) -> tuple[HostingOption, FieldError | None]:
    return _in_effect(catalog.hosting_options, HostingOption, slug, "hosting", HOSTING, catalog.day)


def _in_effect(
    rows: dict[str, Any],
    model: type[Any],
    slug: str,
    name: str,
    what: tuple[str, str],
    day: datetime.date,
) -> tuple[Any, FieldError | None]:
    """The row in effect on ``day`` from ``rows`` (and no problem), or why not.

    No such row raises :class:`Unresolvable` naming the field ``name``. A row effective
    only after ``day`` is returned with the problem (naming ``as_of``), so that the rules
    still run and one answer names every problem. ``what`` names the kind in each message.
    """
    row = rows.get(slug)
    if row is not None:
        return row, None
    later = selectors.not_yet_in_effect(model, slug)
    if later is None:
        raise Unresolvable(
            name,
            gettext("no %(what)s with slug '%(slug)s'") % {"what": gettext(what[0]), "slug": slug},
        )
    problem = FieldError(
        "as_of",
        gettext("%(what)s '%(slug)s' is effective from %(start)s, after %(date)s")
        % {
            "what": gettext(what[1]),
            "slug": slug,
            "start": later.effective_date.isoformat(),
            "date": day.isoformat(),
        },
    )
    return later, problem


def _benchmark(selection: Selection, catalog: CatalogSnapshot) -> Benchmark:
    row = catalog.benchmarks.get(selection.benchmark)
    if row is None:
        raise Unresolvable(
            "benchmark",
            gettext("no %(what)s with slug '%(slug)s'")
            % {"what": gettext("benchmark"), "slug": selection.benchmark},
        )
    return row


def choose(selection: Selection, catalog: CatalogSnapshot) -> Choice:
    """Look up every row the selection names; fill in what it leaves out (:data:`DEFAULTS`).

    Raises :class:`ScenarioError` naming every selection field that cannot be looked up. A
    tariff or hosting option not yet in effect is kept with its problem in
    :attr:`Choice.problems`, which :func:`resolve` reports with the rules' own.
    """
    attempt = Attempts()
    builder = box_from_preset if selection.preset is not None else box_from_parts
    box = attempt(builder, selection, catalog)
    picked = default_choices(selection, None if box is None else box.hosting_kind)
    slugs = {item.field: item.value for item in picked}
    offering = attempt(_offering, selection.cloud_offering or slugs["cloud_offering"], catalog)
    tariff = attempt(_tariff, selection.tariff or slugs["tariff"], catalog)
    # the hosting's default needs the box: without one there is nothing to look up
    hosting_slug = selection.hosting or slugs.get("hosting")
    hosting = None if hosting_slug is None else attempt(_hosting, hosting_slug, catalog)
    benchmark = attempt(_benchmark, selection, catalog)
    attempt.check()
    assert offering is not None and tariff is not None and hosting is not None
    return Choice(
        selection=selection,
        box=box,
        offering=offering,
        tariff=tariff[0],
        hosting=hosting[0],
        benchmark=benchmark,
        defaulted=picked,
        problems=tuple(problem for problem in (tariff[1], hosting[1]) if problem is not None),
    )
