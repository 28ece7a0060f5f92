"""The options operation: the cheapest way to do one scenario's work among many boxes and offerings.

Methodology version 4. The work is held constant (the scenario's jobs, or its
workload turned into reference GPU-hours with its own box), and every way to
do it is a plan:

- a **rent plan** per offering: renting does all the work; its cost is the rent
  side's present value (an offering that prices a commitment and names no
  count is committed at the commitment operation's best count,
  :func:`costmodel.commitment.commitment_table`);
- a **build plan** per box: the box does what it holds, and one offering does
  the rest (burst above one box, jobs the box cannot hold): the offering that
  gives the lowest build present value.

Plans are ranked by present value; plans that cannot do the work are listed
apart with their reason (``memory``, ``capacity``). :func:`parse_options`
validates a request with errors that name the field (``rents.3.name``);
:func:`options` answers it.

Examples
--------
>>> answer = options(parse_options(request))  # doctest: +SKIP
>>> answer["best"]["kind"], answer["best"]["build"]  # doctest: +SKIP
('build', '1 x RTX 4090 desk-side')
"""

from __future__ import annotations

import dataclasses
import math
from typing import Annotated, Any, Literal, Self

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from costmodel.columns import Array, Columns, ProjectionOverflowError, columns_from
from costmodel.commitment import cheapest_counts
from costmodel.errors import FieldError, ScenarioError, field_errors
from costmodel.projection import chunks, project_columns
from costmodel.scenario import (
    HOURS_PER_MONTH,
    MAX_DEMAND_MULTIPLE,
    Build,
    JobsWorkload,
    ProfileWorkload,
    Rent,
    Scenario,
    memory_of,
    placed_work,
)

__all__ = [
    "MAX_BUILDS",
    "MAX_RENTS",
    "CatalogOptionsRequest",
    "OptionsAnswer",
    "OptionsRequest",
    "options",
    "parse_options",
]

MAX_BUILDS = 20
"""Most boxes an options request may weigh (0..20)."""

MAX_RENTS = 60
"""Most offerings an options request may weigh (1..60)."""

CONTEXT = {"options": True}
"""Validation context of an options request's scenario: its own box and instance are not a
plan, so the rules that hold a plan to its work (memory, eight boxes) are not applied to them."""

IntArray = npt.NDArray[np.intp]

Name = Annotated[str, Field(min_length=1, max_length=200)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)


class BuildOption(_Strict):
    """``{name, build}``: one box that could do the work."""

    name: Name
    build: Build


class RentOption(_Strict):
    """``{name, rent}``: one offering that could do the work."""

    name: Name
    rent: Rent


def _unique(names: list[str], where: str) -> None:
    seen: set[str] = set()
    for i, name in enumerate(names):
        if name in seen:
            raise PydanticCustomError(
                "duplicate_name",
                "must be unique: another option of the list has this name",
                {"path": f"{where}.{i}.name", "name": name},
            )
        seen.add(name)


class OptionsRequest(_Strict):
    """``{scenario, builds: [{name, build}] (0..20), rents: [{name, rent}] (1..60)}``; names
    unique per list."""

    scenario: Scenario
    builds: Annotated[list[BuildOption], Field(max_length=MAX_BUILDS)] = []
    rents: Annotated[list[RentOption], Field(min_length=1, max_length=MAX_RENTS)]

    @model_validator(mode="after")
    def _names_unique(self) -> Self:
        _unique([b.name for b in self.builds], "builds")
        _unique([r.name for r in self.rents], "rents")
        return self


class CatalogOptionsRequest(OptionsRequest):
    """An options request whose options are a catalog's rather than a caller's: as many
    boxes and offerings as the catalog holds (the bounds of :class:`OptionsRequest` limit
    what one caller may ask of the server, not what a catalog may list); validated
    otherwise alike."""

    builds: list[BuildOption] = []
    rents: Annotated[list[RentOption], Field(min_length=1)]


# --------------------------------------------------------------------------
# Answers (for the OpenAPI document; the operation returns plain dicts)
# --------------------------------------------------------------------------


class Plan(BaseModel):
    kind: Literal["build", "rent"]
    build: str | None = Field(default=None, description="The box's name (a build plan).")
    rent: str = Field(
        description="The offering's name: what a build plan rents beyond its box, or what a "
        "rent plan rents."
    )
    committed_instances: int | None = Field(
        default=None, description="Instances committed (a rent plan) [instances]."
    )
    present_value: float = Field(description="The plan's side's present value [currency].")
    total: float = Field(
        description="build.total_net of a build plan, rent.total of a rent plan [currency]."
    )


