"""``/resolve``: a catalog selection in, the explicit scenario and its provenance out."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from ninja import Router, Schema

from costmodel import Scenario, ScenarioError
from webapp.api.schemas import ErrorsOut
from webapp.catalog.resolver import parse_selection, resolve
from webapp.errors import ApiError, json_response, read_json

router = Router(tags=["catalog"])


class ResolveOut(Schema):
    scenario: Scenario
    provenance: list[dict[str, Any]]


@router.post(
    "/resolve",
    response={200: ResolveOut, 400: ErrorsOut, 411: ErrorsOut, 413: ErrorsOut, 422: ErrorsOut},
    summary="Turn a catalog selection into an explicit scenario with provenance",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Selection"}}},
        }
    },
)
def resolve_selection(request: HttpRequest) -> HttpResponse:
    """Look up every price in effect on `as_of` (default today) and convert currencies.

    `provenance` names the catalog row, amount, currency, date, source and FX
    rate behind each scenario field. Unknown slugs and missing prices are a 422
    naming the selection field (`cloud_offering`, `as_of`, …).
    """
    data = read_json(request, for_database=True)
    try:
        resolution = resolve(parse_selection(data))
    except ScenarioError as exc:
        raise ApiError(422, exc.errors) from None
    return json_response(resolution.as_dict())
