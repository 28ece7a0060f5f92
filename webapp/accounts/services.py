"""Accounts operations: teams, invitations, sign-up and API tokens.

Views and the API call these; none of them checks who is asking (the views do,
with :mod:`webapp.accounts.selectors`).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import Group
from django.db import transaction
from django.utils import timezone

from webapp.accounts.models import ApiToken, Invitation, Team
from webapp.accounts.secrets import TOKEN_PREFIX, digest, new_secret


class InvitationUsed(Exception):
    """The invitation was used, or expired, while the form was being filled in."""


@transaction.atomic
def create_team(name: str, admin: Any) -> Team:
    """A new team named ``name`` whose first member and admin is ``admin``."""
    group = Group.objects.create(name=name)
    team = Team.objects.create(group=group)
    add_member(team, admin)
    team.admins.add(admin)
    return team


def add_member(team: Team, user: Any) -> None:
    team.group.user_set.add(user)


def invite(team: Team, by: Any) -> tuple[Invitation, str]:
    """A new one-time invitation into ``team`` and its secret (to put in the link, once).

    It expires after ``settings.ACCOUNTS_INVITATION_DAYS`` days.
    """
    secret = new_secret()
    invitation = Invitation.objects.create(
        team=team,
        digest=digest(secret),
        created_by=by,
        expires_at=timezone.now() + timedelta(days=settings.ACCOUNTS_INVITATION_DAYS),
    )
    return invitation, secret


@transaction.atomic
def accept_invitation(invitation: Invitation, user: Any) -> None:
    """Use ``invitation`` for ``user`` and make them a member of its team.

    Marking it used and checking that it was still open is one UPDATE, so of two
    people following the same link at once only one joins.

    Raises
    ------
    InvitationUsed
        If the invitation was used or expired in the meantime.
    """
    claimed = Invitation.objects.filter(
        pk=invitation.pk, used_at__isnull=True, expires_at__gt=timezone.now()
    ).update(used_at=timezone.now(), used_by=user)
    if claimed != 1:
        raise InvitationUsed
    add_member(invitation.team, user)


@transaction.atomic
def sign_up(form: Any, invitation: Invitation | None) -> Any:
    """Create the user of a valid sign-up ``form``; with an invitation, into its team.

    Nothing is written if the invitation was used meanwhile (:class:`InvitationUsed`).
    """
    user = form.save()
    if invitation is not None:
        accept_invitation(invitation, user)
    return user


def create_token(user: Any, name: str) -> tuple[ApiToken, str]:
    """A new API token of ``user`` and its secret, which is shown once and never stored."""
    secret = new_secret(TOKEN_PREFIX)
    token = ApiToken.objects.create(
        user=user, name=name, digest=digest(secret), prefix=secret[: len(TOKEN_PREFIX) + 4]
    )
    return token, secret


def revoke_token(user: Any, token_id: int) -> bool:
    """Delete ``user``'s token ``token_id``; False if they have no such token."""
    deleted, _ = ApiToken.objects.filter(user=user, pk=token_id).delete()
    return deleted > 0


def touch_token(token: ApiToken) -> None:
    """Record that ``token`` was just used (shown on the account page)."""
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
