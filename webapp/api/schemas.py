"""Response schemas, for the OpenAPI document.

Views return JSON they encode themselves (a 10 000-scenario batch is too big
to re-validate on the way out); these models describe that JSON so that the
OpenAPI document is exact, and the schemathesis run checks every response
against them. The result of a comparison is the engine's own schema
(:mod:`costmodel.results`), the answers of the operations are those of
:mod:`costmodel.operations`: nothing is renamed here.
"""

from __future__ import annotations

from ninja import Schema
from pydantic import Field

from costmodel.results import CompareResult, Summary


class FieldErrorOut(Schema):
    field: str = Field(description="dotted path of the offending input, e.g. build.capex")
    message: str


class ErrorsOut(Schema):
    errors: list[FieldErrorOut]


class BatchItemOut(Schema):
    index: int = Field(description="position of the scenario in the request")
    result: CompareResult | Summary | None = Field(
        description="as from /compare (detail=full) or headline figures (detail=summary); "
        "null when the scenario is invalid"
    )
    errors: list[FieldErrorOut] = Field(description="empty when the scenario is valid")


class BatchOut(Schema):
    count: int
    valid: int
    invalid: int
    results: list[BatchItemOut]
