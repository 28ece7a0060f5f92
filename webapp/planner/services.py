"""The planner's operations: from what a person typed into the form to a plan.

A plan is an explicit, validated :class:`costmodel.Scenario` with its
provenance, the fields the user overrode and the catalog selection it came
from. :func:`plan_from_form` is what the planner view calls: the form checks
what was typed, then :func:`make_plan` resolves the catalog selection, applies
the values the user changed (the overrides, recorded by dotted field path)
and validates the result once, with the engine's own schema. Errors come back
on the form, beside the field they name.

:func:`planner_form` builds the form a visitor opens: blank, for a preset
(``?preset=…``) or for a permalink (``?from=…``), with every Advanced field
prefilled with the catalog's value at today's prices.
"""

from __future__ import annotations

import datetime
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from costmodel import Scenario, ScenarioError, parse_scenario
from costmodel.errors import with_fields
from costmodel.paths import get_path
from webapp.catalog.resolver import Selection, parse_selection, resolve
from webapp.planner.choices import CatalogChoices
from webapp.planner.forms import (
    ADVANCED_PATHS,
    PROFILE_MONTHS,
    PlannerForm,
    form_name,
    initial_from_link,
)
from webapp.planner.permalink import Permalink, PermalinkError, decode
from webapp.scenarios.services import ensure_computable


@dataclass(frozen=True)
class Plan:
    scenario: Scenario
    provenance: list[dict[str, Any]] = field(default_factory=list)
    overrides: list[str] = field(default_factory=list)
    selection: dict[str, Any] | None = None


def workload_from(data: Mapping[str, Any]) -> dict[str, Any]:
    """The engine's workload JSON from the form's cleaned data (percentages → fractions)."""
    kind = data["workload_kind"]
    if kind == "steady":
        return {"kind": "steady", "utilization": data["utilization_percent"] / 100}
    if kind == "tidal":
        hours = data.get("hours_per_active_day")
        return {
            "kind": "tidal",
            "active_days_per_month": data["active_days_per_month"],
            "hours_per_active_day": 24.0 if hours is None else hours,
        }
    return {
        "kind": "profile",
        "monthly_utilization": [
            data[f"profile_percent_{i}"] / 100 for i in range(1, PROFILE_MONTHS + 1)
        ],
    }


def selection_from(data: Mapping[str, Any], as_of: datetime.date | None) -> Selection:
    """The catalog resolver's validated :class:`Selection` from the form's cleaned data.

    Raises :class:`costmodel.ScenarioError` naming the selection field.
    """
    selection: dict[str, Any] = {
        "cloud_offering": data["cloud_offering"],
        "tariff": data["tariff"],
        "hosting": data["hosting"],
        "benchmark": data["benchmark"],
        "workload": workload_from(data),
        "horizon_months": data["horizon_months"],
        "currency": data["currency"],
        "discount_rate_per_year": (data.get("discount_rate_percent") or 0.0) / 100,
        "as_of": as_of,
    }
    if data.get("box") == "custom":
        selection["parts"] = data["parts"]
        if data.get("scaling_efficiency") is not None:
            selection["scaling_efficiency"] = data["scaling_efficiency"]
    else:
        selection["preset"] = data["preset"]
    return parse_selection(selection)


