"""One error shape for every API failure: ``{"errors": [{"field": …, "message": …}]}``.

It lives below the apps: the API's routers and the token authentication of
``webapp.accounts`` both answer in it, and neither imports the other for it.

The request body is read here, not by django-ninja, so that a wrong content
type, an empty or oversized body, bad JSON and too deep nesting all become a
clear 4xx that names what is wrong, never a 500.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import Any

import numpy as np
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from ninja.errors import AuthenticationError, AuthorizationError, HttpError, ValidationError
from pydantic_core import to_json

from costmodel import FieldError, ScenarioError
from costmodel.errors import load_json
from webapp.busy import (
    RETRY_AFTER_SECONDS,
    TooManyHeavyRequests,
    busy_message,
    is_database_busy,
)

logger = logging.getLogger(__name__)

JSON_CONTENT_TYPE = "application/json"

MAX_PROBLEMS = 20
"""Most problems one error answer lists; the last says how many more there were."""

MAX_KEYS = 1_000
"""Most keys a request body may hold, counted as the colons outside its strings
(:func:`key_count`). A scenario has about 50, an analysis request a few more; the batch
API allows 100 per scenario a batch may hold (webapp.api.compare)."""

MAX_ITEMS = 25_000
"""Most items (values in a body's lists and objects, :func:`item_count`) a request body may
hold. A scenario of 50 jobs that each give 240 months of runs, the largest the engine takes,
holds about 13 000; the batch API allows 200 per scenario a batch may hold. The parser makes
a Python object of every item: 16 MB of ``[{},{},…]`` is 5.6 million of them, over a
gigabyte in a worker."""

MAX_DEPTH = 20
"""Most levels of lists and objects inside one another in a request body (a batch of
scenarios with jobs nests 5 deep)."""

_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
"""A JSON string, escapes included (the "unrolled loop" form: one pass, no backtracking)."""

_WHITESPACE = b" \t\r\n"
_BRACKETS_ONLY = bytes.maketrans(b"{}", b"[]")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_CHUNK = 1 << 20


def key_count(body: bytes) -> int:
    """Keys in a JSON body: the colons outside its strings (every key is followed by one).

    A file's text sent as a string (``POST /api/v1/usage``) holds a colon in every
    timestamp; those are not keys. For JSON text the strings are found as a parser
    finds them, left to right, so the count is exact; for broken JSON it may be
    anything, and the parser refuses the body anyway.
    """
    return _without_strings(body).count(b":")


def _without_strings(body: bytes) -> bytes:
    return _JSON_STRING.sub(b"", body) if b'"' in body else body  # no copy when none


def item_count(body: bytes) -> int:
    """Items in a JSON body: the values in its lists and objects (its top value aside).

    Outside strings, a non-empty list or object holds one item more than it has commas:
    the commas plus the non-empty containers. Exact for JSON text; for broken JSON it may
    be anything, and the parser refuses the body anyway. Counted in a few passes over the
    text, each in C (no regular expression on the whole body but the strings').
    """
    bare = _without_strings(body)
    items = bare.count(b",") + bare.count(b"[") + bare.count(b"{")
    if any(space in bare for space in _WHITESPACE):
        bare = bare.translate(None, _WHITESPACE)  # so that "[ ]" is an empty list too
    return items - bare.count(b"[]") - bare.count(b"{}")


def nested_deeper_than(body: bytes, limit: int) -> bool:
    """Whether a JSON body opens lists and objects more than ``limit`` levels deep.

    Only the brackets outside strings count, a list's and an object's alike; the depth is
    the highest running count of open brackets, summed with numpy a megabyte of the text at
    a time (no parsing, and a few megabytes of memory whatever the body).
    """
    bare = memoryview(_without_strings(body))
    depth = 0
    for start in range(0, len(bare), _CHUNK):
        brackets = bytes(bare[start : start + _CHUNK]).translate(_BRACKETS_ONLY, _NOT_BRACKETS)
        if not brackets:
            continue
        steps = np.frombuffer(brackets, np.uint8)
        running = np.cumsum(np.where(steps == ord("["), 1, -1), dtype=np.int64) + depth
        if int(running.max()) > limit:
            return True
        depth = int(running[-1])
    return False


class ApiError(Exception):
    """An error response: HTTP status plus the field errors that explain it."""

    def __init__(self, status: int, errors: Iterable[FieldError]) -> None:
        self.status = status
        self.errors = list(errors)
        super().__init__("; ".join(str(e) for e in self.errors))


def error(status: int, field: str, message: str) -> ApiError:
    return ApiError(status, [FieldError(field, message)])


def json_response(data: Any, status: int = 200) -> HttpResponse:
    """Encode ``data`` as compact UTF-8 JSON.

    pydantic-core's encoder writes the same bytes as ``json.dumps`` with compact
    separators, eight times faster: it is most of the time a large batch takes.
    The engine never returns NaN or infinity; if it did they would become null.
    """
    body = to_json(data, inf_nan_mode="null")
    return HttpResponse(body, status=status, content_type="application/json; charset=utf-8")


def capped(errors: Iterable[FieldError]) -> list[FieldError]:
    """At most :data:`MAX_PROBLEMS` problems: past that, the last one says how many more."""
    listed = list(errors)
    if len(listed) <= MAX_PROBLEMS:
        return listed
    more = len(listed) - (MAX_PROBLEMS - 1)
    summary = ngettext("and %(count)d more problem", "and %(count)d more problems", more) % {
        "count": more
    }
    return [*listed[: MAX_PROBLEMS - 1], FieldError("(request)", summary)]


def errors_response(status: int, errors: Iterable[FieldError]) -> HttpResponse:
    """The error answer: at most :data:`MAX_PROBLEMS` problems listed."""
    return json_response({"errors": [e.as_dict() for e in capped(errors)]}, status=status)


def busy_response(message: str) -> HttpResponse:
    """503 in the error shape, with ``Retry-After``."""
    response = errors_response(503, [FieldError("(server)", message)])
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def too_large_message(limit: int) -> str:
    return _("the body is larger than the limit of %(limit)d bytes") % {"limit": limit}


def too_large_body(path: str, limit: int) -> tuple[str, bytes]:
    """Content type and body of a 413 answered before Django sees the request (webapp.asgi).

    In the API's error shape under ``/api/v1/``, plain text elsewhere.
    """
    message = too_large_message(limit)
    if path.startswith("/api/"):
        body = to_json({"errors": [FieldError("(request)", message).as_dict()]})
        return "application/json; charset=utf-8", body
    return "text/plain; charset=utf-8", message.encode()


def read_body(request: HttpRequest, max_keys: int = MAX_KEYS, max_items: int = MAX_ITEMS) -> bytes:
    """The request body, or :class:`ApiError` (400, 411, 413, 422) when there is none to read.

    Checks the content type (``application/json``), the size limit, chunked
    transfer, emptiness, the number of keys (at most ``max_keys``) and of items
    (at most ``max_items``), and the depth (at most :data:`MAX_DEPTH`), before any
    parsing: a body of a million keys or items costs seconds and gigabytes to
    parse and validate. Only a body with more colons, or commas and brackets, than
    that is scanned for its strings (:func:`key_count`, :func:`item_count`), and only
    one with more brackets than :data:`MAX_DEPTH` for its depth; decoding is the
    caller's.
    """
    if request.content_type != JSON_CONTENT_TYPE:
        raise error(
            400,
            "(request)",
            _("Content-Type must be %(expected)s, not %(actual)s")
            % {"expected": JSON_CONTENT_TYPE, "actual": request.content_type or _("(none)")},
        )
    try:
        body = request.body
    except RequestDataTooBig:
        raise error(413, "(request)", too_large_message(_body_limit())) from None
    if not body and "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower():
        # uvicorn passes a chunked body on; a WSGI server or Django's test server passes
        # nothing, and nothing would read as "empty".
        raise error(411, "(request)", _("send the body with a Content-Length header, not chunked"))
    if not body.strip():
        raise error(400, "(body)", _("is empty; send a JSON object"))
    if body.count(b":") > max_keys and key_count(body) > max_keys:
        raise error(413, "(body)", _("holds more than %(limit)d keys") % {"limit": max_keys})
    brackets = body.count(b"[") + body.count(b"{")
    if brackets > MAX_DEPTH and nested_deeper_than(body, MAX_DEPTH):
        raise error(
            422,
            "(body)",
            _("nests lists and objects more than %(limit)d levels deep") % {"limit": MAX_DEPTH},
        )
    if body.count(b",") + brackets > max_items and item_count(body) > max_items:
        raise error(
            413,
            "(body)",
            _("holds more than %(limit)d items (values in lists and objects)")
            % {"limit": max_items},
        )
    return body


def read_json(request: HttpRequest, *, for_database: bool = False) -> object:
    """Decode the request body as JSON or raise :class:`ApiError` (400, 411, 413, 422).

    ``for_database``: the data will be looked up in or stored into the database,
    so strings holding NUL characters (which PostgreSQL refuses) are a 422.
    """
    body = read_body(request)
    try:
        data = load_json(body)
    except ScenarioError as exc:
        raise ApiError(400, exc.errors) from None
    if for_database and b"\\u0000" in body:
        # PostgreSQL can store no NUL character, in text or in jsonb: refuse it here.
        where = _nul_path(data, [])
        if where is not None:
            raise error(422, where or "(body)", _("must not contain NUL characters"))
    return data


def _nul_path(value: object, path: list[str]) -> str | None:
    """Dotted path of the first string (value or key) holding a NUL character."""
    if isinstance(value, str):
        return ".".join(path) if "\x00" in value else None
    items: Iterable[tuple[object, object]]
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        if isinstance(key, str) and "\x00" in key:
            return ".".join([*path, key])
        found = _nul_path(item, [*path, str(key)])
        if found is not None:
            return found
    return None


def _body_limit() -> int:
    return int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0)


def _field_from_location(loc: Iterable[Any]) -> str:
    parts = [str(p) for p in loc]
    # ninja prefixes the source ("query", "path", "body"); the user named the parameter.
    if parts and parts[0] in {"query", "path", "body", "header", "cookie", "form", "file"}:
        parts = parts[1:]
    return ".".join(parts) or "(request)"


def _message(error: dict[str, Any]) -> str:
    """pydantic's wording, phrased like the engine's messages ("must be …")."""
    if error.get("type") == "missing":
        return "is required"
    message = str(error.get("msg", "is invalid")).removeprefix("Value error, ")
    for prefix, verb in (("Input should be", "must be"), ("String should", "must")):
        if message.startswith(prefix):
            return verb + message[len(prefix) :]
    return message


def install_handlers(api: Any) -> None:
    """Replace ninja's default error handlers so every error has the shape above."""

    def on_api_error(request: HttpRequest, exc: ApiError) -> HttpResponse:
        return errors_response(exc.status, exc.errors)

    def on_validation_error(request: HttpRequest, exc: ValidationError) -> HttpResponse:
        errors = [
            FieldError(_field_from_location(e.get("loc", ())), _message(e)) for e in exc.errors
        ]
        return errors_response(422, errors)

    def on_authentication_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
        return errors_response(401, [FieldError("(request)", _("log in first"))])

    def on_authorization_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
        return errors_response(403, [FieldError("(request)", _("not allowed"))])

    def on_http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
        return errors_response(exc.status_code, [FieldError("(request)", str(exc))])

    def on_not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
        return errors_response(404, [FieldError("(request)", _("not found"))])

    def on_request_too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
        return errors_response(413, [FieldError("(request)", too_large_message(_body_limit()))])

    def on_too_many_heavy(request: HttpRequest, exc: TooManyHeavyRequests) -> HttpResponse:
        logger.warning("heavy analyses at the limit on %s: answered 503", request.path)
        return busy_response(
            _("The server is busy with other analyses; please try again in a few seconds.")
        )

    def on_unexpected(request: HttpRequest, exc: Exception) -> HttpResponse:
        if is_database_busy(exc):
            logger.warning("database busy on %s %s: answered 503", request.method, request.path)
            return busy_response(busy_message())
        logger.exception("API error on %s %s", request.method, request.path)
        return errors_response(500, [FieldError("(server)", _("internal error"))])

    api.add_exception_handler(ApiError, on_api_error)
    api.add_exception_handler(ValidationError, on_validation_error)
    api.add_exception_handler(AuthenticationError, on_authentication_error)
    api.add_exception_handler(AuthorizationError, on_authorization_error)
    api.add_exception_handler(HttpError, on_http_error)
    api.add_exception_handler(Http404, on_not_found)
    api.add_exception_handler(RequestDataTooBig, on_request_too_big)
    api.add_exception_handler(TooManyHeavyRequests, on_too_many_heavy)
    api.add_exception_handler(Exception, on_unexpected)
