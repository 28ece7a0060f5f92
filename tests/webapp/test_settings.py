"""Settings come from the environment; the documented production environment passes
``manage.py check --deploy`` with nothing to report."""

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION_DOC = ROOT / "docs" / "production.md"


def production_environment() -> dict[str, str]:
    """The variables of the environment block in docs/production.md, with a fresh secret key."""
    text = PRODUCTION_DOC.read_text()
    block = text.split("<!-- production-environment -->")[1]
    block = block.split("```")[1]
    env = {}
    for line in block.splitlines():
        match = re.match(r"^(?:export\s+)?([A-Z_]+)=(\S*)", line.strip())
        if match:
            env[match[1]] = match[2]
    assert "DJANGO_SECRET_KEY" in env and "DJANGO_HTTPS" in env
    env["DJANGO_SECRET_KEY"] = secrets.token_urlsafe(50)
    return env


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def check_deploy(env: dict[str, str]) -> subprocess.CompletedProcess:
    return run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], env)


def test_check_deploy_reports_nothing_under_the_documented_production_environment():
    result = check_deploy(production_environment())

    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_check_deploy_does_complain_without_https():
    env = production_environment()
    env["DJANGO_HTTPS"] = "false"

    result = check_deploy(env)

    assert result.returncode != 0
    assert "security.W008" in result.stdout + result.stderr


def test_debug_is_off_unless_asked_for():
    result = run(
        ["-c", "import webapp.settings as s; print(s.DEBUG)"], {"DJANGO_SECRET_KEY": "x" * 50}
    )

    assert result.stdout.strip() == "False", result.stderr


def test_it_refuses_to_start_without_a_secret_key_outside_debug():
    result = run(["-c", "import webapp.settings"], {})

    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in result.stderr


@pytest.mark.parametrize("value", ["maybe", "2", "True!"])
def test_it_refuses_a_boolean_it_cannot_read(value):
    result = run(
        ["-c", "import webapp.settings"], {"DJANGO_SECRET_KEY": "x", "DJANGO_HTTPS": value}
    )

    assert result.returncode != 0
    assert "DJANGO_HTTPS must be true or false" in result.stderr


@pytest.mark.parametrize("value", ["30%", "1.5", "-0.1", "NaN", "abc"])
def test_it_refuses_a_catalog_review_share_it_cannot_read(value):
    result = run(
        ["-c", "import webapp.settings"], {"DJANGO_SECRET_KEY": "x", "CATALOG_REVIEW_SHARE": value}
    )

    assert result.returncode != 0
    assert "CATALOG_REVIEW_SHARE must be a share between 0 and 1" in result.stderr


@pytest.mark.parametrize(("env", "share"), [({}, "0.30"), ({"CATALOG_REVIEW_SHARE": "0.5"}, "0.5")])
def test_the_catalog_review_share_is_30_percent_unless_set(env, share):
    result = run(
        ["-c", "import webapp.settings as s; print(s.CATALOG_REVIEW_SHARE)"],
        {"DJANGO_SECRET_KEY": "x", **env},
    )

    assert result.stdout.strip() == share, result.stderr


def test_database_url_selects_postgresql():
    result = run(
        ["-c", "import webapp.settings as s; print(s.DATABASES['default']['ENGINE'])"],
        {"DJANGO_SECRET_KEY": "x", "DATABASE_URL": "postgres://u:p@db.internal:5432/gpu"},
    )

    assert result.stdout.strip() == "django.db.backends.postgresql", result.stderr


def test_manage_py_names_a_missing_secret_key_in_one_line_without_a_traceback():
    result = run(["manage.py", "check"], {})

    assert result.returncode == 2
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines() == [
        "manage.py: configuration error: DJANGO_SECRET_KEY must be set when DJANGO_DEBUG "
        "is not true (for local use set DJANGO_DEBUG=true, as `make run` does)."
    ]


def test_manage_py_names_an_unreadable_variable():
    result = run(["manage.py", "check"], {"DJANGO_SECRET_KEY": "x", "DJANGO_HTTPS": "maybe"})

    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("manage.py: configuration error: DJANGO_HTTPS must be")


LANGUAGE_COOKIE_PROBE = """
import django, json
django.setup()
from django.test import Client
client = Client()
out = {}
for url in ("/language", "/i18n/setlang/"):
    response = client.post(url, {"language": "zh-hans", "next": "/"}, secure=True)
    cookie = response.cookies["django_language"]
    out[url] = {"secure": bool(cookie["secure"]), "samesite": cookie["samesite"]}
print(json.dumps(out))
"""


@pytest.mark.parametrize(("https", "secure"), [("true", True), ("false", False)])
def test_the_language_cookie_is_secure_and_same_site_under_https(https, secure):
    import json

    result = run(
        ["-c", LANGUAGE_COOKIE_PROBE],
        {
            "DJANGO_SECRET_KEY": "x" * 50,
            "DJANGO_HTTPS": https,
            "DJANGO_SETTINGS_MODULE": "webapp.settings",
            "DJANGO_ALLOWED_HOSTS": "testserver",
        },
    )

    assert result.returncode == 0, result.stderr
    cookies = json.loads(result.stdout)
    assert cookies == {url: {"secure": secure, "samesite": "Lax"} for url in cookies}
    assert len(cookies) == 2
