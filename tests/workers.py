"""Real ``celery -A config worker`` processes for the tests, on private queues that use the
test database and Redis, and the checks of what they recorded.

Set ``DATABASE_URL`` (PostgreSQL) and ``REDIS_URL`` to use them (:data:`SERVICES`).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from django.db import connection

from tournaments.models import Competition, Match, RatingEvent
from tournaments.ratings import rate_game
from tournaments.worker import tasks

ROOT = Path(__file__).resolve().parents[1]
SERVICES = os.environ.get("DATABASE_URL", "").startswith("postgres") and os.environ.get(
    "REDIS_URL", ""
).startswith("redis")


def assert_recorded_exactly_once(comp: Competition) -> None:
    """Every match done once: its games stored once, one rating event per seat."""
    comp.refresh_from_db()
    assert comp.status == Competition.Status.FINISHED
    matches = list(comp.matches.all())
    assert matches and all(m.status == Match.Status.DONE for m in matches)
    for match in matches:
        assert match.game_records.count() == comp.games_per_match
        assert match.rating_events.count() == match.seats.count()
    entries = list(comp.entries.all())
    seats = sum(m.seats.count() for m in matches)
    assert sum(e.games for e in entries) == seats * comp.games_per_match
    sequences = list(
        RatingEvent.objects.filter(entry__competition=comp)
        .order_by("sequence")
        .values_list("sequence", flat=True)
        .distinct()
    )
    assert sequences == list(range(1, len(matches) + 1))


def assert_ratings_equal_a_recompute(comp: Competition) -> None:
    """Replaying the stored results in recording order gives the stored ratings."""
    ratings = {}
    events = RatingEvent.objects.filter(entry__competition=comp).order_by("sequence", "id")
    for match_id in dict.fromkeys(e.match_id for e in events):
        seats = list(Match.objects.get(pk=match_id).seats.order_by("seat"))
        ratings.update(rate_game(ratings, [s.entry_id for s in seats], [s.rank for s in seats]))
    for entry in comp.entries.all():
        assert (entry.mu, entry.sigma) == (ratings[entry.pk].mu, ratings[entry.pk].sigma)


def database_url() -> str:
    s = connection.settings_dict
    auth = s["USER"] + (f":{s['PASSWORD']}" if s.get("PASSWORD") else "")
    return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


def redis_url(db: int | None = None) -> str:
    base = os.environ["REDIS_URL"].rsplit("/", 1)[0]
    return f"{base}/{os.environ.get('CARDROOM_TEST_REDIS_DB', '14') if db is None else db}"


#: Short leases, deadlines and reaper period, so recoveries happen within seconds.
WORKER_ENV = {
    "CARDROOM_MATCH_LEASE_S": "4",
    "CARDROOM_QUEUE_GRACE_S": "3",
    "CARDROOM_REAP_EVERY_S": "1",
    "CARDROOM_MATCH_RETRY_BACKOFF_S": "0.2",
}


def periodic_queue(queues: tuple[str, ...]) -> str:
    """The private periodic queue that goes with a worker's private ``queues``."""
    return f"{queues[-1]}-periodic"


def two_queues(queues: tuple[str, ...]) -> dict[str, str]:
    """Every kind of work on a worker's two private queues: matches and ladder batches on
    the first, everything else on the second, but periodic tasks, which have their own
    queue, listed first (:func:`periodic_queue`; ``CARDROOM_QUEUES``)."""
    matches, other = queues[0], queues[1] if len(queues) > 1 else queues[0]
    return {
        "CARDROOM_MATCH_QUEUE": matches,
        "CARDROOM_LADDER_QUEUE": matches,
        "CARDROOM_PERIODIC_QUEUE": periodic_queue(queues),
        "CARDROOM_VALIDATE_QUEUE": other,
        "CARDROOM_CHALLENGE_QUEUE": other,
        "CARDROOM_VERSION_TEST_QUEUE": other,
        "CARDROOM_DEFAULT_QUEUE": other,
    }


class Worker:
    """A real ``celery -A config worker`` on private queues, in its own process group."""

    def __init__(self, tmp: Path, broker: str, queues: tuple[str, ...], **env: str) -> None:
        self.tmp, self.broker, self.queues = tmp, broker, queues
        # Listened to in this order: periodic tasks first, as a production worker does.
        periodic = env.get("CARDROOM_PERIODIC_QUEUE", periodic_queue(queues))
        self.listen = queues if periodic in queues else (periodic, *queues)
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url(),
            "REDIS_URL": broker,
            **two_queues(queues),
            **WORKER_ENV,
            **env,
        }
        self.proc: subprocess.Popen | None = None

    def start(
        self, *, concurrency: int = 2, beat: bool = True, pool: str = "", args: tuple = ()
    ) -> Worker:
        name = f"w{uuid.uuid4().hex[:6]}"
        self.log = self.tmp / f"{name}.log"
        argv = [sys.executable, "-m", "celery", "-A", "config", "worker", "-n", f"{name}@%h"]
        argv += ["-Q", ",".join(self.listen), "-c", str(concurrency), "-l", "info"]
        argv += ["-P", pool] if pool else []
        argv += [*args]
        argv += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
        if beat:
            argv += ["-B", "-s", str(self.tmp / f"{name}-beat")]
        self.proc = start_ready(argv, cwd=ROOT, env=self.env, log=self.log)
        return self

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, sig)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def send(self, ids: list[int]) -> None:
        """Publish match tasks to this worker's broker and queue (used as a Sender)."""
        with tasks.match_run.app.connection_for_write(self.broker) as conn:
            for match_id in ids:
                tasks.match_run.apply_async(args=[match_id], queue=self.queues[0], connection=conn)


def start_ready(argv: list[str], *, cwd: Path, env: dict, log: Path) -> subprocess.Popen:
    """Start the Celery worker ``argv`` in a session of its own, its output in ``log``,
    and wait (30 s at most) until it says it is ready."""
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            argv, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    deadline = time.monotonic() + 30
    while b" ready." not in log.read_bytes():
        assert proc.poll() is None, log.read_text()[-3000:]
        assert time.monotonic() < deadline, "worker not ready: " + log.read_text()[-3000:]
        time.sleep(0.1)
    return proc


def _log_tail(log: Path, chars: int = 4000) -> str:
    """The end of a worker's log without beat's "Sending due task" lines (one a second)."""
    lines = log.read_text(errors="replace").splitlines()
    return "\n".join(line for line in lines if "Sending due task" not in line)[-chars:]


def wait_for(predicate, timeout: float, what: str, *, logs: tuple[Worker, ...] = ()):
    """``predicate()`` once it is true, polled for up to ``timeout`` seconds; else an
    AssertionError naming ``what``, with the end of each of ``logs``' worker logs."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    tails = "".join(f"\n--- {w.log.name} ---\n{_log_tail(w.log)}" for w in logs if w.log.exists())
    raise AssertionError(f"timed out waiting for {what}{tails}")


def finished(comp: Competition) -> bool:
    comp.refresh_from_db(fields=["status"])
    return comp.status == Competition.Status.FINISHED
