"""Disk per account: the bytes of the versions an account keeps are an allowance
(``stored_bytes``); an account whose e-mail address is unconfirmed keeps fewer, and all
such accounts together have one total. An upload past either is a 429 naming it, what is
used and the limit; deleting or pruning versions frees it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from rest_framework.test import APIClient

from bots import allowances, pruning
from bots.models import AccountConfirmation, Bot, BotVersion
from tests.factories import FIRST_LEGAL_BOT, PASSWORD

pytestmark = pytest.mark.django_db


def content(n: int) -> bytes:
    """A legal bot, different for each ``n``, all of one size."""
    return FIRST_LEGAL_BOT + f"# copy {n:04d}\n".encode()


SIZE = len(content(0))


def upload(client, bot_id: int, body: bytes):
    return client.post(
        f"/api/bots/{bot_id}/versions/",
        {"file": SimpleUploadedFile("bot.py", body)},
        format="multipart",
    )


def assert_refused(response, allowance: str, used: int, limit: int) -> None:
    assert response.status_code == 429, response.content
    body = response.json()
    assert (body["allowance"], body["used"], body["limit"]) == (allowance, used, limit)
    assert f"Allowance {allowance} reached: {used} of {limit}" in body["detail"]
    assert f"this request needs {SIZE}" in body["detail"]


def signed_up(anon, username: str) -> tuple[APIClient, int]:
    """An account made by sign-up (confirmation off: it works at once), its client and
    bot."""
    body = anon.post(
        "/api/auth/register/", {"username": username, "password": PASSWORD}, format="json"
    ).json()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    bot = client.post("/api/bots/", {"name": f"{username}-bot"}, format="json")
    assert bot.status_code == 201, bot.content
    return client, bot.json()["id"]


def test_an_upload_past_the_stored_bytes_is_refused_naming_them(as_alice, alice, settings):
    settings.CARDROOM_ALLOWANCE_STORED_BYTES = 2 * SIZE + SIZE // 2
    bot = Bot.objects.create(owner=alice, name="hoarder")

    codes = [upload(as_alice, bot.pk, content(n)).status_code for n in range(2)]
    refused = upload(as_alice, bot.pk, content(2))

    assert codes == [201, 201]
    assert_refused(refused, "stored_bytes", used=2 * SIZE, limit=2 * SIZE + SIZE // 2)
    assert "deleted or pruned" in refused.json()["detail"]
    assert refused.json()["renews_at"] is None
    assert bot.versions.count() == 2


def test_deleting_or_pruning_versions_frees_the_stored_bytes(as_alice, alice, settings):
    settings.CARDROOM_ALLOWANCE_STORED_BYTES = 2 * SIZE
    bot = Bot.objects.create(owner=alice, name="hoarder")
    for n in range(2):
        assert upload(as_alice, bot.pk, content(n)).status_code == 201
    assert upload(as_alice, bot.pk, content(2)).status_code == 429

    bot.versions.get(number=1).delete()
    assert upload(as_alice, bot.pk, content(3)).status_code == 201
    assert upload(as_alice, bot.pk, content(4)).status_code == 429
    long_ago = timezone.now() - timedelta(days=30)
    bot.versions.filter(number=2).update(status=BotVersion.Status.REJECTED, created_at=long_ago)
    assert pruning.bot_versions_prune(older_than_days=14).versions

    assert upload(as_alice, bot.pk, content(5)).status_code == 201
    assert allowances.stored_bytes_used(user=alice) == 2 * SIZE


def test_an_unconfirmed_account_stores_less_than_a_confirmed_one(anon, as_alice, alice, settings):
    settings.CARDROOM_SIGNUP_CONFIRMATION = "none"
    settings.CARDROOM_ALLOWANCE_STORED_BYTES = 10 * SIZE
    settings.CARDROOM_ALLOWANCE_STORED_BYTES_UNCONFIRMED = SIZE
    newcomer, bot_id = signed_up(anon, "newcomer")
    alices = Bot.objects.create(owner=alice, name="older")

    first = upload(newcomer, bot_id, content(0))
    refused = upload(newcomer, bot_id, content(1))

    assert first.status_code == 201
    assert_refused(refused, "stored_bytes", used=SIZE, limit=SIZE)
    assert [upload(as_alice, alices.pk, content(n)).status_code for n in (2, 3)] == [201, 201]
    AccountConfirmation.objects.filter(user__username="newcomer").update(
        confirmed_at=timezone.now()
    )
    assert upload(newcomer, bot_id, content(1)).status_code == 201


def test_all_unconfirmed_accounts_together_store_at_most_the_total(anon, as_alice, alice, settings):
    settings.CARDROOM_SIGNUP_CONFIRMATION = "none"
    settings.CARDROOM_ALLOWANCE_STORED_BYTES_UNCONFIRMED = 5 * SIZE
    settings.CARDROOM_ALLOWANCE_UNCONFIRMED_STORED_BYTES_TOTAL = 3 * SIZE
    first, first_bot = signed_up(anon, "first")
    second, second_bot = signed_up(anon, "second")
    alices = Bot.objects.create(owner=alice, name="older")

    codes = [upload(first, first_bot, content(n)).status_code for n in range(2)]
    codes.append(upload(second, second_bot, content(2)).status_code)
    refused = upload(second, second_bot, content(3))

    assert codes == [201, 201, 201]
    assert_refused(refused, "unconfirmed_stored_bytes", used=3 * SIZE, limit=3 * SIZE)
    assert "confirm your e-mail address" in refused.json()["detail"]
    assert upload(as_alice, alices.pk, content(4)).status_code == 201  # confirmed: apart
    Bot.objects.get(pk=first_bot).versions.get(number=1).delete()
    assert upload(second, second_bot, content(3)).status_code == 201
