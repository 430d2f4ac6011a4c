"""Live events of a competition: their names and shapes, and the notifications that
announce a change (a leaf: it imports nothing of the project).

The write path only writes. A service that changed a competition sends, after its
transaction commits, a small **notification** to the competition's channel-layer
group ``competition.<id>`` (:func:`notify`)::

    {"type": "competition.changed", "competition": 42, "match": 7 | null,
     "changes": ["match.finished", "round.finished", ...], "round": 3 | null}

``changes`` lists what happened: :data:`MATCH_STARTED` (a worker claimed ``match``),
:data:`MATCH_FINISHED` (its result was recorded), :data:`ROUND_FINISHED`,
:data:`ROUND_STARTED` (round ``round`` was paired), :data:`COMPETITION_STARTED`,
:data:`COMPETITION_FINISHED` and :data:`QUEUE_CHANGED` (matches queued, released,
failed or reaped). A notification holds no data the worker read back: it costs
the recorder no query.

The web tier turns notifications into the events below (``tournaments.sockets.fanout``,
only in processes where someone watches the competition): the match events at
once, one build at a time, and the panels' snapshots at most four times a second
per competition however fast results arrive, each build reading the database
once for all the notifications that arrived since the last. The events
reach the browsers (``web/static/dashboard/live.js``); every event
is a JSON-safe dict with a ``type``, the ``competition`` id and a payload:

=======================  ==========================================================
``snapshot``             sent first to every socket: the whole page
                         (``watching.panels.competition_snapshot``: ``name``,
                         ``status``, ``format``, ``standings``, ``progress``,
                         ``matches`` (``running``, ``recent``), ``problems``,
                         ``rounds``, ``chart``, ``queue``, ``admin`` and for
                         organisers ``failed``; the page's own snapshot also
                         ``head_to_head``, which a socket's leaves out).
``match.started``        ``match``: the match (id, round, table, bracket ``node``,
                         status, seats).
``match.finished``       ``match``: the match, its seats with ``rank``, ``score`` and
                         ``points`` (game points), a knockout's ``decided_by`` and
                         ``tiebreak`` (how a level match was decided, or null),
                         and the ids of its ``games`` (for the replay page);
                         ``ratings``: per seat ``{"entry", "sequence", "before",
                         "after"}``, the displayed rating (mu - 3 sigma) before and
                         after this match, ``sequence`` its place in the
                         competition's rating history (the chart's x).
``standings.updated``    ``standings``: the rows of ``standings_for_competition``
                         (each with its ``trend``); ``progress``:
                         ``competition_progress``.
``round.started``        ``round``: ``{"number", "status", "matches", "done"}``;
                         ``rounds``: ``watching.brackets.rounds_view``, the
                         rounds, the current round's pairings and the bracket;
                         its ``results`` are those of the rounds named in
                         ``results_of`` (the rounds of the build's round events),
                         to be put with the others the page has (a ladder's: its
                         latest rounds, without ``results_of``).
``round.finished``       ``round`` and ``rounds``, as for ``round.started``.
``problems.updated``     ``problems``: ``watching.panels.problem_bots``, per bot
                         with faults ``{"name", "statuses", "total"}`` (the
                         snapshot's ``problems`` panel).
``queue.status``         ``queue``: ``watching.queue_panel.queue_status``, the
                         competition's matches by status (``pending``, ``queued``,
                         ``running``, ``done``, ``failed``, ``total``),
                         ``results_per_minute`` (matches finished in the last
                         minute), ``backlog`` (tasks waiting in the Celery matches
                         queue, all competitions; null if unknown), ``workers``
                         holding a lease (``worker``, ``match``, ``since``,
                         ``until``) and ``at``, when it was read. ``worker`` is the
                         process (``host/pid``) for staff only; everyone else gets
                         an opaque label of it (:func:`worker_label`).
``competition.finished`` ``status``: the final status; ``closed_early``: closed by its
                         organisers before its schedule ended; ``standings``: the final rows.
``head_to_head.updated`` ``head_to_head``: ``{"rows", "more"}``, the pairs that met
                         (``watching.panels.live_head_to_head``: matches,
                         ahead-level-behind, game score, sign test), the first
                         rows only and how many more there are.
``crosstable.updated``   ``crosstable``: a round robin's crosstable
                         (``selectors.crosstable_for_competition``, the snapshot's
                         ``crosstable``). Like the head-to-head table it reads every
                         result of the competition and grows with the square of its
                         entries, so it goes with it, at most every few seconds, not
                         with each ``standings.updated``.
=======================  ==========================================================

The builds send their events in that order (``match.started``, ``match.finished``,
``standings.updated``, ``round.finished``, ``round.started``,
``competition.finished``, ``problems.updated``, ``queue.status``,
``head_to_head.updated``, ``crosstable.updated``), each only if a
notification called for it. Events are delivered at most once to the sockets
connected at the time; a socket that (re)connects first receives a ``snapshot``
of the current state, so nothing depends on having seen every event. Sending
never breaks a service: if the channel layer is down the failure is logged and
the caller goes on. How a message carries them, and the thread that sends them, are
``tournaments.live.relay``'s (its names are importable from here too).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from channels.layers import get_channel_layer
from django.conf import settings

from config.task_sending import PRIORITY_SUFFIXES
from tournaments.live.relay import (
    CHANGED,
    RELAY_MESSAGE_TYPE,
    _group_send,
    relay_message,
)
from tournaments.live.relay import SEND_BACKLOG_MAX as SEND_BACKLOG_MAX
from tournaments.live.relay import SEND_TICK_S as SEND_TICK_S
from tournaments.live.relay import SEND_TIMEOUT_S as SEND_TIMEOUT_S
from tournaments.live.relay import notifications_flush as notifications_flush
from tournaments.live.relay import notifications_in as notifications_in
from tournaments.live.relay import relay_batch as relay_batch

log = logging.getLogger(__name__)

MATCH_STARTED = "match.started"
MATCH_FINISHED = "match.finished"
STANDINGS_UPDATED = "standings.updated"
ROUND_STARTED = "round.started"
ROUND_FINISHED = "round.finished"
COMPETITION_FINISHED = "competition.finished"
PROBLEMS_UPDATED = "problems.updated"
HEAD_TO_HEAD_UPDATED = "head_to_head.updated"
CROSSTABLE_UPDATED = "crosstable.updated"
QUEUE_STATUS = "queue.status"
SNAPSHOT = "snapshot"

EVENT_TYPES = frozenset(
    {
        MATCH_STARTED,
        MATCH_FINISHED,
        STANDINGS_UPDATED,
        ROUND_STARTED,
        ROUND_FINISHED,
        COMPETITION_FINISHED,
        PROBLEMS_UPDATED,
        HEAD_TO_HEAD_UPDATED,
        CROSSTABLE_UPDATED,
        QUEUE_STATUS,
    }
)

#: Changes a notification may name besides the event types above.
COMPETITION_STARTED = "competition.started"
#: Paused, resumed or closed by an organiser (the standings event carries the status).
COMPETITION_STATUS = "competition.status"
QUEUE_CHANGED = "queue.changed"
CHANGES = frozenset(
    {
        COMPETITION_STATUS,
        MATCH_STARTED,
        MATCH_FINISHED,
        ROUND_STARTED,
        ROUND_FINISHED,
        COMPETITION_STARTED,
        COMPETITION_FINISHED,
        QUEUE_CHANGED,
    }
)


def group_name(competition_id: int) -> str:
    """The channel-layer group of a competition: ``competition.<id>``."""
    return f"competition.{int(competition_id)}"


def event(kind: str, competition_id: int, **payload: Any) -> dict[str, Any]:
    """An event of type ``kind``; raises ``ValueError`` for an unknown type."""
    if kind not in EVENT_TYPES and kind not in (SNAPSHOT, CHANGED):
        raise ValueError(f"unknown event type {kind!r}")
    return {"type": kind, "competition": int(competition_id), **payload}


def notification(
    competition_id: int,
    changes: Iterable[str],
    *,
    match_id: int | None = None,
    round_number: int | None = None,
) -> dict[str, Any]:
    """The notification of ``changes``; raises ``ValueError`` naming an unknown change."""
    changes = list(dict.fromkeys(changes))
    unknown = [c for c in changes if c not in CHANGES]
    if unknown or not changes:
        raise ValueError(f"unknown or no changes {unknown or changes!r}; known: {sorted(CHANGES)}")
    return event(
        CHANGED,
        competition_id,
        match=None if match_id is None else int(match_id),
        changes=changes,
        round=round_number,
    )


@dataclass
class Changes:
    """The notifications of one competition gathered since its last build."""

    started: list[int] = field(default_factory=list)
    finished: list[int] = field(default_factory=list)
    kinds: set[str] = field(default_factory=set)
    rounds_finished: list[int] = field(default_factory=list)

    def add(self, note: dict[str, Any]) -> None:
        """Fold one notification in (malformed parts are ignored)."""
        kinds = {c for c in note.get("changes") or () if c in CHANGES}
        self.kinds |= kinds
        match = note.get("match")
        if isinstance(match, int):
            if MATCH_STARTED in kinds and match not in self.started:
                self.started.append(match)
            if MATCH_FINISHED in kinds and match not in self.finished:
                self.finished.append(match)
        number = note.get("round")
        if ROUND_FINISHED in kinds and isinstance(number, int):
            self.rounds_finished.append(number)

    def __bool__(self) -> bool:
        return bool(self.kinds)


def worker_label(process: str) -> str:
    """An opaque, stable name of a worker process (``host/pid``) for non-staff eyes:
    ``worker-`` and 8 hex digits of an HMAC under the secret key (not reversible)."""
    digest = hmac.new(
        settings.SECRET_KEY.encode(), f"cardroom-worker:{process}".encode(), hashlib.sha256
    ).hexdigest()
    return f"worker-{digest[:8]}"


def public_event_text(event_type: str | None, text: str) -> str:
    """The encoded event ``text`` as non-staff may see it: the worker processes of a
    ``queue.status`` replaced by their :func:`worker_label`; other events unchanged."""
    if event_type != QUEUE_STATUS:
        return text
    item = json.loads(text)
    for worker in (item.get("queue") or {}).get("workers") or []:
        if isinstance(worker.get("worker"), str):
            worker["worker"] = worker_label(worker["worker"])
    return json.dumps(item, separators=(",", ":"))


def broadcast(competition_id: int, event: dict[str, Any]) -> bool:
    """Send ``event`` to the group of the competition; True if it was handed to the layer.

    Never raises: a missing or unreachable channel layer is logged and ignored, so
    that recording a result never depends on the live view.
    """
    try:
        layer = get_channel_layer()
        if layer is None:
            return False
        _group_send(layer, group_name(competition_id), relay_message(event))
        return True
    except Exception:
        log.warning(
            "could not broadcast %s of competition %s",
            event.get("type"),
            competition_id,
            exc_info=True,
        )
        return False


def notify(
    *,
    competition_id: int,
    changes: Iterable[str],
    match_id: int | None = None,
    round_number: int | None = None,
) -> bool:
    """Send the notification of ``changes`` (call it after commit); never raises."""
    try:
        note = notification(competition_id, changes, match_id=match_id, round_number=round_number)
    except ValueError:
        log.warning("not a notification: %s", list(changes), exc_info=True)
        return False
    return broadcast(competition_id, note)


# --- a match watched while it is played (tournaments.live.publisher) ---

#: The notification a worker sends to the group of a running match it published more
#: of: ``{"type": "match.live", "match": 7, "games": 3, "over": false}`` (``games``: how
#: many of its games are finished; ``over``: the match ended, recorded or not). The web
#: tier reads what changed from the live store (``tournaments.sockets.match_fanout.MatchFanout``).
MATCH_LIVE = "match.live"


def match_group_name(match_id: int) -> str:
    """The channel-layer group of a running match: ``match.<id>``."""
    return f"match.{int(match_id)}"


def notify_match(*, match_id: int, games: int, over: bool = False) -> bool:
    """Send a :data:`MATCH_LIVE` notification to the match's group; never raises."""
    note = {"type": MATCH_LIVE, "match": int(match_id), "games": int(games), "over": over}
    try:
        layer = get_channel_layer()
        if layer is None:
            return False
        message = {
            "type": RELAY_MESSAGE_TYPE,
            "event_type": MATCH_LIVE,
            "text": json.dumps(note, separators=(",", ":")),
        }
        _group_send(layer, match_group_name(match_id), message)
        return True
    except Exception:
        log.warning("could not notify the watchers of match %s", match_id, exc_info=True)
        return False


