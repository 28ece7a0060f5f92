"""How the app is served: the real gunicorn as `make serve` starts it (gunicorn.conf.py),
and behind nginx as docs/nginx.conf configures it.

uvicorn's worker answers, each worker freezes what it loaded, and a request
body larger than the limit is refused from its announced length, before a
byte of it is read (webapp/asgi.py), by nginx when it is in front.
"""

from __future__ import annotations

import gc
import json
import socket
import time

import pytest
from django.conf import settings

from tests.webapp.served import ROOT, documented_nginx, needs_nginx, real_server, serve


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One gunicorn for the tests of this file that only send it requests (each start loads
    Django and numpy: seconds of the suite's time)."""
    directory = tmp_path_factory.mktemp("served")
    with serve(directory, "--workers", "1", DJANGO_MAX_BODY_BYTES="100000") as running:
        yield running


def exchange(port: int, head: bytes, body: bytes = b"", wait: float = 10) -> tuple[bytes, float]:
    """Send a request head (and optionally some body), then read until the server closes the
    connection: what came back, and the seconds it took."""
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as sock:
        sock.sendall(head + body)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer, time.monotonic() - start


def status_and_body(answer: bytes) -> tuple[int, bytes]:
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


def compare_head(length: int | str) -> bytes:
    return (
        b"POST /api/v1/compare HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\n" + f"Content-Length: {length}\r\n\r\n".encode()
    )


@real_server
def test_the_answers_come_from_uvicorns_worker(tmp_path):
    with serve(tmp_path, "--workers", "1") as running:
        answer, _ = exchange(
            running.port, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        )
    status, body = status_and_body(answer)
    assert status == 200 and json.loads(body) == {"status": "ok"}
    assert b"\r\nserver: uvicorn\r\n" in answer.lower()


@real_server
@pytest.mark.parametrize("announced", [400 * 1024 * 1024, 10**19])
def test_a_body_announced_larger_than_the_limit_is_refused_at_once_unread(server, announced):
    # Nothing of the body is sent: a server that waited to read it would never answer.
    answer, seconds = exchange(server.port, compare_head(announced))
    status, body = status_and_body(answer)
    assert status == 413
    assert json.loads(body) == {
        "errors": [
            {"field": "(request)", "message": "the body is larger than the limit of 100000 bytes"}
        ]
    }
    assert seconds < 5


@real_server
def test_a_length_of_more_than_twenty_digits_is_refused_at_once_as_malformed(server):
    # uvicorn's HTTP parser (h11) reads no Content-Length longer than 20 digits.
    answer, seconds = exchange(server.port, compare_head(10**20))
    assert status_and_body(answer)[0] == 400
    assert seconds < 5


@real_server
def test_after_refusing_a_body_the_server_closes_the_connection_instead_of_reading_it(server):
    sent = 0
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(compare_head(400 * 1024 * 1024))
        assert sock.recv(65536).startswith(b"HTTP/1.1 413")
        with pytest.raises(OSError):  # reset or broken pipe once the server has closed
            for _ in range(2000):  # 2 000 × 64 KiB = 125 MiB at most
                sock.sendall(b" " * 65536)
                sent += 1
    assert sent < 2000


@real_server
def test_a_chunked_body_is_read_only_up_to_the_limit(server):
    chunk = b" " * 40_000
    head = (
        b"POST /api/v1/compare HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    # Three 40 000-byte chunks go past the 100 000-byte limit; the end is never sent.
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(3))
    answer, seconds = exchange(server.port, head, chunks)
    status, body = status_and_body(answer)
    assert status == 413
    assert json.loads(body)["errors"][0]["field"] == "(request)"
    assert seconds < 5


@real_server
def test_a_body_within_the_limit_is_still_served(server):
    from tests.webapp.conftest import EXAMPLE

    body = EXAMPLE.read_bytes()
    answer, _ = exchange(
        server.port,
        compare_head(len(body)).replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"),
        body,
    )
    status, answer_body = status_and_body(answer)
    assert status == 200 and "break_even_month" in json.loads(answer_body)


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


@real_server
@needs_nginx
def test_the_documented_nginx_config_serves_the_app_and_refuses_big_bodies_itself(tmp_path):
    """docs/nginx.conf as it is, only its addresses, ports and certificate paths replaced."""
    environment = {
        "DJANGO_ALLOWED_HOSTS": "gpu.example.com,127.0.0.1",
        "DJANGO_BEHIND_PROXY": "true",
    }
    with (
        serve(tmp_path, "--workers", "1", **environment) as app,
        documented_nginx(tmp_path, app.port) as front,
    ):
        connection = front.connection()
        connection.request("GET", "/healthz", headers={"Host": "gpu.example.com"})
        health = connection.getresponse()
        assert (health.status, json.loads(health.read())) == (200, {"status": "ok"})

        # the one permalink limit: the longest request line the planner makes passes
        # nginx (to the app's "not found"), one byte more is nginx's 414
        longest = "/" + "x" * (settings.MAX_REQUEST_LINE_BYTES - len("GET / HTTP/1.1"))
        for path, status in ((longest, 404), (longest + "x", 414)):
            line = front.connection()
            line.request("GET", path, headers={"Host": "gpu.example.com"})
            answer = line.getresponse()
            answer.read()
            line.close()
            assert answer.status == status, (len(path), answer.status)

        connection.putrequest("POST", "/api/v1/compare", skip_host=True)
        connection.putheader("Host", "gpu.example.com")
        connection.putheader("Content-Type", "application/json")
        connection.putheader("Content-Length", str(400 * 1024 * 1024))
        connection.endheaders()  # and no body: nginx answers from the header
        refused = connection.getresponse()
        assert refused.status == 413 and b"nginx" in refused.read()


@real_server
def test_a_request_for_a_host_not_allowed_is_one_line_in_the_log(tmp_path):
    with serve(tmp_path, "--workers", "1") as running:
        answer, _ = exchange(
            running.port,
            b"GET /healthz HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n",
        )
        time.sleep(0.5)  # the worker writes its log line after the answer
    assert status_and_body(answer)[0] == 400
    log = (tmp_path / "gunicorn.log").read_text().splitlines()
    mentions = [line for line in log if "evil.example" in line]
    assert mentions == [
        "ERROR django.security.DisallowedHost: Invalid HTTP_HOST header: 'evil.example'. "
        "You may need to add 'evil.example' to ALLOWED_HOSTS."
    ], log
    assert not any("Traceback" in line for line in log), log
