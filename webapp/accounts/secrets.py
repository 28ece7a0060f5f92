"""Random secrets shown once, stored as their SHA-256 digest.

A secret of 32 random bytes cannot be guessed, so a plain (unsalted, fast)
SHA-256 is enough to keep the stored value useless to whoever reads the
database, and it can be looked up by equality.
"""

from __future__ import annotations

import hashlib
import secrets

TOKEN_PREFIX = "brg_"
"""Start of every API token: lets people (and secret scanners) recognise one."""


def new_secret(prefix: str = "") -> str:
    """A new random secret: ``prefix`` and 43 URL-safe characters (32 random bytes)."""
    return prefix + secrets.token_urlsafe(32)


def digest(secret: str) -> str:
    """The SHA-256 hex digest stored in place of ``secret``."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()
