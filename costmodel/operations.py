"""Operations on one scenario: tornado, uncertainty (Monte Carlo) and fleet sizing.

Each operation derives many variants of one validated scenario and evaluates
them as one projection: the variants are columns built by broadcasting
(:func:`costmodel.columns.variants`), never a scenario object per variant.
Requests are validated here (:func:`parse_tornado`, :func:`parse_uncertainty`,
:func:`parse_fleet`) with errors that name the field, e.g.
``distributions.rent.hourly_rate.low: must be less than or equal to high``.

Answers have the shapes of the methodology's "Operations on a scenario"
(field names fixed; ``None`` for null).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Annotated, Any, Literal, Self

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from costmodel.columns import Array, ProjectionOverflowError, variants
from costmodel.errors import FieldError, ScenarioError, field_errors
from costmodel.line_costs import power
from costmodel.projection import chunks, project_columns
from costmodel.scenario import (
    ProfileWorkload,
    Scenario,
    SteadyWorkload,
    TidalWorkload,
    memory_of,
)

MAX_DRAWS = 100_000
"""Most draws an uncertainty request may ask for."""

MAX_DRAW_MONTHS = 6_100_000
"""Most draws × months (horizon + 1) of one uncertainty request: 100 000 draws of a
five-year scenario. The answer's monthly bands need every draw's advantage in every month
at once (8 bytes each: 49 MB at this bound)."""

MAX_BOXES = 16
"""Most boxes a fleet request may try."""

MAX_DRIVERS = 50
"""Most drivers of a tornado, or distributions of an uncertainty request."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)


def _low_above_high() -> PydanticCustomError:
    return PydanticCustomError(
        "low_above_high", "must be less than or equal to high", {"path": "low"}
    )


class Range(_Strict):
    low: float
    high: float

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.low > self.high:
            raise _low_above_high()
        return self


class Triangular(_Strict):
    kind: Literal["triangular"]
    low: float
    mode: float
    high: float

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.low > self.high:
            raise _low_above_high()
        if not self.low <= self.mode <= self.high:
            raise PydanticCustomError(
                "mode_outside_range", "must lie between low and high", {"path": "mode"}
            )
        return self


class Uniform(_Strict):
    kind: Literal["uniform"]
    low: float
    high: float

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.low > self.high:
            raise _low_above_high()
        return self


Distribution = Annotated[Triangular | Uniform, Field(discriminator="kind")]


Measure = Literal["savings", "present_value_savings"]
"""What tornado and uncertainty measure: cash savings (resale credited), or their present value."""


class TornadoRequest(_Strict):
    """``{scenario, drivers: {path: {low, high}}, measure?}``."""

    scenario: Scenario
    drivers: Annotated[dict[str, Range], Field(min_length=1, max_length=MAX_DRIVERS)]
    measure: Measure = "savings"


class UncertaintyRequest(_Strict):
    """``{scenario, distributions: {path: distribution}, draws, seed, measure?}``."""

    scenario: Scenario
    distributions: Annotated[dict[str, Distribution], Field(min_length=1, max_length=MAX_DRIVERS)]
    draws: Annotated[int, Field(ge=1, le=MAX_DRAWS)] = 10_000
    seed: Annotated[int, Field(ge=0, le=2**63 - 1)] = 0
    measure: Measure = "savings"

    @model_validator(mode="after")
    def _bounded_work(self) -> Self:
        months = self.scenario.horizon_months + 1
        if self.draws * months > MAX_DRAW_MONTHS:
            raise ValueError(
                f"draws: must be at most {MAX_DRAW_MONTHS // months} for a horizon of "
                f"{self.scenario.horizon_months} months (draws × (horizon + 1) at most "
                f"{MAX_DRAW_MONTHS})"
            )
        return self


class FleetRequest(_Strict):
    """``{scenario, max_boxes}``; the workload must be steady, a profile or jobs."""

    scenario: Scenario
    max_boxes: Annotated[int, Field(ge=1, le=MAX_BOXES)]

    @model_validator(mode="after")
    def _divisible_workload(self) -> Self:
        if isinstance(self.scenario.workload, TidalWorkload):
            raise PydanticCustomError(
                "workload_not_shareable",
                "the workload must be steady, a profile or jobs to share it among boxes",
                {"path": "scenario"},
            )
        return self


# --------------------------------------------------------------------------
# Answers (for the OpenAPI document; the operations return plain dicts)
# --------------------------------------------------------------------------


