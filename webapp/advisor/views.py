"""The sizing advisor and "the guide, checked": parse, call one function, render."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_http_methods

from webapp.advisor import guide as guide_service
from webapp.advisor.advice import advise_from_catalog
from webapp.advisor.forms import AdvisorForm


@require_http_methods(["GET", "POST"])
def advisor(request: HttpRequest) -> HttpResponse:
    form = AdvisorForm(request.POST if request.method == "POST" else None)
    page = advise_from_catalog(form.job) if form.is_bound and form.is_valid() else None
    return render(request, "advisor/advisor.html", {"form": form, "page": page})


@require_GET
def guide(request: HttpRequest) -> HttpResponse:
    return render(request, "advisor/guide.html", {"guide": guide_service.cached_check_guide()})
