"""Password guessing: after the limit of wrong passwords for one username from one address,
sign-in (the site's and the admin's) is refused with the site's lockout page until the
cool-off has passed; a success before the limit, or a password reset, clears the count."""

import json
import re
from datetime import timedelta
from io import StringIO

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.core import mail
from django.core.management import call_command
from django.db.models import F
from django.test import Client
from django.urls import reverse

from tests.webapp.test_settings import run

from .factories import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def erin(db):
    return User.objects.create_user("erin", "erin@example.com", PASSWORD)


def sign_in(client: Client, password: str, username: str = "erin", url: str = "") -> int:
    response = client.post(url or reverse("login"), {"username": username, "password": password})
    return response.status_code


def guess_wrong(client: Client, times: int, username: str = "erin", url: str = "") -> list[int]:
    return [sign_in(client, f"guess {n}", username, url) for n in range(times)]


def page_of(response) -> str:
    return response.content.decode()


def is_signed_in(client: Client) -> bool:
    return client.get(reverse("accounts:account")).status_code == 200


@pytest.mark.parametrize(
    ("language", "heading", "wait"),
    [
        ("en", "Too many sign-in attempts", "Try again in 15 minutes"),
        ("zh-hans", "登录尝试次数过多", "请在 15 分钟后再试"),
    ],
)
def test_after_five_wrong_passwords_the_right_one_is_refused_with_the_lockout_page(
    erin, language, heading, wait
):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    assert guess_wrong(client, 4) == [200] * 4  # the form again, with its error

    assert sign_in(client, "guess 5") == 429
    refused = client.post(reverse("login"), {"username": "erin", "password": PASSWORD})

    assert refused.status_code == 429
    page = refused.content.decode()
    assert f'<h1 id="locked-out">{heading}</h1>' in page
    assert wait in page
    assert 'id="account-link"' in page  # the site's layout, not a bare message
    assert f'href="{reverse("password_reset")}"' in page
    assert not is_signed_in(client)


def test_after_the_cool_off_the_right_password_works(erin, settings):
    client = Client()
    guess_wrong(client, 5)
    assert sign_in(client, PASSWORD) == 429

    # Fifteen minutes pass (and a second): the attempts are now older than the cool-off.
    AccessAttempt.objects.update(
        attempt_time=F("attempt_time") - settings.AXES_COOLOFF_TIME - timedelta(seconds=1)
    )

    assert sign_in(client, PASSWORD) == 302
    assert is_signed_in(client)


def test_an_attempt_during_the_lockout_starts_the_wait_again(erin, settings):
    client = Client()
    guess_wrong(client, 5)
    AccessAttempt.objects.update(attempt_time=F("attempt_time") - timedelta(minutes=14))
    assert sign_in(client, "one more guess") == 429

    AccessAttempt.objects.update(attempt_time=F("attempt_time") - timedelta(minutes=14))

    assert sign_in(client, PASSWORD) == 429


def test_the_admin_sign_in_is_locked_too(db):
    User.objects.create_user("root", "root@example.com", PASSWORD, is_staff=True)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    admin_login = reverse("admin:login")
    guess_wrong(client, 5, "root", admin_login)

    refused = client.post(admin_login, {"username": "root", "password": PASSWORD})

    assert refused.status_code == 429
    assert "Too many sign-in attempts" in refused.content.decode()
    assert client.get(reverse("admin:index")).status_code == 302  # still to the sign-in page
    # The lock is the same one on the site's page.
    assert sign_in(client, PASSWORD, "root") == 429


def test_a_success_before_the_limit_resets_the_count(erin):
    client = Client()
    guess_wrong(client, 4)
    assert sign_in(client, PASSWORD) == 302
    client.post(reverse("logout"))

    assert guess_wrong(client, 4) == [200] * 4  # counted from zero again
    assert sign_in(client, PASSWORD) == 302


