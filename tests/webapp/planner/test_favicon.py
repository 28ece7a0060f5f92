"""``/favicon.ico``, asked for by browsers and crawlers on their own, is the static icon."""

import pytest
from django.contrib.staticfiles import finders
from django.templatetags.static import static


def test_favicon_ico_redirects_to_the_static_icon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"] == static("favicon.ico")


def test_the_static_icon_is_an_icon_file():
    path = finders.find("favicon.ico")
    assert path, "static/favicon.ico"
    with open(path, "rb") as icon:
        assert icon.read(4) == b"\x00\x00\x01\x00"  # the ICO header: reserved 0, type 1


@pytest.mark.django_db
def test_pages_name_the_icon(client):
    page = client.get("/saved/").content.decode()
    assert f'<link rel="icon" href="{static("favicon.ico")}">' in page
