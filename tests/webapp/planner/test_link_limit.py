"""One permalink limit, the server's: a scenario too large for a link the server accepts is
saved instead, and no link the planner gives out is refused by `make serve` or by nginx
in front of it (docs/nginx.conf)."""

import urllib.error
import urllib.request

from django.conf import settings
from django.test import override_settings
from django.urls import reverse

from tests.webapp import served
from webapp.planner.permalink import link_urls, request_line_bytes
from webapp.scenarios.models import SavedScenario

from .helpers import code_of
from .test_planner_form import form_data

HOME = reverse("planner:home")
URI_TOO_LONG = 414  # a server's answer to a request line over its limit


def every_part_box(client) -> dict:
    """The planner form with the largest custom box the catalog allows: one GPU card model
    and every part that is not a GPU (29 lines with the shipped catalog), each typed in."""
    form = client.get(HOME).context["form"]
    parts = []
    for kind, names in form.part_names:
        if kind == "GPU card":
            parts.append(names[0])
        elif "GPU" not in kind:
            parts.extend(names)
    data = form_data(client, box="custom", scaling_efficiency="90", name="x" * 200)
    data.pop("preset")
    data.update({name: "2" for name in parts})
    return data


def test_the_shipped_catalogs_largest_custom_box_has_29_parts(client, shipped_catalog):
    data = every_part_box(client)
    assert sum(1 for name in data if name.startswith("part__")) == 29


def test_a_29_part_custom_box_gets_a_link_every_url_of_which_fits_the_request_line(
    client, shipped_catalog
):
    response = client.post(HOME, every_part_box(client))
    assert response.status_code == 302
    code = code_of(response["Location"])
    assert 0 < request_line_bytes(code) <= settings.MAX_REQUEST_LINE_BYTES
    assert client.get(response["Location"]).status_code == 200


@override_settings(MAX_REQUEST_LINE_BYTES=4094)  # gunicorn's default limit
def test_a_scenario_too_large_for_a_link_is_saved_instead_with_a_message(client, shipped_catalog):
    data = every_part_box(client)
    response = client.post(HOME, data, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 302
    item = SavedScenario.objects.get()
    assert response["Location"] == reverse("planner:saved-detail", args=[item.pk])
    assert len(item.selection["parts"]) == 29

    page = client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200
    html = page.content.decode()
    assert "too much for a link the server accepts, so it was saved instead" in html
    assert "?from=" not in html and 'name="code"' not in html  # no link too long to follow
    change = html.split('id="change-inputs" href="', 1)[1].split('"', 1)[0]
    assert change == f"{HOME}?saved={item.pk}"

    reopened = client.get(change).context["form"]
    assert reopened.initial["box"] == "custom"
    assert sum(1 for n in reopened.initial if n.startswith("part__")) == 29
    assert reopened.initial["scaling_efficiency"] == 90


def status_of(url: str) -> int:
    try:
        return urllib.request.urlopen(url, timeout=60).status
    except urllib.error.HTTPError as exc:
        return exc.code


@served.real_server
def test_make_serve_accepts_every_url_of_the_link_and_the_longest_request_line(
    client, shipped_catalog, tmp_path
):
    with override_settings(SECRET_KEY="served-test"):  # the served app's key: it reads the link
        code = code_of(client.post(HOME, every_part_box(client))["Location"])
    # "GET /<path> HTTP/1.1": a path that makes the request line exactly the setting's length
    longest = "x" * (settings.MAX_REQUEST_LINE_BYTES - len("GET / HTTP/1.1"))
    with served.serve(tmp_path, "--workers", "1") as running:
        # the server hands every URL of the link to the app (whose database is empty here:
        # some pages fail there, after the request line was accepted)
        for url in link_urls(code):
            assert status_of(running.base + url) != URI_TOO_LONG, url
        assert status_of(f"{running.base}/{longest}") == 404  # the app's "not found"
    # One byte more is refused by nginx in front (docs/nginx.conf, tested in test_serving);
    # uvicorn alone takes up to 16 KiB of request line and headers.
