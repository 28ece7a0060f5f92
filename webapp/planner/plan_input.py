"""What a planner form says, read once into one typed value: :class:`PlanInput`.

A submitted form is parsed here, once, into what the plan is made of
(:func:`webapp.planner.services.make_plan`): the catalog selection the
resolver reads (:class:`~webapp.catalog.resolver.Selection`), or the explicit
scenario typed without the catalog (:class:`costmodel.Scenario`); the
described jobs with the engine's workload they make and the provenance of their
hours (converted at the benchmark's reference GPU, once); the Advanced values
the user changed and the ends of the uncertainty ranges they changed, in the
scenario's units (a value left as the form showed it, its hidden ``basis``,
follows the plan). Nothing downstream reads the form's cleaned data by its
field names again, or writes into it.

:func:`read_plan_input` reads a form's cleaned data (or the same mapping another
page assembles, the measured-usage page's); :func:`plan_input` a bound planner
form. Both raise :class:`costmodel.ScenarioError` naming the field (a selection
field, a scenario path, ``workload.jobs.<i>.kind``), as the engine does.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from costmodel import Scenario, parse_scenario
from webapp.catalog.resolver import Selection, parse_selection
from webapp.planner.fields import (
    EXPLICIT_FIELDS,
    RANGE_ENDS,
    from_form,
    nested,
    same_value,
    scenario_values,
    selection_values,
    typed_value,
)
from webapp.planner.form_fields import RANGE_BY_PATH, range_name
from webapp.planner.jobs import DescribedJob, engine_workload, reference_for

if TYPE_CHECKING:
    from webapp.planner.forms import PlannerForm


@dataclass(frozen=True)
class PlanInput:
    """One submitted plan, typed: exactly one of :attr:`selection` (a plan made from the
    catalog) and :attr:`scenario` (every figure typed) is set."""

    selection: Selection | None
    """The catalog selection, dated (``as_of``): what the resolver resolves."""
    scenario: Scenario | None
    """The scenario typed without the catalog."""
    name: str | None = None
    typed: Mapping[str, Any] = field(default_factory=dict)
    """``path → value`` (scenario units) of every Advanced field the user changed: filled in,
    and other than what the form showed in its place (a value left as shown follows the plan:
    a catalog price follows the chosen preset)."""
    ranges: Mapping[str, float] = field(default_factory=dict)
    """``ranges.<path>.<low|mode|high>`` → the value of each end of an uncertainty range the
    user changed (scenario units; an end left as shown follows the plan)."""
    jobs: tuple[DescribedJob, ...] = ()
    """The described jobs of a jobs workload (none for another workload)."""
    job_items: tuple[dict[str, Any], ...] = ()
    """The provenance of the jobs' hours: the reference GPU's figures and each job."""

    @property
    def use_catalog(self) -> bool:
        return self.selection is not None


def _changed(values: Mapping[str, Any], basis: Mapping[str, Any]) -> dict[str, Any]:
    """The values filled in that differ from what the form showed in their place."""
    return {
        path: value
        for path, value in values.items()
        if value is not None and (basis.get(path) is None or not same_value(value, basis[path]))
    }


def _typed(data: Mapping[str, Any]) -> dict[str, Any]:
    return {f.path: typed_value(f, data) for f in EXPLICIT_FIELDS}


def _ranges(data: Mapping[str, Any]) -> dict[str, float | None]:
    return {
        f"ranges.{row.path}.{attr}": from_form(row.field, data.get(range_name(row, suffix)))
        for row in RANGE_BY_PATH.values()
        for suffix, attr in RANGE_ENDS
    }


def _jobs(
    data: Mapping[str, Any], use_catalog: bool, as_of: datetime.date | None
) -> tuple[tuple[DescribedJob, ...], dict[str, Any] | None, tuple[dict[str, Any], ...]]:
    """The described jobs, the engine's workload they make (None: another workload) and the
    provenance of their hours, at the chosen benchmark's reference GPU in the catalog of
    ``as_of`` (None: today; catalog plans)."""
    if data.get("workload_kind") != "jobs":
        return (), None, ()
    jobs = list(data.get("jobs") or [])
    benchmark = data.get("benchmark") if use_catalog else None
    reference = reference_for(benchmark, as_of or datetime.date.today()) if benchmark else None
    workload, items = engine_workload(jobs, reference)
    return tuple(jobs), workload, tuple(items)


def _general(data: Mapping[str, Any], workload: dict[str, Any] | None) -> dict[str, Any]:
    """What the scenario and the catalog selection share (currency, horizon, discount rate,
    workload), as nested JSON in the scenario's units."""
    values = scenario_values(data, selection=True)
    general = nested({p: v for p, v in values.items() if not p.startswith(("build.", "rent."))})
    general.setdefault("discount_rate_per_year", 0.0)
    if workload is not None:
        general["workload"] = workload
    return general


def selection_of(data: Mapping[str, Any], as_of: datetime.date | None) -> Selection:
    """The resolver's validated :class:`Selection` of a form's cleaned data (a custom box's
    ``parts`` list included; described jobs as the engine's jobs workload).

    Raises :class:`costmodel.ScenarioError` naming the selection field.
    """
    return _selection(data, as_of, _jobs(data, use_catalog=True, as_of=as_of)[1])


def _selection(
    data: Mapping[str, Any], as_of: datetime.date | None, workload: dict[str, Any] | None
) -> Selection:
    general = _general(data, workload)
    choices = selection_values(data)
    if data.get("box") == "custom":
        choices.pop("preset", None)
        choices["parts"] = data["parts"]
    else:
        choices.pop("scaling_efficiency", None)
    return parse_selection({**general, **choices, "as_of": as_of})


def read_plan_input(
    data: Mapping[str, Any],
    *,
    use_catalog: bool,
    basis: Mapping[str, Any] | None = None,
    as_of: datetime.date | None = None,
) -> PlanInput:
    """The :class:`PlanInput` of a planner form's cleaned ``data`` (Advanced fields under
    their form names, ``None`` = left empty); ``as_of``: the day of the catalog's prices
    (default today).

    Raises :class:`costmodel.ScenarioError` naming the field.
    """
    day = as_of or datetime.date.today()
    jobs, workload, job_items = _jobs(data, use_catalog, day)
    selection = scenario = None
    if use_catalog:
        selection = _selection(data, day, workload)
    else:
        explicit: dict[str, Any] = {"name": data.get("name") or None, "build": {}, "rent": {}}
        explicit.update(nested(scenario_values(data, selection=False)))
        explicit.setdefault("discount_rate_per_year", 0.0)
        if workload is not None:
            explicit["workload"] = workload
        scenario = parse_scenario(explicit)
    return PlanInput(
        selection=selection,
        scenario=scenario,
        name=data.get("name") or None,
        typed=_changed(_typed(data), basis or {}),
        ranges=_changed(_ranges(data), basis or {}),
        jobs=jobs,
        job_items=job_items,
    )


def plan_input(form: PlannerForm) -> PlanInput:
    """The :class:`PlanInput` of a bound, valid planner form.

    Raises :class:`costmodel.ScenarioError` naming the field.
    """
    return read_plan_input(
        form.cleaned_data, use_catalog=form.uses_catalog(), basis=form.shown_values()
    )
