"""Claims with a lease: how a worker takes a row of work (a match, a version test) so that
no other worker takes it while it lives, and another may once it is gone.

The rule, defined here once for every kind of work:

- a row is **claimable** when it waits (in one of the statuses its kind waits in: a
  match pending or queued, a version test pending) or is running with a lease that ran
  out (:func:`expired`: its worker is gone);
- a **claim** makes it running with a lease until now plus the kind's lease length
  (:func:`claimed`), in one conditional ``UPDATE``, so that two workers never both
  succeed.

A version test is claimed with the ORM (:func:`claim`). A match is claimed with one raw
``UPDATE ... RETURNING`` that also reads its competition and its seats
(``tournaments.execution``); its condition is :func:`claimable` compiled to SQL once
(:func:`claimable_sql`), with the claim's time as its only changing parameter.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.db import connection
from django.db.models import DateTimeField, Expression, Model, Q, QuerySet
from django.db.models.sql import Query
from django.utils import timezone


def expired(model: type[Model], *, now: datetime) -> Q:
    """Rows of ``model`` that are running with a lease that ran out before ``now``."""
    return Q(status=model.Status.RUNNING, lease_until__lt=now)


def claimable(model: type[Model], *, waiting: Sequence[str], now: Any) -> Q:
    """Rows of ``model`` a claim may take at ``now``: in one of the ``waiting`` statuses,
    or :func:`expired`."""
    return Q(status__in=list(waiting)) | expired(model, now=now)


def lease_until(*, lease_s: float, now: datetime) -> datetime:
    """The end of a lease of ``lease_s`` seconds taken or renewed at ``now``."""
    return now + timedelta(seconds=lease_s)


def claimed(model: type[Model], *, lease_s: float, now: datetime) -> dict[str, Any]:
    """The fields a claim at ``now`` writes: running, with a lease of ``lease_s`` seconds."""
    return {
        "status": model.Status.RUNNING,
        "lease_until": lease_until(lease_s=lease_s, now=now),
    }


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
