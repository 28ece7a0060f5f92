"""Personal API tokens: created and revoked on the account page, shown once, stored hashed."""

import hashlib
import re

import pytest
from django.test import Client
from django.urls import reverse

from webapp.accounts.models import ApiToken

from .factories import signed_in

pytestmark = pytest.mark.django_db

LIST = "/api/v1/scenarios"


def create_token(client, name="nightly script") -> str:
    page = client.post(reverse("accounts:token-create"), {"name": name}).content.decode()
    return re.search(r'value="(brg_[^"]+)"', page).group(1)


def test_a_new_token_is_shown_once_and_only_its_digest_is_stored(team):
    client = signed_in(team.alice)

    secret = create_token(client)

    token = ApiToken.objects.get()
    assert token.user == team.alice and token.name == "nightly script"
    assert token.digest == hashlib.sha256(secret.encode()).hexdigest()
    assert secret not in client.get(reverse("accounts:account")).content.decode()


def test_a_script_calls_the_api_with_the_token_until_it_is_revoked(team):
    client = signed_in(team.alice)
    secret = create_token(client)
    script = Client(HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert script.get(LIST).status_code == 200
    assert ApiToken.objects.get().last_used_at is not None

    assert (
        client.post(reverse("accounts:token-revoke", args=[ApiToken.objects.get().pk])).status_code
        == 302
    )

    refused = script.get(LIST)
    assert refused.status_code == 401
    assert refused.json()["errors"][0]["field"] == "Authorization"


def test_a_user_cannot_revoke_someone_elses_token(team):
    create_token(signed_in(team.alice))
    token = ApiToken.objects.get()

    response = signed_in(team.bob).post(reverse("accounts:token-revoke", args=[token.pk]))

    assert response.status_code == 404
    assert ApiToken.objects.filter(pk=token.pk).exists()


def test_a_token_without_a_name_is_refused_with_the_field_named(team):
    page = signed_in(team.alice).post(reverse("accounts:token-create"), {"name": ""})
    assert page.status_code == 400
    assert "name" in page.context["token_form"].errors
    assert not ApiToken.objects.exists()


def test_a_token_of_a_deactivated_user_is_refused(team):
    secret = create_token(signed_in(team.alice))
    team.alice.is_active = False
    team.alice.save()

    assert Client(HTTP_AUTHORIZATION=f"Bearer {secret}").get(LIST).status_code == 401


def test_a_user_creates_a_team_and_becomes_its_admin(db, team):
    client = signed_in(team.bob)
    assert client.post(reverse("accounts:team-create"), {"name": "Robotics"}).status_code == 302
    robotics = team.bob.groups.get(name="Robotics").team
    assert list(robotics.admins.all()) == [team.bob]
    again = client.post(reverse("accounts:team-create"), {"name": "Robotics"})
    assert again.status_code == 400
    assert "name" in again.context["team_form"].errors


@pytest.mark.parametrize(("language", "heading"), [("en", "API tokens"), ("zh-hans", "API 令牌")])
def test_the_account_page_speaks_both_languages(team, language, heading):
    page = signed_in(team.alice).get(reverse("accounts:account"), HTTP_ACCEPT_LANGUAGE=language)
    assert f"<h2>{heading}</h2>" in page.content.decode()


def test_changing_the_password_revokes_every_token(team):
    """On the password change page; the account page says so beforehand."""
    team.alice.set_password("the old passphrase, long")
    team.alice.save()
    client = signed_in(team.alice)
    page = client.get(reverse("accounts:account"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Changing or resetting your password revokes all your tokens" in page
    scripts = [Client(HTTP_AUTHORIZATION=f"Bearer {create_token(client, n)}") for n in "ab"]
    bobs = Client(HTTP_AUTHORIZATION=f"Bearer {create_token(signed_in(team.bob))}")
    assert [s.get(LIST).status_code for s in scripts] == [200, 200]

    changed = client.post(
        reverse("password_change"),
        {
            "old_password": "the old passphrase, long",
            "new_password1": "a brand new passphrase",
            "new_password2": "a brand new passphrase",
        },
    )

    assert changed.status_code == 302
    assert [s.get(LIST).status_code for s in scripts] == [401, 401]
    assert bobs.get(LIST).status_code == 200  # another user's token is not touched
    assert not ApiToken.objects.filter(user=team.alice).exists()


def test_a_password_set_anywhere_else_revokes_the_tokens_too(team):
    """A reset link, the admin and `manage.py changepassword` all save with set_password."""
    script = Client(HTTP_AUTHORIZATION=f"Bearer {create_token(signed_in(team.alice))}")
    team.alice.set_password("set by an administrator")
    team.alice.save()
    assert script.get(LIST).status_code == 401