def test_the_lock_holds_one_username_from_one_address(erin):
    User.objects.create_user("frank", "frank@example.com", PASSWORD)
    guesser = Client(REMOTE_ADDR="198.51.100.7")
    guess_wrong(guesser, 5)
    assert sign_in(guesser, PASSWORD) == 429

    # Erin from her own address, and a colleague from the guesser's (one office, one NAT).
    assert sign_in(Client(REMOTE_ADDR="203.0.113.20"), PASSWORD) == 302
    assert sign_in(Client(REMOTE_ADDR="198.51.100.7"), PASSWORD, "frank") == 302


def test_a_password_reset_works_while_locked_out_and_signs_the_user_in(erin):
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    guess_wrong(client, 5)
    assert sign_in(client, PASSWORD) == 429

    assert client.post(reverse("password_reset"), {"email": "erin@example.com"}).status_code == 302
    link = re.search(r"http://testserver(/accounts/reset/\S+/)", mail.outbox[0].body).group(1)
    form = client.get(link, follow=True)
    done = client.post(
        form.redirect_chain[-1][0],
        {"new_password1": "a brand new passphrase", "new_password2": "a brand new passphrase"},
        follow=True,
    )

    assert done.status_code == 200
    assert "You are signed in as erin." in done.content.decode()
    assert is_signed_in(client)
    client.post(reverse("logout"))
    assert sign_in(client, "a brand new passphrase") == 302  # the lock ended with the reset


def test_staff_see_the_lock_in_the_admin_and_a_command_ends_it(erin):
    root = User.objects.create_superuser("root", "root@example.com", "another passphrase")
    client = Client()
    guess_wrong(client, 5)
    admin = Client(REMOTE_ADDR="203.0.113.20")
    admin.force_login(root)

    listing = admin.get(
        reverse("admin:axes_accessattempt_changelist"), HTTP_ACCEPT_LANGUAGE="zh-hans"
    )

    assert listing.status_code == 200
    assert "登录尝试" in page_of(listing) and "erin" in page_of(listing)
    out = StringIO()
    call_command("axes_reset_username", "erin", stdout=out)
    assert "1 attempts removed." in out.getvalue()
    assert sign_in(client, PASSWORD) == 302


IP_PROBE = """
import django
django.setup()
from axes.helpers import get_client_ip_address
from django.test import RequestFactory
request = RequestFactory().post(
    "/accounts/login/",
    REMOTE_ADDR="127.0.0.1",
    HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.9",
)
print(get_client_ip_address(request))
"""


@pytest.mark.parametrize(
    ("behind_proxy", "address"), [("true", "203.0.113.9"), ("false", "127.0.0.1")]
)
def test_the_address_is_the_one_the_proxy_appended_only_behind_a_proxy(behind_proxy, address):
    # nginx appends the client's address to whatever X-Forwarded-For the client sent
    # (docs/nginx.conf): "6.6.6.6" is the client's claim, "203.0.113.9" nginx's addition.
    result = run(
        ["-c", IP_PROBE],
        {
            "DJANGO_SETTINGS_MODULE": "webapp.settings",
            "DJANGO_SECRET_KEY": "x" * 50,
            "DJANGO_BEHIND_PROXY": behind_proxy,
        },
    )

    assert result.stdout.strip() == address, result.stderr


@pytest.mark.parametrize(
    ("env", "limits"),
    [
        ({}, [5, 15]),
        ({"DJANGO_LOGIN_FAILURE_LIMIT": "10", "DJANGO_LOGIN_COOLOFF_MINUTES": "60"}, [10, 60]),
    ],
)
def test_the_limit_and_the_cool_off_come_from_the_environment(env, limits):
    result = run(
        [
            "-c",
            "import json, webapp.settings as s; "
            "print(json.dumps([s.AXES_FAILURE_LIMIT, s.AXES_COOLOFF_TIME.seconds // 60]))",
        ],
        {"DJANGO_SECRET_KEY": "x" * 50, **env},
    )

    assert json.loads(result.stdout) == limits, result.stderr


@pytest.mark.parametrize("variable", ["DJANGO_LOGIN_FAILURE_LIMIT", "DJANGO_LOGIN_COOLOFF_MINUTES"])
def test_a_limit_below_one_is_refused_at_start(variable):
    result = run(["manage.py", "check"], {"DJANGO_SECRET_KEY": "x" * 50, variable: "0"})

    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert variable in result.stderr
