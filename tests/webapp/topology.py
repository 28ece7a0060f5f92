"""Helpers of tests/webapp/test_topology.py: the several-hosts topology of docs/production.md
("Several hosts") started on this machine as real processes — a throwaway PostgreSQL (as
scripts/with-postgres.sh starts one), Redis from Debian on a Unix socket, gunicorn as
`make serve` runs it (gunicorn.conf.py) on several ports, and the worker (`manage.py worker`
on the RQ backend). Every process is stopped, and every file removed, whatever happens."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import requests

from tests.webapp.served import GUNICORN, ROOT, free_port

SITE = "gpu.example.com"


def postgres_bindir() -> Path | None:
    """Where initdb and pg_ctl are, as scripts/with-postgres.sh looks for them."""
    found = shutil.which("initdb")
    candidates = [Path(found).parent] if found else []
    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
    for candidate in candidates:
        if (candidate / "initdb").exists() and (candidate / "pg_ctl").exists():
            return candidate
    return None


REDIS = shutil.which("redis-server") or "/usr/bin/redis-server"


def missing_binaries() -> list[str]:
    from tests.webapp.served import NGINX

    missing = []
    if postgres_bindir() is None:
        missing.append("PostgreSQL (initdb, pg_ctl)")
    if not Path(REDIS).exists():
        missing.append("redis-server")
    if not Path(NGINX).exists():
        missing.append("nginx")
    if not GUNICORN.exists():
        missing.append("gunicorn in .venv")
    return missing


def stop(process: subprocess.Popen, timeout: float = 15) -> None:
    """SIGTERM to the process group, then SIGKILL if it is still there after ``timeout``."""
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def wait_until(condition, timeout: float, what: str, interval: float = 0.1):
    """``condition()``'s first true value, polled for at most ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"{what}: not within {timeout} s"
        time.sleep(interval)


