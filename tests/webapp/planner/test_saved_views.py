"""Saved scenarios through the pages: save, list, rename, delete, re-run, compare."""

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import translation

from costmodel import compare, parse_scenario
from webapp import formatting
from webapp.planner.permalink import encode
from webapp.scenarios.models import SavedScenario
from webapp.scenarios.services import create_saved_scenario
from webapp.security import not_visible_message

from .helpers import json_script, link_of

pytestmark = pytest.mark.django_db


def save(client, code, name="My box"):
    return client.post(reverse("planner:save"), {"code": code, "name": name})


def test_saving_a_result_stores_the_explicit_scenario_and_shows_it(client, permalink, scenario):
    response = save(client, permalink)
    assert response.status_code == 302
    saved = SavedScenario.objects.get()
    assert response["Location"] == reverse("planner:saved-detail", args=[saved.pk])
    assert saved.name == "My box"
    assert parse_scenario(saved.scenario) == scenario
    assert saved.owner is None and saved.session_key == client.session.session_key
    page = client.get(response["Location"], HTTP_ACCEPT_LANGUAGE="en").content.decode()
    result = compare(scenario)  # the worked example, at its 8 % cost of capital
    with translation.override("en"):
        present_value = formatting.amount(result["present_value_savings"], "CNY")
    assert f"Build: it saves {present_value} in present value over 36 months" in page
    analysis = client.get(reverse("planner:saved-analysis", args=[saved.pk])).json()
    assert analysis["cumulative"]["rent"] == compare(scenario)["rent"]["cumulative"]
    assert "Rename" in page and "Delete" in page


def test_a_saved_scenario_does_not_change_when_the_catalog_does(client, shipped_catalog):
    home = reverse("planner:home")
    form = client.get(home).context["form"]
    data = {n: form.initial.get(n, f.initial) for n, f in form.fields.items()}
    data = {k: ("on" if v is True else v) for k, v in data.items() if v not in (None, False)}
    location = client.post(home, data)["Location"]
    save(client, location.removeprefix("/r/"))
    saved = SavedScenario.objects.get()
    before = compare(parse_scenario(saved.scenario))
    from webapp.catalog.models import CloudRate

    CloudRate.objects.update(hourly_rate=0)
    after = client.get(reverse("planner:saved-analysis", args=[saved.pk])).json()
    assert after["cumulative"]["rent"] == before["rent"]["cumulative"]


def test_a_bad_code_is_not_saved(client):
    response = save(client, "garbage")
    assert response.status_code == 400
    assert not SavedScenario.objects.exists()


def test_the_list_shows_only_this_browsers_scenarios(client, scenario):
    mine = create_saved_scenario(name="mine", scenario=scenario, user=None, session_key="x")
    save(client, encode(scenario), name="from this browser")
    html = client.get(reverse("planner:saved-list")).content.decode()
    assert "from this browser" in html
    assert mine.name not in html


def test_the_owner_session_can_rename_and_delete(client, permalink):
    save(client, permalink)
    saved = SavedScenario.objects.get()
    rename = client.post(reverse("planner:saved-rename", args=[saved.pk]), {"name": "Renamed"})
    assert rename.status_code == 302
    saved.refresh_from_db()
    assert saved.name == "Renamed"
    delete = client.post(reverse("planner:saved-delete", args=[saved.pk]))
    assert delete.status_code == 302
    assert not SavedScenario.objects.exists()


