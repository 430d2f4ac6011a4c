"""Watching a match while it is played: what the worker publishes and where.

A worker playing a match (``tournaments.worker.execution.match_execute``) hands the referee two
callbacks (``bots.referee.match.play_match``'s ``on_game`` and ``on_action``) that a
:class:`LivePublisher` turns into writes to the cache (Redis in production, the
``default`` cache of the settings) and a :func:`tournaments.live.events.notify_match` to the
match's group. Two kinds of keys, each with a time to live of the match's time limit:

- ``cardroom-live:<match>`` (the head): the claim it belongs to, a summary of each
  finished game (index, play-off set, seats, scores, ranking, statuses) and the game in
  progress (its index and its record so far: seed, dealer, decks and actions);
- ``cardroom-live:<match>:<index>``: the record of a finished game, written once.

The records hold every hand: they never leave the server. The web tier
(``tournaments.watching.live_match``) shows them in the public view.

**A retried match never shows the games of a failed attempt**: every value carries
the claim it was written under (:func:`claim_token`: the match's attempts, who
claimed it and its lease, which a new claim changes), the reader accepts only the current claim's,
the first write of a claim replaces the head, and the keys are deleted when the match
ends, recorded or not.

**Cheap for the worker.** Nothing is written before the match has been played for
``CARDROOM_LIVE_AFTER_S`` (a match of quick built-ins is over before anyone could watch
it: it writes nothing); then finished games are written at most once per
``CARDROOM_LIVE_GAMES_S`` and the game in progress at most once per
``CARDROOM_LIVE_MOVES_S``, on the worker's thread, when a game ends or an action is
applied after that time. Between two writes an action costs a clock read. A move
applied just after a write shows with the next action after the interval (a forced
move waits for the next decision).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.cache import caches

from bots.referee.match import GameResult
from tournaments.live import events

log = logging.getLogger(__name__)

#: The cache the live store uses (the settings' ``default``: Redis when ``REDIS_URL`` is set).
CACHE = "default"


def head_key(match_id: int) -> str:
    return f"cardroom-live:{int(match_id)}"


def game_key(match_id: int, index: int) -> str:
    return f"cardroom-live:{int(match_id)}:{int(index)}"


def claim_token(match: Any) -> str:
    """What tells one claim of ``match`` (a ``Match``) from any other: its attempts, who
    claimed it and the lease it was given (a retry, even by the same worker after the
    attempts were reset, gets another lease)."""
    lease = match.lease_until.timestamp() if match.lease_until is not None else 0.0
    return f"{int(match.attempts)}/{match.claimed_by}/{lease:.6f}"


def _ttl() -> int:
    return int(settings.CARDROOM_MATCH_TIME_LIMIT_S) + 120


@dataclass
class LivePublisher:
    """Publishes one claim of a running match (see the module docstring).

    ``game_finished`` and ``action_applied`` are the callbacks of
    ``services.match_play``; ``close`` is called once the match ended (recorded,
    failed or given back). Nothing here raises: a cache or channel layer that is down
    is logged and the match goes on.
    """

    match_id: int
    token: str
    moves_s: float = 0.25
    games_s: float = 0.05
    #: Nothing is written before the match has been played this long.
    after_s: float = 0.0
    clock: Callable[[], float] = time.monotonic
    games: list[dict[str, Any]] = field(default_factory=list)
    #: Finished games not written yet: (index, record).
    pending: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    written: bool = False
    flushes: int = 0
    last: float = 0.0

    def __post_init__(self) -> None:
        self.last = self.clock()
        self.quiet_until = self.last + self.after_s
        #: When an action may next be written.
        self.moves_at = max(self.last + self.moves_s, self.quiet_until)
        #: The game in progress and its state (read when written); None between games.
        self.current_index: int | None = None
        self.current_state: Any = None
        self.cache = caches[CACHE]

    def game_finished(self, game: GameResult, playoff: int = 0) -> None:
        self.games.append(
            {
                "index": game.index,
                "playoff": playoff,
                "seats": list(game.seats),
                "scores": list(game.scores),
                "ranking": list(game.ranking),
                "statuses": list(game.statuses),
            }
        )
        self.pending.append((game.index, game.record))
        self.current_state = None  # between games
        now = self.clock()
        if now - self.last >= self.games_s and now >= self.quiet_until:
            self.flush()

    def action_applied(self, index: int, state: Any) -> None:
        # Called after every action (thousands a match of quick bots): kept to a minimum.
        self.current_index, self.current_state = index, state
        if self.clock() >= self.moves_at:
            self.flush()

    def flush(self) -> bool:
        """Write what changed and notify the match's watchers; True if it was written."""
        self.last = self.clock()
        self.moves_at = max(self.last + self.moves_s, self.quiet_until)
        try:  # (the head replaces any an earlier claim left)
            current = None
            if self.current_state is not None:
                state = self.current_state
                current = {"index": self.current_index, "record": state.record()}
            head = {"claim": self.token, "games": self.games, "current": current}
            values = {head_key(self.match_id): head}
            for index, record in self.pending:
                values[game_key(self.match_id, index)] = {"claim": self.token, "record": record}
            self.cache.set_many(values, timeout=_ttl())
        except Exception:
            log.warning("could not publish match %s while it plays", self.match_id, exc_info=True)
            return False
        self.pending.clear()
        self.written = True
        self.flushes += 1
        events.notify_match(match_id=self.match_id, games=len(self.games))
        return True

    def close(self) -> None:
        """The match ended: delete what was published and tell the watchers."""
        if not self.written:
            return
        keys = [head_key(self.match_id)]
        keys += [game_key(self.match_id, g["index"]) for g in self.games]
        try:
            self.cache.delete_many(keys)
        except Exception:
            log.warning("could not clear the live store of match %s", self.match_id, exc_info=True)
        events.notify_match(match_id=self.match_id, games=len(self.games), over=True)


