"""The ASGI entry point reuses request threads and runs Django's synchronous middleware
chain in them (webapp/asgi.py).

Requests are sent straight to a fresh handler as ASGI calls, each batch on an
event loop in a thread of its own (so that no loop of the test process is in
the way). What each request's synchronous code ran on is read from a
``request_started`` receiver, which Django runs in the request's thread.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import AsyncToSync
from django.core.signals import request_started
from django.db.backends.signals import connection_created

from tests.webapp.served import in_own_thread
from webapp import asgi


def scope(path: str) -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver")],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }


async def request(app: asgi.ASGIHandlerReusingThreads, path: str, fail: bool = False) -> int:
    """One GET through ``app``: its status (the receive channel raises when ``fail``)."""
    messages: list[dict[str, Any]] = []
    received = False

    async def receive() -> dict[str, Any]:
        nonlocal received
        if fail:
            raise ConnectionResetError("the client's connection broke")
        if not received:
            received = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Future()  # no disconnect: Django stops listening once it has answered
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        messages.append(message)

    await app(scope(path), receive, send)
    return next(m["status"] for m in messages if m["type"] == "http.response.start")


def run_batch(batch: Callable[[], Any]) -> Any:
    """``asyncio.run(batch())`` on a thread of its own: its result, or its exception."""
    return in_own_thread(lambda: asyncio.run(batch()))


@pytest.fixture
def threads_used():
    """Thread idents the requests' synchronous code ran on, in order; ``hold`` (if set) is
    called by each request's thread before it goes on."""
    used: list[int] = []
    hooks: dict[str, Callable[[], None]] = {}

    def record(sender: Any, **kwargs: Any) -> None:
        used.append(threading.get_ident())
        if "hold" in hooks:
            hooks["hold"]()

    request_started.connect(record, dispatch_uid="test_asgi")
    try:
        yield used, hooks
    finally:
        request_started.disconnect(dispatch_uid="test_asgi")


def test_requests_one_after_another_run_on_the_same_thread(threads_used):
    used, _ = threads_used
    app = asgi.ASGIHandlerReusingThreads()

    async def batch() -> list[int]:
        return [await request(app, "/healthz") for _ in range(5)]

    assert run_batch(batch) == [200] * 5
    assert len(used) == 5 and len(set(used)) == 1, used


def test_requests_in_progress_together_each_have_a_thread_of_their_own(threads_used):
    """The first request's thread waits until the second has started: were they given one
    thread, the second would queue behind the first and the wait would time out."""
    used, hooks = threads_used
    second_started = threading.Event()
    waited: list[bool] = []

    def hold() -> None:
        if len(used) == 1:
            waited.append(second_started.wait(timeout=5))
        else:
            second_started.set()

    hooks["hold"] = hold
    app = asgi.ASGIHandlerReusingThreads()

    async def batch() -> list[int]:
        return list(await asyncio.gather(request(app, "/healthz"), request(app, "/healthz")))

    assert run_batch(batch) == [200, 200]
    assert waited == [True]
    assert len(set(used)) == 2


def test_a_worker_keeps_at_most_idle_threads_after_a_burst_and_reuses_them(threads_used):
    used, hooks = threads_used
    burst = asgi.IDLE_THREADS + 2
    together = threading.Barrier(burst)
    hooks["hold"] = lambda: together.wait(timeout=10)  # all in progress at once
    app = asgi.ASGIHandlerReusingThreads()

    async def in_burst() -> list[int]:
        return list(await asyncio.gather(*(request(app, "/healthz") for _ in range(burst))))

    assert run_batch(in_burst) == [200] * burst
    burst_threads = set(used)
    assert len(burst_threads) == burst
    assert len(app._idle) == asgi.IDLE_THREADS

    del hooks["hold"]
    used.clear()

    async def one() -> int:
        return await request(app, "/healthz")

    assert run_batch(one) == 200
    assert used[0] in burst_threads  # a kept thread, not a new one


def test_a_request_that_fails_does_not_give_its_thread_back():
    app = asgi.ASGIHandlerReusingThreads()

    async def ok() -> int:
        return await request(app, "/healthz")

    async def broken() -> int:
        return await request(app, "/healthz", fail=True)

    assert run_batch(ok) == 200
    kept = list(app._idle)
    assert len(kept) == 1
    with pytest.raises(ConnectionResetError):
        run_batch(broken)
    assert app._idle == []  # the failed request took the kept thread and let it go
    assert kept[0]._shutdown


@pytest.mark.django_db(transaction=True)
def test_a_reused_thread_keeps_its_database_connection(settings):
    """Django keeps database connections per thread: a new thread per request opened one
    per request."""
    assert settings.DATABASES["default"]["CONN_MAX_AGE"] > 0
    opened: list[int] = []

    def count(sender: Any, **kwargs: Any) -> None:
        opened.append(threading.get_ident())

    connection_created.connect(count, dispatch_uid="test_asgi_connections")
    try:
        app = asgi.ASGIHandlerReusingThreads()

        async def batch() -> list[int]:
            return [await request(app, "/api/v1/catalog/tariffs") for _ in range(3)]

        assert run_batch(batch) == [200] * 3
    finally:
        connection_created.disconnect(dispatch_uid="test_asgi_connections")
    assert len(opened) == 1, opened


class RecordingMiddleware:
    """Synchronous-only middleware, put last: the handler it was given, the threads it ran on."""

    given: list[Any] = []
    threads: list[int] = []

    def __init__(self, get_response: Callable[[Any], Any]) -> None:
        self.get_response = get_response
        RecordingMiddleware.given.append(get_response)

    def __call__(self, request: Any) -> Any:
        RecordingMiddleware.threads.append(threading.get_ident())
        return self.get_response(request)


def test_the_middleware_and_the_view_run_in_one_call_on_the_request_thread(settings, threads_used):
    """Django's ASGI handler gives the last synchronous middleware its inner handler wrapped
    in ``async_to_sync``: the request went back to the event loop between the middleware and
    the view. Here the chain is synchronous throughout, as under WSGI."""
    used, _ = threads_used
    RecordingMiddleware.given.clear()
    RecordingMiddleware.threads.clear()
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, f"{__name__}.RecordingMiddleware"]
    app = asgi.ASGIHandlerReusingThreads()
    assert len(RecordingMiddleware.given) == 1
    assert not isinstance(RecordingMiddleware.given[0], AsyncToSync)
    assert not asyncio.iscoroutinefunction(app._middleware_chain)

    async def batch() -> list[int]:
        return [await request(app, path) for path in ("/healthz", "/healthz", "/no-such-page/")]

    assert run_batch(batch) == [200, 200, 404]
    assert RecordingMiddleware.threads == used and len(set(used)) == 1


def test_only_http_is_served():
    app = asgi.ASGIHandlerReusingThreads()

    async def websocket() -> None:
        await app({"type": "websocket"}, None, None)

    with pytest.raises(ValueError, match="websocket"):
        run_batch(websocket)
