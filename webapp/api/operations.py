"""Operations on one explicit scenario: ``/tornado``, ``/uncertainty``, ``/fleet``, ``/commitment``.

Views parse, call the engine's operation once, encode. Requests and answers
are those of ``costmodel.operations`` (and of the methodology); every error
has the API's shape, a 422 naming the field (``drivers.rent.hourly_rate.low``).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from ninja import Router

from costmodel import ScenarioError
from costmodel.operations import (
    CommitmentAnswer,
    FleetAnswer,
    TornadoAnswer,
    UncertaintyAnswer,
    commitment,
    fleet,
    parse_commitment,
    parse_fleet,
    parse_tornado,
    parse_uncertainty,
    tornado,
    uncertainty,
)
from webapp.api.schemas import ErrorsOut
from webapp.busy import heavy_request
from webapp.errors import ApiError, json_response, read_json

router = Router(tags=["operations"])

ERRORS = {400: ErrorsOut, 411: ErrorsOut, 413: ErrorsOut, 422: ErrorsOut, 503: ErrorsOut}


def _body(schema: str) -> dict[str, Any]:
    ref = {"$ref": f"#/components/schemas/{schema}"}
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": ref}}}}


def _run(request: HttpRequest, parse: Any, operation: Any) -> HttpResponse:
    try:
        parsed = parse(read_json(request))
        with heavy_request():
            answer = operation(parsed)
    except ScenarioError as exc:
        raise ApiError(422, exc.errors) from None
    return json_response(answer)


@router.post(
    "/tornado",
    response={200: TornadoAnswer, **ERRORS},
    summary="Savings with each driver at its low and its high value",
    openapi_extra=_body("TornadoRequest"),
)
def tornado_view(request: HttpRequest) -> HttpResponse:
    """For each driver (a dotted numeric field of the scenario, e.g. `rent.hourly_rate`),
    the savings and break-even month with that field at `low` and at `high`, all else at
    base; rows sorted by the swing of savings, largest first. `measure`:
    `present_value_savings` measures savings at their present value instead (break-even
    months stay on cash)."""
    return _run(request, parse_tornado, tornado)


@router.post(
    "/uncertainty",
    response={200: UncertaintyAnswer, **ERRORS},
    summary="Savings and break-even over seeded random draws of the inputs",
    openapi_extra=_body("UncertaintyRequest"),
)
def uncertainty_view(request: HttpRequest) -> HttpResponse:
    """Independent draws (triangular or uniform) of the fields named in `distributions`,
    at most 100 000; P10/P50/P90 of savings and break-even month, the probability that
    building is cheaper and that it pays back, and per-month bands of the cumulative
    advantage. The same seed gives the same answer. `measure`: `present_value_savings`
    measures savings, the probability and the bands at their present value instead
    (break-even and pay-back stay on cash)."""
    return _run(request, parse_uncertainty, uncertainty)


@router.post(
    "/fleet",
    response={200: FleetAnswer, **ERRORS},
    summary="How many boxes to own before bursting to the cloud",
    openapi_extra=_body("FleetRequest"),
)
def fleet_view(request: HttpRequest) -> HttpResponse:
    """The scenario with 1 to `max_boxes` (at most 16) identical boxes sharing a steady,
    profile or jobs workload; `best_boxes` has the lowest build present value, 0 when renting
    everything is cheaper still."""
    return _run(request, parse_fleet, fleet)


@router.post(
    "/commitment",
    response={200: CommitmentAnswer, **ERRORS},
    summary="How many instances to commit to",
    openapi_extra=_body("CommitmentRequest"),
)
def commitment_view(request: HttpRequest) -> HttpResponse:
    """The scenario's rent side with 0 to K committed instances (K: `max_instances`, at most
    64, else the peak month's need); `best_committed_instances` has the lowest rent present
    value. The scenario must price a committed instance-hour (`committed_hourly_rate` > 0)."""
    return _run(request, parse_commitment, commitment)
