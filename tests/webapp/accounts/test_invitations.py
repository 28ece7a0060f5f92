"""Sign-up by a team admin's invitation link: it works once, expires, and is stored hashed."""

import hashlib
import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from webapp.accounts.models import Invitation
from webapp.accounts.services import invite
from webapp.planner.permalink import encode
from webapp.scenarios.models import SavedScenario

from .factories import PASSWORD, signed_in

pytestmark = pytest.mark.django_db


def sign_up_data(username="erin"):
    return {
        "username": username,
        "email": f"{username}@example.com",
        "password1": PASSWORD,
        "password2": PASSWORD,
    }


def link_from(page: str) -> str:
    return re.search(r'value="(http://testserver/accounts/invitation/[^"]+)"', page).group(1)


def test_a_team_admin_gets_a_link_that_signs_one_person_up_into_the_team(team):
    page = signed_in(team.alice).post(
        reverse("accounts:team-invite", args=[team.vision.pk]), HTTP_ACCEPT_LANGUAGE="en"
    )
    assert page.status_code == 200
    link = link_from(page.content.decode())

    visitor = Client()
    form = visitor.get(link, HTTP_ACCEPT_LANGUAGE="en")
    assert form.status_code == 200
    assert "You were invited to the team “Vision”" in form.content.decode()
    response = visitor.post(link, sign_up_data())

    assert response.status_code == 302
    erin = User.objects.get(username="erin")
    assert erin.groups.get() == team.vision.group
    assert visitor.get(reverse("accounts:account")).context["user"] == erin  # signed in
    assert Invitation.objects.get().used_by == erin


def test_an_invitation_link_works_only_once(team):
    _, secret = invite(team.vision, team.alice)
    link = reverse("accounts:invitation", args=[secret])
    assert Client().post(link, sign_up_data("erin")).status_code == 302

    again = Client().post(link, sign_up_data("frank"), HTTP_ACCEPT_LANGUAGE="en")

    assert again.status_code == 404
    assert "This invitation link is not valid" in again.content.decode()
    assert not User.objects.filter(username="frank").exists()
    assert Client().get(link).status_code == 404


def test_an_invitation_link_expires(team, settings):
    _, secret = invite(team.vision, team.alice)
    invitation = Invitation.objects.get()
    assert invitation.expires_at - invitation.created_at == pytest.approx(
        timedelta(days=settings.ACCOUNTS_INVITATION_DAYS), abs=timedelta(seconds=5)
    )
    Invitation.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    link = reverse("accounts:invitation", args=[secret])

    assert Client().get(link).status_code == 404
    assert Client().post(link, sign_up_data()).status_code == 404
    assert not User.objects.filter(username="erin").exists()


def test_only_the_secrets_digest_is_stored(team):
    _, secret = invite(team.vision, team.alice)
    invitation = Invitation.objects.get()
    assert invitation.digest == hashlib.sha256(secret.encode()).hexdigest()
    assert secret not in invitation.digest


def test_a_member_who_is_not_an_admin_cannot_invite(team):
    for user, team_ in ((team.bob, team.vision), (team.carol, team.vision)):
        response = signed_in(user).post(reverse("accounts:team-invite", args=[team_.pk]))
        assert response.status_code == 404
    assert not Invitation.objects.exists()


def test_a_signed_in_user_joins_the_team_with_the_link(team):
    _, secret = invite(team.vision, team.alice)
    carol = signed_in(team.carol)
    link = reverse("accounts:invitation", args=[secret])
    assert "Join the team" in carol.get(link, HTTP_ACCEPT_LANGUAGE="en").content.decode()

    assert carol.post(link).status_code == 302

    assert team.carol.groups.filter(pk=team.vision.group.pk).exists()
    assert Client(HTTP_ACCEPT_LANGUAGE="en").get(link).status_code == 404


def test_scenarios_saved_anonymously_move_to_the_account_at_sign_up(team, scenario):
    _, secret = invite(team.vision, team.alice)
    visitor = Client()
    visitor.post(reverse("planner:save"), {"code": encode(scenario), "name": "before"})

    visitor.post(reverse("accounts:invitation", args=[secret]), sign_up_data())

    saved = SavedScenario.objects.get(name="before")
    assert saved.owner == User.objects.get(username="erin")
    assert "before" in visitor.get(reverse("planner:saved-list")).content.decode()