def test_someone_else_may_view_but_not_rename_or_delete(client, permalink):
    save(client, permalink)
    saved = SavedScenario.objects.get()
    other = Client()
    page = other.get(reverse("planner:saved-detail", args=[saved.pk]), HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200
    assert "Delete" not in page.content.decode()
    assert (
        other.post(reverse("planner:saved-rename", args=[saved.pk]), {"name": "x"}).status_code
        == 404
    )
    assert other.post(reverse("planner:saved-delete", args=[saved.pk])).status_code == 404
    saved.refresh_from_db()
    assert saved.name == "My box"


def test_a_signed_in_owner_and_staff_may_modify_but_another_user_may_not(scenario):
    alice = User.objects.create_user("alice")
    users = {"bob": User.objects.create_user("bob"), "alice": alice}
    users["root"] = User.objects.create_user("root", is_staff=True)
    saved = create_saved_scenario(name="a", scenario=scenario, user=alice, session_key=None)
    url = reverse("planner:saved-rename", args=[saved.pk])
    for username, status in (("bob", 404), ("alice", 302), ("root", 302)):
        client = Client()
        client.force_login(users[username])
        assert client.post(url, {"name": username}).status_code == status
    saved.refresh_from_db()
    assert saved.name == "root"


def test_renaming_to_an_empty_name_is_refused(client, permalink):
    save(client, permalink)
    saved = SavedScenario.objects.get()
    response = client.post(reverse("planner:saved-rename", args=[saved.pk]), {"name": ""})
    assert response.status_code == 400
    saved.refresh_from_db()
    assert saved.name == "My box"


def test_an_unknown_saved_scenario_is_404(client):
    url = reverse("planner:saved-detail", args=["6f1c1d1e-0000-4000-8000-000000000000"])
    assert client.get(url).status_code == 404


def test_re_running_resolves_todays_prices_and_keeps_overrides(client, shipped_catalog):
    from webapp.catalog.models import CloudRate

    home = reverse("planner:home")
    form = client.get(home).context["form"]
    data = {n: form.initial.get(n, f.initial) for n, f in form.fields.items()}
    data = {k: ("on" if v is True else v) for k, v in data.items() if v not in (None, False)}
    data["build__capex"] = "11111"
    location = client.post(home, data)["Location"]
    assert link_of(location).overrides == ["build.capex"]
    save(client, location.removeprefix("/r/"))
    old = SavedScenario.objects.get()
    assert old.selection["cloud_offering"] is None  # left to the catalog: the row it used
    [rate] = [item for item in old.provenance if item["role"] == "cloud rate"]
    offering = rate["natural_key"][0]
    latest = CloudRate.objects.filter(offering__slug=offering).order_by("-effective_date").first()
    latest.hourly_rate = latest.hourly_rate * 2
    latest.save()

    response = client.post(reverse("planner:saved-rerun", args=[old.pk]))
    assert response.status_code == 302
    new = SavedScenario.objects.exclude(pk=old.pk).get()
    assert new.scenario["build"]["capex"] == 11111
    assert new.overrides == ["build.capex"]
    assert new.scenario["rent"]["hourly_rate"] > old.scenario["rent"]["hourly_rate"]
    old.refresh_from_db()
    assert old.scenario["rent"]["hourly_rate"] == link_of(location).scenario.rent.hourly_rate


def test_a_hand_entered_scenario_cannot_be_re_run(client, permalink):
    save(client, permalink)
    saved = SavedScenario.objects.get()
    response = client.post(reverse("planner:saved-rerun", args=[saved.pk]))
    assert response.status_code == 400
    assert SavedScenario.objects.count() == 1


def test_comparing_two_to_four_scenarios_shows_headlines_and_one_chart(client, scenario_data):
    items = []
    for rate in (28.0, 10.0, 2.0):
        data = {**scenario_data, "rent": {**scenario_data["rent"], "hourly_rate": rate}}
        items.append(
            create_saved_scenario(
                name=f"rate {rate}", scenario=parse_scenario(data), user=None, session_key="s"
            )
        )
    url = reverse("planner:saved-compare")
    response = client.get(url, {"ids": [str(i.pk) for i in items]}, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    html = response.content.decode()
    charts = json_script(html, "compare-data")["charts"]
    assert len(charts) == 1  # one currency, one chart
    chart = charts[0]
    assert chart["axis"] == "Cumulative cost [¥]"
    assert [s["name"] for s in chart["series"]] == ["rate 28.0", "rate 10.0", "rate 2.0"]
    for series, item in zip(chart["series"], items, strict=True):
        result = compare(parse_scenario(item.scenario))
        assert series["build"]["cumulative"] == result["build"]["cumulative"]
        assert series["rent"]["cumulative"] == result["rent"]["cumulative"]
    assert "Building pays for itself in 2.7 months." in html


@pytest.mark.parametrize(
    ("count", "message"),
    [
        (0, "Tick at least 2 scenarios to compare them (you ticked 0)"),
        (1, "Tick at least 2 scenarios to compare them (you ticked 1)"),
        (5, "Tick at most 4 scenarios to compare them (you ticked 5)"),
    ],
)
def test_ticking_fewer_than_two_or_more_than_four_says_so_on_the_list_itself(
    client, permalink, count, message
):
    for i in range(5):
        save(client, permalink, name=f"box {i}")
    ids = [str(pk) for pk in SavedScenario.objects.values_list("pk", flat=True)][:count]
    for url in (reverse("planner:saved-compare"), reverse("planner:saved-summary-csv")):
        response = client.get(url, {"ids": ids}, HTTP_ACCEPT_LANGUAGE="en")
        assert response.status_code == 200
        html = response.content.decode()
        assert response.templates[0].name == "planner/saved_list.html"
        assert message in html
        assert "damaged" not in html and "altered" not in html
        assert html.count(" checked>") == count  # the ticks are kept
        assert html.count('name="ids"') == 5  # the whole list is there to tick again


def test_comparing_unknown_ids_answers_as_for_any_id_the_visitor_may_not_see(client):
    """A malformed id gets the one wording and status of every id a visitor may not see
    (webapp.security), not a message that tells the two apart."""
    response = client.get(
        reverse("planner:saved-compare"), {"ids": ["nope", "x"]}, HTTP_ACCEPT_LANGUAGE="en"
    )
    assert response.status_code == 404
    assert not_visible_message("nope") in response.content.decode()
    assert "is not a valid UUID" not in response.content.decode()


def test_scenarios_saved_before_logging_in_follow_the_user_who_logs_in(client, permalink):
    User.objects.create_user("carol", password="a long passphrase", is_staff=True)
    for name in ("first", "second"):
        assert save(client, permalink, name).status_code == 302
    anonymous_key = client.session.session_key
    before = client.get(reverse("planner:saved-list")).content.decode()
    assert "first" in before and "second" in before

    login = client.post(
        reverse("admin:login"),
        {"username": "carol", "password": "a long passphrase", "next": "/admin/"},
    )

    assert login.status_code == 302
    assert client.session.session_key != anonymous_key  # login rotated the session key
    page = client.get(reverse("planner:saved-list")).content.decode()
    assert "first" in page and "second" in page
    carol = User.objects.get(username="carol")
    assert set(SavedScenario.objects.values_list("owner", "session_key")) == {(carol.pk, "")}
    item = SavedScenario.objects.get(name="first")
    assert (
        client.post(reverse("planner:saved-rename", args=[item.pk]), {"name": "x"}).status_code
        == 302
    )


def test_logging_in_claims_only_this_browsers_anonymous_saves(client, permalink, scenario):
    other = create_saved_scenario(name="someone else's", scenario=scenario, session_key="other")
    save(client, permalink, "mine")
    dave = User.objects.create_user("dave", password="another long passphrase")

    client.force_login(dave)

    assert SavedScenario.objects.get(name="mine").owner == dave
    other.refresh_from_db()
    assert other.owner is None and other.session_key == "other"


def test_the_saved_lists_checkbox_column_has_a_header_a_screen_reader_reads(client, db, permalink):
    client.post("/saved/new", {"code": permalink, "name": "a"})
    page = client.get("/saved/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<th><span class="visually-hidden">Compare</span></th>' in page
