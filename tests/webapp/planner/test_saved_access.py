"""Who sees a saved scenario on the web: its owner, its team's members and staff; not another
team, not an anonymous visitor. Only the owner, a team admin or staff rename or delete it."""

import re
import uuid

import pytest
from django.test import Client
from django.urls import reverse

from tests.webapp.accounts.factories import people, signed_in
from webapp.scenarios.models import SavedScenario
from webapp.scenarios.services import create_saved_scenario

pytestmark = pytest.mark.django_db

VIEWS = ["saved-detail", "saved-csv", "saved-analysis", "saved-workbook"]


@pytest.fixture
def team(db):
    return people()


@pytest.fixture
def shared(team, scenario):
    """Alice's scenario, shared with her team Vision (Bob is a member; Carol is not)."""
    return create_saved_scenario(
        name="Alice's box", scenario=scenario, user=team.alice, team=team.vision
    )


@pytest.fixture
def bobs(team, scenario):
    return create_saved_scenario(
        name="Bob's box", scenario=scenario, user=team.bob, team=team.vision
    )


def client_of(team, who):
    return Client() if who == "anonymous" else signed_in(getattr(team, who))


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize(
    ("who", "status"),
    [("alice", 200), ("bob", 200), ("staff", 200), ("carol", 404), ("anonymous", 404)],
)
def test_a_shared_scenario_is_seen_by_its_team_and_staff_only(team, shared, view, who, status):
    response = client_of(team, who).get(reverse(f"planner:{view}", args=[shared.pk]))
    assert response.status_code == status


@pytest.mark.parametrize(("who", "status"), [("alice", 200), ("bob", 404), ("staff", 200)])
def test_an_unshared_scenario_is_seen_by_its_owner_and_staff(team, scenario, who, status):
    private = create_saved_scenario(name="private", scenario=scenario, user=team.alice)
    response = client_of(team, who).get(reverse("planner:saved-detail", args=[private.pk]))
    assert response.status_code == status


def test_two_members_see_each_others_shared_scenarios_and_an_outsider_does_not(team, shared, bobs):
    url = reverse("planner:saved-list")
    for member in (team.alice, team.bob):
        page = signed_in(member).get(url).content.decode()
        assert "Alice&#x27;s box" in page and "Bob&#x27;s box" in page
    outsider = signed_in(team.carol).get(url).content.decode()
    assert "Alice&#x27;s box" not in outsider and "Bob&#x27;s box" not in outsider


@pytest.mark.parametrize("view", ["saved-compare", "saved-summary-csv", "saved-compare-workbook"])
@pytest.mark.parametrize(("who", "allowed"), [("bob", True), ("staff", True), ("carol", False)])
def test_only_those_who_see_both_scenarios_compare_them(team, shared, bobs, view, who, allowed):
    response = client_of(team, who).get(
        reverse(f"planner:{view}"), {"ids": [shared.pk, bobs.pk]}, HTTP_ACCEPT_LANGUAGE="en"
    )
    body = response.content.decode(errors="replace")
    if allowed:
        assert response.status_code == 200
        assert "is not a saved scenario you can open" not in body
    else:
        assert response.status_code == 404
        assert f"“{shared.pk}” is not a saved scenario you can open." in body


@pytest.mark.parametrize(
    ("who", "status"),
    [
        ("bob", 302),  # the author
        ("alice", 302),  # an admin of its team
        ("staff", 302),
        ("dave", 404),  # a member of its team: sees it, may not change it
        ("carol", 404),
        ("anonymous", 404),
    ],
)
def test_the_author_a_team_admin_and_staff_rename_others_do_not(team, bobs, who, status):
    response = client_of(team, who).post(
        reverse("planner:saved-rename", args=[bobs.pk]), {"name": "renamed"}
    )
    assert response.status_code == status
    bobs.refresh_from_db()
    assert (bobs.name == "renamed") is (status == 302)