def test_open_registration_is_off_unless_the_setting_turns_it_on(db, settings):
    assert Client().get(reverse("accounts:signup")).status_code == 404
    assert Client().post(reverse("accounts:signup"), sign_up_data()).status_code == 404

    settings.ACCOUNTS_OPEN_SIGNUP = True
    assert Client().post(reverse("accounts:signup"), sign_up_data()).status_code == 302
    assert not User.objects.get(username="erin").groups.exists()


def test_a_sign_up_with_a_bad_password_names_the_field_and_keeps_the_invitation(team):
    _, secret = invite(team.vision, team.alice)
    data = {**sign_up_data(), "password2": "something else"}

    page = Client().post(
        reverse("accounts:invitation", args=[secret]), data, HTTP_ACCEPT_LANGUAGE="en"
    )

    assert page.status_code == 200
    assert "password2" in page.context["form"].errors
    assert Invitation.objects.get().used_at is None


def test_an_email_address_already_in_use_is_refused_and_keeps_the_invitation(team):
    _, secret = invite(team.vision, team.alice)
    data = {**sign_up_data(), "email": "ALICE@example.com"}

    page = Client().post(
        reverse("accounts:invitation", args=[secret]), data, HTTP_ACCEPT_LANGUAGE="zh-hans"
    )

    assert page.status_code == 200
    assert page.context["form"].errors["email"] == ["已有账户使用此电子邮箱地址。"]
    assert Invitation.objects.get().used_at is None


# The worker closes the database connection between tasks, which ends a test's transaction on
# PostgreSQL: a test that runs it commits for real.
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("language", "subject", "words"),
    [
        ("en", "Invitation to the team “Vision”", "alice invites you to the team “Vision”"),
        ("zh-hans", "团队“Vision”的邀请", "alice 邀请您加入"),
    ],
)
def test_an_invitation_is_emailed_through_the_queue_in_the_language_chosen(
    team, settings, language, subject, words
):
    from django.core import mail
    from django.core.management import call_command
    from django_tasks_db.models import DBTaskResult

    settings.EMAIL_BACKEND = "webapp.planner.tasks.QueuedEmailBackend"
    settings.SENT_EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    page = signed_in(team.alice).post(
        reverse("accounts:team-invite", args=[team.vision.pk]),
        {"email": "erin@example.com", "language": language},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert page.status_code == 200
    assert "It is also on its way to erin@example.com by email." in page.content.decode()
    assert mail.outbox == []  # the page only queued it
    assert DBTaskResult.objects.filter(task_path="webapp.planner.tasks.send_email").count() == 1

    call_command("worker", batch=True, niceness=0, verbosity=0)

    [sent] = mail.outbox
    assert (sent.to, sent.subject) == (["erin@example.com"], subject)
    assert words in sent.body
    link = link_from(page.content.decode())
    assert link in sent.body.split()  # the page's link, on a line of its own
    assert Client().post(link, sign_up_data()).status_code == 302  # and it signs erin up
    assert User.objects.get(username="erin").groups.get() == team.vision.group


def test_an_invitation_without_an_address_is_only_shown(team, settings):
    from django.core import mail

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    page = signed_in(team.alice).post(reverse("accounts:team-invite", args=[team.vision.pk]))
    assert page.status_code == 200 and link_from(page.content.decode())
    assert mail.outbox == []


def test_a_wrong_address_is_a_form_error_and_no_invitation_is_made(team, settings):
    from django.core import mail

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    page = signed_in(team.alice).post(
        reverse("accounts:team-invite", args=[team.vision.pk]),
        {"email": "not an address", "language": "en"},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert page.status_code == 400
    assert page.context["invitation_form"].errors == {"email": ["Enter a valid email address."]}
    assert not Invitation.objects.exists() and mail.outbox == []


def test_the_team_page_offers_to_send_the_link(team):
    page = signed_in(team.alice).get(reverse("accounts:team", args=[team.vision.pk]))
    html = page.content.decode()
    assert 'name="email"' in html and 'name="language"' in html
