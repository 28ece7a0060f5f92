"""Several app hosts, as docs/production.md ("Several hosts") lays them out, started on this
machine as real processes: a throwaway PostgreSQL, Redis from Debian, two gunicorn hosts as
`make serve` runs them (gunicorn.conf.py), nginx over both (docs/nginx.conf, one upstream of
two servers) and one worker on the RQ queue (`manage.py worker`).

A visitor may land on either host on any request: the session and sign-in, a save, a
permalink, the sign-in lockout's count and the password-reset limit's (in Redis, the cache of
several hosts) are the same on both; each host bounds its own heavy analyses. Each of the
three things that can die under load is killed once: the worker (a catalog change made
meanwhile waits in Redis), Redis itself with that re-pricing queued and saves coming in (it
comes back from its append-only file with the job, the next worker re-prices it and both
hosts show it), and one app host behind nginx (the other answers). No acknowledged save is
lost."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.webapp.conftest import WORKED_EXAMPLE
from tests.webapp.served import documented_nginx
from tests.webapp.topology import (
    PROXIED,
    Browser,
    answering,
    app_environment,
    hosts,
    missing_binaries,
    parse_json_line,
    postgres,
    redis,
    run_django,
    through,
    wait_until,
    worker,
)

pytestmark = [
    # Grouped with the other tests that start real servers (one xdist worker runs them all).
    pytest.mark.xdist_group("real-server"),
    pytest.mark.skipif(
        os.environ.get("DATABASE_URL", "").startswith("postgres"),
        reason="it starts a PostgreSQL of its own: run once, in the suite's SQLite pass",
    ),
    pytest.mark.skipif(
        bool(missing_binaries()),
        reason=f"not installed (make debian-test-deps installs them): {missing_binaries()}",
    ),
]

PASSWORD = "several-hosts-pw-17"
# The sign-in lockout after this many failures (django-axes, DJANGO_LOGIN_FAILURE_LIMIT).
FAILURES = 3
# Password reset requests one account may make in an hour (DJANGO_RESET_PER_ACCOUNT).
RESETS = 2
# Heavy analyses one worker process (here: one host) runs at once
# (DJANGO_HEAVY_REQUESTS_PER_WORKER); the uncertainty analysis below takes 1-2 s.
HEAVY = 1
UNCERTAINTY = {
    "scenario": WORKED_EXAMPLE,
    "distributions": {"rent.hourly_rate": {"kind": "uniform", "low": 10, "high": 30}},
    "draws": 20_000,
}

# Runs once against the shared database, as a deploy step would: migrations, the catalog, the
# accounts of the test, and a results permalink of a plan resolved from the catalog (the code
# the planner's form would redirect to) with the catalog change that flips its verdict.
SETUP = f"""
import datetime, json
from django.contrib.auth import get_user_model
from django.core.management import call_command
from costmodel import compare
from webapp.catalog.models import CloudOffering
from webapp.catalog.resolver import resolve_data
from webapp.planner.permalink import encode

