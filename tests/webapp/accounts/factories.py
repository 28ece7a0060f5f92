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
    dave: User  # member of "Vision", not an admin
    staff: User
    vision: Team
    speech: Team


def people() -> People:
    """The cast; without passwords (tests sign them in with ``force_login``)."""
    alice = User.objects.create_user("alice", "alice@example.com")
    bob = User.objects.create_user("bob", "bob@example.com")
    carol = User.objects.create_user("carol", "carol@example.com")
    dave = User.objects.create_user("dave", "dave@example.com")
    staff = User.objects.create_user("root", "root@example.com", is_staff=True)
    vision = create_team("Vision", alice)
    add_member(vision, bob)
    add_member(vision, dave)
    speech = create_team("Speech", carol)
    return People(alice, bob, carol, dave, staff, vision, speech)


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client
