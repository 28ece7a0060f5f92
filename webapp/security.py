"""Content-Security-Policy header: no inline scripts, nothing from other origins; the
client's address as the sign-in lockout counts it; and the one answer for a saved scenario a
visitor may not see."""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext
from ipware import get_client_ip

POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",  # plotly.js sets style attributes
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)


class ContentSecurityPolicyMiddleware:
    """Add a strict Content-Security-Policy to every response that lacks one."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", POLICY)
        return response


def from_proxy(address: str | None) -> bool:
    """Whether ``address`` is one of ``settings.PROXY_ADDRESSES`` (addresses or networks)."""
    try:
        peer = ipaddress.ip_address(address or "")
    except ValueError:
        return False
    return any(peer in ipaddress.ip_network(proxy) for proxy in settings.PROXY_ADDRESSES)


def client_ip(request: HttpRequest) -> str | None:
    """The client's address for django-axes (``AXES_CLIENT_IP_CALLABLE``).

    The connection's address, unless ``DJANGO_BEHIND_PROXY=true`` and the connection comes
    from one of the configured proxies (``DJANGO_PROXY_ADDRESSES``): then the last
    ``X-Forwarded-For`` entry, the one that proxy appended, read by ipware with axes'
    ipware settings. What a client that connects directly writes in that header is never
    believed. (Under gunicorn, uvicorn has already put the proxied client's address in
    ``REMOTE_ADDR`` for the same proxies, ``forwarded_allow_ips`` in gunicorn.conf.py: that
    address is not a proxy's, so it is taken as it is.)
    """
    remote = request.META.get("REMOTE_ADDR")
    if not (settings.BEHIND_PROXY and from_proxy(remote)):
        return remote
    address, _ = get_client_ip(
        request,
        proxy_count=settings.AXES_IPWARE_PROXY_COUNT,
        request_header_order=settings.AXES_IPWARE_META_PRECEDENCE_ORDER,
    )
    return address or remote


# --- what an outsider learns ----------------------------------------------------------------

NOT_VISIBLE_STATUS = 404
"""The status of every answer about a saved scenario the visitor may not see."""
NOT_VISIBLE_CODE = "not_visible"


def not_visible_message(scenario_id: object) -> str:
    """The one wording, on every route (pages, downloads, the API), for the id of a saved
    scenario this visitor may not see: whether it is someone else's private one, was
    deleted, never existed or is no id at all, the answer is the same, so it tells an
    outsider nothing."""
    return gettext("“%(id)s” is not a saved scenario you can open.") % {"id": scenario_id}


def not_visible_error(scenario_id: object) -> ValidationError:
    """:func:`not_visible_message` as a form's error (code :data:`NOT_VISIBLE_CODE`)."""
    return ValidationError(not_visible_message(scenario_id), code=NOT_VISIBLE_CODE)


class WithoutTraceback(logging.Formatter):
    """A log formatter that writes the message only, never the traceback of the exception
    logged with it: a request with a host not in ``ALLOWED_HOSTS`` is one line in the log
    (settings ``LOGGING``), however often scanners send one."""

    def formatException(self, ei: object) -> str:
        return ""

    def formatStack(self, stack_info: str) -> str:
        return ""
