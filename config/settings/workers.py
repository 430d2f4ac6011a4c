"""Settings of the workers: their metrics, their priority and the sandbox's CPU weight,
the queues by kind, the matches' limits, leases and pacing, and Celery's configuration
(``docs/queues.md``). Part of ``config.settings``, which imports every name of it."""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured

from config.settings.accounts import CARDROOM_PRUNE_EVERY_S
from config.settings.environment import REDIS_URL, env_allowance

# --- Metrics (config.metrics; deploy/README.md "Metrics") ---
# /metrics answers staff sessions and ``Authorization: Bearer <CARDROOM_METRICS_TOKEN>``
# (unset: staff only). Workers serve their own on CARDROOM_WORKER_METRICS_PORT (0: off),
# gathered from their processes through PROMETHEUS_MULTIPROC_DIR (config.metrics).
CARDROOM_METRICS_TOKEN = os.environ.get("CARDROOM_METRICS_TOKEN", "")
CARDROOM_WORKER_METRICS_PORT = env_allowance("CARDROOM_WORKER_METRICS_PORT", 0)
if CARDROOM_WORKER_METRICS_PORT > 65535:
    raise ImproperlyConfigured(
        f"CARDROOM_WORKER_METRICS_PORT must be a TCP port (1 to 65535) or 0 (off), "
        f"got {CARDROOM_WORKER_METRICS_PORT}"
    )

# --- Workers ---
# A worker lowers its own CPU priority (its pool processes inherit it): where workers
# share a machine with the web tier (a club's one machine, the demo), pages and live
# pushes are served before bulk matches. Bots lose nothing: they run in cgroups whose
# weight the sandbox sets, are charged their CPU time, and the time they waited for a CPU
# is not charged. 0 keeps the priority.
CARDROOM_WORKER_NICE = env_allowance("CARDROOM_WORKER_NICE", 10)
if CARDROOM_WORKER_NICE > 19:
    raise ImproperlyConfigured(
        f"CARDROOM_WORKER_NICE must be a whole number from 0 to 19, got {CARDROOM_WORKER_NICE}"
    )

# The group holding every bot gets a CPU weight below the rest of the machine's. The
# sandbox reads the variable itself (bots.sandbox.cgroup.base_weight, the same rule); a
# bad value stops the start here, naming it, rather than at a worker's first match.
_weight = os.environ.get("CARDROOM_SANDBOX_CPU_WEIGHT", "20").strip() or "20"
if not _weight.isdigit() or not 1 <= int(_weight) <= 10_000:
    raise ImproperlyConfigured(
        f"CARDROOM_SANDBOX_CPU_WEIGHT must be a whole number from 1 to 10000, got {_weight!r}"
    )
CARDROOM_SANDBOX_CPU_WEIGHT = int(_weight)

# --- Celery ---
# Work is queued by kind, one queue each (names below; CARDROOM_QUEUE_PREFIX goes before
# every default name). A worker listens to the queues of CARDROOM_QUEUES in that order
# and always takes from the first that has work (the Redis transport's "priority" order,
# CELERY_BROKER_TRANSPORT_OPTIONS below): periodic tasks, then the matches of
# tournaments and leagues (a round waits on them), of ladders, validations, challenges,
# version tests, anything else. See docs/queues.md and deploy/README.md. The broker and
# the result backend are the Redis of REDIS_URL. Times are seconds; every value can be
# set from the environment.
CARDROOM_QUEUE_PREFIX = os.environ.get("CARDROOM_QUEUE_PREFIX", "")


def _queue_name(variable: str, default: str) -> str:
    return os.environ.get(variable, CARDROOM_QUEUE_PREFIX + default)


