from typing import Any

from django.apps import AppConfig
from django.contrib.auth.signals import user_logged_in
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _


def _claim_anonymous_saves(sender: Any, request: HttpRequest, user: Any, **kwargs: Any) -> None:
    from webapp.planner.saved import claim_anonymous_saves

    if request is not None and hasattr(request, "session"):
        claim_anonymous_saves(user, request.session)


class PlannerConfig(AppConfig):
    name = "webapp.planner"
    label = "planner"
    verbose_name = _("Planner")

    def ready(self) -> None:
        # Logging in replaces the session key; the saves made before it follow the user.
        user_logged_in.connect(_claim_anonymous_saves, dispatch_uid="planner-claim-saves")
