"""``/compare`` and ``/compare/batch``: explicit scenarios in, methodology results out.

Views parse, call the engine once, encode. Every scenario is validated by
:func:`costmodel.parse_scenario`, the same function the CLI and the forms use,
so a user reads the same message wherever the input came from.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from ninja import Router
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from costmodel import (
    FieldError,
    Scenario,
    ScenarioError,
    UnreadableInput,
    parse_scenario,
    parse_scenario_json,
    project,
)
from costmodel.errors import load_json
from costmodel.projection import ProjectionOverflowError
from costmodel.results import CompareResult
from webapp.api.schemas import BatchOut, ErrorsOut
from webapp.busy import heavy_request
from webapp.errors import ApiError, capped, error, json_response, read_body
from webapp.scenarios.services import overflow_error

router = Router(tags=["compare"])

MAX_BATCH = 10_000
"""Most scenarios one batch request may hold."""
KEYS_PER_SCENARIO = 100
"""Keys a batch request may hold per scenario it may hold (a scenario has about 50)."""
ITEMS_PER_SCENARIO = 200
"""Items (values in lists and objects) a batch request may hold per scenario it may hold (a
scenario has about 60; webapp.errors.MAX_ITEMS)."""

SCENARIO_REF = {"$ref": "#/components/schemas/Scenario"}
ERRORS = {400: ErrorsOut, 411: ErrorsOut, 413: ErrorsOut, 422: ErrorsOut, 503: ErrorsOut}


@router.post(
    "/compare",
    response={200: CompareResult, **ERRORS},
    summary="Compare building with renting for one explicit scenario",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": SCENARIO_REF}},
        }
    },
)
def compare_one(request: HttpRequest) -> HttpResponse:
    """Validate an explicit scenario and return the methodology's result JSON.

    422 lists every invalid field (`build.capex`, `workload.utilization`, …);
    400 means the body is not a JSON document of content type application/json.
    """
    body = read_body(request)
    with heavy_request():  # a slot for the parse as well as the projection
        try:
            scenario = parse_scenario_json(body)
        except UnreadableInput as exc:
            raise ApiError(400, exc.errors) from None
        except ScenarioError as exc:
            raise ApiError(422, exc.errors) from None
        errors: dict[int, list[FieldError]] = {}
        results = _project({0: scenario}, errors, summary=False)
    if errors:
        raise ApiError(422, errors[0])
    return json_response(results[0])


MAX_FULL_MONTHS = 400_000
"""Most month rows (Σ horizon + 1 over valid scenarios) a batch answers with full series.

