"""A database that stays locked past the busy timeout: 503 with ``Retry-After``, not a 500.

SQLite lets one writer in at a time; the others wait up to the busy timeout
(``DJANGO_SQLITE_TIMEOUT``, see settings). Should that run out, the request
is answered "busy, try again" rather than with an error page and a traceback
in the log. PostgreSQL never raises this error.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import OperationalError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5
"""What a refused client is told to wait before trying again [s]."""


def is_database_busy(exc: BaseException) -> bool:
    """True for SQLite's "database is locked" (or "database table is locked")."""
    return isinstance(exc, OperationalError) and "is locked" in str(exc)


def busy_message() -> str:
    return _("The database is busy; please try again in a few seconds.")


def busy_response(request: HttpRequest) -> HttpResponse:
    """The 503 page; the API answers the same in its JSON shape (webapp.api.errors)."""
    logger.warning("database busy on %s %s: answered 503", request.method, request.path)
    response = render(request, "busy.html", {"message": busy_message()}, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class DatabaseBusyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        return busy_response(request) if is_database_busy(exc) else None
