"""Live events of a competition, sent to its channel-layer group ``competition.<id>``.

The services announce what changed after their transaction commits; the
consumers (``tournaments.consumers``) relay the events to the browsers. Every
event is a JSON-safe dict with a ``type``, the ``competition`` id and a payload:

=======================  ==========================================================
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
                         ``rounds``: ``dashboard.selectors.rounds_view``, the
                         rounds, the current round's pairings and the bracket.
``round.finished``       ``round`` and ``rounds``, as for ``round.started``.
``queue.status``         ``queue``: ``dashboard.selectors.queue_status``, the
                         competition's matches by status (``pending``, ``queued``,
                         ``running``, ``done``, ``failed``, ``total``),
                         ``results_per_minute`` (matches finished in the last
                         minute), ``backlog`` (tasks waiting in the Celery matches
                         queue, all competitions; null if unknown), ``workers``
                         holding a lease (``worker``, ``match``, ``since``,
                         ``until``) and ``at``, when it was read. ``worker`` is the
                         process (``host/pid``) for staff only; everyone else gets
                         an opaque label of it (:func:`worker_label`). At most about
                         one per second per competition
                         (:data:`QUEUE_STATUS_INTERVAL_S`).
``competition.finished`` ``status``: the final status; ``standings``: the final rows.
=======================  ==========================================================

Events are notifications, delivered at most once to the sockets connected at the
time and possibly repeated (two results recorded at the same moment may both see
a round finished); a socket that (re)connects first receives a ``snapshot`` of the
current state, so nothing depends on having seen every event. Sending never
breaks a service: if the channel layer is down the failure is logged and the
caller goes on.

``queue.status`` is announced after every claim, result, release, failure and
reaper pass, and coalesced: the first in a window of
:data:`QUEUE_STATUS_INTERVAL_S` goes out at once, the newest of the rest when the
window closes (from the process that read it; with several processes, a
browser keeps the status with the latest ``at``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings

from tournaments.formats.match_result import describe_decision
from tournaments.models import Competition, Match, RatingEvent, Round

log = logging.getLogger(__name__)

MATCH_STARTED = "match.started"
MATCH_FINISHED = "match.finished"
STANDINGS_UPDATED = "standings.updated"
ROUND_STARTED = "round.started"
ROUND_FINISHED = "round.finished"
COMPETITION_FINISHED = "competition.finished"
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
        QUEUE_STATUS,
    }
)

#: The channel-layer message type that carries an event to the consumers.
RELAY_MESSAGE_TYPE = "competition.event"


def group_name(competition_id: int) -> str:
    """The channel-layer group of a competition: ``competition.<id>``."""
    return f"competition.{int(competition_id)}"


def event(kind: str, competition_id: int, **payload: Any) -> dict[str, Any]:
    """An event of type ``kind``; raises ``ValueError`` for an unknown type."""
    if kind not in EVENT_TYPES and kind != SNAPSHOT:
        raise ValueError(f"unknown event type {kind!r}")
    return {"type": kind, "competition": int(competition_id), **payload}


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


def relay_message(event: dict[str, Any]) -> dict[str, Any]:
    """The channel-layer message carrying ``event``, encoded once for every socket."""
    return {
        "type": RELAY_MESSAGE_TYPE,
        "event_type": event["type"],
        "text": json.dumps(event, separators=(",", ":")),
    }


def broadcast(competition_id: int, event: dict[str, Any]) -> bool:
    """Send ``event`` to the group of the competition; True if it was handed to the layer.

    Never raises: a missing or unreachable channel layer is logged and ignored, so
    that recording a result never depends on the live view.
    """
    try:
        layer = get_channel_layer()
        if layer is None:
            return False
        async_to_sync(layer.group_send)(group_name(competition_id), relay_message(event))
        return True
    except Exception:
        log.warning(
            "could not broadcast %s of competition %s",
            event.get("type"),
            competition_id,
            exc_info=True,
        )
        return False


def match_payload(match: Match) -> dict[str, Any]:
    """A match with its seats (bot names, and ranks once it is done)."""
    seats = list(match.seats.select_related("entry__bot__owner").order_by("seat"))
    return {
        "id": match.pk,
        "round": match.round.number if match.round_id else None,
        "table": match.table,
        "node": match.node,
        "status": match.status,
        "finished_at": match.finished_at.isoformat() if match.finished_at else None,
        "seats": [
            {
                "seat": s.seat,
                "entry": s.entry_id,
                "name": str(s.entry.bot),
                "rank": s.rank,
                "score": s.score,
                "points": s.points,
            }
            for s in seats
        ],
        "decided_by": match.decided_by,
        "tiebreak": describe_decision(
            match.decided_by, [str(s.entry.bot) for s in seats], [s.score for s in seats]
        ),
        "games": (
            list(match.game_records.order_by("index").values_list("pk", flat=True))
            if match.status == Match.Status.DONE
            else []
        ),
    }


#: Rows a live ``standings.updated`` carries: the top of the table (the whole
#: table of a very large ladder is read through the API, not pushed per result).
LIVE_STANDINGS_ROWS = 200


def standings_event(competition: Competition) -> dict[str, Any]:
    """``standings.updated`` with the top of the standings and the progress."""
    from tournaments.execution import competition_progress
    from tournaments.selectors import standings_for_competition

    return event(
        STANDINGS_UPDATED,
        competition.pk,
        standings=standings_for_competition(competition=competition, limit=LIVE_STANDINGS_ROWS),
        progress=competition_progress(competition=competition),
    )


def _round_payload(round_: Round) -> dict[str, Any]:
    done = round_.matches.filter(status=Match.Status.DONE).count()
    return {
        "number": round_.number,
        "status": round_.status,
        "matches": round_.matches.count(),
        "done": done,
    }


def _round_event(kind: str, round_: Round, rounds: dict[str, Any]) -> dict[str, Any]:
    return event(kind, round_.competition_id, round=_round_payload(round_), rounds=rounds)


def _rounds_view(competition: Competition) -> dict[str, Any]:
    from tournaments.dashboard.selectors import rounds_view

    return rounds_view(competition=competition)


def rating_changes(match: Match) -> list[dict[str, Any]]:
    """The displayed rating (mu - 3 sigma) of each seat's entry before and after ``match``."""
    rows = RatingEvent.objects.filter(match=match).order_by("entry_id")
    return [
        {
            "entry": r.entry_id,
            "sequence": r.sequence,
            "before": r.mu_before - 3 * r.sigma_before,
            "after": r.mu_after - 3 * r.sigma_after,
        }
        for r in rows
    ]


