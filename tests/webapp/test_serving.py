"""New connections are shared between gunicorn's workers (webapp/serving.py).

The listener's policy is tested on real sockets with asyncio loops in this
process (an idle worker accepts at once, a busy one waits in proportion, the
less busy of two takes the connections, errors as asyncio's server treats
them), then the whole worker in the real gunicorn: eight keep-alive clients
connecting at once are spread over its four workers. The stock asyncio server
leaves workers without any (a burst lands on whichever worker wakes first:
8/0/0/0, 7/1, 5/3, 4/4, ...).
"""

from __future__ import annotations

import asyncio
import errno
import gc
import http.client
import os
import socket
import threading
import time
from collections import Counter
from pathlib import Path

from tests.webapp.served import ROOT, in_own_thread, real_server, serve
from webapp import serving


class Recorder(asyncio.Protocol):
    """Records when each connection was handed to a protocol."""

    def __init__(self, made: list[float]) -> None:
        self.made = made

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.made.append(time.monotonic())


def listening_socket() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    return sock


class LoopThread:
    """A :class:`serving.BalancedEventLoop` running in a thread of its own (so that no loop of
    the test process is in the way), holding ``held`` connections, serving ``sock`` with a
    protocol that records every connection it is handed."""

    def __init__(self, sock: socket.socket, held: int) -> None:
        self.made: list[float] = []
        self.loop = serving.BalancedEventLoop(held=lambda: held)
        self.listener: serving.BalancedListener | None = None
        self.error: BaseException | None = None
        ready = threading.Event()

        def run() -> None:
            try:
                asyncio.set_event_loop(self.loop)
                self.listener = self.loop.run_until_complete(
                    self.loop.create_server(
                        lambda: Recorder(self.made), sock=sock, start_serving=True
                    )
                )
            except BaseException as exc:  # reported by the test's thread
                self.error = exc
                return
            finally:
                ready.set()
            self.loop.run_forever()
            self.loop.run_until_complete(self.listener.wait_closed())
            self.loop.close()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        assert ready.wait(timeout=10), "the loop did not start within 10 s"
        assert self.error is None, self.error

    def close_listener(self) -> None:
        assert self.listener is not None
        self.loop.call_soon_threadsafe(self.listener.close)

    def stop(self) -> None:
        self.close_listener()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        assert not self.thread.is_alive()


def connect_and_wait(port: int, served: list[LoopThread], count: int) -> list[socket.socket]:
    """Open ``count`` connections one after the other, each once the last was accepted."""
    clients = []
    for n in range(1, count + 1):
        clients.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        deadline = time.monotonic() + 5
        while sum(len(s.made) for s in served) < n:
            assert time.monotonic() < deadline, "a connection was not accepted within 5 s"
            time.sleep(0.001)
    return clients


def test_an_idle_worker_accepts_at_once_a_busy_one_after_a_pause_per_connection():
    with listening_socket() as sock:
        port = sock.getsockname()[1]
        for held, least in (
            (0, 0.0),
            (3, 3 * serving.ACCEPT_STAGGER),
            (50, serving.STAGGER_CONNECTIONS * serving.ACCEPT_STAGGER),
        ):
            served = LoopThread(sock, held)
            try:
                connected = time.monotonic()
                clients = connect_and_wait(port, [served], 1)
                waited = served.made[0] - connected
                assert waited >= least, (held, waited)
                # The pause is capped: no connection waits long for a busy worker.
                assert waited < least + 1.0, (held, waited)
                for client in clients:
                    client.close()
            finally:
                served.stop()


def test_of_two_workers_on_one_socket_the_less_busy_takes_the_connections(monkeypatch):
    # A long pause for the busy one: the idle one wins even on a machine slow to
    # schedule its thread (the policy, not the 2 ms, is what is tested here).
    monkeypatch.setattr(serving, "ACCEPT_STAGGER", 0.05)
    with listening_socket() as sock:
        idle, busy = LoopThread(sock, 0), LoopThread(sock, serving.STAGGER_CONNECTIONS)
        try:
            clients = connect_and_wait(sock.getsockname()[1], [idle, busy], 10)
            assert (len(idle.made), len(busy.made)) == (10, 0)
            for client in clients:
                client.close()
        finally:
            idle.stop()
            busy.stop()


def test_a_closed_listener_accepts_nothing_more():
    with listening_socket() as sock:
        served = LoopThread(sock, 0)
        try:
            connect_and_wait(sock.getsockname()[1], [served], 1)[0].close()
            served.close_listener()
            time.sleep(0.05)
            with socket.create_connection(sock.getsockname(), timeout=5):
                time.sleep(0.2)  # the kernel completes the handshake; nobody accepts it
            assert len(served.made) == 1
        finally:
            served.stop()


class FailsFirst:
    """A listening socket whose first ``accept()`` fails with OSError ``code`` (EMFILE: the
    process has no file descriptor left; EPROTO: an error no back-off helps); later ones
    accept."""

    def __init__(self, sock: socket.socket, code: int) -> None:
        self.sock = sock
        self.code = code
        self.failed = False

    def fileno(self) -> int:
        return self.sock.fileno()

    def setblocking(self, flag: bool) -> None:
        self.sock.setblocking(flag)

    def accept(self):
        if not self.failed:
            self.failed = True
            raise OSError(self.code, os.strerror(self.code))
        return self.sock.accept()


