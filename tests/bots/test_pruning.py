"""Pruning: rejected and superseded versions that nothing names go, with their bytes;
a version any match, entry or version test names stays."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.utils import timezone

from bots import pruning, store
from bots.models import Bot, BotBlob, BotVersion
from tests.factories import make_bot, make_competition, make_match, make_user
from tournaments import services as tournament_services
from tournaments.models import MatchSeat, VersionTest

pytestmark = pytest.mark.django_db


def version(bot: Bot, number: int, status: str, *, days_old: float, content: bytes = b""):
    content = content or f"{bot.name} v{number}".encode()
    sha = hashlib.sha256(content).hexdigest()
    store.blob_put(sha256=sha, content=content)
    made = BotVersion.objects.create(
        bot=bot, number=number, sha256=sha, runtime="python", status=status, size=len(content)
    )
    BotVersion.objects.filter(pk=made.pk).update(
        created_at=timezone.now() - timedelta(days=days_old)
    )
    return made


@pytest.fixture
def versions():
    ada = make_user("ada")
    bot = Bot.objects.create(owner=ada, name="evolving")
    v = {
        "rejected_old": version(bot, 1, "rejected", days_old=30),
        "superseded": version(bot, 2, "ready", days_old=30),
        "played": version(bot, 3, "ready", days_old=30),
        "tested": version(bot, 4, "ready", days_old=30),
        "newest": version(bot, 6, "ready", days_old=30),
        "rejected_recent": version(bot, 7, "rejected", days_old=1),
        "waiting": version(bot, 8, "validating", days_old=30),
    }
    v["same_bytes"] = version(bot, 5, "rejected", days_old=30, content=b"evolving v6")
    organiser = make_user("olga")
    competition = make_competition(organiser, games=6)
    others = [make_bot(make_user(f"u{i}"), f"other-{i}") for i in range(2)]
    entries = [
        tournament_services.entry_create(competition=competition, bot=b, by=None)
        for b in [bot, *others]
    ]
    match = make_match(competition, entries, done=True)
    MatchSeat.objects.filter(match=match, entry=entries[0]).update(version=v["played"])
    VersionTest.objects.create(
        bot=bot, new=v["newest"], old=v["tested"], variant="manni-basic", seed=1
    )
    return v


def test_rejected_and_superseded_versions_go_and_what_is_named_stays(versions):
    pruned = pruning.bot_versions_prune(older_than_days=14)

    gone = {"rejected_old", "superseded", "same_bytes"}
    assert sorted(pruned.versions) == sorted(versions[name].pk for name in gone)
    left = set(BotVersion.objects.values_list("pk", flat=True))
    for name, kept in versions.items():
        assert (kept.pk in left) == (name not in gone), name
    stored = set(BotBlob.objects.values_list("sha256", flat=True))
    assert versions["rejected_old"].sha256 not in stored
    assert versions["superseded"].sha256 not in stored
    assert versions["same_bytes"].sha256 in stored  # the newest version has the same bytes
    assert pruned.blobs == sorted([versions["rejected_old"].sha256, versions["superseded"].sha256])
    assert pruning.bot_versions_prune(older_than_days=14).versions == []  # twice: nothing more


def test_the_command_says_what_it_would_delete_then_deletes_it(versions, capsys):
    before = BotVersion.objects.count()
    call_command("prune_versions", "--dry-run")
    dry = capsys.readouterr().out
    assert BotVersion.objects.count() == before

    call_command("prune_versions", "--days", "14")
    done = capsys.readouterr().out

    assert "would delete 3 versions" in dry and "and 2 stored uploads" in dry
    assert "deleted 3 versions" in done
    assert BotVersion.objects.count() == before - 3


def test_a_negative_age_is_refused_in_words(db):
    with pytest.raises(CommandError, match="--days must be 0 or more, got -1"):
        call_command("prune_versions", "--days", "-1")


def test_pruning_runs_periodically():
    schedule = settings.CELERY_BEAT_SCHEDULE["bot-versions-prune"]

    assert schedule["task"] == "bots.versions_prune"
    assert schedule["schedule"] == settings.CARDROOM_PRUNE_EVERY_S > 0