# The reaper and the validations' requeuing (beat): a worker of their own serves them.
CARDROOM_PERIODIC_QUEUE = _queue_name("CARDROOM_PERIODIC_QUEUE", "periodic")
# Matches of knockouts, round robins, Swiss (tournaments and league seasons).
CARDROOM_MATCH_QUEUE = _queue_name("CARDROOM_MATCH_QUEUE", "matches")
CARDROOM_LADDER_QUEUE = _queue_name("CARDROOM_LADDER_QUEUE", "ladders")
# Uploads are always validated on a worker (bots.tasks), never inside the upload request:
# on this queue (its workers need the sandbox; uploads come from the bot store). A validation queued
# this long ago that has not started is sent again (its message was lost).
CARDROOM_VALIDATE_QUEUE = _queue_name("CARDROOM_VALIDATE_QUEUE", "validations")
CARDROOM_VALIDATE_GRACE_S = int(os.environ.get("CARDROOM_VALIDATE_GRACE_S", "600"))
CARDROOM_CHALLENGE_QUEUE = _queue_name("CARDROOM_CHALLENGE_QUEUE", "challenges")
CARDROOM_VERSION_TEST_QUEUE = _queue_name("CARDROOM_VERSION_TEST_QUEUE", "version-tests")
CARDROOM_DEFAULT_QUEUE = _queue_name("CARDROOM_DEFAULT_QUEUE", "celery")
#: (kind, queue) of all work, most urgent first: what a worker listens to, in this order
#: (``celery -A config worker -Q`` + the names joined by commas; ``manage.py
#: worker_queues`` prints them). Metrics and allowances read the kinds from here.
CARDROOM_QUEUES: tuple[tuple[str, str], ...] = (
    ("periodic", CARDROOM_PERIODIC_QUEUE),
    ("competition", CARDROOM_MATCH_QUEUE),
    ("ladder", CARDROOM_LADDER_QUEUE),
    ("validation", CARDROOM_VALIDATE_QUEUE),
    ("challenge", CARDROOM_CHALLENGE_QUEUE),
    ("version-test", CARDROOM_VERSION_TEST_QUEUE),
    ("default", CARDROOM_DEFAULT_QUEUE),
)
# The pacing quantum (ms) of new standing open ladders, and of validations, which look
# like their matches (0: off). On by default: the referee holds the turns of a table
# only where two uploaded bots sit (one among house bots has nobody to signal to), so a
# validation and a house table cost nothing; docs/fair-play.md "Pacing".
CARDROOM_LADDER_PACE_MS = int(os.environ.get("CARDROOM_LADDER_PACE_MS", "5"))
if CARDROOM_LADDER_PACE_MS < 0:
    raise ImproperlyConfigured(
        f"CARDROOM_LADDER_PACE_MS must be 0 or more, got {CARDROOM_LADDER_PACE_MS}"
    )
# An owner's validations, challenges and version tests hold at most this many slots of
# the users' lane at once, so that one is free for the next person (config.fairshare).
CARDROOM_USERS_OWNER_SLOTS = int(os.environ.get("CARDROOM_USERS_OWNER_SLOTS", "1"))
if CARDROOM_USERS_OWNER_SLOTS < 1:
    raise ImproperlyConfigured(
        f"CARDROOM_USERS_OWNER_SLOTS must be at least 1, got {CARDROOM_USERS_OWNER_SLOTS}"
    )
# While another's work waits, the bots of one owner (accounts linked as one person
# counting as one) are at the tables of at most this many slots of the competitions'
# lane at once: one person's slow bots never hold every slot a round waits on.
CARDROOM_COMPETITION_OWNER_SLOTS = int(os.environ.get("CARDROOM_COMPETITION_OWNER_SLOTS", "1"))
if CARDROOM_COMPETITION_OWNER_SLOTS < 1:
    raise ImproperlyConfigured(
        "CARDROOM_COMPETITION_OWNER_SLOTS must be at least 1, got "
        f"{CARDROOM_COMPETITION_OWNER_SLOTS}"
    )
# A competition has at most this many messages waiting in its queue (a message: one match,
# or a list of up to 64 short ones); the rest wait in the database and are sent as workers
# take those, behind the other competitions' (tournaments.worker.execution: turns within a kind).
CARDROOM_COMPETITION_WINDOW = int(os.environ.get("CARDROOM_COMPETITION_WINDOW", "4"))
# A worker told to stop (SIGTERM) claims nothing more and lets the match it plays finish
# for this long; then it gives the match back to the queue (tournaments.worker.drain).
CARDROOM_DRAIN_GRACE_S = float(os.environ.get("CARDROOM_DRAIN_GRACE_S", "60"))
if CARDROOM_COMPETITION_WINDOW < 1:
    raise ImproperlyConfigured(
        f"CARDROOM_COMPETITION_WINDOW must be at least 1, got {CARDROOM_COMPETITION_WINDOW}"
    )
if not 0 <= CARDROOM_DRAIN_GRACE_S <= 86400:
    raise ImproperlyConfigured(
        f"CARDROOM_DRAIN_GRACE_S must be from 0 to 86400 seconds, got {CARDROOM_DRAIN_GRACE_S}"
    )
