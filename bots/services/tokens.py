"""API tokens: the one a new account gets, the one a login obtains (rotated once it has
expired: ``config.authentication``), and revoking it. The API's ``/api/auth/`` doors call
these; the site's token page shows the same token (``config.authentication``)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from rest_framework.authtoken.models import Token

from config.authentication import token_for_user


def api_token_create(*, user: AbstractBaseUser) -> Token:
    """A new API token for ``user``, who has none yet (an account just registered)."""
    return Token.objects.create(user=user)


def api_token_obtain(*, user: AbstractBaseUser) -> Token:
    """``user``'s API token (one is made if they have none); an expired one is replaced by
    a new key."""
    return token_for_user(user)


def api_token_delete(*, user: AbstractBaseUser) -> int:
    """Revoke ``user``'s API token: requests with it are refused from now on. Returns how
    many tokens were deleted (0 when they had none)."""
    deleted, _ = Token.objects.filter(user=user).delete()
    return deleted
