"""Every query of teams, invitations and tokens, by what it is for."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from webapp.accounts.models import ApiToken, Invitation, Team
from webapp.accounts.secrets import digest


def teams_of(user: Any) -> QuerySet[Team]:
    """The teams ``user`` is a member of (none for an anonymous visitor)."""
    if user is None or not user.is_authenticated:
        return Team.objects.none()
    return Team.objects.filter(group__user=user).select_related("group")


def is_member(user: Any, team_id: int | None) -> bool:
    return team_id is not None and teams_of(user).filter(pk=team_id).exists()


def is_team_admin(user: Any, team_id: int | None) -> bool:
    """True if ``user`` administers the team (and is still a member of it)."""
    if team_id is None or user is None or not user.is_authenticated:
        return False
    return teams_of(user).filter(pk=team_id, admins=user).exists()


def administered(user: Any, team_id: int) -> Team | None:
    """The team ``team_id`` if ``user`` administers it, else ``None`` (as if it did not exist)."""
    if not is_team_admin(user, team_id):
        return None
    return Team.objects.select_related("group").get(pk=team_id)


def membership(user: Any, team_id: int) -> Team | None:
    """The team ``team_id`` if ``user`` is a member of it, else ``None``."""
    return teams_of(user).filter(pk=team_id).first()


def members_of(team: Team) -> list[tuple[Any, bool]]:
    """Each member of ``team`` with whether they are an admin of it, by username."""
    admins = set(team.admins.values_list("pk", flat=True))
    return [(member, member.pk in admins) for member in team.group.user_set.order_by("username")]


def pending_invitations(team: Team) -> QuerySet[Invitation]:
    """The invitations into ``team`` not used yet and not expired, newest first."""
    return Invitation.objects.filter(
        team=team, used_at__isnull=True, expires_at__gt=timezone.now()
    ).select_related("created_by")


def open_invitation(secret: str) -> Invitation | None:
    """The unused, unexpired invitation whose link carries ``secret``, or ``None``."""
    return (
        Invitation.objects.filter(
            digest=digest(secret), used_at__isnull=True, expires_at__gt=timezone.now()
        )
        .select_related("team__group")
        .first()
    )


def tokens_of(user: Any) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user)


def token(secret: str) -> ApiToken | None:
    """The API token with this secret (of an active user), or ``None``."""
    return (
        ApiToken.objects.filter(digest=digest(secret), user__is_active=True)
        .select_related("user")
        .first()
    )
