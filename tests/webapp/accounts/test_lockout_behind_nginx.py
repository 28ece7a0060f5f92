"""The sign-in lock behind docs/nginx.conf, and straight to gunicorn, served as `make serve`
serves it: the address counted is the one nginx saw, or the connection's, whatever
X-Forwarded-For a guesser sends."""

from __future__ import annotations

import http.client
import os
import shutil
import subprocess
import sys
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

import pytest

from tests.webapp.served import ROOT, documented_nginx, needs_nginx, real_server, serve

HOST = "gpu.example.com"
PASSWORD = "a long enough passphrase"


@pytest.fixture(scope="module")
def migrated_database(tmp_path_factory) -> Path:
    """A database as `serve` uses it, migrated, with one user: made once for this file (a
    migration run is seconds of the suite's time), copied by each test."""
    path = tmp_path_factory.mktemp("lockout") / "db.sqlite3"
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env = {**clean, "DJANGO_SECRET_KEY": "served-test", "DATABASE_URL": f"sqlite:///{path}"}
    code = (
        "from django.core.management import call_command; "
        "call_command('migrate', verbosity=0); "
        "from django.contrib.auth.models import User; "
        f"User.objects.create_user('erin', 'erin@example.com', {PASSWORD!r})"
    )
    subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    return path


def prepare_database(tmp_path, migrated_database: Path) -> None:
    """The database `serve` uses (``tmp_path``/db.sqlite3): a copy of the migrated one."""
    shutil.copyfile(migrated_database, tmp_path / "db.sqlite3")


class Browser:
    """One visitor connecting to nginx from ``address`` (any of 127.0.0.0/8 is this machine)."""

    def __init__(self, front, address: str) -> None:
        self.front, self.address = front, address
        self.csrf = ""

    scheme = "https"

    def connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPSConnection(
            "127.0.0.1",
            self.front.https_port,
            context=self.front.context,
            timeout=20,
            source_address=(self.address, 0),
        )

    def request(self, method: str, body: str = "", **headers: str) -> tuple[int, str]:
        connection = self.connect()
        headers = {"Host": HOST, **headers}
        if self.csrf:
            headers["Cookie"] = f"csrftoken={self.csrf}"
        connection.request(method, "/accounts/login/", body=body, headers=headers)
        answer = connection.getresponse()
        cookie = SimpleCookie(answer.headers.get("Set-Cookie", ""))
        if "csrftoken" in cookie:
            self.csrf = cookie["csrftoken"].value
        status, text = answer.status, answer.read().decode()
        connection.close()
        return status, text

    def sign_in(self, password: str, forwarded_for: str = "") -> int:
        if not self.csrf:
            self.request("GET")
        body = urlencode(
            {"username": "erin", "password": password, "csrfmiddlewaretoken": self.csrf}
        )
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "Referer": f"{self.scheme}://{HOST}/accounts/login/",
            "Accept-Language": "en",
        }
        if forwarded_for:
            headers["X-Forwarded-For"] = forwarded_for
        status, _ = self.request("POST", body, **headers)
        return status


@real_server
@needs_nginx
def test_a_guesser_claiming_other_addresses_stays_locked_and_nobody_else_is(
    tmp_path, migrated_database
):
    prepare_database(tmp_path, migrated_database)
    environment = {"DJANGO_ALLOWED_HOSTS": f"{HOST},127.0.0.1", "DJANGO_BEHIND_PROXY": "true"}
    with (
        serve(tmp_path, "--workers", "1", **environment) as app,
        documented_nginx(tmp_path, app.port) as front,
    ):
        guesser = Browser(front, "127.0.0.2")
        # Each guess claims another address; nginx appends the one it saw (127.0.0.2).
        statuses = [guesser.sign_in(f"guess {n}", f"198.51.100.{n}") for n in range(1, 6)]
        assert statuses == [200, 200, 200, 200, 429]
        assert guesser.sign_in(PASSWORD, "203.0.113.77") == 429

        # Erin from her own address signs in: the lock is not on nginx's address (all
        # requests reach the app from 127.0.0.1), nor on an address a client claimed.
        assert Browser(front, "127.0.0.3").sign_in(PASSWORD) == 302


class DirectBrowser(Browser):
    """One visitor connecting to gunicorn itself (no nginx) from ``address``."""

    scheme = "http"

    def connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(
            "127.0.0.1", self.front.port, timeout=20, source_address=(self.address, 0)
        )


def guess_with_a_new_address_each_time(guesser: Browser) -> list[int]:
    """Five wrong passwords, each claiming another address, then the right one."""
    statuses = [guesser.sign_in(f"guess {n}", f"198.51.100.{n}") for n in range(1, 6)]
    return [*statuses, guesser.sign_in(PASSWORD, "203.0.113.77")]


@real_server
def test_straight_to_gunicorn_without_a_proxy_a_claimed_address_is_not_believed(
    tmp_path, migrated_database
):
    """The probe: DJANGO_BEHIND_PROXY=false, from 127.0.0.1 (which uvicorn's worker trusts by
    default), a new X-Forwarded-For per guess."""
    prepare_database(tmp_path, migrated_database)
    environment = {"DJANGO_ALLOWED_HOSTS": f"{HOST},127.0.0.1", "DJANGO_BEHIND_PROXY": "false"}
    with serve(tmp_path, "--workers", "1", **environment) as app:
        guesser = DirectBrowser(app, "127.0.0.1")
        assert guess_with_a_new_address_each_time(guesser) == [200, 200, 200, 200, 429, 429]
        assert DirectBrowser(app, "127.0.0.3").sign_in(PASSWORD) == 302


@real_server
def test_behind_a_proxy_a_claimed_address_is_believed_only_from_the_proxy(
    tmp_path, migrated_database
):
    """DJANGO_BEHIND_PROXY=true with the proxy at 127.0.0.1: a client connecting from
    127.0.0.2 straight to gunicorn is counted by its own address (neither uvicorn nor
    Django believes its header); the proxy's header is believed."""
    prepare_database(tmp_path, migrated_database)
    environment = {
        "DJANGO_ALLOWED_HOSTS": f"{HOST},127.0.0.1",
        "DJANGO_BEHIND_PROXY": "true",
        "DJANGO_PROXY_ADDRESSES": "127.0.0.1/32",
    }
    with serve(tmp_path, "--workers", "1", **environment) as app:
        guesser = DirectBrowser(app, "127.0.0.2")
        assert guess_with_a_new_address_each_time(guesser) == [200, 200, 200, 200, 429, 429]
        # The proxy says the visitor is another one: believed, so not locked.
        assert DirectBrowser(app, "127.0.0.1").sign_in(PASSWORD, "192.0.2.9") == 302
