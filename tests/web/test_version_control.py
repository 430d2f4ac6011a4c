"""Which version of a bot plays: pinned or the newest ready one, active or not; which
version played each match, and each version's record, on the bot's page and in the API."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from bots import sandbox
from bots import services as bot_services
from bots.models import Bot, BotVersion
from tests.factories import FIRST_LEGAL_BOT, logged_in, make_user, passed
from tests.web.conftest import once_value
from tournaments import services
from tournaments.models import Competition, Match
from tournaments.worker import execution

pytestmark = pytest.mark.django_db
VARIANT = "money-jordan"


def ready_version(bot: Bot, content: bytes) -> BotVersion:
    """An upload of ``bot`` as validation leaves it: ready, passed in :data:`VARIANT`."""
    version = bot_services.bot_version_upload(
        bot=bot, filename="bot.py", content=content, variants=[VARIANT]
    )
    version.status = BotVersion.Status.READY
    version.save(update_fields=["status"])
    passed(version, VARIANT)
    return version


@pytest.fixture
def ada():
    return make_user("ada")


@pytest.fixture
def learner(ada) -> Bot:
    bot = Bot.objects.create(owner=ada, name="learner")
    ready_version(bot, FIRST_LEGAL_BOT)
    ready_version(bot, FIRST_LEGAL_BOT + b"# version 2\n")
    return bot


def api_for(user) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


def ladder_with(bot: Bot, by) -> Competition:
    """A running Money ladder of ``bot`` and the built-in greedy: every batch seats both."""
    greedy = next(b for b in bot_services.builtin_bots_ensure() if b.builtin == "greedy")
    ladder = services.competition_create(
        created_by=None,
        name="Money ladder",
        kind="ladder",
        variant=VARIANT,
        format="ladder",
        games_per_match=2,
    )
    services.entry_create(competition=ladder, bot=bot, by=by)
    services.entry_create(competition=ladder, bot=greedy)
    services.competition_start(competition=ladder, send=None)
    return ladder


@pytest.mark.slow
@pytest.mark.skipif(not sandbox.available(), reason="uploaded bots need the sandbox")
def test_pinning_v1_makes_the_next_ladder_match_play_v1_and_the_match_page_says_so(ada, learner):
    ladder = ladder_with(learner, ada)
    match = Match.objects.get(competition=ladder)  # paired, not yet claimed

    pinned = api_for(ada).post(
        f"/api/bots/{learner.pk}/play/", {"pinned_version": 1}, format="json"
    )
    outcome = execution.match_execute(match_id=match.pk, claimed_by="test", send=None)

    assert pinned.status_code == 200, pinned.content
    assert pinned.json()["plays"] == 1 and pinned.json()["pinned_version"] == 1
    assert outcome == "recorded"
    seat = match.seats.get(entry__bot=learner)
    assert seat.version.number == 1
    page = logged_in(ada).get(reverse("dashboard:match-detail", args=[match.pk]))
    assert "version 1" in page.content.decode()
    record = api_for(ada).get(f"/api/bots/{learner.pk}/play/").json()
    v1 = next(row for row in record["versions"] if row["number"] == 1)
    assert v1["matches"] == 1 and v1["games"] == 2 and v1["mean_rank"] in (1, 2)
    bot_page = logged_in(ada).get(reverse("bots-web:bot-detail", args=[learner.pk]))
    assert "Version 1 plays (pinned by its owner)" in bot_page.content.decode()


def test_unpinned_the_newest_ready_version_plays(learner):
    from bots.selectors import version_for_play

    assert version_for_play(bot=learner, variant=VARIANT).number == 2
    bot_services.bot_play_set(bot=learner, pinned_number=1, active=True)
    assert version_for_play(bot=learner, variant=VARIANT).number == 1
    bot_services.bot_play_set(bot=learner, pinned_number=None, active=True)
    assert version_for_play(bot=learner, variant=VARIANT).number == 2


def test_pinning_a_rejected_or_missing_version_is_a_400_naming_the_field(ada, learner):
    rejected = learner.versions.get(number=1)
    rejected.status = BotVersion.Status.REJECTED
    rejected.save(update_fields=["status"])
    api = api_for(ada)

    refused = api.post(f"/api/bots/{learner.pk}/play/", {"pinned_version": 1}, format="json")
    missing = api.post(f"/api/bots/{learner.pk}/play/", {"pinned_version": 9}, format="json")

    assert refused.status_code == 400
    assert "version 1 was rejected" in str(refused.json()["pinned_version"])
    assert missing.status_code == 400 and "no version 9" in str(missing.json()["pinned_version"])
    learner.refresh_from_db()
    assert learner.pinned_version is None


def test_only_the_owner_pins(learner):
    other = make_user("mallory")

    answer = api_for(other).post(
        f"/api/bots/{learner.pk}/play/", {"pinned_version": 1}, format="json"
    )

    assert answer.status_code == 404  # another user's bot is hidden
    learner.refresh_from_db()
    assert learner.pinned_version is None


def test_a_deactivated_bots_ladder_entry_is_skipped_not_forfeited(ada, learner):
    ladder = ladder_with(learner, ada)
    Match.objects.filter(competition=ladder).delete()  # the first batch, played
    browser = logged_in(ada)
    page = browser.get(reverse("bots-web:bot-detail", args=[learner.pk])).content.decode()

    answer = browser.post(
        reverse("bots-web:bot-play", args=[learner.pk]),
        {"pinned_version": "", "once": once_value(page, "play-form")},
    )
    batch = services.ladder_pair_batch(competition=ladder)

    assert answer.status_code == 302
    learner.refresh_from_db()
    assert not learner.active
    assert batch == []  # the only other entry has nobody to play
    entry = ladder.entries.get(bot=learner)
    assert not entry.withdrawn and entry.games == 0
    page = browser.get(reverse("bots-web:bot-detail", args=[learner.pk])).content.decode()
    assert "deactivated" in page
    staff = make_user("staff")
    staff.is_staff = True
    staff.save(update_fields=["is_staff"])
    organised = logged_in(staff).get(reverse("organise:competition", args=[ladder.pk]))
    assert "its owner deactivated the bot" in organised.content.decode()
