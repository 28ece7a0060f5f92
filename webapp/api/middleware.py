"""The API's error shape for what Django answers before any API view runs.

A path under ``/api/v1/`` that matches no route is a 404 from Django's URL
resolver, and a route asked with a method it does not serve is a 405 from
django-ninja; both come back as HTML. This middleware gives them the API's
``{"errors": [{"field": …, "message": …}]}`` body, keeping the ``Allow`` header.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _

from costmodel import FieldError
from webapp.errors import errors_response

API_PREFIX = "/api/v1/"


class ApiErrorShapeMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            not request.path.startswith(API_PREFIX)
            or response.status_code not in (404, 405)
            or response.get("Content-Type", "").startswith("application/json")
        ):
            return response
        if response.status_code == 404:
            return errors_response(404, [FieldError("(request)", _("no such API endpoint"))])
        allowed = response.get("Allow", "")
        reshaped = errors_response(
            405,
            [
                FieldError(
                    "(request)",
                    _("method %(method)s is not allowed here; use %(allowed)s")
                    % {"method": request.method, "allowed": allowed},
                )
            ],
        )
        reshaped["Allow"] = allowed
        return reshaped