def test_a_member_who_is_not_the_author_cannot_delete(team, shared):
    page = signed_in(team.bob).get(
        reverse("planner:saved-detail", args=[shared.pk]), HTTP_ACCEPT_LANGUAGE="en"
    )
    assert "Shared with the team “Vision”." in page.content.decode()
    assert "Delete" not in page.content.decode()
    assert "Change sharing" not in page.content.decode()
    response = signed_in(team.bob).post(reverse("planner:saved-delete", args=[shared.pk]))
    assert response.status_code == 404
    assert SavedScenario.objects.filter(pk=shared.pk).exists()


def test_an_anonymous_save_is_still_seen_by_whoever_has_its_link(team, scenario):
    anonymous = create_saved_scenario(name="anon", scenario=scenario, session_key="k")
    for client in (Client(), signed_in(team.carol)):
        assert client.get(reverse("planner:saved-detail", args=[anonymous.pk])).status_code == 200


def test_the_results_page_links_to_the_account_without_reading_the_session(
    team, scenario, django_assert_num_queries
):
    from webapp.planner.permalink import encode

    client = signed_in(team.alice)
    url = reverse("planner:results", args=[encode(scenario)])
    client.get(url)
    with django_assert_num_queries(0):
        page = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert f'href="{reverse("accounts:account")}" id="account-link"' in page


@pytest.mark.parametrize(("who", "status"), [("bob", 400), ("carol", 404), ("anonymous", 404)])
def test_only_those_who_see_a_scenario_re_run_it(team, shared, who, status):
    # A hand-entered scenario: one who may see it is told it cannot be re-run (400).
    response = client_of(team, who).post(reverse("planner:saved-rerun", args=[shared.pk]))
    assert response.status_code == status
    assert SavedScenario.objects.count() == 1


# Every route that takes the id of a saved scenario: (route, how the id is passed).
ROUTES_WITH_AN_ID = [
    ("saved-compare", "ids"),
    ("saved-summary-csv", "ids"),
    ("saved-compare-workbook", "ids"),
    *((view, "path") for view in [*VIEWS, "saved-zip", "saved-scenario"]),
    ("api", "path"),
]


def answer_about(client, route: str, how: str, scenario_id, others: list) -> tuple[int, str]:
    """Status and body of ``route`` asked about ``scenario_id``, the id itself blanked out
    (and the per-answer CSRF token), so that two answers can be compared."""
    if route == "api":
        response = client.get(f"/api/v1/scenarios/{scenario_id}", HTTP_ACCEPT_LANGUAGE="en")
    elif how == "ids":
        ids = [scenario_id, *others]
        response = client.get(reverse(f"planner:{route}"), {"ids": ids}, HTTP_ACCEPT_LANGUAGE="en")
    else:
        url = reverse(f"planner:{route}", args=[scenario_id])
        response = client.get(url, HTTP_ACCEPT_LANGUAGE="en")
    body = response.content.decode(errors="replace").replace(str(scenario_id), "ID")
    return response.status_code, re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", body)


@pytest.mark.parametrize(("route", "how"), ROUTES_WITH_AN_ID)
@pytest.mark.parametrize("who", ["carol", "anonymous"])
def test_an_outsider_gets_the_same_answer_for_a_private_scenario_and_an_unknown_id(
    team, scenario, shared, route, how, who
):
    """Alice's private scenario, her team's, a deleted one and a made-up id: one status and
    one wording, on every route, so an outsider cannot tell which exist."""
    private = create_saved_scenario(name="private", scenario=scenario, user=team.alice)
    deleted = create_saved_scenario(name="gone", scenario=scenario, user=team.alice)
    deleted_id = deleted.pk
    deleted.delete()
    client = client_of(team, who)
    own = []
    if who == "carol":
        own = [create_saved_scenario(name="mine", scenario=scenario, user=team.carol).pk]
    answers = {
        name: answer_about(client, route, how, scenario_id, own)
        for name, scenario_id in [
            ("private", private.pk),
            ("team's", shared.pk),
            ("deleted", deleted_id),
            ("made up", uuid.uuid4()),
        ]
    }
    assert len(set(answers.values())) == 1, {k: v[0] for k, v in answers.items()}
    status, body = answers["private"]
    assert status == 404
    if how == "ids" or route == "api":
        assert "“ID” is not a saved scenario you can open." in body
