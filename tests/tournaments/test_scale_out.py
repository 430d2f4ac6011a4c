"""Scale-out: two worker "machines" that share nothing with the web tier but PostgreSQL and Redis.

Each machine is a real ``celery -A config worker`` with its own empty media
root, working directory, temporary directory, var directory and bot cache.
Bots are uploaded here (the web tier's side), validated and played by the
machines in the sandbox: their files can only come from the bot store.
"""

from __future__ import annotations

import hashlib
import os
import sys
import uuid
from pathlib import Path

import pytest

from bots import services as bot_services
from bots.models import BotVersion
from bots.tasks import version_validate
from tests.factories import make_competition
from tests.workers import (
    ROOT,
    SERVICES,
    WORKER_ENV,
    Worker,
    assert_ratings_equal_a_recompute,
    assert_recorded_exactly_once,
    finished,
    redis_url,
    start_ready,
    wait_for,
)
from tournaments import services
from tournaments.worker import tasks

pytestmark = [
    pytest.mark.skipif(not SERVICES, reason="needs DATABASE_URL (PostgreSQL) and REDIS_URL"),
    pytest.mark.django_db(transaction=True),
    pytest.mark.slow,
]

EXAMPLE = (ROOT / "bots" / "examples" / "python" / "bot.py").read_bytes()


class Machine(Worker):
    """A worker on a machine of its own: private directories, only the services shared.

    It listens on the shared match and default queues and on a private queue
    (``queues[2]``), through which the test hands it work of its own.
    """

    def __init__(self, tmp: Path, name: str, queues: tuple[str, str, str]) -> None:
        self.home = tmp / name
        dirs = {key: self.home / key for key in ("media", "cache", "var", "tmp", "work")}
        for path in dirs.values():
            path.mkdir(parents=True)
        self.media, self.cache, self.work = dirs["media"], dirs["cache"], dirs["work"]
        super().__init__(
            self.home,
            redis_url(),
            queues,
            CARDROOM_MEDIA_ROOT=str(dirs["media"]),
            CARDROOM_BOT_CACHE_DIR=str(dirs["cache"]),
            CARDROOM_VAR_DIR=str(dirs["var"]),
            CARDROOM_SECRET_KEY="scale-out-test",
            CARDROOM_TASK_LOG_LEVEL="INFO",  # each task's line says which machine played it
            TMPDIR=str(dirs["tmp"]),
            PYTHONPATH=str(ROOT),
        )

    def start(self, *, concurrency: int = 1, beat: bool = False) -> Machine:
        self.log = self.home / "worker.log"
        argv = [sys.executable, "-m", "celery", "-A", "config", "worker"]
        argv += ["-n", f"{self.home.name}-{uuid.uuid4().hex[:6]}@%h"]
        argv += ["-Q", ",".join(self.listen), "-c", str(concurrency), "-l", "info"]
        argv += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
        if beat:
            argv += ["-B", "-s", str(self.home / "beat")]
        self.proc = start_ready(argv, cwd=self.work, env=self.env, log=self.log)
        return self

    def send_own(self, task, ids: list[int]) -> None:
        """Send ``task`` of each id to this machine's private queue."""
        with task.app.connection_for_write(self.broker) as conn:
            for pk in ids:
                task.apply_async(args=[pk], queue=self.queues[2], connection=conn)

    def cached_uploads(self) -> dict[str, bytes]:
        blobs = self.cache / "blobs"
        return {p.name: p.read_bytes() for p in blobs.iterdir()} if blobs.is_dir() else {}


@pytest.fixture
def machines(tmp_path, settings):
    settings.CARDROOM_QUEUE_GRACE_S = int(WORKER_ENV["CARDROOM_QUEUE_GRACE_S"])
    tag = uuid.uuid4().hex[:10]
    shared = (f"test-matches-{tag}", f"test-default-{tag}")
    pair = [Machine(tmp_path, name, (*shared, f"test-{name}-{tag}")) for name in ("a", "b")]
    yield pair
    for machine in pair:
        machine.kill()
    import redis

    redis.Redis.from_url(redis_url()).delete(*shared, *(q for m in pair for q in m.listen))


def test_two_machines_without_a_shared_disk_play_a_competition_of_uploaded_bots(
    machines, tmp_path, settings, django_user_model
):
    # The web tier's own places: the test checks that nothing lands (or is read) there.
    settings.MEDIA_ROOT = web_media = tmp_path / "web" / "media"
    settings.CARDROOM_BOT_CACHE_DIR = web_cache = tmp_path / "web" / "cache"
    owner = django_user_model.objects.create_user(username="uploader")
    competition = make_competition(variant="money-jordan", entries=0, games=2, duplicate=False)
    versions = []
    for i in range(4):
        bot = bot_services.bot_create(owner=owner, name=f"cheap-{i}")
        source = EXAMPLE + f"\n# copy {i}\n".encode()  # four different uploads
        versions.append(
            bot_services.bot_version_upload(
                bot=bot, filename="bot.py", content=source, variants=["money-jordan"]
            )
        )
        services.entry_create(competition=competition, bot=bot)
    a, b = (machine.start(beat=machine.home.name == "a") for machine in machines)

    # Validation on the machines: two versions each, through their private queues.
    a.send_own(version_validate, [v.pk for v in versions[:2]])
    b.send_own(version_validate, [v.pk for v in versions[2:]])
    wait_for(
        lambda: not BotVersion.objects.filter(
            pk__in=[v.pk for v in versions], status__in=["pending", "validating"]
        ).exists(),
        60,
        "the validations",
    )
    statuses = dict(BotVersion.objects.filter(bot__owner=owner).values_list("number", "status"))
    reports = [v.validation_report for v in BotVersion.objects.filter(bot__owner=owner)]
    assert (
        list(BotVersion.objects.filter(bot__owner=owner).values_list("status", flat=True))
        == ["ready"] * 4
    ), (statuses, reports)

    # The first round's matches are handed out one to each machine in turn; the
    # machines pair and queue the later rounds themselves on the shared queue.
    def hand_out(ids: list[int]) -> None:
        a.send_own(tasks.match_run, ids[0::2])
        b.send_own(tasks.match_run, ids[1::2])

    services.competition_start(competition=competition, send=hand_out)
    wait_for(lambda: finished(competition), 120, "the competition to finish")

    assert_recorded_exactly_once(competition)
    assert_ratings_equal_a_recompute(competition)
    assert competition.matches.count() == 6  # a round robin of four: every pair once
    seats = [seat for match in competition.matches.all() for seat in match.seats.all()]
    assert all(seat.statuses == {"ok": 2} for seat in seats), [  # the uploads really played
        (seat.statuses, seat.log[-300:]) for seat in seats
    ]
    for machine in (a, b):
        # The task's result line follows the commit that may have finished the competition.
        wait_for(
            lambda m=machine: "'recorded'" in m.log.read_text(),
            30,
            f"{machine.home.name} to have played a match",
        )
        uploads = machine.cached_uploads()
        assert uploads, f"machine {machine.home.name} cached nothing"
        assert all(hashlib.sha256(data).hexdigest() == key for key, data in uploads.items())
        assert not any(machine.media.rglob("*")), "a worker wrote to its media root"
    hashes = {v.sha256 for v in versions}
    assert set(a.cached_uploads()) | set(b.cached_uploads()) == hashes
    # Nothing of the web tier's was there to be read: no upload file, no unpacked tree.
    assert not web_media.exists() and not web_cache.exists()
    assert not BotVersion.objects.filter(bot__owner=owner).exclude(archive="").exists()
    assert os.path.commonpath([a.cache, b.cache]) == str(tmp_path)
