"""People and teams for the authorization tests: Alice and Bob in one team, Carol outside it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.test import Client

from webapp.accounts.models import Team
from webapp.accounts.services import add_member, create_team

PASSWORD = "a long enough passphrase"


@dataclass
class People:
    alice: User  # admin of "Vision"
    bob: User  # member of "Vision"
    carol: User  # admin of "Speech", not in "Vision"
    staff: User
    vision: Team
    speech: Team


def people() -> People:
    alice = User.objects.create_user("alice", "alice@example.com", PASSWORD)
    bob = User.objects.create_user("bob", "bob@example.com", PASSWORD)
    carol = User.objects.create_user("carol", "carol@example.com", PASSWORD)
    staff = User.objects.create_user("root", "root@example.com", PASSWORD, is_staff=True)
    vision = create_team("Vision", alice)
    add_member(vision, bob)
    speech = create_team("Speech", carol)
    return People(alice, bob, carol, staff, vision, speech)


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client