Full results carry ten monthly series per scenario: 400 000 month rows are
about 75 MB of JSON (10 000 three-year scenarios). Bigger batches ask for
``"detail": "summary"``, which has no such bound.
"""


@router.post(
    "/compare/batch",
    response={200: BatchOut, **ERRORS},
    summary="Compare up to 10 000 explicit scenarios in one engine batch",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {
                    "schema": {
                        "type": "object",
                        "properties": {
                            "scenarios": {
                                "type": "array",
                                "minItems": 1,
                                "maxItems": MAX_BATCH,
                                "description": (
                                    "explicit scenarios (see Scenario); any item that is "
                                    "not a valid scenario is reported by its index and "
                                    "does not affect the others"
                                ),
                                "items": {},
                            },
                            "detail": {
                                "type": "string",
                                "enum": ["full", "summary"],
                                "default": "full",
                                "description": (
                                    "full: each result as from /compare; summary: headline "
                                    "figures only, no monthly series"
                                ),
                            },
                        },
                        "required": ["scenarios"],
                        "additionalProperties": False,
                    }
                }
            },
        }
    },
)
def compare_batch(request: HttpRequest) -> HttpResponse:
    """Evaluate many scenarios as one engine batch; results and errors by index.

    Each item of `results` has the scenario's `index`, its `result` (or null)
    and its `errors` (empty when valid). Request-level problems (not an
    object, no `scenarios` list, more than 10 000, full series for more than
    400 000 months in all) are a 422 for the whole request.
    """
    body = read_body(
        request,
        max_keys=KEYS_PER_SCENARIO * MAX_BATCH,
        max_items=ITEMS_PER_SCENARIO * MAX_BATCH,
    )
    with heavy_request():
        return _compare_batch(body)


def _compare_batch(body: bytes) -> HttpResponse:
    scenarios: dict[int, Scenario] = {}
    errors: dict[int, list[FieldError]] = {}
    try:
        # A batch whose every item is valid is validated in one pass over the text.
        batch = ValidBatch.model_validate_json(body)
        count, detail = len(batch.scenarios), str(batch.detail)
        scenarios = dict(enumerate(batch.scenarios))
    except ValidationError:
        # Anything else is read item by item, so that each problem is named by its index.
        items, detail = _batch_request(_decoded(body))
        count = len(items)
        for index, item in enumerate(items):
            try:
                scenarios[index] = parse_scenario(item)
            except ScenarioError as exc:
                errors[index] = exc.errors
    if detail == "full":
        months = sum(s.horizon_months + 1 for s in scenarios.values())
        if months > MAX_FULL_MONTHS:
            raise error(
                422,
                "detail",
                _(
                    "full results for %(months)d months in all are too large (at most "
                    '%(limit)d); send "detail": "summary" or fewer scenarios'
                )
                % {"months": months, "limit": MAX_FULL_MONTHS},
            )
    results = _project(scenarios, errors, summary=detail == "summary")
    out: list[dict[str, Any]] = [
        {
            "index": index,
            "result": results.get(index),
            "errors": [e.as_dict() for e in capped(errors.get(index, []))],
        }
        for index in range(count)
    ]
    return json_response(
        {"count": count, "valid": len(results), "invalid": len(errors), "results": out}
    )


class ValidBatch(BaseModel):
    """A batch request whose every scenario is valid (the fast path of /compare/batch)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    scenarios: Annotated[list[Scenario], Field(min_length=1, max_length=MAX_BATCH)]
    detail: Literal["full", "summary"] = "full"


def _decoded(body: bytes) -> object:
    try:
        return load_json(body)
    except ScenarioError as exc:
        raise ApiError(400, exc.errors) from None


def _batch_request(data: object) -> tuple[list[Any], str]:
    if not isinstance(data, dict):
        raise error(422, "(body)", _("must be a JSON object with a list under 'scenarios'"))
    unknown = sorted(set(data) - {"scenarios", "detail"})
    if unknown:
        raise ApiError(422, [FieldError(str(k), _("is not a known field")) for k in unknown])
    detail = data.get("detail", "full")
    if detail not in ("full", "summary"):
        raise error(422, "detail", _("must be 'full' or 'summary'"))
    items = data.get("scenarios")
    if items is None:
        raise error(422, "scenarios", _("is required"))
    if not isinstance(items, list):
        raise error(422, "scenarios", _("must be a list of scenarios"))
    if not items:
        raise error(422, "scenarios", _("must hold at least one scenario"))
    if len(items) > MAX_BATCH:
        raise error(
            422,
            "scenarios",
            _("holds %(count)d scenarios; at most %(limit)d are allowed per request")
            % {"count": len(items), "limit": MAX_BATCH},
        )
    return items, detail


def _project(
    scenarios: dict[int, Scenario], errors: dict[int, list[FieldError]], *, summary: bool
) -> dict[int, dict[str, Any]]:
    """Run valid scenarios as one batch; a scenario that overflows becomes an error."""
    while scenarios:
        indices = list(scenarios)
        try:
            projection = project([scenarios[i] for i in indices])
        except ProjectionOverflowError as exc:
            for position in exc.indices:
                index = indices[position]
                del scenarios[index]
                errors[index] = [overflow_error()]
            continue
        if summary:
            return dict(zip(indices, projection.summaries(), strict=True))
        return {i: projection.result(k) for k, i in enumerate(indices)}
    return {}
