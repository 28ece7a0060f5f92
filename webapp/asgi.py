"""ASGI entry point: Django's own ASGI application, served by uvicorn's worker in
gunicorn (``make serve``, see gunicorn.conf.py).

One thing is put in front of it: :class:`BodySizeLimit`. Django's ASGI
handler reads a request's whole body (to a temporary file past 2.5 MB)
before any view or middleware can look at the request, so the body size
limit (``DATA_UPLOAD_MAX_MEMORY_SIZE``, ``DJANGO_MAX_BODY_BYTES``) would be
checked only after reading, say, 400 MiB.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from django.conf import settings
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")

Scope = dict[str, Any]
Message = dict[str, Any]


class BodySizeLimit:
    """ASGI middleware that never reads a request body larger than the limit.

    A body whose ``Content-Length`` announces more than
    ``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes is not read at all: Django gets the
    request with nothing to read, and its own check of the announced length
    refuses it when a view asks for the body (the API answers 413 in its
    error shape). A body sent in chunks, without a length, is read only up to
    the limit; past it the request is answered 413 here. Either way the
    answer closes the connection, so the rest of the body is never read.
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if scope["type"] != "http" or limit is None:
            await self.app(scope, receive, send)
            return
        length = _content_length(scope)
        if length is not None and length > limit:
            await self.app(scope, _nothing_to_read(), _closing(send))
        elif length is None:
            await self._read_at_most(limit, scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _read_at_most(self, limit: int, scope: Scope, receive: Any, send: Any) -> None:
        received = 0
        over = False
        started = False

        async def counting_receive() -> Message:
            nonlocal received, over
            message: Message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    over = True
                    return {"type": "http.disconnect"}  # Django stops reading and answers nothing
            return message

        async def noting_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        await self.app(scope, counting_receive, noting_send)
        if over and not started:
            await _too_large(scope, limit, send)


def _content_length(scope: Scope) -> int | None:
    """The announced body length; a value that is not a number counts as too large."""
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return 1 << 63
    return None


def _nothing_to_read() -> Any:
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Future()  # no disconnect is reported; the request is short
        raise AssertionError("unreachable")

    return receive


def _closing(send: Any) -> Any:
    async def closing_send(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = [h for h in message.get("headers", ()) if h[0].lower() != b"connection"]
            message = {**message, "headers": [*headers, (b"connection", b"close")]}
        await send(message)

    return closing_send


async def _too_large(scope: Scope, limit: int, send: Any) -> None:
    from webapp.errors import too_large_body

    content_type, body = too_large_body(scope["path"], limit)
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", content_type.encode()),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


application = BodySizeLimit(get_asgi_application())
