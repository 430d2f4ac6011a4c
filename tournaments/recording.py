"""The two PostgreSQL statements that record a played match (``services.match_record_played``).

Recording a result on PostgreSQL is ``BEGIN``, :func:`match_store`,
:func:`ratings_store`, ``COMMIT``: the rating update needs the entries' ratings
read under their row locks, so the writes fall into two statements around the
rating math in Python. Each statement chains its writes with data-modifying
``WITH`` clauses: a write that depends on the guard reads the guard's
``RETURNING``, so a refused result writes nothing. The ORM path of the other
databases (``services``) makes the same writes in more statements.

Both take plain values (no model instances are built for rows just written) and
cast every parameter to its column's type, which the client-side binding of
Django's psycopg backend needs inside ``VALUES``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import connection

from tournaments.models import Competition, Entry, GameRecord, Match, MatchSeat, RatingEvent


@dataclass(frozen=True)
class LockedSeat:
    """A seat of the match being recorded and its entry's rating, read under the entry's lock."""

    seat: int
    entry_id: int
    mu: float
    sigma: float


def _quote(name: str) -> str:
    return connection.ops.quote_name(name)


def _table(model) -> str:
    return _quote(model._meta.db_table)


def _values(model, names: list[str], rows: list[list[Any]]) -> tuple[str, list[Any]]:
    """``VALUES (...), ...`` of ``rows`` (one value per field of ``names``), each cast to
    its column's type, and the parameters prepared as Django saves them."""
    fields = [model._meta.get_field(name) for name in names]
    row_sql = "(" + ", ".join(f"%s::{f.db_type(connection)}" for f in fields) + ")"
    params: list[Any] = []
    for row in rows:
        params += [f.get_db_prep_save(v, connection) for f, v in zip(fields, row, strict=True)]
    return "VALUES " + ", ".join(row_sql for _ in rows), params


def _columns(model, names: list[str]) -> str:
    return ", ".join(_quote(model._meta.get_field(name).column) for name in names)


#: Columns of the game records and of the seats written by :func:`match_store`.
GAME_FIELDS = ["index", "playoff", "scores", "ranking", "statuses", "data"]
SEAT_FIELDS = ["seat", "score", "points", "rank", "wins", "statuses", "log", "version"]


def match_store(
    *,
    match_id: int,
    done: dict[str, Any],
    claimed_by: str | None,
    games: list[list[Any]],
    seats: list[list[Any]],
    synchronous_commit: bool = True,
) -> list[LockedSeat] | None:
    """Mark the match done, insert its games, write its seats and lock its entries, in one
    statement; returns the seats (in entry order, their entries now locked) or None, having
    written nothing, if the match is done already or ``claimed_by`` no longer holds it.

    ``done`` holds the match's new ``finished_at`` and ``decided_by``; ``games`` one row
    per game in :data:`GAME_FIELDS` order (``data`` packed), ``seats`` one per seat in
    :data:`SEAT_FIELDS` order. The entries are locked in entry order (two recordings
    never deadlock) and their ratings read as the last committed recording left them.
    With ``synchronous_commit`` False the transaction commits without waiting for the
    disk (``tournaments.execution`` says when that is safe).
    """
    matches, seat_table = _table(Match), _table(MatchSeat)
    guard = "m.id = %s AND m.status <> %s"
    guard_params: list[Any] = [match_id, Match.Status.DONE]
    if claimed_by is not None:
        guard += " AND m.status = %s AND m.claimed_by = %s"
        guard_params += [Match.Status.RUNNING, claimed_by]
    if not synchronous_commit:
        guard += " AND set_config('synchronous_commit', 'off', true) = 'off'"
    decided = Match._meta.get_field("decided_by").get_db_prep_save(done["decided_by"], connection)
    finished = connection.ops.adapt_datetimefield_value(done["finished_at"])
    games_sql, games_params = _values(GameRecord, GAME_FIELDS, games)
    seats_sql, seats_params = _values(MatchSeat, SEAT_FIELDS, seats)
    seat_columns = [MatchSeat._meta.get_field(n).column for n in SEAT_FIELDS]
    game_columns = _columns(GameRecord, GAME_FIELDS)
    sets = ", ".join(f"{_quote(c)} = v.{_quote(c)}" for c in seat_columns[1:])
    sql = (
        f"WITH done AS (UPDATE {matches} m SET status = %s, finished_at = %s::timestamptz, "
        f"decided_by = %s::jsonb, lease_until = NULL, error = '' WHERE {guard} RETURNING m.id), "
        f"games AS (INSERT INTO {_table(GameRecord)} (match_id, {game_columns}) "
        f"SELECT done.id, v.* FROM done, ({games_sql}) AS v), "
        f"seats AS (UPDATE {seat_table} t SET {sets} FROM done, ({seats_sql}) "
        f"AS v({', '.join(_quote(c) for c in seat_columns)}) "
        "WHERE t.match_id = done.id AND t.seat = v.seat) "
        f"SELECT s.seat, e.id, e.mu, e.sigma FROM {seat_table} s "
        f"JOIN {_table(Entry)} e ON e.id = s.entry_id "
        "WHERE s.match_id = %s AND EXISTS (SELECT 1 FROM done) ORDER BY e.id FOR UPDATE OF e"
    )
    params = [Match.Status.DONE, finished, decided, *guard_params, *games_params, *seats_params]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, match_id])
        rows = cursor.fetchall()
    return [LockedSeat(*row) for row in rows] or None


def ratings_store(
    *,
    competition_id: int,
    match_id: int,
    games_played: int,
    rows: list[tuple[int, tuple[float, float], tuple[float, float], float]],
    created_at,
) -> int:
    """Write each entry's new rating, games and points, take the competition's next rating
    sequence number and append the rating events with it, in one statement; returns the number.

    ``rows``: (entry, (mu, sigma) before, (mu, sigma) after, points won) per entry, whose
    rows the transaction has locked (:func:`match_store`). The sequence number comes from
    an ``UPDATE ... RETURNING``, which locks the competition row from this last statement
    of the transaction until its commit, and no longer.
    """
    entries_sql, entries_params = _values(
        Entry,
        ["id", "mu", "sigma", "points"],
        [[entry, after[0], after[1], points] for entry, _, after, points in rows],
    )
    events_sql, events_params = _values(
        RatingEvent,
        ["entry", "mu_before", "sigma_before", "mu_after", "sigma_after"],
        [[entry, *before, *after] for entry, before, after, _ in rows],
    )
    entries, events = _table(Entry), _table(RatingEvent)
    sql = (
        f"WITH rated AS (UPDATE {entries} t SET mu = v.mu, sigma = v.sigma, "
        "games = t.games + %s, points = t.points + v.points "
        f"FROM ({entries_sql}) AS v(id, mu, sigma, points) WHERE t.id = v.id), "
        f"seq AS (UPDATE {_table(Competition)} SET rating_sequence = rating_sequence + 1 "
        "WHERE id = %s RETURNING rating_sequence) "
        f"INSERT INTO {events} (entry_id, match_id, sequence, mu_before, sigma_before, "
        "mu_after, sigma_after, created_at) "
        "SELECT v.entry, %s, seq.rating_sequence, v.mu_b, v.sigma_b, v.mu_a, v.sigma_a, "
        f"%s::timestamptz FROM seq, ({events_sql}) AS v(entry, mu_b, sigma_b, mu_a, sigma_a) "
        "RETURNING sequence"
    )
    params = [games_played, *entries_params, competition_id, match_id]
    params += [connection.ops.adapt_datetimefield_value(created_at), *events_params]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()[0]