def test_out_of_file_descriptors_it_logs_and_accepts_again_later(monkeypatch, caplog):
    monkeypatch.setattr(serving, "OUT_OF_RESOURCES_RETRY", 0.05)
    with listening_socket() as sock:
        failing = FailsFirst(sock, errno.EMFILE)
        served = LoopThread(failing, 0)  # type: ignore[arg-type]
        try:
            connected = time.monotonic()
            connect_and_wait(sock.getsockname()[1], [served], 1)[0].close()
            assert failing.failed
            assert served.made[0] - connected >= 0.05
            assert "Too many open files" in caplog.text
        finally:
            served.stop()


def test_after_an_unexpected_error_it_still_accepts():
    """asyncio's server logs such an error and goes on accepting; so does the listener."""
    with listening_socket() as sock:
        failing = FailsFirst(sock, errno.EPROTO)
        served = LoopThread(failing, 0)  # type: ignore[arg-type]
        served.loop.set_exception_handler(lambda loop, context: None)  # the error is expected
        try:
            port = sock.getsockname()[1]
            first = socket.create_connection(("127.0.0.1", port), timeout=5)
            time.sleep(0.1)
            assert failing.failed
            # The first connection is still waiting; the next readiness accepts it.
            deadline = time.monotonic() + 5
            while not served.made:
                assert time.monotonic() < deadline, "nothing was accepted after the error"
                time.sleep(0.005)
            first.close()
        finally:
            served.stop()


def test_a_server_on_a_host_and_port_is_asyncios_own():
    def run() -> object:
        loop = serving.BalancedEventLoop(held=lambda: 0)
        try:
            server = loop.run_until_complete(
                loop.create_server(asyncio.Protocol, "127.0.0.1", 0, start_serving=False)
            )
            server.close()
            loop.run_until_complete(server.wait_closed())
            return server
        finally:
            loop.close()

    assert isinstance(in_own_thread(run), asyncio.Server)


# --- the real gunicorn -------------------------------------------------------------------

WORKERS = 4
CLIENTS = 8
TRIALS = 5


def workers_of(master: int) -> list[int]:
    """Process ids of the gunicorn master's workers."""
    children = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == master:
                children.append(int(entry))
    return children


def socket_inodes(pid: int) -> set[str]:
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:[") : -1])
    return inodes


def server_side_inode(server_port: int, client_port: int) -> str:
    """The inode of the server's end of the loopback connection from ``client_port``."""
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote, inode = fields[1], fields[2], fields[9]
        if int(local.split(":")[1], 16) == server_port and int(remote.split(":")[1], 16) == (
            client_port
        ):
            return inode
    raise AssertionError(f"no server end for the client port {client_port}")


def spread(running, clients: int) -> Counter:
    """Connections per worker after ``clients`` keep-alive clients connect at once and each
    gets one ``/healthz`` answer."""
    start = threading.Barrier(clients)
    connections: list[http.client.HTTPConnection] = [
        http.client.HTTPConnection("127.0.0.1", running.port, timeout=10) for _ in range(clients)
    ]
    errors: list[BaseException] = []

    def client(connection: http.client.HTTPConnection) -> None:
        try:
            start.wait(timeout=10)
            connection.request("GET", "/healthz")
            response = connection.getresponse()
            assert response.status == 200
            response.read()
        except BaseException as exc:  # reported below, in the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=client, args=(c,)) for c in connections]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    assert not errors, errors
    try:
        holder = {
            inode: pid for pid in workers_of(running.process.pid) for inode in socket_inodes(pid)
        }
        return Counter(
            holder[server_side_inode(running.port, c.sock.getsockname()[1])] for c in connections
        )
    finally:
        for c in connections:
            c.close()


@real_server
def test_eight_keep_alive_clients_spread_over_the_four_workers(tmp_path):
    spreads = []
    with serve(tmp_path, "--workers", str(WORKERS)) as running:
        # gunicorn answers as soon as one worker is up: wait until every worker has
        # booted (each holds a connection of some burst), or 60 s have passed.
        booted: set[int] = set()
        deadline = time.monotonic() + 60
        while len(booted) < WORKERS and time.monotonic() < deadline:
            booted |= set(spread(running, CLIENTS))
            time.sleep(0.2)
        assert len(booted) == WORKERS, f"only {len(booted)} workers answered within 60 s"
        for _ in range(TRIALS):
            per_worker = spread(running, CLIENTS)
            assert sum(per_worker.values()) == CLIENTS
            spreads.append(sorted(per_worker.values(), reverse=True))
            time.sleep(0.2)  # the workers see the closed connections go
    # Evenly is 2 each. A worker the machine does not schedule during the burst
    # loses its share to the others (with a CPU hog beside the test: 4/2/1/1, and
    # 3/3/2 in 2 of 50 bursts); the stock server used all four workers in 1 of 10
    # bursts (8/0/0/0, 7/1, 6/1/1, 4/4, 4/3/1, ...).
    assert all(s[0] <= CLIENTS // 2 for s in spreads), spreads
    assert sum(len(s) == WORKERS for s in spreads) >= TRIALS - 1, spreads


def test_each_worker_freezes_what_it_loaded_once_it_is_ready():
    """gunicorn reads the hook from gunicorn.conf.py (it calls ``post_worker_init`` in each
    worker once the site is loaded), and the hook freezes the objects there are."""
    from gunicorn.app.base import Application

    class FromConfigFile(Application):  # type: ignore[misc]
        def load_config(self) -> None:
            self.load_config_from_file(str(ROOT / "gunicorn.conf.py"))

        def load(self) -> None:
            raise AssertionError("not served")

    config = FromConfigFile().cfg
    before = gc.get_freeze_count()
    try:
        config.post_worker_init(None)
        assert gc.get_freeze_count() > before
    finally:
        gc.unfreeze()
