"""What one request may cost a worker in memory, measured on the real gunicorn (as `make serve`
starts it): the security probe's body, 16 MB of ``[{},{},…]`` (5.6 million items, no keys),
sent to every JSON route, one at a time and four at once, may not raise a worker's peak
resident memory by more than 300 MB. Linux only: it reads the worker's /proc entry."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import pytest

from tests.webapp.served import real_server, serve

LIMIT = 16 * 1024 * 1024  # DJANGO_MAX_BODY_BYTES' default
MAX_GROWTH_KB = 300 * 1024
PROBE = b"[" + b"{}," * ((LIMIT - 4) // 3) + b"{}]"  # just under the limit
ROUTES = [
    "/api/v1/compare",
    "/api/v1/compare/batch",
    "/api/v1/uncertainty",
    "/api/v1/resolve",
    "/api/v1/usage",
]

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/clear_refs").exists(), reason="reads a worker's /proc entry (Linux)"
)


def post(port: int, path: str, body: bytes) -> tuple[int, dict]:
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=120) as sock:
        sock.sendall(head + body)
        answer = b""
        while chunk := sock.recv(1 << 16):
            answer += chunk
    head_part, _, payload = answer.partition(b"\r\n\r\n")
    return int(head_part.split(b" ", 2)[1]), json.loads(payload)


def the_worker(master: int) -> int:
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])


def status_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(field)


@real_server
def test_the_probes_bodies_raise_a_workers_memory_by_less_than_300_mb(tmp_path):
    with serve(tmp_path, "--workers", "1") as app:
        worker = the_worker(app.process.pid)
        for path in ROUTES:  # load whatever each route loads on first use
            post(app.port, path, b"{}")
        Path(f"/proc/{worker}/clear_refs").write_text("5")  # peak := current
        before = status_kb(worker, "VmRSS")

        answers = {path: post(app.port, path, PROBE) for path in ROUTES}
        results: list[tuple[int, dict]] = []
        threads = [
            threading.Thread(target=lambda: results.append(post(app.port, ROUTES[0], PROBE)))
            for _ in range(4)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        growth = status_kb(worker, "VmHWM") - before
        print(f"peak resident memory grew by {growth / 1024:.0f} MB")
        assert the_worker(app.process.pid) == worker  # measured one worker, not its successor

    assert growth < MAX_GROWTH_KB, f"peak grew by {growth / 1024:.0f} MB"
    for path, (status, body) in answers.items():
        assert status in (413, 422), (path, status, body)
        assert body["errors"][0]["field"] == "(body)", (path, body)
    assert sorted(status for status, _ in results) in (
        [413, 413, 413, 413],
        [413, 413, 413, 503],
        [413, 413, 503, 503],
    )