def announce_match_recorded(*, match_id: int) -> None:
    """After a result is committed: the match, the standings, and any round or end change."""
    try:
        match = Match.objects.select_related("competition", "round").get(pk=match_id)
        competition = match.competition
        finished = event(
            MATCH_FINISHED,
            competition.pk,
            match=match_payload(match),
            ratings=rating_changes(match),
        )
        events = [finished, standings_event(competition)]
        round_ = match.round
        if round_ is not None and round_.status == Round.Status.FINISHED:
            rounds = _rounds_view(competition)
            events.append(_round_event(ROUND_FINISHED, round_, rounds))
            following = competition.rounds.filter(number=round_.number + 1).first()
            if following is not None:
                events.append(_round_event(ROUND_STARTED, following, rounds))
        if competition.status == Competition.Status.FINISHED:
            events.append(_finished_event(competition, events[1]["standings"]))
    except Exception:
        log.warning("could not build the events of match %s", match_id, exc_info=True)
        return
    for item in events:
        broadcast(competition.pk, item)


def announce_match_started(*, match_id: int) -> None:
    """After a worker claimed a match: ``match.started`` for its competition."""
    match = Match.objects.filter(pk=match_id).select_related("competition").first()
    if match is not None:
        broadcast(
            match.competition_id,
            event(MATCH_STARTED, match.competition_id, match=match_payload(match)),
        )


def announce_competition_started(*, competition_id: int) -> None:
    """After a competition started: its first round and the (initial) standings."""
    announce_rounds_started(competition_id=competition_id, with_standings=True)


def announce_rounds_started(*, competition_id: int, with_standings: bool = False) -> None:
    """``round.started`` for each running round (a new ladder batch paired by the reaper)."""
    try:
        competition = Competition.objects.get(pk=competition_id)
        running = list(competition.rounds.filter(status=Round.Status.RUNNING))
        rounds = _rounds_view(competition) if running else {}
        events = [_round_event(ROUND_STARTED, r, rounds) for r in running]
        if with_standings:
            events.append(standings_event(competition))
    except Exception:
        log.warning("could not build the start events of %s", competition_id, exc_info=True)
        return
    for item in events:
        broadcast(competition.pk, item)


def _finished_event(competition: Competition, standings: list[dict[str, Any]]) -> dict[str, Any]:
    return event(
        COMPETITION_FINISHED, competition.pk, status=competition.status, standings=standings
    )


# --- queue.status: read at every change, sent at most once a second ---

#: At most one ``queue.status`` per competition per this many seconds.
QUEUE_STATUS_INTERVAL_S = 1.0
#: Redis calls of the throttle and the backlog give up after this long (a worker goes on),
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


def _layer_redis() -> tuple[str, str] | None:
    """(Redis URL, key prefix) of the Redis channel layer; None for any other layer."""
    layer = settings.CHANNEL_LAYERS.get("default", {})
    if "redis" not in layer.get("BACKEND", "").lower():
        return None
    config = layer.get("CONFIG", {})
    host = (config.get("hosts") or [None])[0]
    if isinstance(host, dict):
        host = host.get("address")
    if not isinstance(host, str):
        return None
    return host, config.get("prefix", "asgi")