class TornadoRow(BaseModel):
    path: str
    low: float
    high: float
    savings_low: float = Field(description="[currency]")
    savings_high: float = Field(description="[currency]")
    break_even_month_low: float | None = Field(description="[months]; null: no pay-back")
    break_even_month_high: float | None = Field(description="[months]; null: no pay-back")


class TornadoAnswer(BaseModel):
    base_savings: float = Field(
        description="The scenario's own savings, or present-value savings with measure "
        "present_value_savings [currency]."
    )
    drivers: list[TornadoRow] = Field(description="Largest |savings_high − savings_low| first.")


class Percentiles(BaseModel):
    p10: float | None
    p50: float | None
    p90: float | None


class SavingsStatistics(BaseModel):
    p10: float
    p50: float
    p90: float
    mean: float


class Bands(BaseModel):
    months: list[int]
    p10: list[float] = Field(
        description="P10 of rent_cum − build_cum per month, or of its discounted running sum "
        "with measure present_value_savings [currency]."
    )
    p50: list[float]
    p90: list[float]


class UncertaintyAnswer(BaseModel):
    savings: SavingsStatistics = Field(description="[currency]")
    probability_build_cheaper: float = Field(description="Share of draws with savings > 0.")
    probability_pays_back: float = Field(description="Share of draws that break even in time.")
    break_even_month: Percentiles = Field(
        description="[months], over the draws that pay back; null when none does."
    )
    bands: Bands
    committed_instances: int = Field(
        description="The scenario's committed instances, the same in every draw: a commitment "
        "is bought before the future is known, so it is never drawn [instances]."
    )


class FleetRow(BaseModel):
    boxes: int
    build_total_net: float = Field(description="[currency]")
    build_present_value: float = Field(description="[currency]")
    savings: float = Field(description="[currency]")
    break_even_month: float | None = Field(description="[months]")


class FleetAnswer(BaseModel):
    rent_present_value: float = Field(description="Renting everything [currency].")
    best_boxes: int = Field(description="Boxes with the lowest present value; 0: rent all.")
    rows: list[FleetRow]


# --------------------------------------------------------------------------
# Validating paths and values
# --------------------------------------------------------------------------


def numeric_fields(scenario: Scenario) -> dict[str, type]:
    """Every numeric field of ``scenario`` by dotted path, with its type (int or float).

    Profile months are ``workload.monthly_utilization.0`` … Optional fields
    left out (a useful life, financing) are not fields of this scenario. Memory
    (``…memory_gb``) places jobs on the box or the instance and costs nothing by
    itself: it is no driver.
    """
    fields: dict[str, type] = {}

    def walk(value: Any, path: str) -> None:
        if isinstance(value, bool) or value is None or isinstance(value, str):
            return
        if isinstance(value, int | float):
            if not path.endswith("memory_gb"):
                fields[path] = type(value)
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(item, f"{path}.{key}" if path else key)
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, f"{path}.{index}")

    walk(scenario.model_dump(), "")
    return fields


def _with_value(data: dict[str, Any], path: str, value: float | int) -> dict[str, Any]:
    """A deep copy of scenario JSON ``data`` with one dotted path set."""
    copy: Any = {**data}
    node = copy
    *parents, leaf = path.split(".")
    for part in parents:
        child = node[int(part)] if isinstance(node, list) else node[part]
        child = list(child) if isinstance(child, list) else {**child}
        if isinstance(node, list):
            node[int(part)] = child
        else:
            node[part] = child
        node = child
    if isinstance(node, list):
        node[int(leaf)] = value
    else:
        node[leaf] = value
    return copy  # type: ignore[no-any-return]


def _value_errors(
    scenario: Scenario, where: str, path: str, values: Mapping[str, float], kind: type
) -> list[FieldError]:
    """Problems with setting ``path`` to each of ``values`` (``{"low": …, "high": …}``).

    Each value is checked by validating the scenario with it in place, so
    the bounds are the schema's own (including idle ≤ load power).
    """
    data = scenario.model_dump(mode="json")
    errors = []
    for name, value in values.items():
        field = f"{where}.{path}.{name}"
        if kind is int and not float(value).is_integer():
            errors.append(
                FieldError(
                    field,
                    f"must be a whole number ({path} counts)",
                    "whole_number_required",
                    {"path": path},
                )
            )
            continue
        typed = int(value) if kind is int else float(value)
        try:
            Scenario.model_validate(_with_value(data, path, typed))
        except ValidationError as exc:
            for error in field_errors(exc):
                detail = error.message if error.field == path else str(error)
                errors.append(FieldError(field, detail, error.code, error.params))
    return errors


