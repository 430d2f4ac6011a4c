"""The soft-play tallies of the game records (``GameRecord.chances``), and their seats'
first think times (``GameRecord.think_ms``), counted off the match's hot path.

Counting a game's chances (``tournaments.ratings.soft_play``) replays the game from its
record: about a millisecond a manni-basic game, as much as all the rest of recording
its match, and ranking the match needs none of it. So a match is recorded without its
games' tallies: a game of a variant with the signal (``soft_play.has_signal``: three
seats or more) whose ``chances`` is null is *uncounted*, and counted later from its
stored record:

- on demand, by :func:`count`, whenever the collusion report or the collusion watch
  reads the tallies of a competition (``selectors.soft_play_of_competition``): they
  never see an uncounted game, so the watch looks at a batch's evidence when the batch
  ends, as before, and the report is always whole;
- in the background, by the task ``tournaments.chances_count``, which a worker sends on
  the default queue (the lowest priority) once a round of the competition has closed
  (:func:`count_later`), so that the report finds them counted.

A count is the same whoever makes it (the replay is deterministic), and a tally is
written only where none is (one row a statement), so two counts that meet write each
tally once. Games recorded before the tallies existed are counted the same
way the first time they are needed.
"""

from __future__ import annotations

import json
import logging
import zlib
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q

import games
from config.task_sending import send_task
from tournaments.models import Competition, GameRecord, Match
from tournaments.ratings import soft_play, think_times

log = logging.getLogger(__name__)

#: The task that counts a competition's uncounted games (``tournaments.worker.tasks``).
TASK = "tournaments.chances_count"
#: Records read and counted per query.
BATCH = 200


def counted_later(competition: Competition) -> bool:
    """Whether the games of ``competition`` get a tally (``soft_play.has_signal``)."""
    return soft_play.has_signal(competition.variant, competition.options)


def count(*, competition: Competition, limit: int | None = None) -> int:
    """Count the uncounted games of the finished matches of ``competition`` (at most
    ``limit``, oldest first) and store their tallies and their seats' first think times
    (``GameRecord.think_ms``); the number counted. A record that cannot be read is
    logged and left uncounted."""
    if not counted_later(competition):
        return 0
    seats = games.load(competition.variant, **competition.options).num_players
    uncounted = (
        GameRecord.objects.filter(match__competition=competition, match__status=Match.Status.DONE)
        .filter(Q(chances__isnull=True) | Q(think_ms__isnull=True))
        .order_by("pk")
    )
    done, after = 0, 0
    while limit is None or done < limit:
        size = BATCH if limit is None else min(BATCH, limit - done)
        rows = list(
            uncounted.filter(pk__gt=after).values_list("pk", "data", "chances", "think_ms")[:size]
        )
        if not rows:
            break
        for pk, data, tally, times in rows:
            try:
                found = _counted(json.loads(zlib.decompress(bytes(data))), tally, times, seats)
            except (zlib.error, ValueError, KeyError, TypeError) as exc:
                log.warning("game record %s not counted: %s", pk, exc)
                continue
            # One row a statement: outside a transaction a count holds no row while it
            # waits for another, so two counts that meet never deadlock.
            unset = {f"{field}__isnull": True for field in found}
            done += GameRecord.objects.filter(pk=pk, **unset).update(**found)
        after = rows[-1][0]
        if len(rows) < size:
            break
    return done


def _counted(record: dict, tally: Any, times: Any, seats: int) -> dict[str, Any]:
    """What a game's row lacks of its tally and its think times, counted from its record."""
    found: dict[str, Any] = {}
    if tally is None:
        found["chances"] = soft_play.game_tally(record)
    if times is None:
        found["think_ms"] = think_times.seat_times(record.get("traces") or (), seats)
    return found


def count_later(competition: Competition) -> None:
    """Send :data:`TASK` for ``competition`` once the transaction commits (at once outside
    one), on the default queue; nothing for a variant without tallies."""
    if not counted_later(competition):
        return
    transaction.on_commit(
        partial(
            send_task,
            TASK,
            [competition.pk],
            queue=settings.CARDROOM_DEFAULT_QUEUE,
            unsent="its games are counted when the collusion report or watch reads them",
        ),
        robust=True,
    )