call_command("migrate", interactive=False, verbosity=0)
call_command("load_catalog", verbosity=0)
users = get_user_model().objects
users.create_superuser("lead", "lead@example.com", {PASSWORD!r})
users.create_user("target", "target@example.com", {PASSWORD!r})
selection = {{
    "preset": "entry-rtx4090",
    "cloud_offering": "runpod-a100-80gb-community",
    "tariff": "us-ca-commercial",
    "hosting": "office-deskside",
    "benchmark": "resnet50-fp16",
    "workload": {{"kind": "steady", "utilization": 1.0}},
    "horizon_months": 36,
    "currency": "USD",
}}
resolution = resolve_data(selection)
building_wins = compare(resolution.scenario)["savings"] > 0
print(json.dumps({{
    "code": encode(resolution.scenario, resolution.provenance, None, selection),
    "offering": CloudOffering.objects.get(slug=selection["cloud_offering"]).pk,
    "rate": "0.0100" if building_wins else "500.0000",
    "yesterday": (datetime.date.today() - datetime.timedelta(days=1)).isoformat(),
}}))
"""


def saved_ids(html: str) -> set[str]:
    return set(re.findall(r'data-saved="([0-9a-f-]{36})"', html))


def sign_in(browser: Browser, base: str, username: str, password: str):
    browser.get(base + "/accounts/login/")
    return browser.post(
        base + "/accounts/login/", {"username": username, "password": password, "next": "/"}
    )


def uncertainty(host) -> int:
    """The status of one heavy analysis asked of ``host`` (503 with Retry-After when refused)."""
    answer = requests.post(
        host.base + "/api/v1/uncertainty",
        data=json.dumps(UNCERTAINTY),
        headers={**PROXIED, "Content-Type": "application/json"},
        timeout=60,
    )
    assert answer.status_code in (200, 503), answer.text[-2000:]
    assert answer.status_code == 200 or answer.headers["Retry-After"] == "5"
    return answer.status_code


def test_two_hosts_behind_nginx_share_everything_and_survive_losing_one(tmp_path):
    with contextlib.ExitStack() as running:
        database_url = running.enter_context(postgres())
        queue = running.enter_context(redis(tmp_path))
        environment = app_environment(
            database_url,
            queue.url,
            DJANGO_LOGIN_FAILURE_LIMIT=str(FAILURES),
            DJANGO_RESET_PER_ACCOUNT=str(RESETS),
            DJANGO_HEAVY_REQUESTS_PER_WORKER=str(HEAVY),
        )
        # The hosts load the site while the deploy step runs: they need no table to start.
        a, b = running.enter_context(hosts(tmp_path, environment, 2))
        plan = parse_json_line(run_django(environment, SETUP))
        answering([a, b])
        first_worker = running.enter_context(worker(tmp_path, environment, "worker-1.log"))

        # A session and a sign-in made on host A hold on host B.
        visitor = Browser()
        signed_in = sign_in(visitor, a.base, "lead", PASSWORD)
        assert signed_in.status_code == 302, signed_in.text[-2000:]
        account = visitor.get(b.base + "/accounts/")
        assert account.status_code == 200 and "lead" in account.text

        # A save on host A is listed on host B at once; its permalink and the saved page
        # resolve on both.
        code = plan["code"]
        saved = visitor.post(a.base + "/saved/new", {"code": code, "name": "4090 vs RunPod"})
        assert saved.status_code == 302, saved.text[-2000:]
        pk = re.search(r"/saved/([0-9a-f-]{36})/", saved.headers["Location"]).group(1)
        assert pk in saved_ids(visitor.get(b.base + "/saved/").text)
        for host in (a, b):
            assert visitor.get(f"{host.base}/r/{code}").status_code == 200
            assert visitor.get(f"{host.base}/saved/{pk}/").status_code == 200

        # The sign-in lockout counts failures made on either host.
        attacker = Browser()
        for host in (a, b):
            failed = sign_in(attacker, host.base, "target", "wrong")
            assert failed.status_code == 200  # the form again, with its error
        locked = sign_in(attacker, a.base, "target", "wrong")
        assert locked.status_code == 429  # the third failure, on host A
        assert sign_in(attacker, b.base, "target", PASSWORD).status_code == 429

        # The password-reset limit counts requests made on either host: its counter is in the
        # shared cache, Redis (Django's RedisCache), under the release's key prefix.
        resets = [
            visitor.post(host.base + "/accounts/password_reset/", {"email": "target@example.com"})
            for host in (a, b, a)
        ]
        assert [r.status_code for r in resets] == [302, 302, 429], resets[-1].text[-2000:]
        assert queue.keys("*reset:email:*"), queue.keys("*")

        # Each host bounds its own heavy analyses: three at once on host A run one and refuse
        # the others (503, Retry-After) while host B, asked at the same moment, runs its own.
        with ThreadPoolExecutor(4) as pool:
            on_a = [pool.submit(uncertainty, a) for _ in range(3)]
            on_b = pool.submit(uncertainty, b)
            statuses_a = sorted(f.result() for f in on_a)
            status_b = on_b.result()
        assert statuses_a[0] == 200 and 503 in statuses_a, statuses_a
        assert status_b == 200
        assert uncertainty(a) == 200  # a slot is given back when its analysis ends

        # A catalog change made on host A (a far move, held for review, then approved) while
        # no worker runs (the one there was killed) waits in Redis.
        def shown_changed(host) -> bool:
            html = visitor.get(host.base + "/saved/?changed=on").text
            return pk in saved_ids(html) and "data-decision-today=" in html

        os.killpg(first_worker.pid, signal.SIGKILL)
        first_worker.wait(timeout=10)
        recorded = visitor.post(
            a.base + "/admin/catalog/cloudrate/add/",
            {
                "offering": str(plan["offering"]),
                "hourly_rate": plan["rate"],
                "currency": "USD",
                "effective_date": plan["yesterday"],
                "source": "several-hosts test",
                "_continue": "1",
            },
        )
        assert recorded.status_code == 302, recorded.text[-3000:]
        rate = re.search(r"/cloudrate/(\d+)/change/", recorded.headers["Location"]).group(1)
        approved = visitor.post(
            a.base + "/admin/catalog/cloudrate/",
            {"action": "approve_selected", "_selected_action": rate, "index": "0"},
        )
        assert approved.status_code == 302, approved.text[-3000:]
        assert not shown_changed(a)
        assert queue.queued() >= 1

        # Redis killed with the re-pricing queued, while visitors keep saving on both hosts:
        # every save is still acknowledged (stored in PostgreSQL; its analyses, which could not
        # be queued, are queued by the next worker's catch-up) and none is lost. Redis started
        # again reads its append-only file: every job it had is there.
        acknowledged = {pk}

        def save_on(host, name: str) -> int:
            answer = visitor.post(host.base + "/saved/new", {"code": code, "name": name})
            if answer.status_code == 302:
                acknowledged.add(
                    re.search(r"/saved/([0-9a-f-]{36})/", answer.headers["Location"]).group(1)
                )
            return answer.status_code

        before = [save_on(host, f"before Redis died on {host.port}") for host in (a, b)]
        jobs = queue.queued()  # the re-pricing and the analyses of the two saves
        assert jobs >= 3
        queue.kill()
        during = [save_on(host, f"while Redis was down {n}") for n, host in enumerate((a, b, a))]
        queue.start()
        assert queue.queued() == jobs  # every job acknowledged before the kill is back
        after = [save_on(host, f"after Redis came back on {host.port}") for host in (a, b)]
        assert before + during + after == [302] * 7, (before, during, after)

        # The next worker re-prices it, and the change is shown on both hosts.
        second_worker = running.enter_context(worker(tmp_path, environment, "worker-2.log"))
        wait_until(lambda: shown_changed(b), 40, "the re-priced decision on host B", 0.5)
        assert shown_changed(a)
        assert second_worker.poll() is None
        listed = saved_ids(visitor.get(b.base + "/saved/").text)
        assert acknowledged <= listed, (acknowledged - listed, during)

        # Through nginx, with host B killed: host A answers, and every save that was
        # acknowledged is listed.
        (tmp_path / "nginx").mkdir()
        front = running.enter_context(documented_nginx(tmp_path / "nginx", a.port, b.port))
        answers = []
        for round_ in range(9):
            if round_ == 3:
                os.killpg(b.process.pid, signal.SIGKILL)  # gunicorn and its worker at once
                b.process.wait(timeout=10)
            status, location, _ = through(
                front, visitor, "POST", "/saved/new", {"code": code, "name": f"round {round_}"}
            )
            answers.append(status)
            if status == 302:
                acknowledged.add(re.search(r"/saved/([0-9a-f-]{36})/", location).group(1))
        # Before the kill every save is acknowledged. After it, nginx never sends a POST twice:
        # one it had sent on a kept-alive connection to the killed host is answered 502 (not
        # acknowledged) until the host counts as down (max_fails=3); then host A takes them all.
        assert answers[:3] == [302] * 3, answers
        assert set(answers[3:]) <= {302, 502} and answers[3:].count(502) <= 3, answers
        assert answers[-2:] == [302, 302], answers
        status, _, listed_html = through(front, visitor, "GET", "/saved/")
        assert status == 200 and acknowledged <= saved_ids(listed_html)
        assert a.answers() and b.process.poll() is not None
