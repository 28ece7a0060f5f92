"""Admin of the saved scenarios: read-only rows, and the report of the saved decisions that
today's catalog prices would change."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Model
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import URLPattern, path
from django.utils.translation import gettext_lazy as _

from webapp.scenarios import selectors, services
from webapp.scenarios.models import SavedScenario

REPORT_PAGE_SIZE = 100


@admin.register(SavedScenario)
class SavedScenarioAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "owner",
        "created_at",
        "decision_code",
        "changed_today",
        "today_computed_at",
    ]
    list_filter = ["changed_today", "decision_code"]
    search_fields = ["name"]
    list_select_related = ["owner"]
    change_list_template = "admin/scenarios/savedscenario/change_list.html"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False  # a saved scenario's figures stay as saved

    def get_urls(self) -> list[URLPattern]:
        report = path(
            "decisions-changed/",
            self.admin_site.admin_view(self.decisions_changed_view),
            name="scenarios_savedscenario_decisions_changed",
        )
        return [report, *super().get_urls()]

    def decisions_changed_view(self, request: HttpRequest) -> TemplateResponse:
        """Saved scenarios whose verdict would change at today's prices, and those the catalog
        can no longer price, as the background re-pricing stored them (``webapp.planner.tasks``)."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        changed = Paginator(selectors.changed_at_todays_prices(), REPORT_PAGE_SIZE)
        page = changed.get_page(request.GET.get("page"))
        context: dict[str, Any] = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": _("Saved decisions that today's prices would change"),
            "page": page,
            "not_priced": selectors.not_priced_today()[:REPORT_PAGE_SIZE],
            "due": services.due_count(),
        }
        return TemplateResponse(
            request, "admin/scenarios/savedscenario/decisions_changed.html", context
        )
