"""The language switcher's endpoint.

Django's ``set_language`` refuses a ``next`` URL longer than 2 048 characters
(``MAX_URL_LENGTH``) and sends the visitor to ``/`` instead; results
permalinks carry the whole scenario and its provenance and can be longer. This
view accepts any local path of reasonable length and otherwise behaves the
same: it stores the language in the language cookie and redirects.
"""

from __future__ import annotations

from typing import Literal, cast
from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.translation import check_for_language
from django.views.decorators.http import require_POST

MAX_NEXT_LENGTH = 16_000

SameSite = Literal["Lax", "Strict", "None", False] | None


def is_local_path(url: str) -> bool:
    """True for a path on this site (``/r/…``), never for ``//host``, ``/\\host`` or a scheme."""
    if not url or len(url) > MAX_NEXT_LENGTH or not url.startswith("/"):
        return False
    if url.startswith(("//", "/\\")) or any(c in url for c in "\\\r\n\t\x00"):
        return False
    parts = urlsplit(url)
    return not parts.scheme and not parts.netloc


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    next_url = request.POST.get("next", "/")
    response = HttpResponseRedirect(next_url if is_local_path(next_url) else "/")
    language = request.POST.get("language", "")
    if language and check_for_language(language):
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            language,
            max_age=settings.LANGUAGE_COOKIE_AGE,
            path=settings.LANGUAGE_COOKIE_PATH,
            domain=settings.LANGUAGE_COOKIE_DOMAIN,
            secure=settings.LANGUAGE_COOKIE_SECURE,
            httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
            samesite=cast(SameSite, settings.LANGUAGE_COOKIE_SAMESITE),
        )
    return response
