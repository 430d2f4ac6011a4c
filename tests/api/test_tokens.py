"""API tokens expire after CARDROOM_TOKEN_TTL_HOURS; asking again rotates an expired one."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


def obtain(username: str = "alice"):
    return APIClient().post("/api/auth/token/", {"username": username, "password": PASSWORD})


def with_token(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def age(key: str, hours: float) -> None:
    Token.objects.filter(key=key).update(created=timezone.now() - timedelta(hours=hours))


def test_a_token_works_until_its_age_and_says_when_it_expires(alice, settings):
    settings.CARDROOM_TOKEN_TTL_HOURS = 24
    response = obtain()

    assert response.status_code == 200
    body = response.json()
    expires_at = datetime.fromisoformat(body["expires_at"].replace("Z", "+00:00"))
    created = Token.objects.get(key=body["token"]).created
    assert abs(expires_at - (created + timedelta(hours=24))) < timedelta(seconds=1)
    age(body["token"], 23)
    assert with_token(body["token"]).get("/api/auth/me/").status_code == 200


def test_an_expired_token_is_a_401_saying_so(alice, settings):
    settings.CARDROOM_TOKEN_TTL_HOURS = 24
    key = obtain().json()["token"]
    age(key, 25)

    response = with_token(key).get("/api/auth/me/")
    listing = with_token(key).get("/api/competitions/")

    assert response.status_code == 401
    assert "expired" in response.json()["detail"].lower()
    assert response.headers["WWW-Authenticate"] == "Token"
    assert listing.status_code == 401  # not silently anonymous on public reads


def test_obtaining_a_token_again_rotates_an_expired_one(alice, settings):
    settings.CARDROOM_TOKEN_TTL_HOURS = 1
    old = obtain().json()["token"]
    age(old, 2)

    new = obtain().json()["token"]

    assert new != old
    assert not Token.objects.filter(key=old).exists()
    assert with_token(new).get("/api/auth/me/").json()["username"] == "alice"
    assert with_token(old).get("/api/auth/me/").status_code == 401


def test_a_token_still_valid_is_kept(alice):
    first = obtain().json()["token"]

    assert obtain().json()["token"] == first


def test_a_ttl_of_zero_means_tokens_never_expire(alice, settings):
    settings.CARDROOM_TOKEN_TTL_HOURS = 0
    body = obtain().json()
    age(body["token"], 24 * 3650)

    assert body["expires_at"] is None
    assert with_token(body["token"]).get("/api/auth/me/").status_code == 200


def test_the_registration_token_expires_too(anon, settings):
    settings.CARDROOM_TOKEN_TTL_HOURS = 1
    key = anon.post("/api/auth/register/", {"username": "newbie", "password": PASSWORD}).json()[
        "token"
    ]
    age(key, 2)

    assert with_token(key).get("/api/auth/me/").status_code == 401
