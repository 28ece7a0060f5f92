"""Saved scenarios: create from an explicit scenario, list, fetch by id, delete.

A script authenticates with a personal API token (``Authorization: Bearer …``,
created on the account page); the web session (with its CSRF check for
changes) works too. Created without a token, a scenario has no owner: its
random id is the capability to read it, and only staff may delete it. Created
with a token, it belongs to the token's user and, if ``team`` names one of
their teams, is shared with it. Who sees and who deletes which scenario is
decided by :mod:`webapp.scenarios.selectors`, as on the web pages; a scenario
the caller may not see answers 404, as an unknown id.
"""

from __future__ import annotations

import dataclasses
import datetime
import uuid
from typing import Annotated, Any

from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from ninja import Field, Router, Schema
from ninja.pagination import PageNumberPagination, paginate
from ninja.security import django_auth
from pydantic import PlainSerializer, WithJsonSchema

from costmodel import FieldError, Scenario, ScenarioError, parse_scenario
from webapp.accounts.api_auth import anyone, token_auth
from webapp.accounts.models import Team
from webapp.accounts.selectors import teams_of
from webapp.api.schemas import ErrorsOut
from webapp.errors import ApiError, error, json_response, read_json
from webapp.scenarios import selectors, services
from webapp.scenarios.models import SavedScenario
from webapp.security import NOT_VISIBLE_STATUS, not_visible_message

router = Router(tags=["saved scenarios"])

MAX_NAME = 200


class DecisionOut(Schema):
    """The decision stored with a saved scenario: the verdict code its results page, the saved
    list, the compare page and the files state (one function decides it, ``webapp.decided``)."""

    code: str = Field(
        description="build, rent, close_call, uncertain, resale_decides or late_payback"
    )
    present_value_savings: float | None = Field(
        description="rent.present_value − build.present_value [currency]; null: not known"
    )
    savings: float | None = Field(description="Savings of building, in cash, resale credited")
    probability_agreeing: float | None = Field(
        description="Share of the Monte Carlo's draws in which the recommended side holds"
    )


Stamp = Annotated[
    datetime.datetime,
    PlainSerializer(datetime.datetime.isoformat, return_type=str),
    WithJsonSchema({"type": "string", "format": "date-time"}),
]
"""A time written as :func:`_out` writes it (``isoformat``: microseconds, ``+00:00``), also in a
page of the list, which django-ninja would otherwise write to the millisecond."""


class SavedScenarioOut(Schema):
    id: uuid.UUID
    name: str
    scenario: Scenario
    provenance: list[dict[str, Any]]
    overrides: list[str]
    owner: str | None
    team: str | None
    created_at: Stamp
    updated_at: Stamp
    decision: DecisionOut | None

    # A page of the list is validated from the rows themselves (django-ninja's resolvers);
    # the answers about one scenario are written by :func:`_out`, with the same helpers.
    @staticmethod
    def resolve_owner(saved: SavedScenario) -> str | None:
        return _owner(saved)

    @staticmethod
    def resolve_team(saved: SavedScenario) -> str | None:
        return _team_name(saved)

    @staticmethod
    def resolve_decision(saved: SavedScenario) -> dict[str, Any] | None:
        return _decision(saved)


def _owner(saved: SavedScenario) -> str | None:
    return saved.owner.get_username() if saved.owner is not None else None


def _team_name(saved: SavedScenario) -> str | None:
    return saved.team.name if saved.team is not None else None


def _decision(saved: SavedScenario) -> dict[str, Any] | None:
    if not saved.decision_code:
        return None
    return {
        "code": saved.decision_code,
        "present_value_savings": saved.decision_present_value_savings,
        "savings": saved.decision_savings,
        "probability_agreeing": saved.decision_probability_agreeing,
    }


def _out(saved: SavedScenario) -> dict[str, Any]:
    return {
        "id": str(saved.id),
        "name": saved.name,
        "scenario": saved.scenario,
        "provenance": saved.provenance,
        "overrides": saved.overrides,
        "owner": _owner(saved),
        "team": _team_name(saved),
        "created_at": saved.created_at.isoformat(),
        "updated_at": saved.updated_at.isoformat(),
        "decision": _decision(saved),
    }


def _get(request: HttpRequest, scenario_id: uuid.UUID) -> SavedScenario:
    saved = selectors.viewable(scenario_id, request.user)
    if saved is None:
        raise error(NOT_VISIBLE_STATUS, "id", not_visible_message(scenario_id))
    return saved


OPEN_TO_ANYONE: dict[str, Any] = {"security": [{}]}
"""Added to the OpenAPI security of an operation anonymous callers may use too: beside its
token (or session), no credentials at all — the empty requirement. A token that is sent must
still be valid (401)."""


