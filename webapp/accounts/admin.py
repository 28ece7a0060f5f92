from typing import Any

from django import forms
from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from webapp.accounts.models import ApiToken, Invitation, Team


class TeamAdminForm(forms.ModelForm):
    """The Django admin's team form keeps the rules of the team's own page: admins are
    members, and a team with members has at least one admin."""

    class Meta:
        model = Team
        fields = ["group", "admins"]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        group, chosen = cleaned.get("group"), cleaned.get("admins")
        if group is None or chosen is None:
            return cleaned
        members = set(group.user_set.values_list("pk", flat=True))
        outsiders = sorted(user.get_username() for user in chosen if user.pk not in members)
        if outsiders:
            self.add_error(
                "admins",
                _("Only members of the team can administer it; not a member: %(names)s.")
                % {"names": ", ".join(outsiders)},
            )
        elif members and not chosen:
            self.add_error("admins", _("A team with members needs at least one admin."))
        return cleaned


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    form = TeamAdminForm
    list_display = ["group", "created_at"]
    filter_horizontal = ["admins"]


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ["team", "created_by", "created_at", "expires_at", "used_at", "used_by"]
    readonly_fields = ["digest"]


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "user", "prefix", "created_at", "last_used_at"]
    readonly_fields = ["digest", "prefix"]