# Matches shorter than this many games share tasks: a round of them goes out as one
# task that plays its waiting matches one after another and brings in free workers
# (tournaments.services.queue.match_tasks); 1 sends one task per match. A task that has
# played for CARDROOM_TASK_BUDGET_S seconds sends the rest of its list again.
CARDROOM_TASK_GAMES = int(os.environ.get("CARDROOM_TASK_GAMES", "20"))
# At most one match of a tournament, league or ladder starts every this many seconds
# across all workers (0: no pace; the demo's --pace): a paced match waits in its slot
# for the start it reserved in Redis (config.pacing); paced, every match is a task of
# its own.
CARDROOM_MATCH_PACE_S = float(os.environ.get("CARDROOM_MATCH_PACE_S", "0"))
if not 0 <= CARDROOM_MATCH_PACE_S <= 3600:
    raise ImproperlyConfigured(
        f"CARDROOM_MATCH_PACE_S must be from 0 to 3600 seconds, got {CARDROOM_MATCH_PACE_S}"
    )
if CARDROOM_MATCH_PACE_S:
    CARDROOM_TASK_GAMES = 1
CARDROOM_TASK_BUDGET_S = float(os.environ.get("CARDROOM_TASK_BUDGET_S", "10"))
# Soft limit of one match task (the hard limit is 30 s later); no match may run longer.
CARDROOM_MATCH_TIME_LIMIT_S = int(os.environ.get("CARDROOM_MATCH_TIME_LIMIT_S", "1800"))
# A claimed match belongs to its worker for this long; after it the reaper requeues it.
CARDROOM_MATCH_LEASE_S = int(
    os.environ.get("CARDROOM_MATCH_LEASE_S", str(CARDROOM_MATCH_TIME_LIMIT_S + 60))
)
# A queued match whose task has not started within this time is enqueued again
# (a message lost with the broker); a duplicate message is harmless.
CARDROOM_QUEUE_GRACE_S = int(os.environ.get("CARDROOM_QUEUE_GRACE_S", "3600"))
# Infrastructure errors (sandbox, database, OS) are retried this often, with backoff.
CARDROOM_MATCH_MAX_RETRIES = int(os.environ.get("CARDROOM_MATCH_MAX_RETRIES", "5"))
CARDROOM_MATCH_RETRY_BACKOFF_S = float(os.environ.get("CARDROOM_MATCH_RETRY_BACKOFF_S", "5"))
# On PostgreSQL a worker's claim and recording commit without waiting for the disk
# (synchronous_commit off for those transactions; safe, see tournaments/worker/execution.py).
CARDROOM_MATCH_ASYNC_COMMIT = os.environ.get("CARDROOM_MATCH_ASYNC_COMMIT", "1") not in (
    "0",
    "false",
    "no",
)
# Watching a match while it is played (tournaments.live.publisher): the worker publishes each game
# as it finishes and the game in progress, through the cache, at most once per
# CARDROOM_LIVE_MOVES_S for moves and once per CARDROOM_LIVE_GAMES_S for finished games,
# nothing before the match has been played for CARDROOM_LIVE_AFTER_S.
CARDROOM_LIVE = os.environ.get("CARDROOM_LIVE", "1") not in ("0", "false", "no")
CARDROOM_LIVE_MOVES_S = float(os.environ.get("CARDROOM_LIVE_MOVES_S", "0.25"))
CARDROOM_LIVE_GAMES_S = float(os.environ.get("CARDROOM_LIVE_GAMES_S", "0.05"))
CARDROOM_LIVE_AFTER_S = float(os.environ.get("CARDROOM_LIVE_AFTER_S", "0.5"))
# A match whose lease expired this many times (its worker died each time) fails.
CARDROOM_MATCH_MAX_ATTEMPTS = int(os.environ.get("CARDROOM_MATCH_MAX_ATTEMPTS", "8"))
CARDROOM_REAP_EVERY_S = float(os.environ.get("CARDROOM_REAP_EVERY_S", "30"))
# A ladder pairs its next batch as soon as one ends; with a pause, the reaper pairs it
# once the last batch has been over this long (a paced ladder; the demo uses one).
CARDROOM_LADDER_PAUSE_S = float(os.environ.get("CARDROOM_LADDER_PAUSE_S", "0"))

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", REDIS_URL)
if CELERY_BROKER_URL.startswith("redis://"):
    # kombu's Redis transport, with a worker-stopping fault on a lost broker mended.
    CELERY_BROKER_TRANSPORT = "config.broker:Transport"
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", REDIS_URL)
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True  # results live in the database
# Celery's Django fixup closes the database connection after every task unless this is
# set (a new connection per match: several milliseconds). Tasks keep their connection;
# config.celery closes it when Django would (errors, CONN_MAX_AGE) around each task.
CELERY_DB_REUSE_MAX = 1_000_000
CELERY_RESULT_EXPIRES = 3600
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# Messages a worker process holds beyond the matches it plays: 1 takes the next only
# once a match is over (no match waits behind a long one on a busy worker); 2 keeps
# one in hand, which saves the fetch between short matches.
CELERY_WORKER_PREFETCH_MULTIPLIER = int(os.environ.get("CARDROOM_WORKER_PREFETCH", "1"))
# `celery worker --autoscale=MAX,MIN` grows the pool past MIN processes only while its
# processes' bots sleep and work waits, and holds as many messages as it has processes
# (config.autoscale; docs/queues.md "A pool that grows while its bots sleep").
CELERY_WORKER_AUTOSCALER = "config.autoscale:IdleCpuAutoscaler"
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False  # they record via the DB
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_SOFT_TIME_LIMIT = CARDROOM_MATCH_TIME_LIMIT_S
CELERY_TASK_TIME_LIMIT = CARDROOM_MATCH_TIME_LIMIT_S + 30
# Unacknowledged messages come back after this; it must outlast the longest match.
# "priority": a worker's BRPOP names its queues in the order it was given them, always
# (kombu's default, round robin, moves the queue it last took from to the end).
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": CARDROOM_MATCH_LEASE_S + 600,
    "queue_order_strategy": "priority",
}
CELERY_TASK_DEFAULT_QUEUE = CARDROOM_DEFAULT_QUEUE
CELERY_TASK_ROUTES = {
    "tournaments.match_run": {"queue": CARDROOM_MATCH_QUEUE},
    "tournaments.matches_run": {"queue": CARDROOM_MATCH_QUEUE},
    "bots.version_validate": {"queue": CARDROOM_VALIDATE_QUEUE},
    "tournaments.version_test_run": {"queue": CARDROOM_VERSION_TEST_QUEUE},
    "tournaments.matches_reap": {"queue": CARDROOM_PERIODIC_QUEUE},
    "bots.versions_requeue": {"queue": CARDROOM_PERIODIC_QUEUE},
}
# Beat sends a periodic task only when none of its messages waits (config.beat), each
# message expiring after its period or a minute, whichever is longer: the periodic queue
# never grows past one of each. (Expiring after a period of 1 s, a busy worker that took
# more than a second to start the reaper dropped it unrun, every time: a dead worker's
# match then waited for its lease.)
CELERY_BEAT_SCHEDULER = "config.beat:Scheduler"
CARDROOM_REQUEUE_EVERY_S = float(os.environ.get("CARDROOM_REQUEUE_EVERY_S", "10"))


