from django.contrib import admin

from webapp.accounts.models import ApiToken, Invitation, Team


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
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
