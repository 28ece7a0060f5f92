"""Saved-scenario operations: plain functions, so views, the API and tests share them."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from costmodel import FieldError, Scenario, ScenarioError
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
    selection: dict[str, Any] | None = None,
) -> SavedScenario:
    """Store an explicit scenario under ``name``, owned by ``user`` or, if anonymous, the session.

    ``scenario`` is validated (a dict goes through :class:`costmodel.Scenario`) and
    stored in its JSON form with defaults filled in. ``selection`` (optional) is
    the catalog selection it was resolved from, kept so it can be re-run later.
    """
    owner = user if user is not None and user.is_authenticated else None
    return SavedScenario.objects.create(
        name=name,
        scenario=_scenario_json(scenario),
        provenance=list(provenance or []),
        overrides=sorted(set(overrides or [])),
        selection=selection,
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


def saved_by(user: User | None, session_key: str | None) -> QuerySet[SavedScenario]:
    """The scenarios this user (or, when anonymous, this browser session) saved, newest first."""
    if user is not None and user.is_authenticated:
        return SavedScenario.objects.filter(owner_id=user.pk)
    if not session_key:
        return SavedScenario.objects.none()
    return SavedScenario.objects.filter(owner__isnull=True, session_key=session_key)


def rename(saved: SavedScenario, name: str) -> SavedScenario:
    """Give a saved scenario a new name; its figures never change."""
    saved.name = name
    saved.save(update_fields=["name", "updated_at"])
    return saved


def rerun_at_todays_prices(
    saved: SavedScenario, *, user: User | None, session_key: str | None
) -> SavedScenario:
    """Resolve ``saved``'s catalog selection at today's prices and save the result as new.

    The user's overrides are kept: each overridden field takes the saved value
    again. Raises :class:`costmodel.ScenarioError` if there is no selection or
    the catalog can no longer resolve it.
    """
    from webapp.planner.catalog_bridge import resolve_today

    if not saved.selection:
        raise ScenarioError(
            [FieldError("selection", _("this scenario was entered by hand: no catalog prices"))]
        )
    resolved = resolve_today(saved.selection, saved.scenario, saved.overrides)
    return create_saved_scenario(
        name=f"{saved.name} ({date.today().isoformat()})"[:200],
        scenario=resolved.scenario,
        provenance=resolved.provenance,
        overrides=saved.overrides,
        selection=resolved.selection,
        user=user,
        session_key=session_key,
    )
