"""Saved scenarios in the API by team: personal tokens, who sees, who deletes."""

import pytest
from django.test import Client

from tests.webapp.accounts.factories import people, signed_in
from tests.webapp.api.conftest import post_json, script_of
from webapp.scenarios.models import SavedScenario
from webapp.scenarios.services import create_saved_scenario

pytestmark = pytest.mark.django_db

URL = "/api/v1/scenarios"


@pytest.fixture
def team(db):
    return people()


def test_two_members_see_each_others_shared_scenarios_and_an_outsider_does_not(team, scenario_data):
    alice, bob, carol = (script_of(u) for u in (team.alice, team.bob, team.carol))
    a = post_json(alice, URL, {"name": "alice's", "scenario": scenario_data, "team": "Vision"})
    b = post_json(bob, URL, {"name": "bob's", "scenario": scenario_data, "team": "Vision"})
    assert (a.status_code, b.status_code) == (201, 201)
    assert (a.json()["owner"], a.json()["team"]) == ("alice", "Vision")

    for member in (alice, bob):
        assert {s["name"] for s in member.get(URL).json()["items"]} == {"alice's", "bob's"}
        assert member.get(f"{URL}/{a.json()['id']}").status_code == 200
        assert member.get(f"{URL}/{b.json()['id']}").status_code == 200
    assert carol.get(URL).json() == {"items": [], "count": 0, "page": 1, "pages": 1}
    for created in (a, b):
        assert carol.get(f"{URL}/{created.json()['id']}").status_code == 404
        assert Client().get(f"{URL}/{created.json()['id']}").status_code == 404


@pytest.mark.parametrize(
    ("who", "status"),
    [("alice", 200), ("bob", 200), ("staff", 200), ("carol", 404), ("anonymous", 404)],
)
def test_fetching_a_shared_scenario_by_token_and_by_session(team, scenario, who, status):
    saved = create_saved_scenario(name="s", scenario=scenario, user=team.alice, team=team.vision)
    if who == "anonymous":
        clients = [Client()]
    else:
        user = getattr(team, who)
        clients = [script_of(user), signed_in(user)]
    for client in clients:
        assert client.get(f"{URL}/{saved.pk}").status_code == status


@pytest.mark.parametrize(
    ("who", "status"),
    [("bob", 403), ("carol", 404), ("alice", 204)],  # member / other team / author
)
def test_deleting_by_token_needs_the_author_or_a_team_admin(team, scenario, who, status):
    saved = create_saved_scenario(name="s", scenario=scenario, user=team.alice, team=team.vision)

    response = script_of(getattr(team, who)).delete(f"{URL}/{saved.pk}")

    assert response.status_code == status
    assert SavedScenario.objects.filter(pk=saved.pk).exists() is (status != 204)


def test_a_team_admin_deletes_a_members_shared_scenario(team, scenario):
    saved = create_saved_scenario(name="s", scenario=scenario, user=team.bob, team=team.vision)
    assert script_of(team.alice).delete(f"{URL}/{saved.pk}").status_code == 204


def test_sharing_with_a_team_one_is_not_in_is_a_422_that_names_the_field(team, scenario_data):
    response = post_json(
        script_of(team.carol), URL, {"name": "x", "scenario": scenario_data, "team": "Vision"}
    )
    assert response.status_code == 422
    assert [e["field"] for e in response.json()["errors"]] == ["team"]
    assert not SavedScenario.objects.exists()


def test_sharing_needs_a_token(team, scenario_data):
    response = post_json(Client(), URL, {"name": "x", "scenario": scenario_data, "team": "Vision"})
    assert response.status_code == 422
    assert [e["field"] for e in response.json()["errors"]] == ["team"]


def test_a_scenario_created_with_a_token_belongs_to_its_user_unshared(team, scenario_data):
    created = post_json(script_of(team.bob), URL, {"name": "x", "scenario": scenario_data})
    assert created.status_code == 201
    saved = SavedScenario.objects.get()
    assert (saved.owner, saved.team) == (team.bob, None)
    assert script_of(team.alice).get(f"{URL}/{saved.pk}").status_code == 404


def test_a_wrong_token_is_a_401_not_an_anonymous_call(team, scenario_data):
    bad = Client(HTTP_AUTHORIZATION="Bearer brg_not-a-token")
    for response in (
        bad.get(URL),
        post_json(bad, URL, {"name": "x", "scenario": scenario_data}),
    ):
        assert response.status_code == 401
        assert response.json()["errors"][0]["field"] == "Authorization"
    assert not SavedScenario.objects.exists()


def test_listing_needs_a_token_or_a_session(db):
    assert Client().get(URL).status_code == 401
