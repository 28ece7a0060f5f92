"""Slow clients cannot stall the server: the real gunicorn, as `make serve` starts it.

Twenty connections announce a 1 000-byte body and trickle it one byte a
second for 20 s; meanwhile ``/healthz`` and ``POST /api/v1/compare`` must keep
answering promptly. Everything stays on the loopback interface, every loop is
bounded in count and time, and the server is stopped whatever happens.
"""

import json
import os
import signal
import socket
import statistics
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUNICORN = ROOT / ".venv" / "bin" / "gunicorn"
EXAMPLE = ROOT / "tests" / "costmodel" / "examples" / "steady-4090-vs-a100.json"

SLOW_CLIENTS = 20
TRICKLE_SECONDS = 20
ANNOUNCED_BYTES = 1000

pytestmark = [
    pytest.mark.skipif(not GUNICORN.exists(), reason="gunicorn is not installed in .venv"),
    pytest.mark.skipif(
        os.environ.get("DATABASE_URL", "").startswith("postgres"),
        reason="the worker model does not depend on the database",
    ),
    pytest.mark.xdist_group("real-server"),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path):
    """gunicorn with the repository's gunicorn.conf.py on a free loopback port."""
    port = free_port()
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env = {
        **clean,
        "DJANGO_SECRET_KEY": "slow-client-test",
        "DJANGO_STATIC_MANIFEST": "false",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",  # these routes never query it
    }
    log = (tmp_path / "gunicorn.log").open("w")
    process = subprocess.Popen(
        [str(GUNICORN), "--bind", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, (tmp_path / "gunicorn.log").read_text()
            try:
                urllib.request.urlopen(base + "/healthz", timeout=2).read()
                break
            except OSError:
                assert time.monotonic() < deadline, "gunicorn did not start within 60 s"
                time.sleep(0.2)
        yield base, port
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        log.close()


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
