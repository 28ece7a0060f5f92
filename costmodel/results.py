"""The result schema: every headline figure and monthly series, named once, with its unit.

These are the methodology's output names (other tools read them, so they
never change). The engine's :class:`~costmodel.projection.Projection` holds
arrays under exactly these names; the API's OpenAPI document, the CSV
columns, the web pages and the guide read them from here — nothing renames
a figure on its way out.

Amounts are in the scenario's currency. Every monthly series has one entry
per month ``0..H`` (index = month); month 0 is the purchase moment.

A side's series are its two totals (``monthly``, ``cumulative``), then one
series per cost line of :mod:`costmodel.lines` (made from that table, so a line
cannot be declared there and missing here), then, for the build,
``value_if_sold``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from costmodel.lines import SideName, lines_of
from costmodel.scenario import Scenario

Series = list[float]


class _Schema(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _series_fields(side: SideName) -> dict[str, Any]:
    """The series fields of one side's cost lines (:mod:`costmodel.lines`), in table order."""
    return {line.key: (Series, Field(description=line.description)) for line in lines_of(side)}


BuildSeries: type[_Schema] = create_model(
    "BuildSeries",
    __base__=_Schema,
    __module__=__name__,
    __doc__="Monthly series of the build side [currency per month unless noted].",
    monthly=(
        Series,
        Field(description="Build cost of month m; month 0 is the capex or down payment."),
    ),
    cumulative=(Series, Field(description="Running sum of `monthly` over months 0..m.")),
    **_series_fields("build"),
    value_if_sold=(
        Series,
        Field(
            description="What the box in service would fetch if sold at the end of month m "
            "[currency]."
        ),
    ),
)
"""Made from the build side's cost lines, between the totals and the resale value."""


class BuildFigures(_Schema):
    """Headline figures of the build side [currency unless noted]."""

    total: float = Field(description="`cumulative[H]`: everything paid for the build.")
    resale_value: float = Field(description="`value_if_sold[H]`: the box's value at the horizon.")
    total_net: float = Field(description="`total − resale_value`.")
    present_value: float = Field(
        description="Σ monthly × (1 + d)^(−m/12) − resale_value × (1 + d)^(−H/12)."
    )
    cost_per_reference_gpu_hour: float | None = Field(
        description="`total_net / work_reference_gpu_hours` [currency per reference GPU-hour]; "
        "null when no work is done."
    )


RentSeries: type[_Schema] = create_model(
    "RentSeries",
    __base__=_Schema,
    __module__=__name__,
    __doc__="Monthly series of the rent side [currency per month].",
    monthly=(
        Series,
        Field(description="Rent cost of month m; month 0 holds only upfront fees."),
    ),
    cumulative=(Series, Field(description="Running sum of `monthly` over months 0..m.")),
    **_series_fields("rent"),
)
"""Made from the rent side's cost lines, after the totals."""


class RentFigures(_Schema):
    """Headline figures of the rent side [currency unless noted]."""

    total: float = Field(description="`cumulative[H]`: everything paid for renting.")
    present_value: float = Field(description="Σ monthly × (1 + d)^(−m/12).")
    cost_per_reference_gpu_hour: float | None = Field(
        description="`total / work_reference_gpu_hours` [currency per reference GPU-hour]; "
        "null when no work is done."
    )


if TYPE_CHECKING:  # made at import from the cost lines; to a type checker, models
    BuildResult = _Schema
    RentResult = _Schema
else:
    BuildResult = create_model(
        "BuildResult",
        __base__=(BuildFigures, BuildSeries),
        __module__=__name__,
        __doc__="The build side of a result: its monthly series, then its figures.",
    )
    RentResult = create_model(
        "RentResult",
        __base__=(RentFigures, RentSeries),
        __module__=__name__,
        __doc__="The rent side of a result: its monthly series, then its figures.",
    )


class Headline(_Schema):
    """The figures that compare the two sides."""

    break_even_month: float | None = Field(
        description="First month, interpolated, in which building has cost no more cash than "
        "renting (no resale credit) [months]; null if not within the horizon."
    )
    break_even_utilization: float | None = Field(
        description="Steady utilization in [0, 1] at which savings are zero, all else "
        "unchanged [fraction]; null if none."
    )
    savings: float = Field(
        description="`rent.total − build.total_net` [currency]: positive when building is "
        "cheaper over the horizon, resale credited."
    )
    present_value_savings: float = Field(
        description="`rent.present_value − build.present_value` [currency]: the savings "
        "discounted at `discount_rate_per_year` (equal to `savings` at 0); the measure a "
        "verdict is decided on."
    )
    work_reference_gpu_hours: float = Field(
        description="Σ demand × build GPUs × build throughput [reference GPU-hours]."
    )


class JobTimes(_Schema):
    """How long one run of a job takes on each side (a jobs workload only)."""

    name: str = Field(description="The job's name, as given.")
    build_hours_per_run: float | None = Field(
        description="reference_gpu_hours / (build.gpu_count × build.gpu_throughput): wall "
        "hours of one run on one box [h]; null when the box cannot hold the job."
    )
    rent_instance_hours_per_run: float = Field(
        description="reference_gpu_hours / (rent.gpu_count × rent.gpu_throughput) × "
        "(1 + rework_fraction): instance-hours of one run when rented [instance-h]."
    )
    placement: Literal["box", "rent"] = Field(
        description="Where the build plan runs the job: on the box when its memory_gb fits "
        "build.gpu_count × build.gpu_memory_gb, else rented (the offload series)."
    )


class CompareResult(Headline):
    """The methodology's result of one scenario (``compare``).

    Its JSON lists ``scenario``, ``months``, ``build`` and ``rent`` first, then
    the headline figures, then ``jobs`` for a jobs workload only
    (:meth:`costmodel.projection.Projection.result`).
    """

    scenario: Scenario = Field(description="The explicit scenario, defaults filled in.")
    months: list[int] = Field(description="0, 1, …, H.")
    build: BuildResult
    rent: RentResult
    jobs: list[JobTimes] | None = Field(
        default=None, description="Per job, in order: time of one run. Jobs workloads only."
    )


class Summary(Headline):
    """The headline figures of a result, without the scenario and the monthly series."""

    build: BuildFigures
    rent: RentFigures


BUILD_SERIES: tuple[str, ...] = tuple(BuildSeries.model_fields)
BUILD_FIGURES: tuple[str, ...] = tuple(BuildFigures.model_fields)
RENT_SERIES: tuple[str, ...] = tuple(RentSeries.model_fields)
RENT_FIGURES: tuple[str, ...] = tuple(RentFigures.model_fields)
HEADLINE: tuple[str, ...] = tuple(Headline.model_fields)
NULLABLE: frozenset[str] = frozenset(
    {"break_even_month", "break_even_utilization", "cost_per_reference_gpu_hour"}
)
"""Figures the methodology allows to be null; every other figure is a finite number."""
