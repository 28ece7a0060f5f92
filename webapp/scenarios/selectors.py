"""Every query of the saved scenarios, by what it is for."""

from __future__ import annotations

import uuid

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet

from webapp.scenarios.models import SavedScenario

User = AbstractBaseUser | AnonymousUser


def saved_scenario(pk: uuid.UUID | str) -> SavedScenario | None:
    """The saved scenario with this id, or ``None``."""
    return SavedScenario.objects.filter(pk=pk).first()


def all_saved() -> QuerySet[SavedScenario]:
    """Every saved scenario (whoever has a link may view or compare it)."""
    return SavedScenario.objects.all()


def saved_by(user: User | None, session_key: str | None) -> QuerySet[SavedScenario]:
    """The scenarios this user (or, when anonymous, this browser session) saved, newest first."""
    if user is not None and user.is_authenticated:
        return SavedScenario.objects.filter(owner_id=user.pk)
    if not session_key:
        return SavedScenario.objects.none()
    return SavedScenario.objects.filter(owner__isnull=True, session_key=session_key)


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


def saved_from_the_catalog() -> QuerySet[SavedScenario]:
    """Every saved scenario that was resolved from the catalog (it has a selection), by name."""
    return SavedScenario.objects.filter(selection__isnull=False).order_by("name", "created_at")
