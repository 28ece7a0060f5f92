"""Slow clients cannot stall the server: the real gunicorn, as `make serve` starts it.

Twenty connections announce a 1 000-byte body and trickle it one byte a
second for 20 s; meanwhile ``/healthz`` and ``POST /api/v1/compare`` must keep
answering promptly. Everything stays on the loopback interface, every loop is
bounded in count and time, and the server is stopped whatever happens.
"""

import json
import socket
import statistics
import threading
import time
import urllib.request

import pytest

from tests.webapp.conftest import EXAMPLE
from tests.webapp.served import real_server_marks, serve

SLOW_CLIENTS = 20
TRICKLE_SECONDS = 20
ANNOUNCED_BYTES = 1000

pytestmark = real_server_marks


@pytest.fixture
def server(tmp_path):
    """gunicorn with the repository's gunicorn.conf.py (its default worker count)."""
    with serve(tmp_path) as running:
        yield running.base, running.port


def trickle(port: int, outcome: list, index: int) -> None:
    """One slow client: announce a body, then send one byte a second until time is up."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        sock.sendall(
            b"POST /api/v1/compare HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\n"
            + f"Content-Length: {ANNOUNCED_BYTES}\r\n\r\n".encode()
        )
        sent = 0
        end = time.monotonic() + TRICKLE_SECONDS
        while time.monotonic() < end and sent < TRICKLE_SECONDS:
            sock.sendall(b" ")
            sent += 1
            time.sleep(1)
        outcome[index] = sent
    except OSError as exc:
        outcome[index] = f"{type(exc).__name__}: {exc}"
    finally:
        sock.close()


def timed(request: urllib.request.Request | str) -> tuple[int, float, bytes]:
    """Status, seconds to the last byte, and body of one request on a fresh connection."""
    start = time.monotonic()
    with urllib.request.urlopen(request, timeout=10) as response:
        body = response.read()
        return response.status, time.monotonic() - start, body


def test_twenty_clients_trickling_bodies_do_not_stall_health_or_compare(server):
    base, port = server
    body = EXAMPLE.read_bytes()
    compare = urllib.request.Request(
        base + "/api/v1/compare", data=body, headers={"Content-Type": "application/json"}
    )
    expected = json.loads(urllib.request.urlopen(compare, timeout=10).read())

    outcome: list = [None] * SLOW_CLIENTS
    slow = [
        threading.Thread(target=trickle, args=(port, outcome, i), daemon=True)
        for i in range(SLOW_CLIENTS)
    ]
    for thread in slow:
        thread.start()
    time.sleep(2)  # every slow client is connected and has started its body

    latencies: dict[str, list[float]] = {"healthz": [], "compare": []}
    end = time.monotonic() + TRICKLE_SECONDS - 4
    while time.monotonic() < end:
        status, seconds, _ = timed(base + "/healthz")
        assert status == 200
        latencies["healthz"].append(seconds)
        status, seconds, answer = timed(compare)
        assert status == 200 and json.loads(answer) == expected
        latencies["compare"].append(seconds)
        time.sleep(0.05)
    for thread in slow:
        thread.join(timeout=TRICKLE_SECONDS + 15)

    # The slow clients were served the whole time: every byte accepted, no reset.
    assert outcome == [TRICKLE_SECONDS] * SLOW_CLIENTS, outcome
    for route, values in latencies.items():
        summary = (
            f"{route}: {len(values)} answered while {SLOW_CLIENTS} clients trickled, "
            f"median {statistics.median(values) * 1e3:.1f} ms, max {max(values) * 1e3:.1f} ms"
        )
        print(summary)
        assert len(values) >= 20, summary
        assert max(values) < 2.0, summary
