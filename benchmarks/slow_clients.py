"""How long gunicorn, reached without nginx, keeps a slow client's connection open.

Starts gunicorn from the repository root (so with gunicorn.conf.py, as `make serve` does),
with any extra command-line arguments given after ``--`` (another worker class, say), and
opens three connections that never finish a request:

- **silent**: connects and sends nothing;
- **trickled head**: a request line and headers, one byte a second, never ending;
- **trickled body**: whole headers announcing a 100 000-byte body, then one byte a second.

Each is watched for ``--seconds``: the time the server took to close it (or answer it), or
"open". Meanwhile ``/healthz`` is asked every two seconds; its slowest answer and its failures
are printed, so a configuration that sheds clients by stalling the server shows as such.

    .venv/bin/python benchmarks/slow_clients.py                       # gunicorn.conf.py as is
    .venv/bin/python benchmarks/slow_clients.py -- --worker-class gthread --threads 4 \\
        webapp.wsgi:application                                      # another worker

docs/production.md ("Without nginx") gives what it measured for each worker gunicorn and
uvicorn ship.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.webapp.served import serve  # noqa: E402  (gunicorn started as the tests start it)

HEAD = (
    b"POST /api/v1/compare HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Content-Length: 100000\r\n\r\n"
)
CLIENTS = {
    "silent": (b"", b""),
    "trickled head": (b"", b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X" * 1000),
    "trickled body": (HEAD, b" " * 1000),
}


def watch(port: int, first: bytes, trickle: bytes, seconds: float) -> str:
    """Send ``first`` at once, then ``trickle`` a byte a second: when the server closed the
    connection (or answered), or "open" after ``seconds``."""
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.settimeout(1)
        sock.sendall(first)
        sent = 0
        while time.monotonic() - start < seconds:
            try:
                if sent < len(trickle):
                    sock.sendall(trickle[sent : sent + 1])
                    sent += 1
                answer = sock.recv(1024)
            except TimeoutError:
                continue
            except OSError:
                return f"reset after {time.monotonic() - start:.1f} s"
            took = time.monotonic() - start
            if answer:
                status = answer.split(b"\r\n", 1)[0].decode(errors="replace")
                return f"answered {status!r} after {took:.1f} s"
            return f"closed after {took:.1f} s"
    return f"open after {seconds:.0f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=75, help="how long to watch [s]")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("gunicorn_args", nargs="*", help="after --: more gunicorn arguments")
    options = parser.parse_args()

    arguments = ["--workers", str(options.workers), *options.gunicorn_args]
    with (
        tempfile.TemporaryDirectory(prefix="slow-clients.") as scratch,
        serve(Path(scratch), *arguments) as running,
    ):
        port, base = running.port, running.base
        outcome: dict[str, str] = {}
        watchers = [
            threading.Thread(
                target=lambda n=name, c=client: outcome.__setitem__(
                    n, watch(port, c[0], c[1], options.seconds)
                )
            )
            for name, client in CLIENTS.items()
        ]
        for thread in watchers:
            thread.start()
        health: list[float] = []
        failures = 0
        while any(thread.is_alive() for thread in watchers):
            start = time.monotonic()
            try:
                urllib.request.urlopen(base + "/healthz", timeout=5).read()
                health.append(time.monotonic() - start)
            except OSError:
                failures += 1
            time.sleep(2)
        for thread in watchers:
            thread.join()
        print(
            json.dumps(
                {
                    "gunicorn": " ".join(["gunicorn", *arguments]),
                    **outcome,
                    "/healthz slowest [s]": round(max(health), 2) if health else None,
                    "/healthz failed": failures,
                },
                indent=2,
            )
        )


if __name__ == "__main__":
    main()
