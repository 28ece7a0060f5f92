"""The planner form's hosting hint follows the chosen preset and currency at once: the
server's words for every preset, picked by the page's script without a round trip."""

import pytest
from django.utils import translation

from webapp.planner.choices import catalog_choices
from webapp.planner.forms import PlannerForm
from webapp.planner.services import hosting_hints

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def hint_of(page) -> str:
    return page.locator("[data-field='hosting'] [data-defaulted]").inner_text()


def test_choosing_a_cluster_preset_turns_the_hint_to_its_colocation_at_once(
    page, live_server, shipped_catalog
):
    with translation.override("en"):
        hints = hosting_hints(PlannerForm(catalog=catalog_choices()))
    page.goto(f"{live_server.url}/?preset=entry-rtx4090")
    assert hint_of(page) == hints["CNY"]["entry-rtx4090"]  # the server's and the script's agree
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.locator("#id_preset").select_option("cluster-2x-hgx-h100")
    assert hint_of(page) == hints["CNY"]["cluster-2x-hgx-h100"]
    assert hint_of(page) != hints["CNY"]["entry-rtx4090"]
    assert "olocation" in hint_of(page) or "colo" in hint_of(page).lower()
    page.locator("#id_currency").select_option("USD")
    assert hint_of(page) == hints["USD"]["cluster-2x-hgx-h100"]
    assert not [url for url in requests if "committed" not in url]  # no page load, no fetch
    # a hosting the user picks is theirs: no default to describe
    page.locator("#id_hosting").select_option(index=1)
    assert page.locator("[data-field='hosting'] [data-defaulted]").is_hidden()
