""":func:`resolve`: the choice, every rule, and the explicit scenario they make; and one side
of it alone (:func:`resolve_build`, :func:`resolve_rent`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from django.utils.translation import gettext
from pydantic import ValidationError

from costmodel import Build, Rent, ScenarioError, parse_scenario
from costmodel.errors import field_errors
from costmodel.paths import with_path
from webapp.catalog.resolver.choose import Attempts, Choice, choose
from webapp.catalog.resolver.currency import fx_provenance
from webapp.catalog.resolver.provenance import Resolution, Ruling
from webapp.catalog.resolver.rules import BUILD_RULES, RENT_RULES, RULES, Rule, commitment_rule
from webapp.catalog.resolver.selection import Selection, parse_selection
from webapp.catalog.selectors import CatalogSnapshot


def _scenario_data(selection: Selection, choice: Choice, values: dict[str, Any]) -> dict[str, Any]:
    # the name a person sees (and may change): in the language of the one who planned it
    box = choice.box
    build_name = box.preset.localized_name() if box.preset is not None else box.label
    name = gettext("%(build)s vs %(rent)s") % {
        "build": build_name,
        "rent": choice.offering.localized_name(),
    }
    data: dict[str, Any] = {
        "name": name[:200],
        "currency": selection.currency,
        "horizon_months": selection.horizon_months,
        "discount_rate_per_year": selection.discount_rate_per_year,
        "workload": selection.workload.model_dump(mode="json"),
        "build": {},
        "rent": {},
    }
    for path, value in values.items():
        data = with_path(data, path, value)
    return data


def _merge(rulings: Iterable[Ruling]) -> dict[str, Any]:
    """Every ruling's fields in one mapping; a field two rules set is a programming error."""
    values: dict[str, Any] = {}
    for ruling in rulings:
        twice = values.keys() & ruling.values.keys()
        if twice:
            raise AssertionError(f"fields set by two rules: {sorted(twice)}")
        values.update(ruling.values)
    return values


def resolve(selection: Selection, catalog: CatalogSnapshot | None = None) -> Resolution:
    """Turn a :class:`Selection` into an explicit scenario, its provenance and its defaults.

    ``catalog`` is the snapshot of the selection's day to read (shared by the resolutions
    of one request); without one, or for another day, the catalog of that day is read.

    Raises :class:`costmodel.ScenarioError` naming the selection's field for
    anything that cannot be resolved (unknown slug, no price on the date, …).
    """
    if catalog is None or catalog.day != selection.day:
        catalog = CatalogSnapshot(selection.day)
    choice = choose(selection, catalog)
    attempt = Attempts()
    attempt.errors.extend(choice.problems)
    rulings = [attempt(rule, choice, catalog) for rule in RULES]
    attempt.check()
    values = _merge(rulings)
    draft = parse_scenario(_scenario_data(selection, choice, values))
    rulings.append(attempt(commitment_rule, choice, catalog, draft))
    attempt.check()
    scenario = parse_scenario(_scenario_data(selection, choice, _merge(rulings)))
    provenance = [item for ruling in rulings for item in ruling.provenance]
    provenance += fx_provenance(catalog, provenance, selection.currency)
    return Resolution(
        scenario=scenario,
        provenance=[item.as_dict() for item in provenance],
        defaulted=[*choice.defaulted, *(item for ruling in rulings for item in ruling.defaulted)],
    )


def _one_side(
    selection: Selection, catalog: CatalogSnapshot | None, rules: tuple[Rule, ...]
) -> dict[str, Any]:
    """The fields ``rules`` set for ``selection``, nested (``{"build": {...}}``): the choice
    and those rules as :func:`resolve` runs them, refused as it refuses them."""
    if catalog is None or catalog.day != selection.day:
        catalog = CatalogSnapshot(selection.day)
    return _ruled(choose(selection, catalog), catalog, rules)


def _ruled(choice: Choice, catalog: CatalogSnapshot, rules: tuple[Rule, ...]) -> dict[str, Any]:
    """The fields ``rules`` set for ``choice``, nested, as :func:`_one_side` gives them."""
    attempt = Attempts()
    attempt.errors.extend(choice.problems)
    rulings = [attempt(rule, choice, catalog) for rule in rules]
    attempt.check()
    data: dict[str, Any] = {}
    for path, value in _merge(rulings).items():
        data = with_path(data, path, value)
    return data


Side = TypeVar("Side", Build, Rent)


def _validated(model: type[Side], side: str, data: dict[str, Any]) -> Side:
    """``data[side]`` as ``model``, or a :class:`costmodel.ScenarioError` naming the field
    under ``side``."""
    try:
        return model.model_validate(data[side])
    except ValidationError as exc:
        raise ScenarioError(field_errors(exc, (side,))) from None


def resolve_build(selection: Selection, catalog: CatalogSnapshot | None = None) -> Build:
    """The box of the scenario :func:`resolve` makes of ``selection``, by the build rules
    alone: for a caller weighing many boxes against one plan's work (the planner's ranking),
    which needs neither the rent side, nor the provenance, nor the plan's work (whether the
    box can do it is the engine's to say, as the options operation does).

    Raises :class:`costmodel.ScenarioError` naming the field, as :func:`resolve` does.
    """
    return _validated(Build, "build", _one_side(selection, catalog, BUILD_RULES))


def resolve_rent(selection: Selection, catalog: CatalogSnapshot | None = None) -> Rent:
    """The instance of the scenario :func:`resolve` makes of ``selection``, by the rent
    rules alone, without a commitment's count: the cheapest count is the plan's work's
    (:func:`commitment_rule`), left to whoever weighs the offering against that work (the
    options operation commits a commitment that names no count at its best). Its
    ``committed_instances`` is therefore not among the fields set
    (``model_fields_set``). For a caller weighing many offerings, like
    :func:`resolve_build`.

    Raises :class:`costmodel.ScenarioError` naming the field, as :func:`resolve` does.
    """
    return _validated(Rent, "rent", _one_side(selection, catalog, RENT_RULES))


def resolve_rents(
    selection: Selection, offerings: Sequence[str], catalog: CatalogSnapshot
) -> list[Rent | None]:
    """:func:`resolve_rent` of ``selection`` with each of ``offerings`` (slugs) as its cloud
    offering, None where it is refused: the rows all of them share (the box, the tariff,
    the hosting, the benchmark) looked up once, as the planner's ranking weighs every
    offering of a market against one plan. ``catalog`` is the selection's day's.
    """
    shared: Choice | None = None
    if offerings:
        try:
            shared = choose(selection.model_copy(update={"cloud_offering": offerings[0]}), catalog)
        except ScenarioError:
            shared = None  # each then refused, or not, on its own
    rents: list[Rent | None] = []
    for slug in offerings:
        asked = selection.model_copy(update={"cloud_offering": slug})
        offering = catalog.offerings.get(slug)
        try:
            if shared is None or offering is None:
                rents.append(resolve_rent(asked, catalog))
                continue
            choice = replace(shared, selection=asked, offering=offering)
            rents.append(_validated(Rent, "rent", _ruled(choice, catalog, RENT_RULES)))
        except ScenarioError:
            rents.append(None)
    return rents


def resolve_data(data: object, catalog: CatalogSnapshot | None = None) -> Resolution:
    """Parse decoded JSON as a :class:`Selection` and resolve it (one call for the edges)."""
    return resolve(parse_selection(data), catalog)
