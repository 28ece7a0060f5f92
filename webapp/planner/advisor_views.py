"""The sizing advisor page: model and dataset size in, a tier and preset out."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from webapp.planner.advisor import advise_from_catalog
from webapp.planner.advisor_forms import AdvisorForm


@require_http_methods(["GET", "POST"])
def advisor(request: HttpRequest) -> HttpResponse:
    form = AdvisorForm(request.POST if request.method == "POST" else None)
    page = advise_from_catalog(form.job) if form.is_bound and form.is_valid() else None
    return render(request, "planner/advisor.html", {"form": form, "page": page})
