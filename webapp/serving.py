"""The gunicorn worker the site runs in (gunicorn.conf.py): uvicorn's, with a deadline for
reading each request.

gunicorn's own ``timeout`` (the worker's heartbeat), ``keepalive`` (an idle connection
between requests) and ``graceful_timeout`` (a restart) bound no client that is slow to *send*
under uvicorn's worker: a connection that sends nothing, or trickles its headers or body a
byte at a time, is kept open as long as the client likes. nginx in front ends those itself
(docs/nginx.conf); without it, this worker closes a connection whose request is not wholly
received :data:`REQUEST_READ_SECONDS` after the connection opened, or after the request's
first bytes arrived on a kept-alive connection. The time the app then takes to answer is not
counted.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn_worker import UvicornWorker

REQUEST_READ_SECONDS = 30
"""Seconds a client has to send a whole request (headers and body). More than the 20 s
tests/webapp/test_slow_clients.py trickles a body for, far less than a slow client would
hold a socket for without it."""

logger = logging.getLogger("uvicorn.error")


class ReadDeadlineProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol (h11), closing a connection that is too slow to send a
    request (:data:`REQUEST_READ_SECONDS`)."""

    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.transport.is_closing() or self.conn.their_state is h11.DONE:
            self._disarm()  # received whole: the app's time is not counted
        elif self._deadline is None:
            self._arm()  # the first bytes of the next request on a kept-alive connection

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._deadline = self.loop.call_later(REQUEST_READ_SECONDS, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self.transport.is_closing() or self.conn.their_state is h11.DONE:
            return
        client = f"{self.client[0]}:{self.client[1]}" if self.client else "a client"
        logger.info("closed %s: no whole request within %d s", client, REQUEST_READ_SECONDS)
        self.transport.close()


class Worker(UvicornWorker):  # type: ignore[misc]  # uvicorn-worker ships no types
    """uvicorn's gunicorn worker with :class:`ReadDeadlineProtocol`."""

    CONFIG_KWARGS: dict[str, Any] = {**UvicornWorker.CONFIG_KWARGS, "http": ReadDeadlineProtocol}
