"""Registration, tokens and sessions."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


def test_registration_creates_a_user_and_returns_a_working_token(anon):
    response = anon.post(
        "/api/auth/register/", {"username": "newbie", "password": PASSWORD}, format="json"
    )

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["username"] == "newbie" and body["can_organise"] is False
    assert get_user_model().objects.get(username="newbie").check_password(PASSWORD)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    assert client.get("/api/auth/me/").json()["username"] == "newbie"


def test_registration_refuses_a_taken_name_and_a_weak_password(anon, alice):
    taken = anon.post("/api/auth/register/", {"username": "ALICE", "password": PASSWORD})
    weak = anon.post("/api/auth/register/", {"username": "carol", "password": "123"})
    missing = anon.post("/api/auth/register/", {}, format="json")

    assert taken.status_code == 400 and "taken" in taken.json()["username"][0]
    assert weak.status_code == 400 and weak.json()["password"]
    assert missing.status_code == 400 and set(missing.json()) == {"username", "password"}
    assert not get_user_model().objects.filter(username="carol").exists()


def test_token_is_obtained_with_username_and_password_and_can_be_revoked(anon, alice):
    response = anon.post("/api/auth/token/", {"username": "alice", "password": PASSWORD})
    assert response.status_code == 200
    token = response.json()["token"]
    again = anon.post("/api/auth/token/", {"username": "alice", "password": PASSWORD})
    assert again.json()["token"] == token

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/auth/me/").status_code == 200
    assert client.delete("/api/auth/token/").status_code == 204
    assert client.get("/api/auth/me/").status_code == 401


def test_wrong_password_gets_no_token(anon, alice):
    response = anon.post("/api/auth/token/", {"username": "alice", "password": "nope"})

    assert response.status_code == 400
    assert "credentials" in str(response.json()).lower()


def test_session_login_authenticates_the_api(alice):
    client = APIClient()
    assert client.login(username="alice", password=PASSWORD)

    assert client.get("/api/auth/me/").json()["username"] == "alice"


def test_anonymous_is_told_to_authenticate(anon):
    response = anon.get("/api/auth/me/")

    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == "Token"


def test_a_bad_token_is_refused(anon):
    anon.credentials(HTTP_AUTHORIZATION="Token not-a-token")

    response = anon.get("/api/competitions/")

    assert response.status_code == 401 and "token" in response.json()["detail"].lower()


def test_me_says_who_may_organise(as_organiser, as_staff, as_alice):
    assert as_organiser.get("/api/auth/me/").json()["can_organise"] is True
    assert as_staff.get("/api/auth/me/").json()["can_organise"] is True
    assert as_alice.get("/api/auth/me/").json()["can_organise"] is False
