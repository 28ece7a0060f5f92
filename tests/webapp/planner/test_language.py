import hashlib

import pytest
from django.urls import reverse

from costmodel import parse_scenario
from webapp.planner.language import is_local_path
from webapp.planner.permalink import encode

URL = reverse("planner:set-language")


def test_switching_language_returns_to_a_long_permalink(client, scenario):
    provenance = [
        {"role": "part", "label": hashlib.sha256(str(i).encode()).hexdigest()} for i in range(40)
    ]
    next_url = reverse("planner:results", args=[encode(scenario, provenance)])
    assert len(next_url) > 2048  # longer than Django's set_language accepts
    response = client.post(URL, {"language": "zh-hans", "next": next_url})
    assert response.status_code == 302
    assert response["Location"] == next_url
    assert response.cookies["django_language"].value == "zh-hans"
    page = client.get(next_url)
    assert '<html lang="zh-hans">' in page.content.decode()


@pytest.mark.parametrize(
    "url", ["https://evil.example/", "//evil.example/", "/\\evil.example", "javascript:x", "", "x"]
)
def test_it_never_redirects_off_site(client, url):
    response = client.post(URL, {"language": "en", "next": url})
    assert response["Location"] == "/"
    assert not is_local_path(url)


def test_an_unknown_language_is_ignored(client):
    response = client.post(URL, {"language": "xx", "next": "/"})
    assert "django_language" not in response.cookies


def test_it_refuses_get(client):
    assert client.get(URL).status_code == 405


def test_the_permalink_stays_short_enough_for_a_request_line(scenario_data):
    provenance = [
        {"role": "part", "label": "card", "fx_rate": None, "note": "", "estimate": False}
    ] * 30
    code = encode(parse_scenario(scenario_data), provenance)
    assert len(code) < 4000
