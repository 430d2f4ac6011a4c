"""The API tokens' writes (``bots.services.tokens``): what the ``/api/auth/`` doors call."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from bots.services.tokens import api_token_create, api_token_delete, api_token_obtain

pytestmark = pytest.mark.django_db


def signed_in_with(key: str) -> int:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client.get("/api/auth/me/").status_code


@pytest.fixture
def carol():
    return get_user_model().objects.create_user("carol", password="pw-123456789")


def test_a_deleted_token_no_longer_signs_in_and_a_second_delete_finds_none(carol):
    key = api_token_create(user=carol).key
    assert signed_in_with(key) == 200

    assert api_token_delete(user=carol) == 1
    assert signed_in_with(key) == 401
    assert api_token_delete(user=carol) == 0


def test_obtaining_keeps_a_live_token_and_replaces_an_expired_one(carol, settings):
    settings.CARDROOM_TOKEN_TTL_HOURS = 24
    first = api_token_obtain(user=carol).key
    assert api_token_obtain(user=carol).key == first

    Token.objects.filter(key=first).update(created=timezone.now() - timedelta(hours=25))
    second = api_token_obtain(user=carol).key
    assert second != first and signed_in_with(second) == 200
    assert signed_in_with(first) == 401


def test_the_api_door_revokes_through_the_service(carol, monkeypatch):
    """``DELETE /api/auth/token/`` is the service's: the door writes nothing itself."""
    from api import accounts

    revoked = []
    monkeypatch.setattr(accounts, "api_token_delete", lambda *, user: revoked.append(user.pk))
    key = api_token_create(user=carol).key
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")

    assert client.delete("/api/auth/token/").status_code == 204
    assert revoked == [carol.pk] and Token.objects.filter(key=key).exists()
