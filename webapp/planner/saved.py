"""Saved-scenario operations: plain functions, so views, the API and tests share them."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from costmodel import Scenario
from webapp.planner.models import SavedScenario

User = AbstractBaseUser | AnonymousUser


def _scenario_json(scenario: Scenario | dict[str, Any]) -> dict[str, Any]:
    if isinstance(scenario, Scenario):
        return scenario.model_dump(mode="json")
    return Scenario.model_validate(scenario).model_dump(mode="json")


def create_saved_scenario(
    *,
    name: str,
    scenario: Scenario | dict[str, Any],
    provenance: list[dict[str, Any]] | None = None,
    overrides: list[str] | None = None,
    user: User | None = None,
    session_key: str | None = None,
) -> SavedScenario:
    """Store an explicit scenario under ``name``, owned by ``user`` or, if anonymous, the session.

    ``scenario`` is validated (a dict goes through :class:`costmodel.Scenario`) and
    stored in its JSON form with defaults filled in.
    """
    owner = user if user is not None and user.is_authenticated else None
    return SavedScenario.objects.create(
        name=name,
        scenario=_scenario_json(scenario),
        provenance=list(provenance or []),
        overrides=sorted(set(overrides or [])),
        owner=owner,
        session_key="" if owner is not None else (session_key or ""),
    )


def can_modify(saved: SavedScenario, user: User | None, session_key: str | None) -> bool:
    """True if ``user`` (or the anonymous ``session_key``) may rename or delete ``saved``.

    The owner may; staff may; an anonymous creator may from the same browser session.
    """
    if user is not None and user.is_authenticated:
        if getattr(user, "is_staff", False):
            return True
        if saved.owner_id is not None and saved.owner_id == user.pk:
            return True
    if saved.owner_id is None and saved.session_key and session_key:
        return saved.session_key == session_key
    return False