@router.post(
    "/scenarios",
    response={
        201: SavedScenarioOut,
        400: ErrorsOut,
        401: ErrorsOut,
        411: ErrorsOut,
        413: ErrorsOut,
        422: ErrorsOut,
    },
    auth=[token_auth, anyone],
    summary="Save an explicit scenario; the answer's id is its permanent link",
    openapi_extra={
        **OPEN_TO_ANYONE,
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {
                    "schema": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string", "minLength": 1, "maxLength": MAX_NAME},
                            "scenario": {"$ref": "#/components/schemas/Scenario"},
                            "team": {
                                "type": ["string", "null"],
                                "description": "name of one of the token user's teams",
                            },
                        },
                        "required": ["name", "scenario"],
                        "additionalProperties": False,
                    }
                }
            },
        },
    },
)
def create_scenario(request: HttpRequest) -> HttpResponse:
    """Store `scenario` (validated like `/compare`) under `name`.

    With a personal API token it belongs to the token's user, shared with the
    team named `team` (one of theirs) if given; without one it has no owner."""
    data = read_json(request, for_database=True)
    if not isinstance(data, dict):
        raise error(422, "(body)", _("must be a JSON object with 'name' and 'scenario'"))
    errors = [
        FieldError(str(k), _("is not a known field"))
        for k in data
        if k not in {"name", "scenario", "team"}
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
    caller: Any = request.auth  # type: ignore[attr-defined]
    owner = caller if caller.is_authenticated else None  # a token's user; else no owner
    team = _team(data.get("team"), owner, errors)
    if errors or scenario is None or not isinstance(name, str):
        raise ApiError(422, errors)
    try:
        saved = services.create_saved_scenario(
            name=name.strip(), scenario=scenario, user=owner, team=team
        )
    except ScenarioError as exc:  # valid fields, but the results overflow
        raise ApiError(422, exc.errors) from None
    return json_response(_out(saved), status=201)


def _team(value: object, owner: Any, errors: list[FieldError]) -> Team | None:
    """The team named ``value`` among ``owner``'s, or ``None``; what is wrong goes to ``errors``."""
    if value is None:
        return None
    if owner is None:
        errors.append(FieldError("team", _("send a personal API token to share with a team")))
        return None
    if not isinstance(value, str):
        errors.append(FieldError("team", _("must be a team name (a string) or null")))
        return None
    team = teams_of(owner).filter(group__name=value).first()
    if team is None:
        errors.append(FieldError("team", _("you are not a member of a team with this name")))
    return team


PAGE_SIZE = 50
"""Saved scenarios in one page of ``GET /scenarios`` unless ``page_size`` asks for fewer."""
MAX_PAGE_SIZE = 200


class Pages(PageNumberPagination):
    """django-ninja's page-number pagination with Django's :class:`Paginator` behind it, as
    the saved list's pages: a page past the last answers the last page (``page`` says which
    it is); ``page`` below 1 or not a number is a 422 naming it."""

    class Output(Schema):
        items: list[Any]
        count: int = Field(description="saved scenarios in all pages")
        page: int = Field(description="this page's number (the last one if a later was asked)")
        pages: int = Field(description="number of pages")

    def paginate_queryset(
        self,
        queryset: QuerySet[Any],
        pagination: PageNumberPagination.Input,
        request: HttpRequest,
        **params: Any,
    ) -> dict[str, Any]:
        page = Paginator(queryset, self._get_page_size(pagination.page_size)).get_page(
            pagination.page
        )
        return {
            "items": list(page.object_list),
            "count": page.paginator.count,
            "page": page.number,
            "pages": page.paginator.num_pages,
        }


@router.get(
    "/scenarios",
    response={200: list[SavedScenarioOut], 401: ErrorsOut, 422: ErrorsOut},
    auth=[token_auth, django_auth],
    summary="The caller's saved scenarios and those shared with their teams, newest first",
)
@paginate(Pages, page_size=PAGE_SIZE, max_page_size=MAX_PAGE_SIZE)
def list_scenarios(request: HttpRequest) -> QuerySet[SavedScenario]:
    """One page of them: `page` (from 1; a page past the last gives the last) and `page_size`
    (default 50, at most 200); the answer's `count` and `pages` say how many there are."""
    return selectors.listed_for(request.user, None).order_by("-created_at", "-pk")


@router.get(
    "/scenarios/{scenario_id}",
    response={200: SavedScenarioOut, 401: ErrorsOut, 404: ErrorsOut, 422: ErrorsOut},
    auth=[token_auth, django_auth, anyone],
    openapi_extra=OPEN_TO_ANYONE,
    summary="Fetch a saved scenario by its id (if the caller may see it)",
)
def get_scenario(request: HttpRequest, scenario_id: uuid.UUID) -> HttpResponse:
    return json_response(_out(_get(request, scenario_id)))


@router.delete(
    "/scenarios/{scenario_id}",
    response={204: None, 401: ErrorsOut, 403: ErrorsOut, 404: ErrorsOut, 422: ErrorsOut},
    auth=[token_auth, django_auth],
    summary="Delete a saved scenario (its owner, an admin of its team, or staff)",
)
def delete_scenario(request: HttpRequest, scenario_id: uuid.UUID) -> HttpResponse:
    saved = _get(request, scenario_id)
    if not selectors.can_modify(saved, request.user, request.session.session_key):
        raise error(403, "id", _("only the owner of this scenario may delete it"))
    services.delete(saved)
    return HttpResponse(status=204)
