"""Rate limits: registrations and token requests per address, failed logins per address
and per (username, address), the site's and the admin's login too; each test starts with
an empty cache."""

from __future__ import annotations

import os
import uuid

import pytest
from django.core.cache import caches
from django.test import Client
from rest_framework.test import APIClient

from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def rates(settings):
    settings.CARDROOM_THROTTLE_RATES = {
        "register": "3/min",
        "signup": "100/min",  # accounts made: tests/api/test_signups.py
        "token": "5/min",
        "login-ip": "4/min",
        "login-user": "3/hour",
    }
    return settings.CARDROOM_THROTTLE_RATES


def from_address(address: str) -> APIClient:
    return APIClient(REMOTE_ADDR=address)


def register(client: APIClient, name: str):
    return client.post("/api/auth/register/", {"username": name, "password": PASSWORD})


def token(client: APIClient, username: str, password: str):
    return client.post("/api/auth/token/", {"username": username, "password": password})


def test_the_registration_after_the_limit_gets_a_429_per_address(rates):
    client = from_address("10.0.0.1")
    made = [register(client, f"user{i}").status_code for i in range(3)]

    refused = register(client, "user3")

    assert made == [201, 201, 201]
    assert refused.status_code == 429
    assert "throttled" in refused.json()["detail"].lower()
    assert int(refused.headers["Retry-After"]) > 0
    assert register(from_address("10.0.0.2"), "user4").status_code == 201  # another address


def test_a_forged_forwarded_for_header_is_not_a_new_address(rates):
    for i in range(3):
        client = APIClient(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=f"192.0.2.{i}")
        assert register(client, f"forged{i}").status_code == 201

    forged = APIClient(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="192.0.2.99")
    assert register(forged, "forged9").status_code == 429


def test_token_requests_are_limited_per_address(rates):
    make_user("alice")
    client = from_address("10.0.0.1")

    answers = [token(client, "alice", PASSWORD).status_code for _ in range(6)]

    assert answers == [200] * 5 + [429]
    assert token(from_address("10.0.0.2"), "alice", PASSWORD).status_code == 200


def test_failed_logins_block_the_address_even_with_the_right_password(rates, settings):
    settings.CARDROOM_THROTTLE_RATES = {**rates, "token": "100/min"}
    make_user("alice")
    make_user("bob")
    client = from_address("10.0.0.1")

    wrong = [token(client, f"guess{i}", "nope").status_code for i in range(4)]
    blocked = token(client, "alice", PASSWORD)

    assert wrong == [400] * 4
    assert blocked.status_code == 429 and "failed logins" in blocked.json()["detail"]
    assert int(blocked.headers["Retry-After"]) > 0
    assert token(from_address("10.0.0.2"), "bob", PASSWORD).status_code == 200


def test_failed_logins_for_a_username_back_off_that_address_only(rates, settings):
    settings.CARDROOM_THROTTLE_RATES = {**rates, "token": "100/min", "login-ip": "100/min"}
    make_user("alice")
    attacker = from_address("10.0.1.1")

    wrong = [token(attacker, "alice", "nope").status_code for _ in range(3)]

    assert wrong == [400] * 3
    assert token(attacker, "ALICE", PASSWORD).status_code == 429  # this address backs off
    assert token(from_address("10.0.2.1"), "alice", PASSWORD).status_code == 200


def test_20_wrong_passwords_from_one_address_do_not_lock_the_user_out_elsewhere():
    make_user("alice")  # the default rates
    attacker = from_address("10.0.0.66")

    wrong = [token(attacker, "alice", f"wrong-{i}").status_code for i in range(20)]

    assert wrong == [400] * 20
    assert token(attacker, "alice", PASSWORD).status_code == 429
    assert token(from_address("10.0.0.7"), "alice", PASSWORD).status_code == 200
    site = Client(REMOTE_ADDR="10.0.0.7")
    answer = site.post("/accounts/login/", {"username": "alice", "password": PASSWORD})
    assert answer.status_code == 302


def test_200_wrong_passwords_meet_a_429_with_the_default_rates(settings):
    make_user("alice")
    client = from_address("10.0.0.1")

    answers = [token(client, "alice", f"wrong-{i}").status_code for i in range(200)]

    assert answers[:20] == [400] * 20
    assert set(answers[20:]) == {429}


def admin_login(client: Client, username: str, password: str):
    return client.post("/admin/login/?next=/admin/", {"username": username, "password": password})


def test_the_admin_login_is_limited_by_failures(rates):
    make_user("stan", is_staff=True)
    attacker = Client(REMOTE_ADDR="10.0.0.1")

    wrong = [admin_login(attacker, f"guess{i}", "nope").status_code for i in range(4)]
    blocked = admin_login(attacker, "stan", PASSWORD)
    elsewhere = admin_login(Client(REMOTE_ADDR="10.0.0.2"), "stan", PASSWORD)

    assert wrong == [200] * 4  # the form again, with its error
    assert blocked.status_code == 429 and int(blocked.headers["Retry-After"]) > 0
    assert elsewhere.status_code == 302 and elsewhere.headers["Location"] == "/admin/"


def test_the_admin_login_of_a_username_guessed_elsewhere_still_works(rates):
    make_user("stan", is_staff=True)
    attacker = Client(REMOTE_ADDR="10.0.3.1")

    for _ in range(3):
        assert admin_login(attacker, "stan", "nope").status_code == 200

    assert admin_login(attacker, "stan", PASSWORD).status_code == 429
    assert admin_login(Client(REMOTE_ADDR="10.0.4.1"), "stan", PASSWORD).status_code == 302


def test_the_counts_are_kept_in_the_shared_cache(rates):
    client = from_address("10.0.0.1")
    register(client, "counted")

    assert caches["default"].get("throttle_register_10.0.0.1")  # what other processes read


@pytest.mark.skipif(
    not os.environ.get("REDIS_URL", "").startswith("redis"), reason="needs REDIS_URL (Redis)"
)
def test_the_limits_hold_in_redis_as_configured_for_several_processes(rates, settings):
    prefix = f"test-throttle-{uuid.uuid4().hex}"
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": os.environ["REDIS_URL"],
            "KEY_PREFIX": prefix,
        }
    }
    client = from_address("10.0.0.1")
    try:
        answers = [register(client, f"redis{i}").status_code for i in range(4)]
        assert answers == [201, 201, 201, 429]
    finally:
        caches["default"].delete("throttle_register_10.0.0.1")  # only this test's key
