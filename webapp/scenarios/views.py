"""The page that shares a saved scenario with one of its owner's teams."""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from webapp.scenarios import selectors, services
from webapp.scenarios.forms import ShareForm


@login_required
@require_http_methods(["GET", "POST"])
def share(request: HttpRequest, pk: uuid.UUID) -> HttpResponse:
    saved = selectors.viewable(pk, request.user)
    if saved is None or not selectors.can_share(saved, request.user):
        raise Http404
    form = ShareForm(request.POST or None, owner=saved.owner, initial={"team": saved.team})
    if request.method == "POST" and form.is_valid():
        team = form.cleaned_data["team"]
        services.share(saved, team)
        if team is None:
            messages.success(request, _("“%(name)s” is now seen by you only.") % {"name": saved})
        else:
            messages.success(
                request,
                _("“%(name)s” is now shared with the team “%(team)s”.")
                % {"name": saved, "team": team},
            )
        return redirect("planner:saved-detail", pk=saved.pk)
    return render(request, "scenarios/share.html", {"saved": saved, "form": form})