def _check_paths(
    scenario: Scenario,
    where: str,
    ranges: Mapping[str, Mapping[str, float]],
    *,
    whole_numbers: bool,
) -> list[FieldError]:
    fields = numeric_fields(scenario)
    errors = []
    for path, values in ranges.items():
        if path not in fields:
            errors.append(
                FieldError(
                    f"{where}.{path}",
                    "must name a numeric field of the scenario (e.g. rent.hourly_rate, "
                    "workload.utilization)",
                    "not_a_numeric_field",
                )
            )
            continue
        if fields[path] is int and not whole_numbers:
            errors.append(
                FieldError(
                    f"{where}.{path}",
                    "counts whole units; draws need a field that takes any number",
                    "not_drawable",
                )
            )
            continue
        errors.extend(_value_errors(scenario, where, path, values, fields[path]))
    return errors


def _parse(model: type[BaseModel], data: object) -> Any:
    if not isinstance(data, dict):
        raise ScenarioError([FieldError("(request)", "must be a JSON object", "not_an_object")])
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(field_errors(exc)) from None


def parse_tornado(data: object) -> TornadoRequest:
    """Validate a tornado request, or raise :class:`ScenarioError` naming every problem."""
    request: TornadoRequest = _parse(TornadoRequest, data)
    ranges = {path: {"low": r.low, "high": r.high} for path, r in request.drivers.items()}
    errors = _check_paths(request.scenario, "drivers", ranges, whole_numbers=True)
    if errors:
        raise ScenarioError(errors)
    return request


def parse_uncertainty(data: object) -> UncertaintyRequest:
    """Validate an uncertainty request, or raise :class:`ScenarioError` naming every problem.

    Every value a draw can take lies between the distribution's ``low`` and
    ``high``, so those two are checked against the field's bounds. Idle and
    load power drawn together must not cross: idle's ``high`` must not exceed
    load's ``low``.
    """
    request: UncertaintyRequest = _parse(UncertaintyRequest, data)
    ranges = {
        path: d.model_dump(include={"low", "high"}) for path, d in request.distributions.items()
    }
    errors = _check_paths(request.scenario, "distributions", ranges, whole_numbers=False)
    idle, load = "build.power_idle_watts", "build.power_load_watts"
    if not errors and (idle in ranges or load in ranges):
        highest_idle = (
            ranges[idle]["high"] if idle in ranges else request.scenario.build.power_idle_watts
        )
        lowest_load = (
            ranges[load]["low"] if load in ranges else request.scenario.build.power_load_watts
        )
        if highest_idle > lowest_load:
            errors.append(
                FieldError(
                    f"distributions.{idle if idle in ranges else load}",
                    "idle power could be drawn above load power: keep idle's high at or "
                    "below load's low",
                    "idle_drawn_above_load",
                )
            )
    if errors:
        raise ScenarioError(errors)
    return request


def parse_fleet(data: object) -> FleetRequest:
    """Validate a fleet request, or raise :class:`ScenarioError` naming every problem."""
    request: FleetRequest = _parse(FleetRequest, data)
    return request


# --------------------------------------------------------------------------
# The operations
# --------------------------------------------------------------------------