@contextlib.contextmanager
def postgres() -> Iterator[str]:
    """A throwaway PostgreSQL cluster on a free loopback port: its DATABASE_URL."""
    bindir = postgres_bindir()
    assert bindir is not None
    # Under /tmp itself, not pytest's tmp_path: the server may run as another user.
    datadir = Path(tempfile.mkdtemp(prefix="pgtopology."))
    as_user: list[str] = []
    if os.getuid() == 0:  # initdb refuses to run as root
        subprocess.run(
            ["sh", "-c", "id -u postgres || useradd --system --no-create-home postgres"],
            capture_output=True,
            timeout=30,
        )
        shutil.chown(datadir, "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    port = free_port()
    pg_ctl = [*as_user, str(bindir / "pg_ctl"), "-D", str(datadir / "data")]
    try:
        subprocess.run(
            [
                *as_user,
                str(bindir / "initdb"),
                "-D",
                str(datadir / "data"),
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--locale=C.UTF-8",
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
        options = (
            f"-p {port} -k {datadir} -c listen_addresses=127.0.0.1 -c fsync=off"
            " -c synchronous_commit=off -c full_page_writes=off"
        )
        subprocess.run(
            [*pg_ctl, "-l", str(datadir / "log"), "-w", "-t", "60", "-o", options, "start"],
            check=True,
            capture_output=True,
            timeout=90,
        )
        yield f"postgres://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*pg_ctl, "-m", "immediate", "stop"], capture_output=True, timeout=60)
        shutil.rmtree(datadir, ignore_errors=True)


@dataclass
class Redis:
    """Debian's redis-server on a Unix socket (no TCP port), as docs/production.md configures
    it for the queue: every write appended to its file and synced before it answers
    (appendonly, appendfsync always), so a killed Redis started again has every job it had
    acknowledged."""

    directory: Path
    process: subprocess.Popen | None = None

    @property
    def socket_path(self) -> Path:
        return self.directory / "redis.sock"

    @property
    def url(self) -> str:
        return f"unix://{self.socket_path}?db=0"

    def start(self) -> None:
        self.socket_path.unlink(missing_ok=True)
        log = self.directory / "redis.log"
        self.process = subprocess.Popen(
            [
                REDIS,
                "--port",
                "0",
                "--unixsocket",
                str(self.socket_path),
                "--unixsocketperm",
                "700",
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--dir",
                str(self.directory),
            ],
            stdout=log.open("a"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        process = self.process
        wait_until(
            lambda: process.poll() is not None or self.socket_path.exists(), 20, "Redis started"
        )
        assert process.poll() is None, log.read_text()

    def kill(self) -> None:
        """SIGKILL, as a crash or the out-of-memory killer would: nothing is flushed."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def queued(self, queue: str = "default") -> int:
        """Jobs waiting in RQ's ``queue``."""
        import redis as redis_py

        client = redis_py.Redis(unix_socket_path=str(self.socket_path))
        try:
            return int(client.llen(f"rq:queue:{queue}"))
        finally:
            client.close()

    def keys(self, pattern: str) -> list[bytes]:
        import redis as redis_py

        client = redis_py.Redis(unix_socket_path=str(self.socket_path))
        try:
            return sorted(client.scan_iter(match=pattern, count=1000))
        finally:
            client.close()


@contextlib.contextmanager
def redis(directory: Path) -> Iterator[Redis]:
    """A :class:`Redis` started in ``directory``, stopped on exit whatever happens."""
    server = Redis(directory)
    try:
        server.start()
        yield server
    finally:
        if server.process is not None:
            stop(server.process)


def app_environment(database_url: str, redis_url: str, **more: str) -> dict[str, str]:
    """Every host's environment: the same secret, database, queue and proxy settings."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    return {
        **clean,
        "DJANGO_SETTINGS_MODULE": "webapp.settings",
        "DJANGO_SECRET_KEY": "topology-test-secret-shared-by-every-host",
        "DJANGO_ALLOWED_HOSTS": SITE,
        "DJANGO_CSRF_TRUSTED_ORIGINS": f"https://{SITE}",
        "DJANGO_HTTPS": "true",
        "DJANGO_BEHIND_PROXY": "true",
        "DJANGO_STATIC_MANIFEST": "false",
        "DATABASE_URL": database_url,
        "DJANGO_TASKS_BACKEND": "rq",
        "REDIS_URL": redis_url,
        **more,
    }


def run_django(environment: dict[str, str], code: str, timeout: float = 180) -> str:
    """Python ``code`` run after django.setup() in a process of its own: its standard output."""
    done = subprocess.run(
        [sys.executable, "-c", f"import django\ndjango.setup()\n{code}"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stdout


@dataclass
class Host:
    """One app host: gunicorn started as `make serve` starts it, on its own port."""

    port: int
    process: subprocess.Popen
    log: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def answers(self) -> bool:
        assert self.process.poll() is None, self.log.read_text()[-4000:]
        try:
            return requests.get(self.base + "/healthz", headers=PROXIED, timeout=2).ok
        except requests.RequestException:
            return False


# What nginx adds to every request it passes on (docs/nginx.conf): the site's name, the scheme,
# and the client's address; a request sent straight to a host carries the same.
PROXIED = {"Host": SITE, "X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.7"}


@contextlib.contextmanager
def hosts(directory: Path, environment: dict[str, str], count: int) -> Iterator[list[Host]]:
    """``count`` gunicorn hosts started together, each with one worker process (not yet
    answering: see :func:`answering`)."""
    started: list[Host] = []
    try:
        for number in range(count):
            port = free_port()
            log = directory / f"gunicorn-{number}.log"
            process = subprocess.Popen(
                [str(GUNICORN), "--bind", f"127.0.0.1:{port}", "--workers", "1"],
                cwd=ROOT,
                env=environment,
                stdout=log.open("w"),
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            started.append(Host(port, process, log))
        yield started
    finally:
        for host in started:
            stop(host.process)


def answering(started: list[Host]) -> None:
    for host in started:
        wait_until(host.answers, 60, f"gunicorn on port {host.port} answering")


@contextlib.contextmanager
def worker(
    directory: Path, environment: dict[str, str], log: str = "worker.log"
) -> Iterator[subprocess.Popen]:
    """The project's worker command (`manage.py worker`: rqworker with its scheduler)."""
    process = subprocess.Popen(
        [sys.executable, "manage.py", "worker"],
        cwd=ROOT,
        env=environment,
        stdout=(directory / log).open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        yield process
    finally:
        stop(process)


@dataclass
class Browser:
    """A visitor: its cookies, sent by hand so that the Secure cookies of an HTTPS site also go
    to a host reached over loopback HTTP behind the (simulated) proxy."""

    cookies: dict[str, str] = field(default_factory=dict)

    def request(self, method: str, url: str, **kwargs) -> requests.Response:
        headers = {**PROXIED, "Origin": f"https://{SITE}", **kwargs.pop("headers", {})}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        response = requests.request(
            method, url, headers=headers, allow_redirects=False, timeout=30, **kwargs
        )
        for cookie in response.cookies:
            if cookie.value:
                self.cookies[cookie.name] = cookie.value
            else:
                self.cookies.pop(cookie.name, None)
        return response

    def get(self, url: str, **kwargs) -> requests.Response:
        return self.request("GET", url, **kwargs)

    def post(self, url: str, data: dict[str, str], **kwargs) -> requests.Response:
        if "csrftoken" not in self.cookies:
            self.get(url.split("/", 3)[0] + "//" + url.split("/", 3)[2] + "/accounts/login/")
        return self.request(
            "POST", url, data={"csrfmiddlewaretoken": self.cookies["csrftoken"], **data}, **kwargs
        )


def parse_json_line(output: str) -> dict:
    """The last line of ``output`` that is a JSON object."""
    for line in reversed(output.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise AssertionError(f"no JSON line in {output!r}")


def through(front, browser: Browser, method: str, path: str, data: dict[str, str] | None = None):
    """A request of ``browser`` through nginx (HTTPS, docs/nginx.conf): status and body."""
    from http.cookies import SimpleCookie
    from urllib.parse import urlencode

    headers = {"Host": SITE, "Origin": f"https://{SITE}", "Referer": f"https://{SITE}/"}
    body = None
    if data is not None:
        body = urlencode({"csrfmiddlewaretoken": browser.cookies["csrftoken"], **data})
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    if browser.cookies:
        headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in browser.cookies.items())
    connection = front.connection()
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        content = response.read().decode()
        for raw in response.msg.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(raw).items():
                if morsel.value:
                    browser.cookies[name] = morsel.value
        return response.status, response.getheader("Location", ""), content
    finally:
        connection.close()
