"""ASGI entry point: what gunicorn serves (``make serve``, see gunicorn.conf.py).

Served by gunicorn's asyncio worker, a request's body is read by the event
loop before Django sees the request, so a client that sends its body slowly
holds a socket, not a worker. The middleware and the views stay synchronous
and run, one request after another, on threads the worker keeps.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core.asgi import get_asgi_application
from django.core.handlers.asgi import ASGIHandler
from django.http import FileResponse, HttpRequest, HttpResponseBase

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")

IDLE_THREADS = 4
"""Request threads a worker keeps for later requests once they are done (more are let go)."""


class ASGIHandlerReusingThreads(ASGIHandler):
    """Django's ASGI handler, whose request threads serve one request after another
    and run the middleware and the view in one go.

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

    The middleware chain is Django's synchronous one, as under WSGI, called
    once in the request's thread. Django's ASGI handler builds an asynchronous
    chain instead. Our own middleware is synchronous only, so Django runs the
    middleware above it synchronously too, and that chain went from the event
    loop to the thread for the middleware, back to the loop for Django's
    inner handler and to the thread again for the view, and back the same
    way: each crossing wakes the other side and waits for it. One call per
    request took ``/healthz`` from 1.5 to 1.0 ms of CPU, and every page and
    API call about 0.4 ms less (docs/production.md, "Worker model").
    """

    def __init__(self) -> None:
        # Not ASGIHandler.__init__: it builds the asynchronous chain, which this
        # handler never calls. Only the synchronous chain is built.
        self.load_middleware(is_async=False)
        self._idle: list[ThreadPoolExecutor] = []

    async def run_get_response(self, request: HttpRequest) -> HttpResponseBase:
        """The response of Django's synchronous ``get_response``, run in the request's thread.

        What follows the call is what ``ASGIHandler.run_get_response`` does with the response.
        """
        response = await sync_to_async(self.get_response, thread_sensitive=True)(request)
        response._handler_class = self.__class__  # type: ignore[attr-defined]  # as Django does
        if isinstance(response, FileResponse):  # the server chunks the file itself
            response.block_size = self.chunk_size
        return response

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