def _nullable(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def _refused(error: ProjectionOverflowError, fields: list[str]) -> ScenarioError:
    named = sorted({fields[i] for i in error.indices})
    return ScenarioError(
        [
            FieldError(
                f, "gives results that are not finite numbers (inputs too large)", "overflow"
            )
            for f in named
        ]
    )


def tornado(request: TornadoRequest) -> dict[str, Any]:
    """Savings and break-even month with each driver at its low and at its high value.

    Rows (one per driver) are sorted by the swing ``|savings_high − savings_low|``,
    largest first; ``base_savings`` is the scenario's own. With ``measure`` =
    ``present_value_savings`` the savings figures are present-value savings
    (``rent.present_value − build.present_value``); break-even months stay on cash.

    Raises
    ------
    ScenarioError
        If a driver value makes the results overflow (naming it).
    """
    scenario = request.scenario
    paths = list(request.drivers)
    count = 1 + 2 * len(paths)  # the base, then each driver low and high
    values: dict[str, Array] = {}
    fields = ["scenario"]
    for d, path in enumerate(paths):
        column = np.full(count, float(_base_value(scenario, path)))
        column[1 + 2 * d] = request.drivers[path].low
        column[2 + 2 * d] = request.drivers[path].high
        values[path] = column
        fields += [f"drivers.{path}.low", f"drivers.{path}.high"]
    try:
        p = project_columns(variants(scenario, count, values), with_break_even_utilization=False)
    except ProjectionOverflowError as exc:
        raise _refused(exc, fields) from None
    measured = p.present_value_savings if request.measure == "present_value_savings" else p.savings
    rows: list[dict[str, Any]] = []
    for d, path in enumerate(paths):
        low, high = 1 + 2 * d, 2 + 2 * d
        rows.append(
            {
                "path": path,
                "low": request.drivers[path].low,
                "high": request.drivers[path].high,
                "savings_low": float(measured[low]),
                "savings_high": float(measured[high]),
                "break_even_month_low": _nullable(p.break_even_month[low]),
                "break_even_month_high": _nullable(p.break_even_month[high]),
            }
        )
    rows.sort(key=lambda row: abs(row["savings_high"] - row["savings_low"]), reverse=True)
    return {"base_savings": float(measured[0]), "drivers": rows}


def _base_value(scenario: Scenario, path: str) -> float:
    node: Any = scenario.model_dump()
    for part in path.split("."):
        node = node[int(part)] if isinstance(node, list) else node[part]
    return float(node)


def draw(request: UncertaintyRequest) -> dict[str, Array]:
    """The draws of every distribution, in request order, from one seeded generator.

    Returns ``path → array of shape (draws,)``. Same seed, same draws.
    """
    rng = np.random.default_rng(request.seed)
    n = request.draws
    drawn: dict[str, Array] = {}
    for path, d in request.distributions.items():
        if d.low == d.high:
            drawn[path] = np.full(n, d.low)
        elif isinstance(d, Triangular):
            drawn[path] = rng.triangular(d.low, d.mode, d.high, size=n)
        else:
            drawn[path] = rng.uniform(d.low, d.high, size=n)
    return drawn


def _percentiles(values: Array, axis: int | None = None) -> Array:
    """P10, P50, P90 (numpy's default linear interpolation)."""
    return np.percentile(values, [10, 50, 90], axis=axis)


def uncertainty(request: UncertaintyRequest, *, with_bands: bool = True) -> dict[str, Any]:
    """Savings, break-even and the cumulative advantage over independent draws of the inputs.

    Each draw replaces the fields named in ``distributions`` by a value drawn
    from its distribution (triangular or uniform, independent, seeded).

    Returns
    -------
    dict
        ``savings`` P10/P50/P90/mean [currency]; ``probability_build_cheaper``
        (share of draws with savings > 0); ``probability_pays_back`` (share
        with a break-even month within the horizon); ``break_even_month``
        P10/P50/P90 over the draws that pay back (null when none does); and
        ``bands``: per month ``0..H`` the P10/P50/P90 of ``rent_cum − build_cum``;
        ``committed_instances``, held at the scenario's count in every draw.
        With ``measure`` = ``present_value_savings``, ``savings``,
        ``probability_build_cheaper`` and the bands are of present values: the
        bands of ``Σ_{k≤m} (rent.monthly[k] − build.monthly[k]) × (1 + d)^(−k/12)``;
        break-even months and ``probability_pays_back`` stay on cash.
        Without ``with_bands``, ``bands`` is None and every other figure the same.

    Other Parameters
    ----------------
    with_bands : bool
        Also the per-month bands (the fan chart's). A caller that needs the draws'
        shares and savings alone (a stored decision) leaves them out: they are a
        (months × draws) array, its running sums and a percentile per month, a third
        of the operation's time.

    Notes
    -----
    The committed count is never drawn (a whole-number field cannot be, see
    :func:`parse_uncertainty`): instances are committed before the future is
    known, so each draw asks what that commitment costs in that future.

    Raises
    ------
    ScenarioError
        If some draws make the results overflow.
    """
    scenario = request.scenario
    drawn = draw(request)
    n = request.draws
    months = scenario.horizon_months + 1
    savings = np.empty(n)
    break_even = np.empty(n)
    # rent_cum − build_cum, a row per month
    advantage = np.empty((months, n)) if with_bands else None
    # Draws are built and projected in cache-sized chunks (projection.CHUNK_CELLS):
    # only the answer's bands are ever held for every draw at once.
    present = request.measure == "present_value_savings"
    m = np.arange(months)
    for rows in chunks(n, months):
        chunk = {path: values[rows] for path, values in drawn.items()}
        try:
            columns = variants(scenario, rows.stop - rows.start, chunk)
            p = project_columns(columns, with_break_even_utilization=False)
        except ProjectionOverflowError:
            raise ScenarioError(
                [
                    FieldError(
                        "distributions",
                        "some draws give results that are not finite numbers (inputs too large)",
                        "overflow",
                    )
                ]
            ) from None
        break_even[rows] = p.break_even_month
        savings[rows] = p.present_value_savings if present else p.savings
        if advantage is None:
            continue
        if present:
            discount = power(1.0 + columns.discount_rate_per_year, -m / 12.0)
            saved = (p.rent.monthly - p.build.monthly)[:, :months] * discount
            advantage[:, rows] = np.cumsum(saved, axis=1).T
        else:
            advantage[:, rows] = (p.rent.cumulative - p.build.cumulative).T
    pays_back = ~np.isnan(break_even)
    savings_p = _percentiles(savings)
    months_p = _percentiles(break_even[pays_back]) if pays_back.any() else [None] * 3
    with np.errstate(over="ignore"):
        mean = savings.mean()
    if not np.isfinite(mean):  # finite draws near ±1e307 overflow their sum, not their shares
        mean = np.sum(savings / n)
    return {
        "savings": {
            "p10": float(savings_p[0]),
            "p50": float(savings_p[1]),
            "p90": float(savings_p[2]),
            "mean": float(mean),
        },
        "probability_build_cheaper": float(np.mean(savings > 0)),
        "probability_pays_back": float(np.mean(pays_back)),
        "break_even_month": {
            "p10": None if months_p[0] is None else float(months_p[0]),
            "p50": None if months_p[1] is None else float(months_p[1]),
            "p90": None if months_p[2] is None else float(months_p[2]),
        },
        "bands": None if advantage is None else _bands(advantage),
        "committed_instances": scenario.rent.committed_instances,
    }


def _bands(advantage: Array) -> dict[str, list[Any]]:
    """Per month, P10/P50/P90 of the draws' advantage (months × draws)."""
    bands = _percentiles(advantage, axis=1)
    return {
        "months": list(range(advantage.shape[0])),
        "p10": bands[0].tolist(),
        "p50": bands[1].tolist(),
        "p90": bands[2].tolist(),
    }


FLEET_SCALED = (
    "build.gpu_count",
    "build.capex",
    "build.power_load_watts",
    "build.power_idle_watts",
    "build.hosting_monthly",
    "build.ops_monthly",
)
"""Inputs of one box that k identical boxes have k times."""


def fleet(request: FleetRequest) -> dict[str, Any]:
    """Own k = 1..max_boxes identical boxes and burst the rest to the cloud: which k is cheapest?

    Each row is the scenario with k boxes (the fields of :data:`FLEET_SCALED`
    times k) sharing the demand (divided by k; a jobs workload's work is
    divided by the fleet's GPUs, k times the box's). ``best_boxes`` is the k with
    the lowest build present value, or 0 when renting everything (the rent
    side's present value, the same for every k) is lower still.

    Raises
    ------
    ScenarioError
        If some k makes the results overflow (naming ``max_boxes``).
    """
    scenario = request.scenario
    boxes = np.arange(1, request.max_boxes + 1, dtype=np.float64)
    values: dict[str, Array] = {path: _base_value(scenario, path) * boxes for path in FLEET_SCALED}
    workload = scenario.workload
    if isinstance(workload, SteadyWorkload):
        values["workload.utilization"] = workload.utilization / boxes
    elif isinstance(workload, ProfileWorkload):
        for i, u in enumerate(workload.monthly_utilization):
            values[f"workload.monthly_utilization.{i}"] = u / boxes
    # Jobs need nothing more: their box-hours are work ÷ the GPUs of the fleet.
    try:
        one_box = memory_of(scenario.build.gpu_count, scenario.build.gpu_memory_gb)
        p = project_columns(
            variants(scenario, len(boxes), values, box_memory_gb=one_box),
            with_break_even_utilization=False,
        )
    except ProjectionOverflowError:
        raise ScenarioError(
            [
                FieldError(
                    "max_boxes",
                    "so many boxes give results that are not finite numbers",
                    "overflow",
                )
            ]
        ) from None
    rows = [
        {
            "boxes": int(k),
            "build_total_net": float(p.build.total_net[i]),
            "build_present_value": float(p.build.present_value[i]),
            "savings": float(p.savings[i]),
            "break_even_month": _nullable(p.break_even_month[i]),
        }
        for i, k in enumerate(boxes)
    ]
    rent_present_value = float(p.rent.present_value[0])
    cheapest = int(np.argmin(p.build.present_value))
    best = 0 if rent_present_value < p.build.present_value[cheapest] else cheapest + 1
    return {"rent_present_value": rent_present_value, "best_boxes": best, "rows": rows}