class Infeasible(BaseModel):
    kind: Literal["build", "rent"]
    build: str | None = None
    rent: str | None = None
    reason: Literal["memory", "capacity"] = Field(
        description="memory: a job fits no GPU memory the plan may use; capacity: some month "
        "needs more than 8 boxes."
    )


class OptionsAnswer(BaseModel):
    plans: list[Plan] = Field(
        description="Every feasible plan, lowest present value first (ties: build before rent, "
        "then by name)."
    )
    infeasible: list[Infeasible] = Field(description="Boxes, then offerings, in request order.")
    best: Plan | None = Field(description="plans[0]; null when no plan can do the work.")
    present_value_savings: float | None = Field(
        description="The best rent plan's present value less the best build plan's [currency]; "
        "null without both."
    )


def parse_options(data: object, *, bounded: bool = True) -> OptionsRequest:
    """Validate an options request, or raise :class:`ScenarioError` naming every problem.

    ``bounded=False`` reads a :class:`CatalogOptionsRequest`: a catalog's every box and
    offering, however many (a planner's ranking), not a caller's request."""
    if not isinstance(data, dict):
        raise ScenarioError([FieldError("(request)", "must be a JSON object", "not_an_object")])
    model = OptionsRequest if bounded else CatalogOptionsRequest
    try:
        return model.model_validate(data, context=CONTEXT)
    except ValidationError as exc:
        raise ScenarioError(field_errors(exc)) from None


# --------------------------------------------------------------------------
# The operation
# --------------------------------------------------------------------------


def _work(scenario: Scenario) -> Array:
    """Reference GPU-hours wanted in months 0..H of a workload that is not jobs, with the
    scenario's own box: ``work[m] = demand[m] × build.gpu_count × build.gpu_throughput``."""
    columns = columns_from([scenario])
    b = columns.build
    work: Array = columns.demand[0] * b.gpu_count[0] * b.gpu_throughput[0]
    return work


def _for_box(scenario: Scenario, build: Build, work: Array | None) -> Scenario:
    """The scenario with another box, doing the same work: a jobs workload as it is, any
    other as the profile ``u[m] = work[m] / (gpu_count × gpu_throughput × 730)``."""
    if work is None:
        return scenario.model_copy(update={"build": build})
    box = float(build.gpu_count) * build.gpu_throughput * HOURS_PER_MONTH
    profile = ProfileWorkload.model_construct(
        kind="profile", monthly_utilization=(work[1 : scenario.horizon_months + 1] / box).tolist()
    )
    return scenario.model_copy(update={"build": build, "workload": profile})


def with_box(scenario: Scenario, build: Build) -> Scenario:
    """``scenario`` with ``build`` as its box, doing the same work: what the options operation
    compares each box on (a jobs workload as it is; any other turned into the reference
    GPU-hours the scenario's own box does, then into the other box's utilization profile)."""
    work = None if isinstance(scenario.workload, JobsWorkload) else _work(scenario)
    return _for_box(scenario, build, work)


def _job_memory(scenario: Scenario) -> npt.NDArray[np.float64]:
    """Each job's memory [GB] (0 when not given: it fits anywhere); empty for other work."""
    workload = scenario.workload
    if not isinstance(workload, JobsWorkload):
        return np.zeros(0)
    return np.array([job.memory_gb or 0.0 for job in workload.jobs])


def _above_eight_boxes(scenario: Scenario, build: Build, work: Array | None) -> bool:
    """Some month asks the box for more than 8 boxes' work (its jobs only, for jobs)."""
    box = float(build.gpu_count) * build.gpu_throughput * HOURS_PER_MONTH
    months = scenario.horizon_months + 1
    if work is None:
        assert isinstance(scenario.workload, JobsWorkload)
        memory = memory_of(build.gpu_count, build.gpu_memory_gb)
        work = placed_work(scenario.workload, 1, months, None, memory)[0][0]
    with np.errstate(over="ignore"):
        return bool((work[1:months] / box > MAX_DEMAND_MULTIPLE).any())


def _figures(columns: Columns, fields: list[tuple[str, ...]]) -> dict[str, Array]:
    """The present value and total of each row's build and rent side [currency].

    Projected in the engine's cache-sized chunks, each kept only for these
    figures: the monthly series of a thousand plans are never joined.

    Raises
    ------
    ScenarioError
        Naming the ``fields[i]`` (the options a row is made of) of every row whose figures
        overflow.
    """
    names = ("present_value", "total", "total_net")
    out = {f"{side}.{name}": np.empty(len(columns)) for side in ("build", "rent") for name in names}
    del out["rent.total_net"]
    bad: list[int] = []
    for rows in chunks(len(columns), columns.months):
        try:
            p = project_columns(columns.rows(rows), with_break_even_utilization=False)
        except ProjectionOverflowError as exc:
            bad += [rows.start + i for i in exc.indices]
            continue
        for key, values in out.items():
            side, name = key.split(".")
            values[rows] = getattr(p, side)[name]
    if bad:
        raise ScenarioError(
            [
                FieldError(
                    f, "gives results that are not finite numbers (inputs too large)", "overflow"
                )
                for f in sorted({f for i in bad for f in fields[i]})
            ]
        )
    return out