def periodic_expiry_s(period_s: float) -> float:
    """How long a periodic task's message may wait before a worker drops it unrun."""
    return max(60.0, period_s)


CELERY_BEAT_SCHEDULE = {
    "matches-reap": {
        "task": "tournaments.matches_reap",
        "schedule": CARDROOM_REAP_EVERY_S,
        "options": {
            "queue": CARDROOM_PERIODIC_QUEUE,
            "expires": periodic_expiry_s(CARDROOM_REAP_EVERY_S),
        },
    },
    "bot-versions-requeue": {
        "task": "bots.versions_requeue",
        "schedule": CARDROOM_REQUEUE_EVERY_S,
        "options": {
            "queue": CARDROOM_PERIODIC_QUEUE,
            "expires": periodic_expiry_s(CARDROOM_REQUEUE_EVERY_S),
        },
    },
}
if CARDROOM_PRUNE_EVERY_S:
    CELERY_BEAT_SCHEDULE["bot-versions-prune"] = {
        "task": "bots.versions_prune",
        "schedule": float(CARDROOM_PRUNE_EVERY_S),
        "options": {"expires": periodic_expiry_s(float(CARDROOM_PRUNE_EVERY_S))},
    }
#: The periodic tasks (config.beat: at most one of each waits in the broker).
CARDROOM_PERIODIC_TASKS = tuple(entry["task"] for entry in CELERY_BEAT_SCHEDULE.values())
