"""Pages travel gzip-compressed to browsers that accept it (static files: WhiteNoise)."""

import gzip

import pytest


@pytest.mark.django_db
def test_it_gzips_a_page_for_a_browser_that_accepts_gzip(client):
    response = client.get("/", HTTP_ACCEPT_ENCODING="gzip, deflate, br")

    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in response["Vary"]
    html = gzip.decompress(response.content).decode()
    assert "<form" in html
    assert len(response.content) < len(html) / 2


@pytest.mark.django_db
def test_it_sends_a_page_uncompressed_to_a_client_that_does_not_ask(client):
    response = client.get("/")

    assert response.status_code == 200
    assert not response.has_header("Content-Encoding")
    assert "<form" in response.content.decode()
