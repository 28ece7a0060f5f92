"""Accounts operations: teams, invitations, sign-up and API tokens.

Views and the API call these; none of them checks who is asking (the views do,
with :mod:`webapp.accounts.selectors`).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import Group
from django.core.cache import caches
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.translation import gettext

from webapp.accounts.models import ApiToken, Invitation, Team
from webapp.accounts.secrets import TOKEN_PREFIX, digest, new_secret


class InvitationUsed(Exception):
    """The invitation was used, or expired, while the form was being filled in."""


class LastAdmin(Exception):
    """The change would leave a team that still has members without an admin."""


def send_invitation(invitation: Invitation, link: str, to: str, language: str, by: Any) -> None:
    """Email ``link`` (``invitation``'s, with its secret) to ``to`` in ``language``, through
    the site's email backend: the task queue (``webapp.planner.tasks.QueuedEmailBackend``),
    as for a password reset, so the page does not wait for the mail server."""
    context = {
        "team": invitation.team.name,
        "inviter": by.get_username(),
        "link": link,
        "expires_at": invitation.expires_at,
    }
    with translation.override(language):
        subject = render_to_string("accounts/email/invitation_subject.txt", context)
        body = render_to_string("accounts/email/invitation_body.txt", context)
    send_mail(" ".join(subject.split()), body, None, [to])


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


def _locked(team: Team) -> Team:
    """``team`` re-read and locked until the transaction ends, so that two admins changing
    each other's rights at once cannot both succeed and leave the team with no admin."""
    return Team.objects.select_for_update().get(pk=team.pk)


def _only_admin(team: Team, user: Any) -> bool:
    return not team.admins.exclude(pk=user.pk).exists()


def _unshare(team: Team, user: Any) -> int:
    """Stop sharing ``user``'s scenarios with ``team``: they stay the user's own.

    Returns the number of scenarios that stopped being shared.
    """
    return team.saved_scenarios.filter(owner=user).update(team=None)


@transaction.atomic
def remove_member(team: Team, member: Any) -> int:
    """Take ``member`` out of ``team`` (and of its admins).

    The scenarios they shared with the team stay theirs and are no longer shared with it:
    the team loses sight of them along with their author. Returns how many that is.

    Raises
    ------
    LastAdmin
        If ``member`` is the team's only admin.
    """
    team = _locked(team)
    if team.admins.filter(pk=member.pk).exists() and _only_admin(team, member):
        raise LastAdmin
    team.admins.remove(member)
    team.group.user_set.remove(member)
    return _unshare(team, member)


@transaction.atomic
def set_admin(team: Team, member: Any, admin: bool) -> None:
    """Make ``member`` (a member of ``team``) an admin of it, or take the rights away.

    Raises
    ------
    LastAdmin
        If ``admin`` is false and ``member`` is the team's only admin.
    """
    team = _locked(team)
    if admin:
        team.admins.add(member)
        return
    if _only_admin(team, member):
        raise LastAdmin
    team.admins.remove(member)


@transaction.atomic
def leave(team: Team, member: Any) -> int:
    """``member`` leaves ``team``; the last member leaving deletes the team.

    As with :func:`remove_member`, their scenarios stop being shared with the team.
    Returns how many did.

    Raises
    ------
    LastAdmin
        If ``member`` is the only admin and other members remain (they must first make
        someone else an admin).
    """
    team = _locked(team)
    others = team.group.user_set.exclude(pk=member.pk).exists()
    if not others:
        unshared = _unshare(team, member)
        team.group.delete()  # the team and its invitations with it
        return unshared
    if team.admins.filter(pk=member.pk).exists() and _only_admin(team, member):
        raise LastAdmin
    return remove_member(team, member)


def revoke_invitation(invitation: Invitation) -> None:
    """Delete an unused invitation: its link stops working at once."""
    invitation.delete()


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


def revoke_all_tokens(user: Any) -> int:
    """Delete every API token of ``user``; how many there were."""
    deleted, _ = ApiToken.objects.filter(user=user).delete()
    return deleted


class RevokeTokensOnPasswordChange:
    """A password validator that accepts every password and, once a user's password has
    been changed (Django calls :meth:`password_changed` after saving a new one: the
    password change and reset pages, the admin, ``manage.py changepassword``), revokes that
    user's API tokens: whoever had taken a token with the old password loses it too."""

    def validate(self, password: str, user: Any = None) -> None:
        return None

    def password_changed(self, password: str, user: Any = None) -> None:
        if user is not None and user.pk is not None:
            revoke_all_tokens(user)

    def get_help_text(self) -> str:
        return gettext("A new password revokes all your API tokens.")


def touch_token(token: ApiToken) -> None:
    """Record that ``token`` was just used (shown on the account page)."""
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())


# --- password reset requests ----------------------------------------------------------------

RESET_WINDOW_SECONDS = 3600
"""The period over which password reset requests are counted [s]."""


def _count(key: str) -> int:
    """One more request under ``key`` in this window; how many so far. The shared cache (the
    database's, or Redis with REDIS_URL) is the counter, so every worker process and every
    host counts the same requests."""
    cache = caches["shared"]
    cache.add(key, 0, timeout=RESET_WINDOW_SECONDS)
    try:
        return int(cache.incr(key))
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=RESET_WINDOW_SECONDS)
        return 1


def reset_allowed(address: str | None, email: str) -> bool:
    """Count a password reset request from ``address`` for ``email``; False once either has
    asked more than allowed this hour (``DJANGO_RESET_PER_ADDRESS``, ``DJANGO_RESET_PER_ACCOUNT``).

    The account is counted by the address typed, whether an account has it or not, so the
    limit answers alike for both and says nothing about who has an account.
    """
    per_address = _count(f"reset:address:{address or '-'}")
    per_account = _count(f"reset:email:{digest(email.strip().lower())}")
    return (
        per_address <= settings.PASSWORD_RESET_PER_ADDRESS
        and per_account <= settings.PASSWORD_RESET_PER_ACCOUNT
    )
