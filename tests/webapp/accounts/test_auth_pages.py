"""Sign-in, sign-out and password reset: Django's views with this site's pages, in both
languages."""

import re

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from django.urls import reverse

from webapp.planner.permalink import encode
from webapp.scenarios.models import SavedScenario

from .factories import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def erin(db):
    return User.objects.create_user("erin", "erin@example.com", PASSWORD)


@pytest.mark.parametrize(
    ("language", "title", "link"),
    [("en", "Sign in", "Forgot your password?"), ("zh-hans", "登录", "忘记密码？")],
)
def test_the_sign_in_page_speaks_both_languages(db, language, title, link):
    page = Client().get(reverse("login"), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert f"<h1>{title}</h1>" in page
    assert link in page


def test_signing_in_moves_this_browsers_saves_to_the_account_and_signing_out_ends_it(
    erin, scenario
):
    client = Client()
    client.post(reverse("planner:save"), {"code": encode(scenario), "name": "anonymous save"})

    response = client.post(reverse("login"), {"username": "erin", "password": PASSWORD})

    assert response.status_code == 302
    assert response["Location"] == reverse("planner:saved-list")
    assert SavedScenario.objects.get().owner == erin
    assert "anonymous save" in client.get(reverse("planner:saved-list")).content.decode()
    account = client.get(reverse("accounts:account"), HTTP_ACCEPT_LANGUAGE="en")
    assert "Signed in as erin." in account.content.decode()
    assert client.post(reverse("logout")).status_code == 302
    assert client.get(reverse("accounts:account"))["Location"].startswith(reverse("login"))


def test_a_wrong_password_is_refused_on_the_page(erin):
    page = Client().post(
        reverse("login"), {"username": "erin", "password": "wrong"}, HTTP_ACCEPT_LANGUAGE="en"
    )
    assert page.status_code == 200
    assert "Please enter a correct username and password" in page.content.decode()


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_password_reset_link_sent_by_email_sets_a_new_password(erin, language):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    assert client.get(reverse("password_reset")).status_code == 200

    sent = client.post(reverse("password_reset"), {"email": "erin@example.com"})

    assert sent.status_code == 302
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["erin@example.com"]
    link = re.search(r"http://testserver(/accounts/reset/\S+/)", mail.outbox[0].body).group(1)
    form = client.get(link, follow=True)
    assert form.context["validlink"]
    done = client.post(
        form.redirect_chain[-1][0],
        {"new_password1": "a brand new passphrase", "new_password2": "a brand new passphrase"},
    )
    assert done.status_code == 302
    erin.refresh_from_db()
    assert erin.check_password("a brand new passphrase")


def test_a_password_reset_for_an_unknown_address_sends_nothing(db):
    Client().post(reverse("password_reset"), {"email": "nobody@example.com"})
    assert mail.outbox == []


def test_the_account_page_needs_a_sign_in(db):
    response = Client().get(reverse("accounts:account"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