def _same(a: Any, b: Any) -> bool:
    """Equal, or equal up to float rounding; never raises for numbers of any size.

    Two integers compare exactly: converting one beyond float64's range (a
    typed ``2**1100``, or one in the hidden ``basis`` field) would raise
    OverflowError.
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        try:
            return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
        except OverflowError:  # an int beyond float64 is not close to any float
            return False
    return bool(a == b)


def _typed_values(data: Mapping[str, Any]) -> dict[str, Any]:
    """``path → value`` of every Advanced field the user left filled in."""
    typed = {path: data.get(form_name(path)) for path in ADVANCED_PATHS}
    return {path: value for path, value in typed.items() if value is not None}


def _overrides(
    typed: Mapping[str, Any], resolved: Scenario, basis: Mapping[str, Any]
) -> dict[str, Any]:
    """The typed values that differ both from the catalog's and from what the form showed.

    A value still equal to its basis was not typed by the user, so it follows
    the catalog (e.g. after choosing another preset).
    """
    data = resolved.model_dump(mode="json")
    changed = {}
    for path, value in typed.items():
        shown = basis.get(path)
        if _same(value, get_path(data, path)) or (shown is not None and _same(value, shown)):
            continue
        changed[path] = value
    return changed


def _explicit_scenario(data: Mapping[str, Any], typed: Mapping[str, Any]) -> Scenario:
    """The scenario of a form filled in without the catalog: every figure typed."""
    scenario: dict[str, Any] = {
        "name": data.get("name") or None,
        "currency": data["currency"],
        "horizon_months": data["horizon_months"],
        "discount_rate_per_year": (data.get("discount_rate_percent") or 0.0) / 100,
        "workload": workload_from(data),
        "build": {},
        "rent": {},
    }
    for path, value in typed.items():
        side, name = path.split(".")
        scenario[side][name] = value
    return parse_scenario(scenario)


def make_plan(
    data: Mapping[str, Any],
    *,
    use_catalog: bool,
    basis: Mapping[str, Any] | None = None,
    today: datetime.date | None = None,
) -> Plan:
    """Resolve the form's cleaned data into an explicit scenario with provenance and overrides.

    Parameters
    ----------
    data : mapping
        Cleaned form data; Advanced fields under ``form_name(path)`` (``None`` = left empty).
    use_catalog : bool
        Resolve the catalog selection; if false every explicit field must be given.
    basis : mapping, optional
        ``path → value`` the Advanced fields were prefilled with (see :func:`_overrides`).

    Raises
    ------
    ScenarioError
        Naming selection fields (``preset``, ``cloud_offering``, ``as_of`` …)
        or scenario fields (``build.capex`` …), or the scenario's results overflow.
    """
    typed = _typed_values(data)
    if not use_catalog:
        plan = Plan(scenario=_explicit_scenario(data, typed))
    else:
        selection = selection_from(data, today or datetime.date.today())
        resolution = resolve(selection)
        changes = _overrides(typed, resolution.scenario, basis or {})
        if data.get("name"):
            changes["name"] = data["name"]
        plan = Plan(
            scenario=with_fields(resolution.scenario, changes) if changes else resolution.scenario,
            provenance=resolution.provenance,
            overrides=[path for path in changes if path != "name"],
            selection=selection.model_dump(mode="json"),
        )
    ensure_computable(plan.scenario)
    return plan


def plan_from_form(form: PlannerForm) -> Plan | None:
    """The plan of a submitted planner form, or ``None`` with the errors put on the form."""
    if not form.is_valid():
        return None
    try:
        plan = make_plan(
            form.cleaned_data, use_catalog=form.uses_catalog(), basis=form.shown_values()
        )
    except ScenarioError as exc:
        form.add_engine_errors(exc)
        return None
    form.overrides = plan.overrides
    return plan


def catalog_values(selection: Selection) -> dict[str, Any]:
    """``path → value`` of every Advanced field as the catalog resolves ``selection``."""
    data = resolve(selection).scenario.model_dump(mode="json")
    return {path: get_path(data, path) for path in ADVANCED_PATHS}


def _link(params: Mapping[str, Any]) -> Permalink | None:
    try:
        return decode(params["from"]) if params.get("from") else None
    except PermalinkError:
        return None


def planner_form(params: Mapping[str, Any], catalog: CatalogChoices | None) -> PlannerForm:
    """An unbound planner form for ``?preset=<slug>`` or ``?from=<permalink code>``.

    Advanced fields are prefilled with the catalog's values for the initial
    selection (at today's prices); values the link's user overrode stay theirs.
    """
    link = _link(params)
    initial: dict[str, Any] = {}
    if link is not None:
        initial = initial_from_link(link)
    elif catalog is not None and params.get("preset") in catalog.preset_slugs():
        initial = {"box": "preset", "preset": params["preset"]}
    form = PlannerForm(initial=initial, catalog=catalog)
    if link is not None:
        form.overrides = list(link.overrides)
    values = form.initial_selection()
    if values is None:
        return form
    try:
        from_catalog = catalog_values(selection_from(values, None))
    except (ScenarioError, KeyError, TypeError):
        return form  # the catalog can no longer resolve this selection: keep the link's values
    form.prefill(from_catalog, basis=json.dumps(from_catalog))
    return form
