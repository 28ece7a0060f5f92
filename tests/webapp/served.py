"""Helpers of the tests of how the app is served: the real gunicorn, as `make serve` starts
it (the repository's gunicorn.conf.py), on a free loopback port; and code run on a thread of
its own, where no event loop of the test process is in the way."""

from __future__ import annotations

import contextlib
import http.client
import os
import shutil
import signal
import socket
import ssl
import subprocess
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUNICORN = ROOT / ".venv" / "bin" / "gunicorn"

real_server_marks = [
    pytest.mark.skipif(not GUNICORN.exists(), reason="gunicorn is not installed in .venv"),
    pytest.mark.skipif(
        os.environ.get("DATABASE_URL", "").startswith("postgres"),
        reason="the worker model does not depend on the database",
    ),
    pytest.mark.xdist_group("real-server"),
]


def real_server(test):
    """Marks a test that starts the real gunicorn (see ``real_server_marks``)."""
    for mark in real_server_marks:
        test = mark(test)
    return test


T = TypeVar("T")


def in_own_thread(run: Callable[[], T], timeout: float = 30) -> T:
    """``run()`` on a new thread: its result, or its exception raised here.

    After a Playwright test a pytest worker's main thread still has a running event
    loop, so an event loop of a test must run on a thread of its own.
    """
    outcome: dict[str, object] = {}

    def target() -> None:
        try:
            outcome["result"] = run()
        except BaseException as exc:  # raised again in the caller's thread
            outcome["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(timeout=timeout)
    assert not thread.is_alive(), f"did not finish within {timeout} s"
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["result"]  # type: ignore[return-value]


@dataclass(frozen=True)
class Running:
    base: str  # http://127.0.0.1:<port>
    port: int
    process: subprocess.Popen


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(tmp_path: Path, *arguments: str, **environment: str) -> Iterator[Running]:
    """gunicorn with extra command-line ``arguments`` and ``environment`` variables, answering
    ``/healthz``; stopped on exit whatever happens."""
    port = free_port()
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env = {
        **clean,
        "DJANGO_SECRET_KEY": "served-test",
        "DJANGO_STATIC_MANIFEST": "false",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",  # these routes never query it
        **environment,
    }
    log_path = tmp_path / "gunicorn.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [str(GUNICORN), "--bind", f"127.0.0.1:{port}", *arguments],
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
                assert process.poll() is None, log_path.read_text()
                try:
                    urllib.request.urlopen(base + "/healthz", timeout=2).read()
                    break
                except OSError:
                    assert time.monotonic() < deadline, "gunicorn did not start within 60 s"
                    time.sleep(0.2)
            yield Running(base, port, process)
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
needs_nginx = pytest.mark.skipif(
    not Path(NGINX).exists(), reason="nginx is not installed (make test installs it)"
)


@dataclass(frozen=True)
class Nginx:
    https_port: int
    context: ssl.SSLContext  # trusts the test's self-signed certificate for gpu.example.com

    def connection(self) -> http.client.HTTPSConnection:
        return http.client.HTTPSConnection(
            "127.0.0.1", self.https_port, context=self.context, timeout=10
        )


@contextlib.contextmanager
def documented_nginx(tmp_path: Path, app_port: int, *more_app_ports: int) -> Iterator[Nginx]:
    """nginx running docs/nginx.conf as it is, only its addresses, ports and certificate paths
    replaced, in front of the app on ``app_port`` (and on ``more_app_ports``: one upstream over
    several app hosts); answering ``/healthz``; stopped on exit."""
    https_port, http_port = free_port(), free_port()
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=gpu.example.com",
            "-keyout",
            str(tmp_path / "key.pem"),
            "-out",
            str(tmp_path / "cert.pem"),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    site = (ROOT / "docs" / "nginx.conf").read_text()
    for documented, here in (
        (
            "server 127.0.0.1:8000 max_fails=3 fail_timeout=10s;",
            " ".join(
                f"server 127.0.0.1:{port} max_fails=3 fail_timeout=10s;"
                for port in (app_port, *more_app_ports)
            ),
        ),
        ("listen 80;", f"listen 127.0.0.1:{http_port};"),
        ("listen [::]:80;", ""),
        ("listen 443 ssl http2;", f"listen 127.0.0.1:{https_port} ssl http2;"),
        ("listen [::]:443 ssl http2;", ""),
        ("/etc/letsencrypt/live/gpu.example.com/fullchain.pem", str(tmp_path / "cert.pem")),
        ("/etc/letsencrypt/live/gpu.example.com/privkey.pem", str(tmp_path / "key.pem")),
    ):
        assert documented in site, documented
        site = site.replace(documented, here)
    (tmp_path / "site.conf").write_text(site)
    (tmp_path / "nginx.conf").write_text(
        f"daemon off; pid {tmp_path}/nginx.pid; error_log {tmp_path}/error.log;\n"
        "events {}\n"
        f"http {{ access_log off; client_body_temp_path {tmp_path}/body;"
        f" proxy_temp_path {tmp_path}/proxy; include {tmp_path}/site.conf; }}\n"
    )
    nginx = subprocess.Popen(
        [NGINX, "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")],
        stderr=subprocess.PIPE,
    )
    try:
        context = ssl.create_default_context(cafile=str(tmp_path / "cert.pem"))
        context.check_hostname = False
        front = Nginx(https_port, context)
        deadline = time.monotonic() + 20
        while True:
            try:
                connection = front.connection()
                connection.request("GET", "/healthz", headers={"Host": "gpu.example.com"})
                connection.getresponse().read()
                connection.close()
                break
            except OSError:
                assert nginx.poll() is None, nginx.stderr.read()  # type: ignore[union-attr]
                assert time.monotonic() < deadline, "nginx did not start"
                time.sleep(0.2)
        yield front
    finally:
        nginx.terminate()
        nginx.wait(timeout=10)
