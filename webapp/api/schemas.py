"""Response schemas, for the OpenAPI document.

Views return JSON they encode themselves (a 10 000-scenario batch is too big
to re-validate on the way out); these models describe that JSON so that the
OpenAPI document is exact, and the schemathesis run checks every response
against them.
"""

from __future__ import annotations

from ninja import Schema
from pydantic import Field

from costmodel import Scenario


class FieldErrorOut(Schema):
    field: str = Field(description="dotted path of the offending input, e.g. build.capex")
    message: str


class ErrorsOut(Schema):
    errors: list[FieldErrorOut]


class BuildOut(Schema):
    monthly: list[float]
    cumulative: list[float]
    energy: list[float]
    hosting: list[float]
    maintenance: list[float]
    ops: list[float]
    total: float
    resale_value: float
    total_net: float
    present_value: float
    cost_per_reference_gpu_hour: float | None


class RentOut(Schema):
    monthly: list[float]
    cumulative: list[float]
    compute: list[float]
    fixed: list[float]
    total: float
    present_value: float
    cost_per_reference_gpu_hour: float | None


class CompareOut(Schema):
    """The methodology's "Required JSON output"; arrays are indexed by month 0..H."""

    scenario: Scenario
    months: list[int]
    build: BuildOut
    rent: RentOut
    break_even_month: float | None
    break_even_utilization: float | None
    savings: float
    work_reference_gpu_hours: float


class BuildSummaryOut(Schema):
    total: float
    resale_value: float
    total_net: float
    present_value: float
    cost_per_reference_gpu_hour: float | None


class RentSummaryOut(Schema):
    total: float
    present_value: float
    cost_per_reference_gpu_hour: float | None


class SummaryOut(Schema):
    """The headline figures of a result, without the scenario and the monthly series."""

    break_even_month: float | None
    break_even_utilization: float | None
    savings: float
    work_reference_gpu_hours: float
    build: BuildSummaryOut
    rent: RentSummaryOut


class BatchItemOut(Schema):
    index: int = Field(description="position of the scenario in the request")
    result: CompareOut | SummaryOut | None = Field(
        description="as from /compare (detail=full) or headline figures (detail=summary); "
        "null when the scenario is invalid"
    )
    errors: list[FieldErrorOut] = Field(description="empty when the scenario is valid")


class BatchOut(Schema):
    count: int
    valid: int
    invalid: int
    results: list[BatchItemOut]
