"""Account pages: sign-up (by invitation, or open when the setting says so), the account page
with teams, invitations and API tokens. Sign-in, sign-out and password reset are Django's own
views (django.contrib.auth.urls) with this site's templates; password reset requests are
counted per address and per account (:class:`PasswordResetView`)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.formats import date_format
from django.utils.timezone import localtime
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from webapp.accounts import selectors, services
from webapp.accounts.forms import (
    InvitationForm,
    InvitationRevokeForm,
    MemberForm,
    SignUpForm,
    TeamForm,
    TokenForm,
)
from webapp.accounts.models import Invitation, Team
from webapp.security import client_ip

AUTH_BACKEND = "django.contrib.auth.backends.ModelBackend"


def locked_out(
    request: HttpRequest, original_response: HttpResponse | None, credentials: Any
) -> HttpResponse:
    """The answer to a sign-in django-axes refuses (``AXES_LOCKOUT_CALLABLE``): a page, 429."""
    context = {
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "cooloff_minutes": round(settings.AXES_COOLOFF_TIME.total_seconds() / 60),
    }
    return render(request, "accounts/locked_out.html", context, status=429)


class PasswordResetView(auth_views.PasswordResetView):
    """Django's password reset, limited per client address and per account typed
    (:func:`services.reset_allowed`): past the limit the form answers 429 and sends nothing,
    the same for an address with an account and one without."""

    def form_valid(self, form: Any) -> HttpResponse:
        if services.reset_allowed(client_ip(self.request), form.cleaned_data["email"]):
            return super().form_valid(form)
        form.add_error(
            None,
            _("Too many password reset requests: try again in an hour."),
        )
        response = self.form_invalid(form)
        response.status_code = 429
        return response


def _signed_up(request: HttpRequest, form: SignUpForm, invitation: Invitation | None) -> Any:
    try:
        user = services.sign_up(form, invitation)
    except services.InvitationUsed:
        return None
    # Logging in hands this browser's anonymous saves to the new account (user_logged_in).
    login(request, user, backend=AUTH_BACKEND)
    return user


def signup(request: HttpRequest) -> HttpResponse:
    """Open registration: only when ``ACCOUNTS_OPEN_SIGNUP`` is on."""
    if not settings.ACCOUNTS_OPEN_SIGNUP:
        raise Http404
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        _signed_up(request, form, None)
        messages.success(request, _("Welcome! Your account is ready."))
        return redirect("planner:saved-list")
    return render(request, "accounts/signup.html", {"form": form, "invitation": None})


def invitation(request: HttpRequest, secret: str) -> HttpResponse:
    """An invitation link: sign up into the team, or join it when already signed in."""
    found = selectors.open_invitation(secret)
    if found is None:
        return render(request, "accounts/invitation_invalid.html", status=404)
    team = found.team
    if request.user.is_authenticated:
        if request.method == "POST":
            try:
                services.accept_invitation(found, request.user)
            except services.InvitationUsed:
                return render(request, "accounts/invitation_invalid.html", status=404)
            messages.success(request, _("You joined the team “%(team)s”.") % {"team": team})
            return redirect("accounts:account")
        return render(request, "accounts/join.html", {"team": team})
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        if _signed_up(request, form, found) is None:
            return render(request, "accounts/invitation_invalid.html", status=404)
        messages.success(
            request, _("Welcome! You are a member of the team “%(team)s”.") % {"team": team}
        )
        return redirect("planner:saved-list")
    return render(request, "accounts/signup.html", {"form": form, "invitation": found})


def _account_page(request: HttpRequest, status: int = 200, **extra: Any) -> HttpResponse:
    user = request.user
    teams = list(selectors.teams_of(user).prefetch_related("admins", "group__user_set"))
    administered = {team.pk for team in teams if user in team.admins.all()}
    context = {
        "teams": [(team, team.pk in administered) for team in teams],
        "tokens": selectors.tokens_of(user),
        "team_form": extra.pop("team_form", TeamForm()),
        "token_form": extra.pop("token_form", TokenForm()),
        **extra,
    }
    return render(request, "accounts/account.html", context, status=status)


@login_required
def account(request: HttpRequest) -> HttpResponse:
    return _account_page(request)


@login_required
@require_POST
def team_create(request: HttpRequest) -> HttpResponse:
    form = TeamForm(request.POST)
    if not form.is_valid():
        return _account_page(request, status=400, team_form=form)
    team = services.create_team(form.cleaned_data["name"], request.user)
    messages.success(request, _("Team “%(team)s” created; you are its admin.") % {"team": team})
    return redirect("accounts:account")


@login_required
@require_POST
def team_invite(request: HttpRequest, team_id: int) -> HttpResponse:
    """A new invitation link, shown on this answer only (its secret is not stored), and
    emailed to the address given, if any (through the task queue)."""
    team = get_object_or_404(Team, pk=team_id)
    if not selectors.is_team_admin(request.user, team.pk):
        raise Http404
    form = InvitationForm(request.POST)
    if not form.is_valid():
        return _team_page(request, team, status=400, invitation_form=form)
    found, secret = services.invite(team, request.user)
    link = request.build_absolute_uri(reverse("accounts:invitation", args=[secret]))
    sent_to = form.cleaned_data["email"]
    if sent_to:
        language = form.cleaned_data["language"] or get_language()
        services.send_invitation(found, link, sent_to, language, request.user)
    return _account_page(
        request, new_invitation={"team": team, "link": link, "found": found, "sent_to": sent_to}
    )


def _administered(request: HttpRequest, team_id: int) -> Team:
    """The team if the signed-in user administers it; 404 for anyone else, staff included
    (staff manage teams in the admin site, with the permissions it gives them)."""
    team = selectors.administered(request.user, team_id)
    if team is None:
        raise Http404
    return team


def _team_page(
    request: HttpRequest,
    team: Team,
    status: int = 200,
    invitation_form: InvitationForm | None = None,
) -> HttpResponse:
    context = {
        "team": team,
        "members": selectors.members_of(team),
        "invitations": selectors.pending_invitations(team),
        "invitation_form": invitation_form or InvitationForm(initial={"language": get_language()}),
    }
    return render(request, "accounts/team.html", context, status=status)


def _back_to(request: HttpRequest, team: Team) -> HttpResponse:
    """The team page while the user still administers the team, else the account page."""
    if selectors.is_team_admin(request.user, team.pk):
        return redirect("accounts:team", team.pk)
    return redirect("accounts:account")


def _member(request: HttpRequest, team: Team) -> Any:
    """The member a POST names; 404 if the team has no such member."""
    form = MemberForm(request.POST, team=team)
    if not form.is_valid():
        raise Http404
    return form.cleaned_data["member"]


@login_required
def team(request: HttpRequest, team_id: int) -> HttpResponse:
    """A team admin's page: members, their rights, pending invitations."""
    return _team_page(request, _administered(request, team_id))