def live_publisher(*, match: Any) -> LivePublisher | None:
    """The publisher of a claimed ``match``, or None when ``CARDROOM_LIVE`` is off."""
    if not settings.CARDROOM_LIVE:
        return None
    return LivePublisher(
        match_id=match.pk,
        token=claim_token(match),
        moves_s=settings.CARDROOM_LIVE_MOVES_S,
        games_s=settings.CARDROOM_LIVE_GAMES_S,
        after_s=settings.CARDROOM_LIVE_AFTER_S,
    )


# --- the reader (the web tier) ---


@dataclass
class LiveHead:
    """What a running match's worker published: finished games and the game in progress."""

    games: list[dict[str, Any]]
    current: dict[str, Any] | None


def live_head(*, match_id: int, token: str) -> LiveHead | None:
    """The head published under claim ``token``; None if none (or another claim's)."""
    try:
        head = caches[CACHE].get(head_key(match_id))
    except Exception:
        log.warning("could not read the live store of match %s", match_id, exc_info=True)
        return None
    if not isinstance(head, dict) or head.get("claim") != token:
        return None
    return LiveHead(games=list(head.get("games") or []), current=head.get("current"))


def live_record(*, match_id: int, token: str, index: int) -> dict[str, Any] | None:
    """The record of finished game ``index`` published under ``token``; None if none."""
    try:
        value = caches[CACHE].get(game_key(match_id, index))
    except Exception:
        log.warning("could not read the live store of match %s", match_id, exc_info=True)
        return None
    if not isinstance(value, dict) or value.get("claim") != token:
        return None
    return value.get("record")


def play_callbacks(publisher: LivePublisher | None, held: Callable[..., Any]) -> dict[str, Any]:
    """The callbacks of ``services.match_play`` (``tournaments.worker.execution``) that publish the
    match as it is played and, between two decisions, stop it once its worker no longer
    holds it (``held``: a ``leases.watch``, with its ``look_at``).

    The referee would call ``on_action`` after every action (about a thousand a one-game
    match of Money between quick bots), so it returns when the publisher or ``held`` is
    next due (a write, a look), and the referee skips it until then
    (``bots.referee.match.ActionApplied``): a call through each of them every action cost
    the match about a seventh of the referee's own time, and a call alone every action
    about a tenth. The game in progress is handed to the publisher when it is due (the
    same state object all through a game)."""
    if publisher is None:

        def look(index: int, state: Any) -> float:
            held()
            return held.look_at

        return {"on_action": look}
    if publisher.clock is not time.monotonic:  # (a publisher on a clock of its own)

        def each(index: int, state: Any) -> None:
            publisher.action_applied(index, state)
            held()

        return {"on_game": publisher.game_finished, "on_action": each}

    def on_action(index: int, state: Any) -> float:
        publisher.action_applied(index, state)
        held()
        return min(publisher.moves_at, held.look_at)

    return {"on_game": publisher.game_finished, "on_action": on_action}
