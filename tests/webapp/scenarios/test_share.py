"""The sharing page: the author shares a saved scenario with one of their teams, or stops."""

import pytest
from django.test import Client
from django.urls import reverse

from tests.webapp.accounts.factories import people, signed_in
from webapp.scenarios.services import create_saved_scenario

pytestmark = pytest.mark.django_db


@pytest.fixture
def team(db):
    return people()


@pytest.fixture
def private(team, scenario):
    return create_saved_scenario(name="Alice's box", scenario=scenario, user=team.alice)


def test_the_author_shares_with_a_team_and_its_members_then_see_it(team, private):
    url = reverse("scenarios:share", args=[private.pk])
    detail = reverse("planner:saved-detail", args=[private.pk])
    assert signed_in(team.bob).get(detail).status_code == 404
    alice = signed_in(team.alice)
    assert "Change sharing" in alice.get(detail, HTTP_ACCEPT_LANGUAGE="en").content.decode()

    response = alice.post(url, {"team": team.vision.pk})

    assert response.status_code == 302
    private.refresh_from_db()
    assert private.team == team.vision
    assert signed_in(team.bob).get(detail).status_code == 200

    alice.post(url, {"team": ""})
    private.refresh_from_db()
    assert private.team is None
    assert signed_in(team.bob).get(detail).status_code == 404


def test_the_author_cannot_share_with_a_team_they_are_not_in(team, private):
    page = signed_in(team.alice).post(
        reverse("scenarios:share", args=[private.pk]), {"team": team.speech.pk}
    )
    assert page.status_code == 200
    assert "team" in page.context["form"].errors
    private.refresh_from_db()
    assert private.team is None


@pytest.mark.parametrize("who", ["bob", "carol"])  # a teammate who sees it, an outsider
def test_only_the_author_chooses_the_team(team, scenario, who):
    shared = create_saved_scenario(name="s", scenario=scenario, user=team.alice, team=team.vision)
    response = signed_in(getattr(team, who)).post(
        reverse("scenarios:share", args=[shared.pk]), {"team": ""}
    )
    assert response.status_code == 404
    shared.refresh_from_db()
    assert shared.team == team.vision


def test_the_sharing_page_needs_a_sign_in(team, private):
    response = Client().get(reverse("scenarios:share", args=[private.pk]))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize(
    ("language", "title"),
    [("en", "Share “Alice's box” with a team"), ("zh-hans", "将“Alice's box”与团队共享")],
)
def test_the_sharing_page_speaks_both_languages(team, private, language, title):
    page = signed_in(team.alice).get(
        reverse("scenarios:share", args=[private.pk]), HTTP_ACCEPT_LANGUAGE=language
    )
    assert title.replace("'", "&#x27;") in page.content.decode()