def _last_admin(request: HttpRequest, team: Team) -> HttpResponse:
    messages.error(
        request,
        _("The team “%(team)s” needs an admin: make another member an admin first.")
        % {"team": team},
    )
    return _team_page(request, team, status=409)


@login_required
@require_POST
def team_remove(request: HttpRequest, team_id: int) -> HttpResponse:
    team = _administered(request, team_id)
    member = _member(request, team)
    try:
        unshared = services.remove_member(team, member)
    except services.LastAdmin:
        return _last_admin(request, team)
    messages.success(request, _removed_message(member, team, unshared))
    return _back_to(request, team)


def _removed_message(member: Any, team: Team, unshared: int) -> str:
    removed = _("%(name)s is no longer a member of the team “%(team)s”.") % {
        "name": member.get_username(),
        "team": team,
    }
    if not unshared:
        return removed
    return " ".join(
        [
            removed,
            ngettext(
                "%(count)d scenario they shared with the team is no longer shared; "
                "it stays theirs.",
                "%(count)d scenarios they shared with the team are no longer shared; "
                "they stay theirs.",
                unshared,
            )
            % {"count": unshared},
        ]
    )


@login_required
@require_POST
def team_admin_grant(request: HttpRequest, team_id: int) -> HttpResponse:
    team = _administered(request, team_id)
    member = _member(request, team)
    services.set_admin(team, member, admin=True)
    messages.success(
        request,
        _("%(name)s is now an admin of the team “%(team)s”.")
        % {"name": member.get_username(), "team": team},
    )
    return _back_to(request, team)


@login_required
@require_POST
def team_admin_drop(request: HttpRequest, team_id: int) -> HttpResponse:
    team = _administered(request, team_id)
    member = _member(request, team)
    try:
        services.set_admin(team, member, admin=False)
    except services.LastAdmin:
        return _last_admin(request, team)
    messages.success(
        request,
        _("%(name)s is no longer an admin of the team “%(team)s”.")
        % {"name": member.get_username(), "team": team},
    )
    return _back_to(request, team)


@login_required
@require_POST
def team_invitation_revoke(request: HttpRequest, team_id: int) -> HttpResponse:
    team = _administered(request, team_id)
    form = InvitationRevokeForm(request.POST, team=team)
    if not form.is_valid():
        raise Http404
    found = form.cleaned_data["invitation"]
    services.revoke_invitation(found)
    messages.success(
        request,
        _("The invitation link created on %(date)s was revoked; it no longer works.")
        % {"date": date_format(localtime(found.created_at), "SHORT_DATETIME_FORMAT")},
    )
    return redirect("accounts:team", team.pk)


@login_required
@require_POST
def team_leave(request: HttpRequest, team_id: int) -> HttpResponse:
    """Any member leaves a team; its only admin may not while other members remain."""
    team = selectors.membership(request.user, team_id)
    if team is None:
        raise Http404
    try:
        unshared = services.leave(team, request.user)
    except services.LastAdmin:
        messages.error(
            request,
            _(
                "You are the only admin of the team “%(team)s”: make another member an "
                "admin before you leave."
            )
            % {"team": team},
        )
        return _account_page(request, status=409)
    messages.success(request, _left_message(team, unshared))
    return redirect("accounts:account")


def _left_message(team: Team, unshared: int) -> str:
    left = _("You left the team “%(team)s”.") % {"team": team}
    if not unshared:
        return left
    return " ".join(
        [
            left,
            ngettext(
                "%(count)d scenario you shared with the team is no longer shared; it stays yours.",
                "%(count)d scenarios you shared with the team are no longer shared; "
                "they stay yours.",
                unshared,
            )
            % {"count": unshared},
        ]
    )


@login_required
@require_POST
def token_create(request: HttpRequest) -> HttpResponse:
    """A new API token, shown on this answer only (its secret is not stored)."""
    form = TokenForm(request.POST)
    if not form.is_valid():
        return _account_page(request, status=400, token_form=form)
    token, secret = services.create_token(request.user, form.cleaned_data["name"])
    return _account_page(request, new_token={"token": token, "secret": secret})


@login_required
@require_POST
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    if not services.revoke_token(request.user, token_id):
        raise Http404
    messages.success(request, _("The token was revoked; scripts using it are refused from now."))
    return redirect("accounts:account")