def _paired(boxes: Columns, offerings: Columns, box: IntArray, offering: IntArray) -> Columns:
    """Columns of each pair (``boxes`` row ``box[k]``, ``offerings`` row ``offering[k]``): the
    box's inputs and work, the offering's rent inputs and fees (nothing recomputed)."""
    b, r = boxes.take(box), offerings.take(offering)
    fees = {path: (b if path.startswith("build.") else r).fees[path] for path in boxes.fees}
    return dataclasses.replace(b, rent=r.rent, fees=fees)


def _rent_plans(
    request: OptionsRequest, work: Array | None, memory: npt.NDArray[np.float64]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A rent plan per offering that holds every job; the others, infeasible (``memory``)."""
    scenario = request.scenario
    plans: list[dict[str, Any]] = []
    infeasible: list[dict[str, Any]] = []
    chosen: list[tuple[int, Scenario]] = []
    own = _for_box(scenario, scenario.build, work)
    # Renting does all the work: the scenario's own box, holding every job, only turns
    # the work into hours.
    own = own.model_copy(update={"build": own.build.model_copy(update={"gpu_memory_gb": None})})
    for i, option in enumerate(request.rents):
        instance = memory_of(option.rent.gpu_count, option.rent.gpu_memory_gb)
        if (memory > instance).any():
            infeasible.append({"kind": "rent", "rent": option.name, "reason": "memory"})
            continue
        chosen.append((i, own.model_copy(update={"rent": option.rent})))
    if not chosen:
        return plans, infeasible
    columns = columns_from([s for _, s in chosen])
    # a commitment the request leaves open is counted at its cheapest count, every
    # offering's commitment table in one projection (costmodel.commitment)
    open_rows = [
        row
        for row, (i, s) in enumerate(chosen)
        if s.rent.committed_hourly_rate > 0
        and "committed_instances" not in request.rents[i].rent.model_fields_set
    ]
    committed: dict[int, tuple[int, float, float]] = {}
    if open_rows:
        counts, values, totals = cheapest_counts(columns.take(open_rows))
        committed = {
            row: (int(k), float(v), float(t))
            for row, k, v, t in zip(open_rows, counts, values, totals, strict=True)
        }
    figures = _figures(columns, [(f"rents.{i}.rent",) for i, _ in chosen])
    for row, (i, s) in enumerate(chosen):
        name = request.rents[i].name
        if row in committed:
            count, present_value, total = committed[row]
        else:
            count = s.rent.committed_instances
            present_value = figures["rent.present_value"][row]
            total = figures["rent.total"][row]
        plans.append(
            {
                "kind": "rent",
                "rent": name,
                "committed_instances": count,
                "present_value": float(present_value),
                "total": float(total),
            }
        )
    return plans, infeasible


def _renting(boxes: Columns) -> npt.NDArray[np.bool_]:
    """Whether each box rents anything: burst (some month wants more than one box) or a job
    it cannot hold (any of its work offloaded)."""
    renting: npt.NDArray[np.bool_] = np.any(boxes.demand > HOURS_PER_MONTH, axis=1)
    if boxes.offload_work is not None:
        renting |= np.any(boxes.offload_work != 0.0, axis=1)
    return renting


def _build_plans(
    request: OptionsRequest, work: Array | None, memory: npt.NDArray[np.float64]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A build plan per box, with the offering that gives it the lowest present value; boxes
    that cannot do the work, infeasible (``capacity`` before ``memory``).

    A box that rents nothing (no month above one box, no job it cannot hold) costs the same
    whatever offering it would rent on: every offering ties, and the tie goes to the first
    name in code-point order among those that may rent its jobs. Such a box is projected
    with that offering alone; a box that rents is projected with each offering it may use.
    """
    scenario = request.scenario
    rents = request.rents
    instances = np.array([memory_of(r.rent.gpu_count, r.rent.gpu_memory_gb) for r in rents])
    order = sorted(range(len(rents)), key=lambda j: rents[j].name)
    infeasible: list[dict[str, Any]] = []
    feasible: list[tuple[int, Scenario, list[int]]] = []  # (box, its scenario, usable offerings)
    for i, option in enumerate(request.builds):
        box = memory_of(option.build.gpu_count, option.build.gpu_memory_gb)
        rented = memory[memory > box]  # jobs the box cannot hold
        usable = [j for j in order if not (rented > instances[j]).any()]
        if _above_eight_boxes(scenario, option.build, work):
            infeasible.append({"kind": "build", "build": option.name, "reason": "capacity"})
            continue
        if not usable:
            infeasible.append({"kind": "build", "build": option.name, "reason": "memory"})
            continue
        feasible.append((i, _for_box(scenario, option.build, work), usable))
    if not feasible:
        return [], infeasible
    # Each box's work and placement once, each offering's prices once; a pair is a row of each.
    boxes = columns_from([s for _, s, _ in feasible])
    renting = _renting(boxes)
    pairs: list[tuple[int, int]] = []  # (box, offering) by request index
    box_rows: list[int] = []
    for row, (i, _, usable) in enumerate(feasible):
        offered = usable if renting[row] else usable[:1]
        pairs += [(i, j) for j in offered]
        box_rows += [row] * len(offered)
    offerings = columns_from([scenario.model_copy(update={"rent": r.rent}) for r in rents])
    columns = _paired(boxes, offerings, np.array(box_rows), np.array([j for _, j in pairs]))
    figures = _figures(columns, [(f"builds.{i}.build", f"rents.{j}.rent") for i, j in pairs])
    value = figures["build.present_value"]
    best: dict[int, int] = {}  # box → row of its cheapest offering (the first name on a tie)
    for row, (i, _) in enumerate(pairs):
        if i not in best or value[row] < value[best[i]]:
            best[i] = row
    plans = [
        {
            "kind": "build",
            "build": request.builds[i].name,
            "rent": rents[pairs[row][1]].name,
            "present_value": float(value[row]),
            "total": float(figures["build.total_net"][row]),
        }
        for i, row in best.items()
    ]
    return plans, infeasible


def options(request: OptionsRequest) -> dict[str, Any]:
    """Every way to do the scenario's work, ranked by present value.

    Returns
    -------
    dict
        ``plans`` (each ``{"kind": "build", "build", "rent", "present_value",
        "total"}`` or ``{"kind": "rent", "rent", "committed_instances",
        "present_value", "total"}``), sorted by present value (ties: build before
        rent, then by name); ``infeasible`` (``{"kind", "build" | "rent",
        "reason"}``, boxes then offerings in request order); ``best``
        (``plans[0]`` or None); ``present_value_savings`` (the best rent plan's
        present value less the best build plan's, None without both)
        [currency].

    Raises
    ------
    ScenarioError
        If an option makes the results overflow (naming it).

    Notes
    -----
    A jobs workload is taken as it is; any other is first turned into
    reference GPU-hours with the scenario's own box, ``work[m] = demand[m] ×
    build.gpu_count × build.gpu_throughput``, which each box sees as the profile
    ``u[m] = work[m] / (gpu_count × gpu_throughput × 730)``.

    - A rent plan is infeasible (``memory``) when a job's ``memory_gb`` exceeds
      ``rent.gpu_count × rent.gpu_memory_gb``; its cost does not depend on any box.
    - A build plan places each job on the box or rents it (as ``compare`` does)
      on the offering giving the lowest build present value (ties: the first
      name in code-point order); infeasible when some month needs more than 8
      boxes (``capacity``), or a job fits neither the box nor any offering
      (``memory``); ``capacity`` is reported when both apply.
    """
    scenario = request.scenario
    work = None if isinstance(scenario.workload, JobsWorkload) else _work(scenario)
    memory = _job_memory(scenario)
    build_plans, build_infeasible = _build_plans(request, work, memory)
    rent_plans, rent_infeasible = _rent_plans(request, work, memory)
    plans = sorted(
        [*build_plans, *rent_plans],
        key=lambda plan: (
            plan["present_value"],
            plan["kind"] != "build",
            plan.get("build", ""),
            plan["rent"],
        ),
    )
    savings = None
    if build_plans and rent_plans:
        cheapest_rent = min(plan["present_value"] for plan in rent_plans)
        cheapest_build = min(plan["present_value"] for plan in build_plans)
        savings = cheapest_rent - cheapest_build
    if savings is not None and not math.isfinite(savings):
        savings = None
    return {
        "plans": plans,
        "infeasible": [*build_infeasible, *rent_infeasible],
        "best": plans[0] if plans else None,
        "present_value_savings": savings,
    }
