"""From what a person typed into the planner form to an explicit scenario.

The form collects a catalog selection (preset or parts, cloud offering,
tariff, hosting, benchmark), the workload and horizon, and optionally a value
for any explicit scenario field ("Advanced"). :func:`make_plan` resolves the
selection through the catalog, applies the values the user changed (the
overrides, recorded by dotted field path) and validates the result with the
engine's own schema. Field errors come back as :class:`costmodel.ScenarioError`
naming engine or selection fields; :func:`form_field_for` maps them onto the
form.
"""

from __future__ import annotations

import datetime
import math
from dataclasses import dataclass, field
from typing import Any

from costmodel import FieldError, Scenario, parse_scenario
from webapp.planner import catalog_bridge
from webapp.planner.fields import BUILD_FIELDS, RENT_FIELDS, get_path

ADVANCED_PATHS: tuple[str, ...] = tuple(f.path for f in BUILD_FIELDS + RENT_FIELDS)
PROFILE_MONTHS = 12


def form_name(path: str) -> str:
    """Form field name of an explicit scenario field: ``build.capex`` → ``build__capex``."""
    return path.replace(".", "__")


@dataclass(frozen=True)
class Plan:
    scenario: Scenario
    provenance: list[dict[str, Any]] = field(default_factory=list)
    overrides: list[str] = field(default_factory=list)
    selection: dict[str, Any] | None = None


def workload_from(data: dict[str, Any]) -> dict[str, Any]:
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


def selection_from(data: dict[str, Any], today: datetime.date) -> dict[str, Any]:
    """The catalog resolver's ``Selection`` (JSON-ready) from the form's cleaned data."""
    selection: dict[str, Any] = {
        "cloud_offering": data["cloud_offering"],
        "tariff": data["tariff"],
        "hosting": data["hosting"],
        "benchmark": data["benchmark"],
        "workload": workload_from(data),
        "horizon_months": data["horizon_months"],
        "currency": data["currency"],
        "discount_rate_per_year": (data.get("discount_rate_percent") or 0.0) / 100,
        "as_of": today.isoformat(),
    }
    if data.get("box") == "custom":
        selection["parts"] = data["parts"]
        if data.get("scaling_efficiency") is not None:
            selection["scaling_efficiency"] = data["scaling_efficiency"]
    else:
        selection["preset"] = data["preset"]
    return selection


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


def _set(data: dict[str, Any], path: str, value: Any) -> None:
    node = data
    *parents, leaf = path.split(".")
    for part in parents:
        node = node.setdefault(part, {})
    node[leaf] = value


def make_plan(
    data: dict[str, Any],
    *,
    use_catalog: bool,
    basis: dict[str, Any] | None = None,
    today: datetime.date | None = None,
) -> Plan:
    """Resolve the form's cleaned data into an explicit scenario with provenance and overrides.

    Parameters
    ----------
    data : dict
        Cleaned form data; advanced fields under ``form_name(path)`` (``None`` = left empty).
    use_catalog : bool
        Resolve the catalog selection; if false every explicit field must be given.
    basis : dict, optional
        ``path → value`` the Advanced fields were prefilled with. A value still
        equal to its basis was not typed by the user, so it follows the catalog
        (e.g. after choosing another preset); a value that differs is an override.

    Raises
    ------
    ScenarioError
        Naming selection fields (``preset``, ``cloud_offering``, ``as_of`` …)
        or scenario fields (``build.capex`` …).
    """
    today = today or datetime.date.today()
    basis = basis or {}
    advanced = {path: data.get(form_name(path)) for path in ADVANCED_PATHS}
    if use_catalog:
        resolved = catalog_bridge.resolve(selection_from(data, today))
        scenario = resolved.scenario.model_dump(mode="json")
        provenance, selection = resolved.provenance, resolved.selection
    else:
        scenario = {
            "currency": data["currency"],
            "horizon_months": data["horizon_months"],
            "discount_rate_per_year": (data.get("discount_rate_percent") or 0.0) / 100,
            "workload": workload_from(data),
            "build": {},
            "rent": {},
        }
        provenance, selection = [], None
    overrides = []
    for path, value in advanced.items():
        if value is None:
            continue
        if use_catalog:
            catalog_value = get_path(scenario, path)
            shown = basis.get(path)
            if _same(value, catalog_value) or (shown is not None and _same(value, shown)):
                continue
            overrides.append(path)
        _set(scenario, path, value)
    if data.get("name"):
        scenario["name"] = data["name"]
    return Plan(
        scenario=parse_scenario(scenario),
        provenance=provenance,
        overrides=overrides,
        selection=selection,
    )


def catalog_values(selection: dict[str, Any]) -> dict[str, Any]:
    """``path → value`` of every Advanced field as the catalog resolves ``selection`` today."""
    scenario = catalog_bridge.resolve({**selection, "as_of": None}).scenario
    data = scenario.model_dump(mode="json")
    return {path: get_path(data, path) for path in ADVANCED_PATHS}


_SAME_NAME = {
    "preset",
    "cloud_offering",
    "tariff",
    "hosting",
    "benchmark",
    "horizon_months",
    "currency",
    "scaling_efficiency",
    "workload.active_days_per_month",
    "workload.hours_per_active_day",
}


def form_field_for(error: FieldError) -> str | None:
    """The planner form field an engine or resolver error belongs beside (``None``: the form)."""
    path = error.field
    if path.startswith(("build.", "rent.")) and path in ADVANCED_PATHS:
        return form_name(path)
    if path in _SAME_NAME:
        return path.removeprefix("workload.")
    if path == "discount_rate_per_year":
        return "discount_rate_percent"
    if path == "workload.utilization":
        return "utilization_percent"
    if path.startswith("workload.monthly_utilization."):
        index = path.rsplit(".", 1)[-1]
        if index.isdigit() and int(index) < PROFILE_MONTHS:
            return f"profile_percent_{int(index) + 1}"
        return "workload_kind"
    if path.startswith("workload"):
        return "workload_kind"
    if path.startswith(("parts", "gpu_model", "gpu_count")):
        return "box"
    return None
