"""Operations on one explicit scenario: ``/tornado``, ``/uncertainty``, ``/fleet``, ``/commitment``,
``/options``.

Views parse, call the engine's operation once, encode. Requests and answers
are those of ``costmodel.operations`` (and of the methodology); every error
has the API's shape, a 422 naming the field (``drivers.rent.hourly_rate.low``).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from ninja import Router

from costmodel import ScenarioError
from costmodel.commitment import CommitmentAnswer, commitment, parse_commitment
from costmodel.errors import load_json
from costmodel.operations import (
    FleetAnswer,
    TornadoAnswer,
    UncertaintyAnswer,
    fleet,
    parse_fleet,
    parse_tornado,
    parse_uncertainty,
    tornado,
    uncertainty,
)
from costmodel.options import MAX_BUILDS, MAX_RENTS, OptionsAnswer, options, parse_options
from webapp.api.schemas import ErrorsOut
from webapp.busy import heavy_request
from webapp.errors import MAX_KEYS, ApiError, json_response, read_body, read_json

router = Router(tags=["operations"])

ERRORS = {400: ErrorsOut, 411: ErrorsOut, 413: ErrorsOut, 422: ErrorsOut, 503: ErrorsOut}


def _body(schema: str) -> dict[str, Any]:
    ref = {"$ref": f"#/components/schemas/{schema}"}
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": ref}}}}


OPTIONS_MAX_KEYS = MAX_KEYS + 40 * MAX_BUILDS + 20 * MAX_RENTS
"""Keys an options request may hold: a scenario's worth (the API's limit for one), and for
each box and offering it may list about twice the keys one has with every field given."""


def _read_options(request: HttpRequest) -> object:
    body = read_body(request, max_keys=OPTIONS_MAX_KEYS)
    try:
        return load_json(body)
    except ScenarioError as exc:
        raise ApiError(400, exc.errors) from None


def _run(request: HttpRequest, parse: Any, operation: Any, read: Any = read_json) -> HttpResponse:
    try:
        parsed = parse(read(request))
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


@router.post(
    "/options",
    response={200: OptionsAnswer, **ERRORS},
    summary="Every way to do the scenario's work, ranked by present value",
    openapi_extra=_body("OptionsRequest"),
)
def options_view(request: HttpRequest) -> HttpResponse:
    """The scenario's work (its jobs, or its workload in reference GPU-hours) held constant,
    each box of `builds` (at most 20) and each offering of `rents` (1 to 60; names unique per
    list) is a plan: a rent plan rents all the work, a build plan does on its box what the box
    holds and rents the rest on the offering that costs it least. `plans` are ranked by present
    value; `infeasible` lists the options that cannot do the work, with the reason (`memory`,
    `capacity`)."""
    return _run(request, parse_options, options, read=_read_options)
