"""Claims with a lease: how a worker takes a row of work (a match, a version test, a
bot version's validation) so that no other worker takes it while it lives, and another
may once it is gone. One rule for every kind of work a worker claims:

- a row is **held** while a worker's claim on it lives: a match or a version test that
  is running, a version whose validation names its ``claimed_by`` (:func:`held`);
- it is **claimable** when it waits (the kind says how: a match pending or queued, a
  version test pending, a validation queued and not started) or is held with a lease
  that ran out (:func:`expired`: its worker is gone);
- a **claim** holds it until now plus the kind's lease length (:func:`claimed` for the
  kinds with a running status, :func:`held_by` for a claimer's name and lease), in one
  conditional ``UPDATE`` or under the row's lock, so that two workers never both succeed;
- a worker whose work outlasts a lease **renews** it (:func:`lease_until` from now again);
- a claim ends (:func:`released`) when the work is written, given back or failed;
- the periodic reapers **take over** the work of a claimer whose process stopped beating
  (``config.liveness``) at once (:func:`expire_the_dead`), not when its lease runs out.

While it plays, a worker looks between two decisions whether the row is still its own
(:func:`watch`: at most every :data:`WATCH_S` seconds); once it is not (cancelled, or
taken over after its lease ran out), :class:`ClaimLost` stops the play.

A version test is claimed with the ORM (:func:`claim`); a validation under its row's
lock (``bots.services.validation_run``); a match with one raw ``UPDATE ... RETURNING``
that also reads its competition and its seats (``tournaments.worker.claims``), whose condition
is :func:`claimable` compiled to SQL once (:func:`claimable_sql`), with the claim's time
as its only changing parameter.

This is plumbing under every app (it reads no model of its own: each kind passes its
model), so that ``bots`` (validations) and ``tournaments`` (matches, version tests) share
it; ``config.leases`` re-exports it.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from django.db import connection
from django.db.models import DateTimeField, Expression, Model, Q, QuerySet
from django.db.models.sql import Query
from django.utils import timezone

from config import liveness

#: How often work in play looks whether it is still its worker's (one read by primary key):
#: a cancel stops it within this long and one decision more.
WATCH_S = 0.5


class ClaimLost(Exception):
    """The work in play is no longer its worker's (cancelled, failed, or taken over after
    its lease ran out): stop playing it and write nothing of it."""


class Watch:
    """The callback :func:`watch` returns; ``look_at`` is when it next asks (on
    ``time.monotonic``), so that a caller that reads the clock anyway can skip calling it
    until then."""

    __slots__ = ("every_s", "look_at", "still_held")

    def __init__(self, still_held: Callable[[], bool], every_s: float) -> None:
        self.still_held, self.every_s = still_held, every_s
        self.look_at = time.monotonic() + every_s

    def __call__(self, *_: object) -> None:
        now = time.monotonic()
        if now < self.look_at:
            return
        self.look_at = now + self.every_s
        if not self.still_held():
            raise ClaimLost("the work in play was cancelled or taken over")


def watch(still_held: Callable[[], bool], *, every_s: float = WATCH_S) -> Watch:
    """A callback for between two decisions (the referee's ``on_action``; its arguments are
    ignored) that asks ``still_held()`` at most every ``every_s`` seconds and raises
    :class:`ClaimLost` once it answers False."""
    return Watch(still_held, every_s)


def held(model: type[Model]) -> Q:
    """Rows of ``model`` a worker's claim holds: running, for a kind with that status."""
    return Q(status=model.Status.RUNNING)


def expired(model: type[Model], *, now: datetime, holding: Q | None = None) -> Q:
    """Rows of ``model`` held (``holding``, else :func:`held`) with a lease that ran out
    before ``now``."""
    return (held(model) if holding is None else holding) & Q(lease_until__lt=now)


