"""The hogs of ``bench.fairshare``, and another author whose uploads are timed beside them.

A **hog** is an upload that plays every decision legally, but only after sleeping just
under its free move time (:data:`HOG`): it never loses on time, and each of its matches
holds a worker slot for minutes while using no CPU. One person does it from two
accounts (:func:`hogs_ready`): each account's hog bot is entered in an open ladder that
another organiser runs, each queues one more hog upload for validation, and the first
runs version tests between two hog versions. Their uploads are near-identical, so the
platform links the two accounts as one person (``bots.links``).

The hog versions that play in the ladder and the version tests are marked ready without
their validation (minutes of sleep each): what is measured is what they do to others
once they play, and the hog uploads queued for validation show the rest.

**The author** is another user who uploads an honest program while a round robin plays,
as a person does: the next a few seconds after the last one's result
(:func:`author_uploads`); each upload's seconds from its queueing to its validation's end
are timed (target p95 <= 30 s).
"""

from __future__ import annotations

import statistics
import time
from datetime import timedelta
from typing import Any

#: The hog: the move time of the match's clock, less 150 ms, slept before each decision.
HOG = """import json, sys, time
nap = 0.0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        nap = max(0.0, message["time_control"]["move_ms"] / 1000 - 0.15)
        print(json.dumps({"ready": True}), flush=True)
    elif message["type"] == "act":
        time.sleep(nap)
        print(json.dumps({"action": message["legal"][0]}), flush=True)
    elif message["type"] == "bye":
        break
"""
#: The allowances staff raise for the hogs (two versions tested, two ladder entries).
HOG_RAISED = ("versions_per_day", "open_version_tests", "version_test_games_per_day")


def _account(name: str, *, raised: tuple[str, ...] = ()):
    """An account two days old (old enough for public play: an attacker waits a day)."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from bots.models import UserAllowance

    user = get_user_model().objects.create_user(name, password=f"{name}-pw-123")
    user.date_joined = timezone.now() - timedelta(days=2)
    user.save(update_fields=["date_joined"])
    for allowance in raised:
        UserAllowance.objects.create(user=user, allowance=allowance, value=10**9, note=name)
    return user


def _ready_hog(bot, variant: str, number: int):
    """A hog version of ``bot``, uploaded as the API stores it, marked ready unvalidated."""
    from bench.fairshare import upload
    from bots.models import BotVersion, VersionVariantPass

    version = upload(bot, "hog.py", HOG.encode() + f"# {number}\n".encode(), variant, queue=False)
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.READY)
    VersionVariantPass.objects.create(version=version, variant=variant)
    return version


def hogs_ready(args, organiser) -> dict[str, Any]:
    """Two hog accounts of one person and the open ladder ``organiser`` runs, with
    ``args.ladder_house`` house bots; the hogs' bots entered (not started yet)."""
    from django.db import transaction

    from bench.fairshare import builtin_bots
    from bots import services as bot_services
    from bots.models import AccountLink
    from tournaments import services

    ladder = services.competition_create(
        created_by=organiser,
        name="open ladder",
        kind="ladder",
        format="ladder",
        variant=args.variant,
        seed=args.seed,
        is_public=True,
    )
    for bot in builtin_bots("open-house", "greedy", args.ladder_house):
        with transaction.atomic():
            services.entry_create(competition=ladder, bot=bot, by=organiser)
    users, tested = [], None
    for i in range(args.hogs):
        user = _account(f"hog-{i}", raised=HOG_RAISED)
        bot = bot_services.bot_create(owner=user, name=f"hog-{i}")
        _ready_hog(bot, args.variant, 10 * i)
        with transaction.atomic():  # as the API's request is: an entry by its owner
            services.entry_create(competition=ladder, bot=bot, by=user)
        users.append(user)
        if tested is None:
            tested = bot
            _ready_hog(bot, args.variant, 10 * i + 1)  # two versions to test
    linked = AccountLink.objects.filter(user__in=users, other__in=users, dismissed=False)
    return {"ladder": ladder, "users": users, "tested": tested, "linked": linked.exists()}


def hog_flood(args, hogs: dict[str, Any]) -> dict[str, Any]:
    """Start the open ladder; each hog account queues a hog upload for validation; the
    first runs ``args.hog_version_tests`` version tests between its two hog versions."""
    from django.db import transaction

    from bench.fairshare import upload
    from bots import services as bot_services
    from tournaments import services
    from tournaments.services.version_tests import version_test_create

    services.competition_start(competition=hogs["ladder"], by=hogs["ladder"].created_by)
    versions = []
    for i, user in enumerate(hogs["users"]):
        bot = bot_services.bot_create(owner=user, name=f"hog-upload-{i}")
        code = HOG.encode() + f"# upload {i}\n".encode()
        versions.append(upload(bot, "hog.py", code, args.variant, queue=True).pk)
    tests = []
    for _ in range(args.hog_version_tests):
        with transaction.atomic():
            tests.append(
                version_test_create(
                    bot=hogs["tested"], new=2, old=1, variant=args.variant,
                    max_games=1000, by=hogs["users"][0],
                ).pk
            )  # fmt: skip
    return {"ladder": hogs["ladder"].pk, "versions": versions, "version_tests": tests}


