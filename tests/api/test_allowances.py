"""Allowances through the API: a user's requests past an allowance are a 429 naming it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from bots import allowances
from bots.models import Bot, BotVersion, UserAllowance
from tests.factories import FIRST_LEGAL_BOT, make_bot, make_competition, passed
from tournaments.models import Entry, VersionTest

pytestmark = pytest.mark.django_db


def upload(client, bot_id: int, content: bytes = FIRST_LEGAL_BOT):
    return client.post(
        f"/api/bots/{bot_id}/versions/",
        {"file": SimpleUploadedFile("bot.py", content)},
        format="multipart",
    )


def assert_refused(response, allowance: str, used: int, limit: int) -> None:
    assert response.status_code == 429, response.content
    body = response.json()
    assert body["allowance"] == allowance and body["used"] == used and body["limit"] == limit
    assert f"Allowance {allowance} reached: {used} of {limit}" in body["detail"]


def test_thirty_bots_in_a_row_are_refused_past_the_bots_allowance(as_alice, alice, settings):
    settings.CARDROOM_ALLOWANCE_BOTS = 20

    responses = [as_alice.post("/api/bots/", {"name": f"bot-{i}"}) for i in range(30)]

    assert [r.status_code for r in responses] == [201] * 20 + [429] * 10
    assert_refused(responses[20], "bots", used=20, limit=20)
    assert responses[20].json()["renews_at"] is None  # it frees up when a bot goes
    assert "Retry-After" not in responses[20]
    assert Bot.objects.filter(owner=alice).count() == 20


def test_staff_raise_one_users_allowance_in_the_admin(as_alice, alice, as_bob, settings):
    settings.CARDROOM_ALLOWANCE_BOTS = 2
    UserAllowance.objects.create(user=alice, allowance="bots", value=5)

    alice_codes = [as_alice.post("/api/bots/", {"name": f"a-{i}"}).status_code for i in range(6)]
    bob_codes = [as_bob.post("/api/bots/", {"name": f"b-{i}"}).status_code for i in range(3)]

    assert alice_codes == [201] * 5 + [429]
    assert bob_codes == [201, 201, 429]


def test_thirty_uploads_in_a_row_are_refused_past_the_versions_of_the_day(
    as_alice, alice, settings
):
    settings.CARDROOM_ALLOWANCE_VERSIONS_PER_DAY = 24
    bot = Bot.objects.create(owner=alice, name="busy")

    responses = [upload(as_alice, bot.pk, FIRST_LEGAL_BOT + b"#%d\n" % i) for i in range(30)]

    assert [r.status_code for r in responses] == [201] * 24 + [429] * 6
    assert_refused(responses[24], "versions_per_day", used=24, limit=24)
    renews = allowances.day_start().isoformat().replace("+00:00", "")
    assert responses[24].json()["renews_at"] > renews
    assert int(responses[24]["Retry-After"]) <= 24 * 3600
    assert bot.versions.count() == 24


@pytest.mark.slow
def test_twenty_large_uploads_are_refused_past_the_upload_bytes_of_the_day(
    as_alice, alice, settings
):
    settings.CARDROOM_ALLOWANCE_UPLOAD_BYTES_PER_DAY = 50 * 1024 * 1024
    settings.CARDROOM_ALLOWANCE_VERSIONS_PER_DAY = 100
    bot = Bot.objects.create(owner=alice, name="heavy")
    size = int(4.9 * 1024 * 1024)

    def program(i: int) -> bytes:
        padding = b"#" * (size - len(FIRST_LEGAL_BOT) - 16)
        return FIRST_LEGAL_BOT + b"#%08d\n" % i + padding + b"\n"

    responses = [upload(as_alice, bot.pk, program(i)) for i in range(20)]

    assert [r.status_code for r in responses] == [201] * 10 + [429] * 10
    body = responses[10].json()
    assert body["allowance"] == "upload_bytes_per_day" and body["limit"] == 50 * 1024 * 1024
    assert (
        body["used"] == sum(v.size for v in bot.versions.all()) and "upload bytes" in body["detail"]
    )
    assert allowances.upload_bytes_used_today(user=alice) <= 50 * 1024 * 1024


def test_thirty_ladder_entries_are_refused_past_the_allowance(as_alice, alice, organiser, settings):
    settings.CARDROOM_ALLOWANCE_LADDER_ENTRIES = 10
    settings.CARDROOM_ALLOWANCE_BOTS = 100
    ladder = make_competition(organiser, name="Open", kind="ladder", format="ladder", games=6)
    bots = [make_bot(alice, f"entrant-{i}") for i in range(30)]

    responses = [
        as_alice.post("/api/entries/", {"competition": ladder.pk, "bot": bot.pk}) for bot in bots
    ]

    assert [r.status_code for r in responses] == [201] * 10 + [429] * 20
    assert_refused(responses[10], "ladder_entries", used=10, limit=10)
    Entry.objects.filter(competition=ladder).first().delete()  # one leaves: room for one
    assert (
        as_alice.post("/api/entries/", {"competition": ladder.pk, "bot": bots[29].pk}).status_code
        == 201
    )


def test_an_organisers_own_ladder_is_limited_by_its_settings_not_their_allowance(
    as_organiser, organiser, settings
):
    settings.CARDROOM_ALLOWANCE_LADDER_ENTRIES = 1
    ladder = make_competition(organiser, name="Mine", kind="ladder", format="ladder", games=6)
    bots = [make_bot(organiser, f"house-{i}") for i in range(3)]

    codes = [
        as_organiser.post("/api/entries/", {"competition": ladder.pk, "bot": b.pk}).status_code
        for b in bots
    ]

    assert codes == [201, 201, 201]


def test_version_tests_are_refused_past_the_open_tests_and_the_games_of_the_day(
    as_alice, alice, settings
):
    settings.CARDROOM_ALLOWANCE_OPEN_VERSION_TESTS = 2
    settings.CARDROOM_ALLOWANCE_VERSION_TEST_GAMES_PER_DAY = 30_000
    bot = make_bot(alice, "learner")
    second = BotVersion.objects.create(
        bot=bot, number=2, sha256="1" * 64, runtime="python", status="ready", entry_point="b.py"
    )
    passed(second, "manni-basic")
    url = f"/api/bots/{bot.pk}/sprt/"
    body = {"new": 2, "old": 1, "variant": "manni-basic", "max_games": 10_000}

    first, second, third = (as_alice.post(url, body, format="json") for _ in range(3))
    # Both finished, each after 3,000 deals of three games: 18,000 games played.
    VersionTest.objects.update(status=VersionTest.Status.DONE, trials=3_000)
    too_many_games = as_alice.post(url, {**body, "max_games": 12_001}, format="json")
    fits = as_alice.post(url, {**body, "max_games": 12_000}, format="json")

    assert (first.status_code, second.status_code, fits.status_code) == (201, 201, 201)
    assert_refused(third, "open_version_tests", used=2, limit=2)
    assert_refused(too_many_games, "version_test_games_per_day", used=18_000, limit=30_000)
    assert "this request needs 12001" in too_many_games.json()["detail"]


@pytest.mark.parametrize("value", ["-1", "lots", "10000000000000"])
def test_a_negative_or_absurd_allowance_stops_the_start_up_naming_the_setting(value):
    env = {**os.environ, "CARDROOM_ALLOWANCE_OPEN_CHALLENGES": value}
    env.pop("DJANGO_SETTINGS_MODULE", None)

    run = subprocess.run(
        [sys.executable, "-c", "import config.settings"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert run.returncode != 0
    assert "ImproperlyConfigured: CARDROOM_ALLOWANCE_OPEN_CHALLENGES must be a whole number" in (
        run.stderr
    )
    assert repr(value) in run.stderr


def test_every_allowance_has_a_setting_and_an_admin_choice(settings):
    choices = {name for name, _ in UserAllowance.ALLOWANCE_CHOICES}

    assert choices == set(allowances.ALLOWANCES)
    for allowance in allowances.ALLOWANCES.values():
        assert isinstance(getattr(settings, allowance.setting), int)


def test_the_challenge_allowances_count_the_challenges_asked_for(alice, settings):
    from tournaments.selectors.allowance_use import challenge_allowed, usage_for_user
    from tournaments.services.challenges import challenge_create

    settings.CARDROOM_ALLOWANCE_OPEN_CHALLENGES = 2
    settings.CARDROOM_ALLOWANCE_CHALLENGE_GAMES_PER_DAY = 10
    bot = Bot.objects.create(owner=alice, name="learner", builtin="random")
    BotVersion.objects.create(bot=bot, number=1, runtime="builtin", sha256="2" * 64, status="ready")
    ask = {"opponents": ["builtin:random"], "variant": "money-jordan", "send": None}
    challenge_create(bot=bot, by=alice, games=4, **ask)
    challenge_create(bot=bot, by=alice, games=2, **ask)

    used = {row["name"]: (row["used"], row["left"]) for row in usage_for_user(user=alice)}
    assert used["challenge_games_per_day"] == (6, 4)
    assert used["open_challenges"] == (2, 0)
    with pytest.raises(allowances.AllowanceExceeded, match="open_challenges reached: 2 of 2"):
        challenge_allowed(user=alice, games=1)


def test_uploads_and_version_tests_wait_a_day_once_the_users_lane_seconds_are_used(
    as_alice, alice, as_bob, bob, settings
):
    import time

    from bots.links import linked_owners_forget
    from bots.models import AccountLink
    from config import fairshare

    settings.CARDROOM_ALLOWANCE_WORKER_SECONDS_PER_DAY = 600
    bot = make_bot(alice, "hog")
    second = BotVersion.objects.create(
        bot=bot, number=2, sha256="1" * 64, runtime="python", status="ready", entry_point="b.py"
    )
    passed(second, "manni-basic")
    sprt = {"new": 2, "old": 1, "variant": "manni-basic", "max_games": 100}
    first = upload(as_alice, bot.pk)
    # Her validations and tests held the users' lane ten minutes and a second today.
    fairshare.begin([fairshare.owner(alice.pk)], day_of=fairshare.owner(alice.pk))
    fairshare._unit = (*fairshare._unit[:1], time.time() - 601, fairshare._unit[2])
    fairshare.end()
    try:
        refused = upload(as_alice, bot.pk, FIRST_LEGAL_BOT + b"# again\n")
        test = as_alice.post(f"/api/bots/{bot.pk}/sprt/", sprt, format="json")
        # Bob's account is linked to hers as one person: his day is hers.
        AccountLink.objects.create(
            user=min(alice, bob, key=lambda u: u.pk), other=max(alice, bob, key=lambda u: u.pk),
            reason=AccountLink.Reason.SIGNUP_ADDRESS, evidence="one address",
        )  # fmt: skip
        linked_owners_forget()
        his = upload(as_bob, make_bot(bob, "other").pk)
        from tournaments.selectors.allowance_use import usage_for_user

        usage = {row["name"]: row for row in usage_for_user(user=alice)}
    finally:
        fairshare.reset()
        from config import redis_client

        client = redis_client.client()
        for key in client.scan_iter(f"{settings.CARDROOM_QUEUE_PREFIX}{fairshare.DAY_PREFIX}*"):
            client.delete(key)
        linked_owners_forget()

    assert first.status_code == 201, first.content
    assert_refused(refused, "worker_seconds_per_day", used=601, limit=600)
    assert_refused(test, "worker_seconds_per_day", used=601, limit=600)
    assert his.status_code == 429 and his.json()["allowance"] == "worker_seconds_per_day"
    assert bot.versions.count() == 3  # two made here, one uploaded: none for the refused
    assert usage["worker_seconds_per_day"]["used"] == 601
