"""Sign-up with a confirmed e-mail address (``CARDROOM_SIGNUP_CONFIRMATION = email``):
an account has no allowance until it opens the link mailed to it."""

from __future__ import annotations

import re
import time
from datetime import timedelta

import pytest
from django.core import mail, signing
from django.test import Client
from rest_framework.test import APIClient

from bots import accounts
from bots.models import AccountConfirmation, Bot
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def confirming(settings):
    settings.CARDROOM_SIGNUP_CONFIRMATION = "email"
    return settings


def register(client, **data):
    body = {"username": "newbie", "password": PASSWORD, **data}
    return client.post("/api/auth/register/", body, format="json")


def mailed_link() -> str:
    assert len(mail.outbox) == 1, [m.subject for m in mail.outbox]
    (link,) = re.findall(r"http://testserver/accounts/confirm/[^/\s]+/", mail.outbox[0].body)
    return link


def as_token(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_an_account_creates_no_bot_until_it_opens_the_mailed_link(anon, confirming):
    response = register(anon, email="newbie@example.org")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["confirmed"] is False
    assert mail.outbox[0].to == ["newbie@example.org"]
    client = as_token(body["token"])

    refused = client.post("/api/bots/", {"name": "early"}, format="json")
    assert refused.status_code == 403
    assert "newbie@example.org" in refused.json()["detail"]
    assert not Bot.objects.filter(name="early").exists()

    page = Client().get(mailed_link().removeprefix("http://testserver"))
    assert page.status_code == 200 and b'id="confirmed"' in page.content

    assert client.get("/api/auth/me/").json()["confirmed"] is True
    assert client.post("/api/bots/", {"name": "early"}, format="json").status_code == 201


def test_the_api_confirms_with_the_links_token(anon, confirming):
    body = register(anon, email="newbie@example.org").json()
    token = mailed_link().rstrip("/").rsplit("/", 1)[1]

    response = anon.post("/api/auth/confirm/", {"token": token}, format="json")

    assert response.status_code == 200 and response.json()["confirmed"] is True
    again = anon.post("/api/auth/confirm/", {"token": token}, format="json")
    assert again.status_code == 200  # a second click is no error
    created = as_token(body["token"]).post("/api/bots/", {"name": "b"}, format="json")
    assert created.status_code == 201


def test_a_bad_or_expired_link_confirms_nothing_and_says_why(anon, confirming):
    register(anon, email="newbie@example.org")
    token = mailed_link().rstrip("/").rsplit("/", 1)[1]

    forged = anon.post("/api/auth/confirm/", {"token": token[:-2] + "xx"}, format="json")
    assert forged.status_code == 400 and "not valid" in str(forged.json())
    other = signing.dumps({"user": 999999, "email": "x@example.org"}, salt=accounts.SALT)
    assert anon.post("/api/auth/confirm/", {"token": other}).status_code == 400

    time.sleep(1.1)
    confirming.CARDROOM_SIGNUP_CONFIRM_DAYS = 0  # the link is older than its validity
    expired = Client().get(f"/accounts/confirm/{token}/")
    assert expired.status_code == 400 and b"expired" in expired.content
    assert AccountConfirmation.objects.get().confirmed_at is None


def test_an_address_is_required_when_it_must_be_confirmed(anon, confirming):
    response = register(anon)

    assert response.status_code == 400 and "e-mail address is required" in str(response.json())
    assert not AccountConfirmation.objects.exists() and not mail.outbox


def test_the_link_is_sent_again_at_most_once_a_minute(anon, confirming):
    client = as_token(register(anon, email="newbie@example.org").json()["token"])

    too_soon = client.post("/api/auth/confirm/resend/")
    assert too_soon.status_code == 400 and "less than 60 s ago" in str(too_soon.json())
    AccountConfirmation.objects.update(sent_at=accounts.timezone.now() - timedelta(minutes=2))
    assert client.post("/api/auth/confirm/resend/").status_code == 202
    assert len(mail.outbox) == 2 and mail.outbox[1].to == ["newbie@example.org"]


def test_without_confirmation_an_account_works_at_once_and_nothing_is_mailed(anon, settings):
    settings.CARDROOM_SIGNUP_CONFIRMATION = "none"
    body = register(anon).json()

    assert body["confirmed"] is True and not mail.outbox
    assert as_token(body["token"]).post("/api/bots/", {"name": "b"}).status_code == 201


def test_the_site_signs_up_mails_the_link_and_opens_the_allowances(confirming):
    browser = Client()
    form = {"username": "newbie", "password": PASSWORD, "password_again": PASSWORD}
    missing = browser.post("/accounts/signup/", form)
    assert missing.status_code == 400 and b"This field is required" in missing.content

    browser.post("/accounts/signup/", {**form, "email": "newbie@example.org"})
    page = browser.get("/bots/")
    assert b'id="unconfirmed"' in page.content and b"newbie@example.org" in page.content
    refused = browser.post("/bots/", {"name": "early", "once": once_of(page)})
    assert b"Confirm your e-mail address first" in refused.content
    assert not Bot.objects.filter(name="early").exists()

    confirmed = browser.get(mailed_link().removeprefix("http://testserver"), follow=True)
    assert b"is confirmed" in confirmed.content
    page = browser.get("/bots/")
    assert b'id="unconfirmed"' not in page.content
    browser.post("/bots/", {"name": "early", "once": once_of(page)})
    assert Bot.objects.filter(name="early", owner__username="newbie").exists()


def once_of(page) -> str:
    return re.search(rb'name="once" value="([^"]+)"', page.content).group(1).decode()