# --- the Celery backlog (read by the web tier for the queue panel) ---

#: Redis calls of the backlog give up after this long (the caller goes on),
REDIS_TIMEOUT_S = 0.5
#: ... and after a failure that Redis is left alone for this long.
REDIS_RETRY_S = 5.0

_REDIS_CLIENTS: dict[str, Any] = {}
_REDIS_DOWN_UNTIL: dict[str, float] = {}


class RedisUnavailable(Exception):
    """The Redis is down or failed recently; the caller falls back."""


def _redis_call(url: str, call: Callable[[Any], Any]) -> Any:
    """``call(client)`` on a client of the Redis at ``url`` with short timeouts.

    Raises :class:`RedisUnavailable` if it fails, and then at once for
    :data:`REDIS_RETRY_S` seconds, so that a Redis that is down costs one timeout.
    """
    if time.monotonic() < _REDIS_DOWN_UNTIL.get(url, 0.0):
        raise RedisUnavailable(url)
    client = _REDIS_CLIENTS.get(url)
    try:
        if client is None:
            import redis

            client = _REDIS_CLIENTS[url] = redis.Redis.from_url(
                url, socket_timeout=REDIS_TIMEOUT_S, socket_connect_timeout=REDIS_TIMEOUT_S
            )
        return call(client)
    except Exception as exc:
        _REDIS_DOWN_UNTIL[url] = time.monotonic() + REDIS_RETRY_S
        raise RedisUnavailable(f"{url}: {exc}") from exc


def celery_backlog() -> int | None:
    """Messages waiting in the Celery queues of matches (all competitions: the
    tournaments' and leagues' queue and the ladders'); None if unknown.

    Known for a Redis broker, where a queue is a list per priority step (kombu's default
    steps 0, 3, 6 and 9; step 0 is the queue's own name).
    """
    url = getattr(settings, "CELERY_BROKER_URL", "") or ""
    if not url.startswith(("redis://", "rediss://", "unix://")):
        return None
    queues = dict.fromkeys((settings.CARDROOM_MATCH_QUEUE, settings.CARDROOM_LADDER_QUEUE))
    names = [queue + suffix for queue in queues for suffix in PRIORITY_SUFFIXES]

    def lengths(client) -> int:
        pipe = client.pipeline(transaction=False)
        for name in names:
            pipe.llen(name)
        return sum(pipe.execute())

    try:
        return _redis_call(url, lengths)
    except RedisUnavailable:
        log.debug("no backlog: the broker is unavailable", exc_info=True)
        return None
