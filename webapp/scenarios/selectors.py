"""Every query of the saved scenarios, by what it is for, and who may see or change them.

Who sees a saved scenario:

- one saved by an anonymous browser (no owner): whoever has its link, as a
  results permalink (its random id is the capability);
- one saved by a signed-in user: that user, the members of the team it is
  shared with (if any), and staff.

Who renames or deletes it: its owner, an admin of its team, staff; for an
anonymous one, the browser session that saved it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Literal

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import IntegerField, Q, QuerySet
from django.db.models.fields.json import KT
from django.db.models.functions import Cast

from webapp.accounts.selectors import is_member, is_team_admin, teams_of
from webapp.scenarios.models import SavedScenario

User = AbstractBaseUser | AnonymousUser


def saved_scenario(pk: uuid.UUID | str) -> SavedScenario | None:
    """The saved scenario with this id, or ``None`` (whoever asks: see :func:`viewable`)."""
    return SavedScenario.objects.filter(pk=pk).select_related("team__group").first()


def all_saved() -> QuerySet[SavedScenario]:
    """Every saved scenario (callers keep those :func:`can_view` allows)."""
    return SavedScenario.objects.all()


def saved_by(user: User | None, session_key: str | None) -> QuerySet[SavedScenario]:
    """The scenarios this user (or, when anonymous, this browser session) saved, newest first."""
    if user is not None and user.is_authenticated:
        return SavedScenario.objects.filter(owner_id=user.pk)
    if not session_key:
        return SavedScenario.objects.none()
    return SavedScenario.objects.filter(owner__isnull=True, session_key=session_key)


def listed_for(user: User | None, session_key: str | None) -> QuerySet[SavedScenario]:
    """The "Saved scenarios" list: one's own and those shared with one's teams, newest first.

    The user's teams are read first (one query) and named in the list's query, so that
    PostgreSQL's planner knows how many rows they share (it cannot from a subquery): a
    member of one team gets their rows from the owner and team indexes, a member of every
    team the first page in the order's index."""
    if user is not None and user.is_authenticated:
        teams = list(teams_of(user).values_list("pk", flat=True))
        return SavedScenario.objects.filter(
            Q(owner_id=user.pk) | Q(team_id__in=teams)
        ).select_related("team__group", "owner")
    return saved_by(user, session_key)


Sort = Literal["name", "-name", "date", "-date"]
SORTS: dict[str, tuple[str, ...]] = {
    "-date": ("-created_at", "-pk"),
    "date": ("created_at", "pk"),
    "name": ("name", "-created_at", "pk"),
    "-name": ("-name", "-created_at", "pk"),
}
"""Orders of the saved list, each ending on a unique key so that pages never overlap."""


@dataclass(frozen=True)
class ListFilter:
    """What the saved list shows: one's own only, one team's only, those whose decision
    today's prices would change; and in which order."""

    mine: bool = False
    team_id: int | None = None
    changed: bool = False
    sort: Sort = "-date"


LISTED_FIELDS = (
    "name",
    "owner__username",
    "team__group__name",
    "session_key",
    "created_at",
    "decision_code",
    "decision_savings",
    "decision_present_value_savings",
    "decision_probability_agreeing",
    "today_code",
    "today_savings",
    "today_present_value_savings",
    "today_problem",
    "today_computed_at",
    "changed_today",
)
"""What a row of the saved list shows (with its team's and owner's names): the rows the
database sorts for a page stay narrow."""


def listed(
    user: User | None, session_key: str | None, chosen: ListFilter
) -> QuerySet[SavedScenario]:
    """:func:`listed_for` narrowed and ordered by ``chosen``; a team the user is not a member
    of lists nothing. Rows carry their team and owner (one query a page) and, of the
    scenario, only what a row shows (``currency``, ``horizon_months``, read from its JSON
    by the database): no large JSON column is read or sorted with the rows."""
    items = listed_for(user, session_key)
    if chosen.mine and user is not None and user.is_authenticated:
        items = items.filter(owner_id=user.pk)
    if chosen.team_id is not None:
        items = items.filter(team_id=chosen.team_id, team__in=teams_of(user))
    if chosen.changed:
        items = items.filter(changed_today=True)
    return (
        items.only(*LISTED_FIELDS)
        .annotate(
            currency=KT("scenario__currency"),
            horizon_months=Cast(KT("scenario__horizon_months"), IntegerField()),
        )
        .order_by(*SORTS[chosen.sort])
    )


def can_view(saved: SavedScenario, user: User | None) -> bool:
    """True if ``user`` may see (and compare, and download) ``saved``."""
    if saved.owner_id is None:
        return True  # saved anonymously: its link is the capability, as a permalink's
    if user is None or not user.is_authenticated:
        return False
    if saved.owner_id == user.pk or getattr(user, "is_staff", False):
        return True
    return is_member(user, saved.team_id)


def viewable(pk: uuid.UUID | str, user: User | None) -> SavedScenario | None:
    """The saved scenario with this id if ``user`` may see it, else ``None`` (as if unknown)."""
    saved = saved_scenario(pk)
    return saved if saved is not None and can_view(saved, user) else None


def can_modify(saved: SavedScenario, user: User | None, session_key: str | None) -> bool:
    """True if ``user`` (or the anonymous ``session_key``) may rename or delete ``saved``.

    The owner may; an admin of the team it is shared with may; staff may; an
    anonymous creator may from the same browser session.
    """
    if user is not None and user.is_authenticated:
        if getattr(user, "is_staff", False):
            return True
        if saved.owner_id is not None and saved.owner_id == user.pk:
            return True
        if saved.owner_id is not None and is_team_admin(user, saved.team_id):
            return True
    if saved.owner_id is None and saved.session_key and session_key:
        return saved.session_key == session_key
    return False


def saved_from_the_catalog() -> QuerySet[SavedScenario]:
    """Every saved scenario that was resolved from the catalog (it has a selection), by name."""
    return SavedScenario.objects.filter(selection__isnull=False).order_by("name", "created_at")


def changed_at_todays_prices() -> QuerySet[SavedScenario]:
    """The saved scenarios whose stored decision today's prices would change (as the last
    re-pricing stored it), most recently re-priced first, with their owners."""
    return (
        SavedScenario.objects.filter(changed_today=True)
        .select_related("owner")
        .defer("provenance", "selection", "ranges", "overrides")
        .order_by("-today_computed_at", "name", "pk")
    )


def not_priced_today() -> QuerySet[SavedScenario]:
    """The saved scenarios from the catalog that the last re-pricing could not price."""
    return (
        SavedScenario.objects.exclude(today_problem="")
        .select_related("owner")
        .defer("provenance", "selection", "ranges", "overrides")
        .order_by("name", "pk")
    )


def can_share(saved: SavedScenario, user: User | None) -> bool:
    """True if ``user`` may choose the team of ``saved``: its owner only (or staff)."""
    if saved.owner_id is None or user is None or not user.is_authenticated:
        return False
    return saved.owner_id == user.pk or bool(getattr(user, "is_staff", False))
