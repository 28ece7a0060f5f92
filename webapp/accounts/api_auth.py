"""Personal API tokens as django-ninja authentication (``Authorization: Bearer <token>``)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja.security import HttpBearer

from webapp.accounts import selectors, services
from webapp.errors import error


class TokenAuth(HttpBearer):
    """The user of a personal API token; a token that is not valid is a 401, never anonymous."""

    def authenticate(self, request: HttpRequest, token: str) -> Any:
        found = selectors.token(token.strip())
        if found is None:
            raise error(401, "Authorization", _("the API token is not valid (revoked or mistyped)"))
        services.touch_token(found)
        request.user = found.user
        return found.user


def anyone(request: HttpRequest) -> AnonymousUser:
    """Last in an ``auth`` list: the operation is open to anonymous callers too."""
    return AnonymousUser()


token_auth = TokenAuth()
