"""Signal receivers of the saved scenarios (connected by :class:`ScenariosConfig.ready`)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.http import HttpRequest

from webapp.scenarios import services


@receiver(user_logged_in, dispatch_uid="scenarios-claim-saves")
def claim_saves_on_login(
    sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any
) -> None:
    """Logging in replaces the session key; the saves made before it follow the user."""
    if request is not None and hasattr(request, "session"):
        services.claim_anonymous_saves(user, request.session)