class Throttle:
    """One pass per key per ``interval_s``, shared by the processes that share the broadcasts.

    With the Redis channel layer the gate is ``SET <prefix>:throttle:<key> NX PX`` in that
    Redis (every worker process sees it); with another layer, whose broadcasts stay in one
    process, and whenever Redis fails, a timestamp per key in this process.
    """

    def __init__(self, interval_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval_s = interval_s
        self.clock = clock
        self._next: dict[str, float] = {}
        self._lock = threading.Lock()

    def wait(self, key: str) -> float:
        """0.0 if the caller may pass now (and the window restarts), else seconds to wait."""
        shared = _layer_redis()
        if shared is not None:
            try:
                return self._wait_redis(key, *shared)
            except RedisUnavailable:
                log.debug("throttle: Redis unavailable, throttling in this process", exc_info=True)
        return self._wait_local(key)

    def _wait_local(self, key: str) -> float:
        with self._lock:
            now = self.clock()
            opens = self._next.get(key, 0.0)
            if now >= opens:
                self._next[key] = now + self.interval_s
                return 0.0
            return opens - now

    def _wait_redis(self, key: str, url: str, prefix: str) -> float:
        name = f"{prefix}:throttle:{key}"
        px = max(1, int(self.interval_s * 1000))

        def gate(client) -> float:
            if client.set(name, "1", nx=True, px=px):
                return 0.0
            left_ms = client.pttl(name)  # -2: expired meanwhile; try again very soon
            return left_ms / 1000 if left_ms > 0 else 0.001

        return _redis_call(url, gate)


_queue_throttle = Throttle(QUEUE_STATUS_INTERVAL_S)
_pending: dict[int, dict[str, Any]] = {}  # competition id -> newest unsent queue.status
_timers: dict[int, threading.Timer] = {}
_pending_lock = threading.Lock()


def _schedule(delay_s: float, function: Callable[[], None]) -> threading.Timer:
    """Run ``function`` in ``delay_s`` seconds on a daemon thread (it only talks to the layer)."""
    timer = threading.Timer(delay_s, function)
    timer.daemon = True
    timer.start()
    return timer


def celery_backlog() -> int | None:
    """Messages waiting in the Celery matches queue (all competitions); None if unknown.

    Known for a Redis broker, where a queue is a list per priority step (kombu's default
    steps 0, 3, 6 and 9; step 0 is the queue's own name).
    """
    url = getattr(settings, "CELERY_BROKER_URL", "") or ""
    if not url.startswith(("redis://", "rediss://", "unix://")):
        return None
    queue = settings.CARDROOM_MATCH_QUEUE
    names = (queue, *(f"{queue}\x06\x16{step}" for step in (3, 6, 9)))

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


def queue_status_event(competition_id: int) -> dict[str, Any]:
    """``queue.status`` of a competition, as of now (the backlog is added when it is sent).

    It names the worker processes: the fan-out (``tournaments.fanout``) hands non-staff
    sockets its :func:`public_event_text`.
    """
    from tournaments.dashboard.selectors import queue_status

    return event(
        QUEUE_STATUS,
        competition_id,
        queue=queue_status(competition_id=competition_id, staff=True),
    )


def announce_queue_status(*, competition_id: int) -> None:
    """After a claim, a result, a release, a failure or a reaper pass: ``queue.status``.

    Read now, sent at once if no status of this competition went out in the last
    :data:`QUEUE_STATUS_INTERVAL_S`, else kept (the newest wins) and sent when the
    window closes. Never raises.
    """
    try:
        item = queue_status_event(competition_id)
    except Exception:
        log.warning("could not read the queue status of %s", competition_id, exc_info=True)
        return
    with _pending_lock:
        _pending[competition_id] = item
        if competition_id in _timers:
            return  # the scheduled send takes the newest
    _flush_queue_status(competition_id)


def _flush_queue_status(competition_id: int) -> None:
    try:
        with _pending_lock:
            _timers.pop(competition_id, None)
        wait = _queue_throttle.wait(f"{QUEUE_STATUS}:{competition_id}")
        with _pending_lock:
            if wait > 0:
                if competition_id not in _timers and competition_id in _pending:
                    _timers[competition_id] = _schedule(
                        wait, lambda: _flush_queue_status(competition_id)
                    )
                return
            item = _pending.pop(competition_id, None)
        if item is not None:
            item["queue"]["backlog"] = celery_backlog()
            broadcast(competition_id, item)
    except Exception:
        log.warning("could not send the queue status of %s", competition_id, exc_info=True)