def hog_progress(sent: dict[str, Any]) -> dict[str, Any]:
    """The hogs' ladder matches done and in play, their validations, their tests' games."""
    from bots.models import BotVersion
    from tournaments.models import Match, VersionTest

    ladder = Match.objects.filter(competition_id=sent["ladder"])
    return {
        "ladder_matches": ladder.filter(status=Match.Status.DONE).count(),
        "ladder_in_play": ladder.filter(status=Match.Status.RUNNING).count(),
        "validations": list(
            BotVersion.objects.filter(pk__in=sent["versions"]).values_list("status", flat=True)
        ),
        "version_test_trials": sum(
            VersionTest.objects.filter(pk__in=sent["version_tests"]).values_list(
                "trials", flat=True
            )
        ),
    }


#: The other author's program: a bot of their own, not the flood's (near-identical uploads
#: link two accounts as one person, and the author would then wait as the flooder does).
AUTHOR = '''"""My first bot: it answers with the first legal action (version {version})."""
import json
import sys


def answer(message):
    kind = message.get("type")
    if kind == "hello":
        return {{"ready": True}}
    if kind == "act":
        return {{"action": message["legal"][0]}}
    return None


def main():
    while True:
        line = sys.stdin.readline()
        if not line:
            return
        reply = answer(json.loads(line))
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\\n")
            sys.stdout.flush()


main()
'''


def author_ready():
    """The other author: an account of default allowances and a bot to upload to."""
    from bots import services as bot_services

    user = _account("author")
    return bot_services.bot_create(owner=user, name="author-bot")


def author_uploads(bot, variant: str, count: int, every_s: float, timeout_s: float) -> list[int]:
    """Upload :data:`AUTHOR` ``count`` times as a person does: each queued for its
    validation, its result awaited (up to ``timeout_s``), then ``every_s`` seconds before
    the next (the account's allowance permitting: 24 a day by default); their ids."""
    from bench.fairshare import upload
    from bots.models import BotVersion

    done = (BotVersion.Status.READY, BotVersion.Status.REJECTED)
    sent = []
    for i in range(count):
        if i:
            time.sleep(every_s)
        code = AUTHOR.format(version=bot.versions.count() + 1).encode()
        version = upload(bot, "bot.py", code, variant, queue=True)
        sent.append(version.pk)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if BotVersion.objects.filter(pk=version.pk, status__in=done).exists():
                break
            time.sleep(0.25)
    return sent


def validation_waits(version_ids: list[int], timeout_s: float) -> list[float]:
    """Each upload's seconds from its creation to its validation's end (waiting for
    them up to ``timeout_s``; one not done by then counts as the seconds waited); of
    those, the seconds it ran: :func:`validation_runs`."""
    from bots.models import BotVersion

    done = (BotVersion.Status.READY, BotVersion.Status.REJECTED)
    deadline = time.monotonic() + timeout_s
    rows = BotVersion.objects.filter(pk__in=version_ids)
    while rows.exclude(status__in=done).exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    waits = []
    now = time.time()
    for version in rows:
        report = version.validation_report or {}
        ended = report.get("validated_at")
        if version.status in done and ended:
            from datetime import datetime

            end = datetime.fromisoformat(ended).timestamp()
        else:
            end = now
        waits.append(end - version.created_at.timestamp())
    return waits


def validation_runs(version_ids: list[int]) -> list[float]:
    """The seconds each finished validation of ``version_ids`` ran (its report's
    ``duration_s``): what of its wait was the validation itself, not its turn."""
    from bots.models import BotVersion

    reports = BotVersion.objects.filter(pk__in=version_ids).values_list(
        "validation_report", flat=True
    )
    return [r["duration_s"] for r in reports if r and r.get("duration_s") is not None]


def waits_summary(waits: list[float]) -> dict[str, Any]:
    """n, p50, p95 (nearest rank) and max of ``waits``."""
    from bench.latency import percentile

    if not waits:
        return {"n": 0}
    return {
        "n": len(waits),
        "p50": statistics.median(waits),
        "p95": percentile(waits, 0.95),
        "max": max(waits),
    }


class InPlay:
    """Samples, every ``every_s`` seconds in a thread of its own, the matches in play by
    competition while a match of ``waiting_in`` (a competition's id) waits to be played
    (pending or queued): who held the competitions' slots while its round waited on
    them. Samples taken while none of its matches waits (its last ones in play, or
    after it ended, the flood going on) are not counted: the lane is anyone's to fill
    then."""

    def __init__(self, waiting_in: int, every_s: float = 0.5) -> None:
        import threading

        self.waiting_in = waiting_in
        self.every_s = every_s
        self.samples: list[dict[str, int]] = []
        self.skipped = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> InPlay:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        from collections import Counter

        from django.db import connection

        from tournaments.models import Match

        waits = (Match.Status.PENDING, Match.Status.QUEUED)
        try:
            while not self._stop.wait(self.every_s):
                running = Match.objects.filter(status=Match.Status.RUNNING)
                names = list(running.values_list("competition__name", flat=True))
                waiting = Match.objects.filter(competition_id=self.waiting_in, status__in=waits)
                if waiting.exists():
                    self.samples.append(dict(Counter(names)))
                else:
                    self.skipped += 1
        finally:
            connection.close()

    def summary(self) -> dict[str, dict[str, float]]:
        """Per competition: the most matches in play at once and the mean over the samples
        taken while a match of ``waiting_in`` waited."""
        names = {name for sample in self.samples for name in sample}
        n = max(1, len(self.samples))
        return {
            name: {
                "max": max(s.get(name, 0) for s in self.samples),
                "mean": sum(s.get(name, 0) for s in self.samples) / n,
                "samples": len(self.samples),
            }
            for name in sorted(names)
        }