def claimable(
    model: type[Model], *, waiting: Sequence[str] | Q, now: Any, holding: Q | None = None
) -> Q:
    """Rows of ``model`` a claim may take at ``now``: waiting (in one of the ``waiting``
    statuses, or the condition ``waiting``), or :func:`expired`."""
    waits = waiting if isinstance(waiting, Q) else Q(status__in=list(waiting))
    return waits | expired(model, now=now, holding=holding)


def lease_until(*, lease_s: float, now: datetime) -> datetime:
    """The end of a lease of ``lease_s`` seconds taken or renewed at ``now``."""
    return now + timedelta(seconds=lease_s)


def claimed(model: type[Model], *, lease_s: float, now: datetime) -> dict[str, Any]:
    """The fields a claim at ``now`` writes: running, with a lease of ``lease_s`` seconds."""
    return {
        "status": model.Status.RUNNING,
        "lease_until": lease_until(lease_s=lease_s, now=now),
    }


def held_by(*, claimed_by: str, lease_s: float, now: datetime) -> dict[str, Any]:
    """The fields a claim by ``claimed_by`` at ``now`` writes on a kind held by its
    claimer's name: who, and a lease of ``lease_s`` seconds."""
    return {"claimed_by": claimed_by, "lease_until": lease_until(lease_s=lease_s, now=now)}


def released() -> dict[str, Any]:
    """The fields that end a claim held by its claimer's name (:func:`held_by`)."""
    return {"claimed_by": "", "lease_until": None}


def expire_the_dead(rows: QuerySet, *, now: datetime) -> list[int]:
    """End at once the leases of the rows of ``rows`` (held, with a lease that has not run
    out) whose ``claimed_by`` process no longer beats (``config.liveness``: killed, or its
    worker restarted), so that they are :func:`expired` now; their ids. The update is
    conditional on the same claimer, so a row claimed again meanwhile keeps its lease."""
    live = rows.filter(lease_until__gte=now)
    dead = liveness.gone(live.values_list("claimed_by", flat=True).distinct().order_by())
    if not dead:
        return []
    ids = list(live.filter(claimed_by__in=dead).values_list("pk", flat=True))
    rows.filter(pk__in=ids, claimed_by__in=dead).update(lease_until=now - timedelta(microseconds=1))
    return ids


def claim(queryset: QuerySet, *, waiting: Sequence[str], lease_s: float) -> int:
    """Claim the claimable rows of ``queryset`` (:func:`claimable`) with a lease of
    ``lease_s`` seconds, in one conditional ``UPDATE``; the number of rows claimed."""
    now = timezone.now()
    model = queryset.model
    return queryset.filter(claimable(model, waiting=waiting, now=now)).update(
        **claimed(model, lease_s=lease_s, now=now)
    )


def claimable_sql(
    model: type[Model], *, waiting: Sequence[str], now: datetime
) -> tuple[str, list[Any]]:
    """:func:`claimable` as an SQL condition on ``model``'s table (its columns qualified by
    the table's name) and its parameters, for a raw claim statement on the default
    database. The SQL is compiled once per model and waiting statuses; only the time
    changes."""
    sql, params = _compiled(model, tuple(waiting), connection.vendor)
    stamp = connection.ops.adapt_datetimefield_value(now)
    return sql, [stamp if param is _NOW else param for param in params]


#: Where the claim's time goes among the parameters of a compiled condition.
_NOW = object()


class _ClaimTime(Expression):
    """The claim's time in :func:`claimable` compiled once: a parameter filled per claim."""

    output_field = DateTimeField()

    def as_sql(self, compiler, connection):
        return "%s", [_NOW]


@functools.cache
def _compiled(model: type[Model], waiting: tuple[str, ...], vendor: str) -> tuple[str, tuple]:
    """:func:`claimable` compiled for ``vendor``'s database (the cache's key)."""
    query = Query(model)
    where = query.build_where(claimable(model, waiting=waiting, now=_ClaimTime()))
    sql, params = query.get_compiler(connection=connection).compile(where)
    return sql, tuple(params)
