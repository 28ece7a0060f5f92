"""Teams, invitations and API tokens, on top of django.contrib.auth.

A team is an auth :class:`~django.contrib.auth.models.Group` (its members are the
group's users, its name the group's name, so the admin and Django's permissions
know it) plus what a group lacks: who administers it. Invitation links and API
tokens are random secrets shown once; only their SHA-256 digest is stored, so a
copy of the database gives no one a way in.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import Group
from django.db import models
from django.utils.translation import gettext_lazy as _


class Team(models.Model):
    """A group of users who see and compare each other's shared scenarios."""

    group = models.OneToOneField(
        Group, verbose_name=_("group"), on_delete=models.CASCADE, related_name="team"
    )
    admins = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        verbose_name=_("admins"),
        blank=True,
        related_name="administered_teams",
        help_text=_("Members who invite people and may rename or delete the team's scenarios."),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("team")
        verbose_name_plural = _("teams")
        ordering = ["group__name"]

    def __str__(self) -> str:
        return self.group.name

    @property
    def name(self) -> str:
        return self.group.name


class Invitation(models.Model):
    """A one-time sign-up link into a team, valid until ``expires_at``."""

    team = models.ForeignKey(
        Team, verbose_name=_("team"), on_delete=models.CASCADE, related_name="invitations"
    )
    digest = models.CharField(_("SHA-256 of the link's secret"), max_length=64, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("created by"),
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    expires_at = models.DateTimeField(_("expires at"))
    used_at = models.DateTimeField(_("used at"), null=True, blank=True)
    used_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("used by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    class Meta:
        verbose_name = _("invitation")
        verbose_name_plural = _("invitations")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.team} ({self.created_at:%Y-%m-%d})"


class ApiToken(models.Model):
    """A personal bearer token for scripts calling the API as this user."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        on_delete=models.CASCADE,
        related_name="api_tokens",
    )
    name = models.CharField(_("name"), max_length=100)
    digest = models.CharField(_("SHA-256 of the token"), max_length=64, unique=True)
    prefix = models.CharField(
        _("first characters"), max_length=12, help_text=_("To recognise the token; not secret.")
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    last_used_at = models.DateTimeField(_("last used at"), null=True, blank=True)

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"
