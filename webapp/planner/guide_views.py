"""The guide, checked: each cost claim of the sizing guides against today's catalog."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from webapp.planner import guide as guide_logic


@require_GET
def guide(request: HttpRequest) -> HttpResponse:
    claims = guide_logic.cached_check_guide()
    context = {
        "claims": claims,
        "known_errors": guide_logic.known_errors(),
        "rules": guide_logic,
        "benchmark_name": guide_logic.benchmark_name(),
    }
    return render(request, "planner/guide.html", context)
