"""Security headers on every kind of response, no inline scripts, no anonymous changes."""

import re
from pathlib import Path

import pytest
from django.test import override_settings

from webapp.catalog.models import Tariff
from webapp.security import POLICY

ROOT = Path(__file__).resolve().parents[2]
ROUTES = ["/", "/healthz", "/api/v1/catalog/tariffs", "/api/v1/docs", "/admin/login/"]


def directives(policy: str) -> dict[str, list[str]]:
    parsed = {}
    for part in policy.split(";"):
        name, *values = part.split()
        parsed[name] = values
    return parsed


def test_the_policy_allows_scripts_from_this_origin_only():
    policy = directives(POLICY)

    assert policy["script-src"] == ["'self'"]
    assert policy["default-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]


@pytest.mark.django_db
@pytest.mark.parametrize("path", ROUTES)
def test_every_response_carries_the_security_headers(client, path):
    response = client.get(path)

    assert response.status_code == 200
    assert response["Content-Security-Policy"] == POLICY
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Frame-Options"] == "DENY"


@pytest.mark.django_db
def test_error_responses_carry_the_policy_too(client):
    response = client.post("/api/v1/compare", "{", content_type="application/json")

    assert response.status_code == 400
    assert response["Content-Security-Policy"] == POLICY
    assert response["X-Content-Type-Options"] == "nosniff"


@pytest.mark.django_db
@override_settings(SECURE_SSL_REDIRECT=True, SECURE_HSTS_SECONDS=31536000)
def test_with_https_on_plain_http_redirects_and_https_gets_hsts(client):
    plain = client.get("/healthz")
    secure = client.get("/healthz", secure=True)

    assert plain.status_code == 301
    assert plain["Location"].startswith("https://")
    assert secure.status_code == 200
    assert secure["Strict-Transport-Security"].startswith("max-age=31536000")


def templates() -> list[Path]:
    webapp = ROOT / "webapp"
    return sorted(webapp.rglob("templates/**/*.html"))


@pytest.mark.parametrize("template", templates(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_template_has_an_inline_script(template):
    """The policy would block it in the browser; data goes through json_script instead."""
    for tag in re.findall(r"<script\b[^>]*>", template.read_text(), flags=re.IGNORECASE):
        assert "src=" in tag or 'type="application/json"' in tag, tag
    assert not re.search(r"\son[a-z]+\s*=", template.read_text()), "inline event handler"


@pytest.mark.django_db
def test_the_api_docs_load_every_asset_from_this_origin(client):
    page = client.get("/api/v1/docs").content.decode()

    scripts = re.findall(r"<script\b[^>]*>", page)
    assert any("swagger-ui-bundle.js" in s for s in scripts)
    for tag in scripts:
        assert 'src="/static/' in tag or 'type="application/json"' in tag, tag
    for url in re.findall(r'(?:src|href)="([^"]+)"', page):
        assert url.startswith("/static/"), url


@pytest.mark.django_db
def test_the_admin_refuses_anonymous_users(client):
    index = client.get("/admin/")
    add = client.post(
        "/admin/catalog/tariff/add/",
        {"slug": "sneaky", "name": "x", "region": "x", "country": "CN", "currency": "CNY"},
    )

    assert index.status_code == 302
    assert index["Location"].startswith("/admin/login/")
    assert add.status_code == 302
    assert add["Location"].startswith("/admin/login/")
    assert not Tariff.objects.filter(slug="sneaky").exists()


@pytest.mark.django_db
def test_the_admin_refuses_users_who_are_not_staff(client):
    from django.contrib.auth.models import User

    client.force_login(User.objects.create(username="visitor"))

    response = client.get("/admin/catalog/tariff/")

    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")


def test_the_api_has_no_operation_that_changes_the_catalog():
    """Catalog changes go through the admin (staff only); the API only reads it."""
    from webapp.api import api

    schema = api.get_openapi_schema(path_prefix="/api/v1/")
    for path, operations in schema["paths"].items():
        if "/catalog/" in path:
            assert set(operations) == {"get"}, path
