"""The Django admin's team form keeps the team page's rules: admins are members, and a team
with members keeps at least one admin."""

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser_client():
    client = Client()
    client.force_login(User.objects.create_superuser("boss", "boss@example.com"))
    return client


def change(client, team, admins, language="en"):
    return client.post(
        reverse("admin:accounts_team_change", args=[team.pk]),
        {"group": team.group.pk, "admins": [user.pk for user in admins]},
        HTTP_ACCEPT_LANGUAGE=language,
    )


def admin_names(team) -> set[str]:
    return set(team.admins.values_list("username", flat=True))


def test_the_admin_cannot_leave_a_team_with_members_without_an_admin(team, superuser_client):
    response = change(superuser_client, team.vision, [])
    assert response.status_code == 200
    assert "A team with members needs at least one admin." in response.content.decode()
    assert admin_names(team.vision) == {"alice"}

    chinese = change(superuser_client, team.vision, [], language="zh-hans")
    assert "有成员的团队至少需要一名管理员。" in chinese.content.decode()


def test_the_admin_cannot_make_an_outsider_an_admin(team, superuser_client):
    response = change(superuser_client, team.vision, [team.alice, team.carol])
    assert response.status_code == 200
    assert (
        "Only members of the team can administer it; not a member: carol."
        in response.content.decode()
    )
    assert admin_names(team.vision) == {"alice"}


def test_the_admin_hands_the_team_to_another_member(team, superuser_client):
    response = change(superuser_client, team.vision, [team.bob])
    assert response.status_code == 302
    assert admin_names(team.vision) == {"bob"}
