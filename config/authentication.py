"""API tokens that expire: ``Authorization: Token <key>`` is refused once the key is
older than ``CARDROOM_TOKEN_TTL_HOURS`` (0: never).

An expired key is a 401 saying so; ``POST /api/auth/token/`` then replaces it
with a new one (``api.accounts.TokenView``).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token


def token_expires_at(token: Token) -> datetime | None:
    """When ``token`` stops being accepted; None if tokens never expire."""
    hours = settings.CARDROOM_TOKEN_TTL_HOURS
    return token.created + timedelta(hours=hours) if hours > 0 else None


def token_expired(token: Token) -> bool:
    expires_at = token_expires_at(token)
    return expires_at is not None and expires_at <= timezone.now()


class ExpiringTokenAuthentication(TokenAuthentication):
    """DRF's token authentication, refusing keys past their age."""

    def authenticate_credentials(self, key: str):
        user, token = super().authenticate_credentials(key)
        if token_expired(token):
            raise exceptions.AuthenticationFailed(
                "Token expired: obtain a new one with POST /api/auth/token/.",
                code="token_expired",
            )
        return user, token


def token_for_user(user) -> Token:
    """The user's API token; an expired one is replaced by a new key (rotated)."""
    with transaction.atomic():
        token, _ = Token.objects.select_for_update().get_or_create(user=user)
        if token_expired(token):
            token.delete()
            token = Token.objects.create(user=user)
    return token


def token_rotate(user) -> Token:
    """A new API token for ``user``: the old key stops working at once."""
    with transaction.atomic():
        Token.objects.filter(user=user).delete()
        return Token.objects.create(user=user)
