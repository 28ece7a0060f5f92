"""A team admin manages the team on its page: members, admin rights, pending invitations;
any member leaves. A team never loses its last admin while it has members, and anyone who
is not an admin of the team (staff included) gets "not found"."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from webapp.accounts.models import Invitation, Team
from webapp.accounts.services import invite
from webapp.scenarios.services import create_saved_scenario

from .factories import signed_in

pytestmark = pytest.mark.django_db


def members(team: Team) -> set[str]:
    return set(team.group.user_set.values_list("username", flat=True))


def admins(team: Team) -> set[str]:
    return set(team.admins.values_list("username", flat=True))


def page_of(response) -> str:
    return response.content.decode()


@pytest.fixture
def bobs_shared(team, scenario):
    return create_saved_scenario(
        name="Bob's shared box", scenario=scenario, user=team.bob, team=team.vision
    )


def test_a_team_admin_sees_the_members_and_the_pending_invitations(team):
    open_one, _ = invite(team.vision, team.alice)
    used, _ = invite(team.vision, team.alice)
    expired, _ = invite(team.vision, team.alice)
    Invitation.objects.filter(pk=used.pk).update(used_at=timezone.now(), used_by=team.bob)
    Invitation.objects.filter(pk=expired.pk).update(expires_at=timezone.now() - timedelta(1))
    account = page_of(signed_in(team.alice).get(reverse("accounts:account")))
    assert reverse("accounts:team", args=[team.vision.pk]) in account

    response = signed_in(team.alice).get(
        reverse("accounts:team", args=[team.vision.pk]), HTTP_ACCEPT_LANGUAGE="en"
    )

    assert response.status_code == 200
    page = page_of(response)
    assert "<h1>Team “Vision”</h1>" in page
    for name in ("alice", "bob", "dave"):
        assert f'data-member="{name}"' in page
    assert 'data-member="carol"' not in page
    assert f'data-invitation="{open_one.pk}"' in page
    assert f'data-invitation="{used.pk}"' not in page
    assert f'data-invitation="{expired.pk}"' not in page


def test_the_team_page_speaks_chinese(team):
    page = page_of(
        signed_in(team.alice).get(
            reverse("accounts:team", args=[team.vision.pk]), HTTP_ACCEPT_LANGUAGE="zh-hans"
        )
    )
    assert "<h1>团队“Vision”</h1>" in page
    assert "待使用的邀请" in page and "移出团队" in page


ACTIONS = [
    ("accounts:team-remove", "member"),
    ("accounts:team-admin-grant", "member"),
    ("accounts:team-admin-drop", "member"),
    ("accounts:team-invitation-revoke", "invitation"),
]


@pytest.mark.parametrize("who", ["bob", "carol", "staff"])
def test_the_team_page_and_its_actions_are_not_found_for_anyone_but_its_admins(team, who):
    """A plain member, another team's admin, and staff (who use the admin site)."""
    invitation, _ = invite(team.vision, team.alice)
    client = signed_in(getattr(team, who))
    assert client.get(reverse("accounts:team", args=[team.vision.pk])).status_code == 404

    for name, field in ACTIONS:
        value = invitation.pk if field == "invitation" else team.dave.pk
        response = client.post(reverse(name, args=[team.vision.pk]), {field: value})
        assert response.status_code == 404, name

    assert members(team.vision) == {"alice", "bob", "dave"}
    assert admins(team.vision) == {"alice"}
    assert Invitation.objects.filter(pk=invitation.pk).exists()


def test_anonymous_visitors_are_sent_to_sign_in_and_change_nothing(team):
    invitation, _ = invite(team.vision, team.alice)
    client = Client()
    response = client.get(reverse("accounts:team", args=[team.vision.pk]))
    assert response["Location"].startswith(reverse("login"))

    for name, field in [*ACTIONS, ("accounts:team-leave", "member")]:
        value = invitation.pk if field == "invitation" else team.dave.pk
        response = client.post(reverse(name, args=[team.vision.pk]), {field: value})
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))

    assert members(team.vision) == {"alice", "bob", "dave"}
    assert Invitation.objects.filter(pk=invitation.pk).exists()


def test_the_actions_take_a_post_with_a_csrf_token(team):
    url = reverse("accounts:team-remove", args=[team.vision.pk])
    assert signed_in(team.alice).get(url).status_code == 405
    client = Client(enforce_csrf_checks=True)
    client.force_login(team.alice)

    assert client.post(url, {"member": team.bob.pk}).status_code == 403
    assert "bob" in members(team.vision)


def test_an_admin_removes_a_member_whose_shared_scenarios_stay_theirs_unshared(team, bobs_shared):
    detail = reverse("planner:saved-detail", args=[bobs_shared.pk])
    assert signed_in(team.dave).get(detail).status_code == 200

    response = signed_in(team.alice).post(
        reverse("accounts:team-remove", args=[team.vision.pk]),
        {"member": team.bob.pk},
        HTTP_ACCEPT_LANGUAGE="en",
        follow=True,
    )

    assert members(team.vision) == {"alice", "dave"}
    assert (
        "bob is no longer a member of the team “Vision”. 1 scenario they shared with the "
        "team is no longer shared; it stays theirs." in page_of(response)
    )
    bobs_shared.refresh_from_db()
    assert bobs_shared.owner == team.bob and bobs_shared.team is None
    assert signed_in(team.dave).get(detail).status_code == 404
    assert signed_in(team.bob).get(detail).status_code == 200


