"""Accounts made per client (``CARDROOM_THROTTLE_RATES["signup"]``): an IPv6 client is its
/64, the client is the one ``config.proxies`` finds, and each sign-up keeps only a keyed
hash of where it came from, which links the accounts made from one place."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from bots.models import AccountLink, AccountSignup
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def one_a_day(settings):
    settings.CARDROOM_THROTTLE_RATES = {**settings.CARDROOM_THROTTLE_RATES, "signup": "1/day"}
    return settings


def sign_up(address: str, name: str, **headers):
    client = APIClient(REMOTE_ADDR=address, **headers)
    return client.post("/api/auth/register/", {"username": name, "password": PASSWORD})


def test_a_second_sign_up_from_the_same_ipv6_64_is_refused_and_another_64_is_not(one_a_day):
    first = sign_up("2001:db8:1:2::10", "first")

    second = sign_up("2001:db8:1:2:ffff:ffff:ffff:99", "second")  # another address, same /64
    elsewhere = sign_up("2001:db8:1:3::10", "elsewhere")

    assert first.status_code == 201, first.content
    assert second.status_code == 429
    assert "Too many accounts were made from your address" in second.json()["detail"]
    assert 0 < int(second.headers["Retry-After"]) <= 86400
    assert elsewhere.status_code == 201, elsewhere.content


def test_an_ipv4_client_is_its_address(one_a_day):
    assert sign_up("192.0.2.7", "first").status_code == 201

    assert sign_up("192.0.2.7", "second").status_code == 429
    assert sign_up("192.0.2.8", "third").status_code == 201


def test_behind_a_trusted_proxy_the_forwarded_client_is_counted(one_a_day):
    one_a_day.CARDROOM_TRUSTED_PROXIES = "127.0.0.1"
    via_proxy = {"HTTP_X_FORWARDED_FOR": "2001:db8:9:9::1"}
    again = {"HTTP_X_FORWARDED_FOR": "2001:db8:9:9::2"}

    assert sign_up("127.0.0.1", "first", **via_proxy).status_code == 201
    assert sign_up("127.0.0.1", "second", **again).status_code == 429
    assert sign_up("127.0.0.1", "third", HTTP_X_FORWARDED_FOR="198.51.100.1").status_code == 201


def test_a_sign_up_refused_for_its_details_costs_nothing(one_a_day):
    client = APIClient(REMOTE_ADDR="2001:db8:7::1")
    weak = client.post("/api/auth/register/", {"username": "x", "password": "123"})

    made = client.post("/api/auth/register/", {"username": "x", "password": PASSWORD})

    assert weak.status_code == 400 and made.status_code == 201, made.content


def test_the_site_refuses_the_second_sign_up_from_the_same_64_and_says_so(one_a_day):
    form = {"password": PASSWORD, "password_again": PASSWORD, "email": "a@example.org"}
    first = Client(REMOTE_ADDR="2001:db8:4:4::1").post(
        "/accounts/signup/", {**form, "username": "first"}
    )

    second = Client(REMOTE_ADDR="2001:db8:4:4::2").post(
        "/accounts/signup/", {**form, "username": "second"}
    )

    assert first.status_code == 302
    assert second.status_code == 429 and int(second["Retry-After"]) > 0
    assert b"Too many accounts were made from your address" in second.content


def test_sign_ups_from_one_client_are_kept_hashed_and_linked(settings):
    made = [sign_up("2001:db8:8:8::1", "ann"), sign_up("2001:db8:8:8::2", "bob")]
    sign_up("2001:db8:8:9::1", "cat")

    assert [r.status_code for r in made] == [201, 201]
    hashes = dict(AccountSignup.objects.values_list("user__username", "address_hash"))
    assert hashes["ann"] == hashes["bob"] != hashes["cat"]
    assert not any("2001" in h or "db8" in h for h in hashes.values())
    (link,) = AccountLink.objects.all()
    assert {link.user.username, link.other.username} == {"ann", "bob"}
    assert link.reason == AccountLink.Reason.SIGNUP_ADDRESS
    assert "bob signed up from the client" in link.evidence and "ann" in link.evidence
