"""ASGI entry point: what gunicorn serves (``make serve``, see gunicorn.conf.py).

Served by gunicorn's asyncio worker, a request's body is read by the event
loop before Django sees the request, so a client that sends its body slowly
holds a socket, not a worker. The views stay synchronous.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import ThreadSensitiveContext
from django.core.asgi import get_asgi_application
from django.core.handlers.asgi import ASGIHandler

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")

IDLE_THREADS = 4
"""Request threads a worker keeps for later requests once they are done (more are let go)."""


class ASGIHandlerReusingThreads(ASGIHandler):
    """Django's ASGI handler, whose request threads serve one request after another.

    Django runs each request's synchronous code (middleware, view, signals) in
    a thread of its own, so that a view waiting for a database lock holds up
    no other request of its worker. It starts that thread for the request and
    stops it afterwards. This handler keeps the same rule (one thread per
    request in progress) but takes the thread from the ones earlier requests
    finished with, keeping up to :data:`IDLE_THREADS` of them.

    Starting a thread per request cost more than the thread: numpy's first
    calls in a new thread are slow (a one-scenario projection took 0.47 ms in
    a new thread against 0.30 ms in one that had run it before), and Django
    keeps database connections per thread, so every request that queried the
    database opened a connection of its own. A reused thread keeps its
    connection like a thread of gunicorn's sync or threaded workers does,
    closed by Django after ``CONN_MAX_AGE``.

    The thread is reused only when the request ended normally: Django then
    has run its last step (closing the response, or the ``request_finished``
    signal after a client went away) on that thread, behind anything the view
    was still doing, so the thread is idle. After an error it is let go.
    """

    def __init__(self) -> None:
        super().__init__()
        self._idle: list[ThreadPoolExecutor] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        thread = self._idle.pop() if self._idle else ThreadPoolExecutor(1, "request")
        try:
            async with ThreadSensitiveContext(executor=thread):
                await self.handle(scope, receive, send)
        except BaseException:
            thread.shutdown(wait=False)
            raise
        if len(self._idle) < IDLE_THREADS:
            self._idle.append(thread)
        else:
            thread.shutdown(wait=False)


get_asgi_application()  # django.setup(), as Django's own entry point does
application = ASGIHandlerReusingThreads()