def test_a_member_of_another_team_cannot_be_named(team):
    response = signed_in(team.alice).post(
        reverse("accounts:team-remove", args=[team.vision.pk]), {"member": team.carol.pk}
    )
    assert response.status_code == 404
    assert members(team.speech) == {"carol"}


def test_an_admin_makes_a_member_admin_and_takes_the_rights_back(team):
    alice = signed_in(team.alice)
    team_page = reverse("accounts:team", args=[team.vision.pk])

    granted = alice.post(
        reverse("accounts:team-admin-grant", args=[team.vision.pk]),
        {"member": team.bob.pk},
        HTTP_ACCEPT_LANGUAGE="en",
        follow=True,
    )

    assert "bob is now an admin of the team “Vision”." in page_of(granted)
    assert admins(team.vision) == {"alice", "bob"}
    assert signed_in(team.bob).get(team_page).status_code == 200

    dropped = alice.post(
        reverse("accounts:team-admin-drop", args=[team.vision.pk]),
        {"member": team.bob.pk},
        HTTP_ACCEPT_LANGUAGE="en",
        follow=True,
    )

    assert "bob is no longer an admin of the team “Vision”." in page_of(dropped)
    assert admins(team.vision) == {"alice"}
    assert signed_in(team.bob).get(team_page).status_code == 404


@pytest.mark.parametrize(
    ("language", "refusal"),
    [
        ("en", "The team “Vision” needs an admin: make another member an admin first."),
        ("zh-hans", "团队“Vision”需要一名管理员：请先将另一名成员设为管理员。"),
    ],
)
def test_the_last_admin_keeps_the_rights_and_the_membership(team, language, refusal):
    alice = signed_in(team.alice)
    for name in ("accounts:team-admin-drop", "accounts:team-remove"):
        response = alice.post(
            reverse(name, args=[team.vision.pk]),
            {"member": team.alice.pk},
            HTTP_ACCEPT_LANGUAGE=language,
        )

        assert response.status_code == 409
        assert refusal in page_of(response)
    assert admins(team.vision) == {"alice"}
    assert "alice" in members(team.vision)


def test_an_admin_may_drop_their_own_rights_when_another_admin_remains(team):
    team.vision.admins.add(team.bob)

    response = signed_in(team.alice).post(
        reverse("accounts:team-admin-drop", args=[team.vision.pk]), {"member": team.alice.pk}
    )

    assert response["Location"] == reverse("accounts:account")  # no longer an admin's page
    assert admins(team.vision) == {"bob"}


def test_an_admin_revokes_an_unused_invitation_and_its_link_stops_working(team):
    invitation, secret = invite(team.vision, team.alice)
    link = reverse("accounts:invitation", args=[secret])
    assert Client().get(link).status_code == 200

    response = signed_in(team.alice).post(
        reverse("accounts:team-invitation-revoke", args=[team.vision.pk]),
        {"invitation": invitation.pk},
        HTTP_ACCEPT_LANGUAGE="en",
        follow=True,
    )

    assert "was revoked; it no longer works." in page_of(response)
    assert Client().get(link).status_code == 404


def test_a_used_invitation_or_another_teams_cannot_be_revoked(team):
    used, _ = invite(team.vision, team.alice)
    Invitation.objects.filter(pk=used.pk).update(used_at=timezone.now(), used_by=team.bob)
    speechs, _ = invite(team.speech, team.carol)
    url = reverse("accounts:team-invitation-revoke", args=[team.vision.pk])

    for invitation in (used, speechs):
        assert signed_in(team.alice).post(url, {"invitation": invitation.pk}).status_code == 404

    assert Invitation.objects.count() == 2


def test_a_member_leaves_and_their_shared_scenarios_stop_being_shared(team, bobs_shared):
    response = signed_in(team.bob).post(
        reverse("accounts:team-leave", args=[team.vision.pk]),
        HTTP_ACCEPT_LANGUAGE="en",
        follow=True,
    )

    assert "You left the team “Vision”. 1 scenario you shared with the team" in page_of(response)
    assert members(team.vision) == {"alice", "dave"}
    bobs_shared.refresh_from_db()
    assert bobs_shared.owner == team.bob and bobs_shared.team is None


def test_the_only_admin_cannot_leave_while_others_remain(team):
    response = signed_in(team.alice).post(
        reverse("accounts:team-leave", args=[team.vision.pk]), HTTP_ACCEPT_LANGUAGE="zh-hans"
    )

    assert response.status_code == 409
    assert "您是团队“Vision”唯一的管理员" in page_of(response)
    assert "alice" in members(team.vision)


def test_the_last_member_leaving_deletes_the_team(team):
    invite(team.speech, team.carol)

    response = signed_in(team.carol).post(reverse("accounts:team-leave", args=[team.speech.pk]))

    assert response.status_code == 302
    assert not Team.objects.filter(pk=team.speech.pk).exists()
    assert not Invitation.objects.filter(team_id=team.speech.pk).exists()
    assert User.objects.filter(username="carol").exists()


@pytest.mark.parametrize("who", ["carol", "staff"])
def test_someone_outside_the_team_cannot_leave_it(team, who):
    response = signed_in(getattr(team, who)).post(
        reverse("accounts:team-leave", args=[team.vision.pk])
    )
    assert response.status_code == 404
