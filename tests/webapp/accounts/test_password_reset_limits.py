"""Password reset requests are limited per client address and per account typed, counted in
the shared cache; past the limit the answer is the same whether the account exists."""

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db


@pytest.fixture
def erin(db):
    return User.objects.create_user("erin", "erin@example.com", "a long enough passphrase")


def ask(email: str, address: str = "192.0.2.1") -> int:
    response = Client(REMOTE_ADDR=address).post(
        reverse("password_reset"), {"email": email}, HTTP_ACCEPT_LANGUAGE="en"
    )
    if response.status_code == 429:
        assert "Too many password reset requests" in response.content.decode()
    return response.status_code


@pytest.mark.parametrize("email", ["erin@example.com", "nobody@example.com"])
def test_an_account_may_ask_three_times_an_hour_from_any_address(erin, email, settings):
    settings.PASSWORD_RESET_PER_ACCOUNT = 3
    statuses = [ask(email, f"192.0.2.{n}") for n in range(1, 6)]
    assert statuses == [302, 302, 302, 429, 429]  # the same for an unknown address
    assert len(mail.outbox) == (3 if email == "erin@example.com" else 0)
    assert ask(email.upper(), "192.0.2.9") == 429  # the address typed, however it is written


def test_an_address_may_ask_ten_times_an_hour_whatever_it_types(erin, settings):
    settings.PASSWORD_RESET_PER_ADDRESS = 10
    statuses = [ask(f"guess{n}@example.com") for n in range(10)]
    assert statuses == [302] * 10
    assert ask("erin@example.com") == 429
    assert mail.outbox == []
    assert ask("erin@example.com", "192.0.2.2") == 302  # another address may
    assert len(mail.outbox) == 1
