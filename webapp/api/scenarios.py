"""Saved scenarios: create from an explicit scenario, fetch by unguessable id, delete.

Creating needs no login: an API-created scenario has no owner, its random id
is the capability to read it, and only staff may delete it. Deleting uses the
Django session (with its CSRF check) and :func:`webapp.scenarios.selectors.can_modify`,
so one user can never delete another's scenario.
"""

from __future__ import annotations

import dataclasses
import datetime
import uuid
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from ninja import Router, Schema
from ninja.security import django_auth

from costmodel import FieldError, Scenario, ScenarioError, parse_scenario
from webapp.api.errors import ApiError, error, json_response, read_json
from webapp.api.schemas import ErrorsOut
from webapp.scenarios import selectors, services
from webapp.scenarios.models import SavedScenario

router = Router(tags=["saved scenarios"])

MAX_NAME = 200


class SavedScenarioOut(Schema):
    id: uuid.UUID
    name: str
    scenario: Scenario
    provenance: list[dict[str, Any]]
    overrides: list[str]
    created_at: datetime.datetime
    updated_at: datetime.datetime


def _out(saved: SavedScenario) -> dict[str, Any]:
    return {
        "id": str(saved.id),
        "name": saved.name,
        "scenario": saved.scenario,
        "provenance": saved.provenance,
        "overrides": saved.overrides,
        "created_at": saved.created_at.isoformat(),
        "updated_at": saved.updated_at.isoformat(),
    }


def _get(scenario_id: uuid.UUID) -> SavedScenario:
    saved = selectors.saved_scenario(scenario_id)
    if saved is None:
        raise error(404, "id", _("no saved scenario with this id"))
    return saved


@router.post(
    "/scenarios",
    response={
        201: SavedScenarioOut,
        400: ErrorsOut,
        411: ErrorsOut,
        413: ErrorsOut,
        422: ErrorsOut,
    },
    summary="Save an explicit scenario; the answer's id is its permanent link",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {
                    "schema": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string", "minLength": 1, "maxLength": MAX_NAME},
                            "scenario": {"$ref": "#/components/schemas/Scenario"},
                        },
                        "required": ["name", "scenario"],
                        "additionalProperties": False,
                    }
                }
            },
        }
    },
)
def create_scenario(request: HttpRequest) -> HttpResponse:
    """Store `scenario` (validated like `/compare`) under `name`."""
    data = read_json(request, for_database=True)
    if not isinstance(data, dict):
        raise error(422, "(body)", _("must be a JSON object with 'name' and 'scenario'"))
    errors = [
        FieldError(str(k), _("is not a known field")) for k in data if k not in {"name", "scenario"}
    ]
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        errors.append(FieldError("name", _("is required (a non-empty string)")))
    elif len(name) > MAX_NAME:
        errors.append(
            FieldError("name", _("must have at most %(limit)d characters") % {"limit": MAX_NAME})
        )
    scenario = None
    if "scenario" not in data:
        errors.append(FieldError("scenario", _("is required")))
    else:
        try:
            scenario = parse_scenario(data["scenario"])
        except ScenarioError as exc:
            # the same error under the request's path, its code and parameters kept
            errors.extend(dataclasses.replace(e, field=f"scenario.{e.field}") for e in exc.errors)
    if errors or scenario is None or not isinstance(name, str):
        raise ApiError(422, errors)
    try:
        saved = services.create_saved_scenario(name=name.strip(), scenario=scenario)
    except ScenarioError as exc:  # valid fields, but the results overflow
        raise ApiError(422, exc.errors) from None
    return json_response(_out(saved), status=201)


@router.get(
    "/scenarios/{scenario_id}",
    response={200: SavedScenarioOut, 404: ErrorsOut, 422: ErrorsOut},
    summary="Fetch a saved scenario by its id",
)
def get_scenario(request: HttpRequest, scenario_id: uuid.UUID) -> HttpResponse:
    return json_response(_out(_get(scenario_id)))


@router.delete(
    "/scenarios/{scenario_id}",
    response={204: None, 401: ErrorsOut, 403: ErrorsOut, 404: ErrorsOut, 422: ErrorsOut},
    auth=django_auth,
    summary="Delete a saved scenario (its owner or staff, logged in)",
)
def delete_scenario(request: HttpRequest, scenario_id: uuid.UUID) -> HttpResponse:
    saved = _get(scenario_id)
    if not selectors.can_modify(saved, request.user, request.session.session_key):
        raise error(403, "id", _("only the owner of this scenario may delete it"))
    services.delete(saved)
    return HttpResponse(status=204)
