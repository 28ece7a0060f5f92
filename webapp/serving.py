"""gunicorn's ASGI worker, with new connections shared evenly between the workers.

Every worker waits on the one listening socket that gunicorn opened. The
stock worker serves it with asyncio's server, which accepts every connection
waiting when its worker wakes (up to 100 at once). A burst of connections (a
proxy opening its keep-alive pool, a load test starting) therefore mostly
lands on whichever worker woke first, and keep-alive connections stay where
they landed. With 4 workers and 8 keep-alive clients on 2 cores, ten runs of
3 s put the connections 8/0/0/0 twice, 7/1 and 4/4 once each, and served
between 541 and 1 295 ``/healthz`` requests/s depending on the split.

:class:`BalancedASGIWorker` accepts one connection at a time instead, each
after a pause of :data:`ACCEPT_STAGGER` seconds per connection the worker
already holds (counting at most :data:`STAGGER_CONNECTIONS` of them). An idle
worker accepts at once; a busy one leaves the connection to a less busy
worker and takes it itself only if none has. That is a least-connections
balancer without any state shared between the workers. The same ten runs put
the connections 2/2/2/2 nine times and 3/2/2/1 once, at 1 245-1 385
requests/s. A new connection waits at most ``ACCEPT_STAGGER ×
STAGGER_CONNECTIONS`` = 8 ms, and only when every worker already holds
connections (behind a proxy, which keeps its connections open, that is rare).

The listener leaves the socket's queue of waiting connections as gunicorn set it
(``backlog``, 2 048). asyncio's server sets it again to its own default of 100
when it starts serving, so the stock worker quietly shortened it.

Everything else is gunicorn's worker unchanged: request parsing, keep-alive,
the heartbeat, graceful shutdown. One setting is not read: the loop is always
asyncio's selector loop, where gunicorn's ``asgi_loop = "auto"`` would take
uvloop if it were installed (it is not a dependency of this project). The
pause is the only policy here; the accepting itself follows asyncio's own
server (the same errors ignored, the same back-off when the process runs out
of file descriptors).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import socket
import ssl as ssl_module
from collections.abc import Callable
from typing import Any

from gunicorn.workers.gasgi import ASGIWorker

log = logging.getLogger(__name__)

ACCEPT_STAGGER = 0.002
"""Seconds a worker waits before accepting, per connection it already holds [s]."""

STAGGER_CONNECTIONS = 4
"""Connections counted for the pause at most: 4 separate 0, 1, 2, 3 and more."""

OUT_OF_RESOURCES_RETRY = 1.0
"""Seconds before accepting again after EMFILE, ENFILE, ENOBUFS or ENOMEM (as asyncio) [s]."""

_OUT_OF_RESOURCES = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


class BalancedListener:
    """Accepts connections on a listening socket for one worker, one at a time, each after
    a pause that grows with the connections the worker holds (see the module docstring).

    Stands in for the :class:`asyncio.Server` gunicorn's worker creates: it has the
    ``close()`` and ``wait_closed()`` that the worker's shutdown calls.
    """

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        sock: socket.socket,
        protocol_factory: Callable[[], asyncio.Protocol],
        ssl: ssl_module.SSLContext | None,
        held: Callable[[], int],
    ) -> None:
        self._loop = loop
        self._sock = sock
        self._protocol_factory = protocol_factory
        self._ssl = ssl
        self._held = held  # connections the worker holds (gunicorn's worker.nr_conns)
        self._starting = 0  # accepted, not yet handed to a protocol
        self._closed = False
        sock.setblocking(False)
        loop.add_reader(sock, self._readable)

    def _readable(self) -> None:
        """A connection is waiting: accept it now if idle, later the busier this worker is."""
        self._loop.remove_reader(self._sock)
        connections = min(self._held() + self._starting, STAGGER_CONNECTIONS)
        if connections:
            self._loop.call_later(connections * ACCEPT_STAGGER, self._accept)
        else:
            self._accept()

    def _accept(self) -> None:
        if self._closed:
            return
        try:
            conn, _ = self._sock.accept()
        except (BlockingIOError, InterruptedError, ConnectionAbortedError):
            pass  # another worker took it, or the client gave up
        except OSError as exc:
            if exc.errno not in _OUT_OF_RESOURCES:
                self._listen()  # keep accepting, as asyncio's server does,
                raise  # and let the event loop log the error
            log.error(
                "Accepting a connection failed (%s); trying again in %s s",
                exc,
                OUT_OF_RESOURCES_RETRY,
            )
            self._loop.call_later(OUT_OF_RESOURCES_RETRY, self._listen)
            return
        else:
            conn.setblocking(False)
            self._starting += 1
            started = self._loop.create_task(
                self._loop.connect_accepted_socket(self._protocol_factory, conn, ssl=self._ssl)
            )
            started.add_done_callback(lambda task: self._started(task, conn))
        self._listen()

    def _listen(self) -> None:
        if not self._closed:
            self._loop.add_reader(self._sock, self._readable)

    def _started(self, task: asyncio.Task, conn: socket.socket) -> None:
        self._starting -= 1
        if not task.cancelled() and task.exception() is not None:
            log.error("Starting a connection failed: %r", task.exception())
            conn.close()

    def close(self) -> None:
        """Stop accepting (the socket itself is gunicorn's, closed by its worker)."""
        if not self._closed:
            self._closed = True
            self._loop.remove_reader(self._sock)

    async def wait_closed(self) -> None:
        """Nothing to wait for: the worker waits for its open connections itself."""


class BalancedEventLoop(asyncio.SelectorEventLoop):
    """asyncio's loop, whose servers on an existing socket are :class:`BalancedListener`s."""

    def __init__(self, held: Callable[[], int]) -> None:
        super().__init__()
        self._held = held

    async def create_server(  # type: ignore[override]
        self,
        protocol_factory: Callable[[], asyncio.Protocol],
        host: Any = None,
        port: Any = None,
        *,
        sock: socket.socket | None = None,
        ssl: ssl_module.SSLContext | None = None,
        **kwargs: Any,
    ) -> Any:
        if (
            sock is None
            or host is not None
            or port is not None
            or not kwargs.get("start_serving", True)
        ):
            return await super().create_server(
                protocol_factory, host, port, sock=sock, ssl=ssl, **kwargs
            )
        return BalancedListener(self, sock, protocol_factory, ssl, self._held)


class BalancedASGIWorker(ASGIWorker):  # type: ignore[misc]  # gunicorn has no type hints
    """gunicorn's asyncio (ASGI) worker on a :class:`BalancedEventLoop`."""

    def _setup_event_loop(self) -> None:
        self.loop = BalancedEventLoop(held=lambda: self.nr_conns)
        asyncio.set_event_loop(self.loop)
