"""The PostgreSQL statements that record a played match (``services.match_record``).

A worker's result is recorded in one statement, :func:`match_store_rated`,
which is its own transaction (no ``BEGIN``, no ``COMMIT``). The claim read the entries' ratings
(``execution.match_claim``), the rating update is computed from them while the
match is played, and the statement stores it only if they are still the entries'
ratings once it has locked them: then it marks the match done, inserts its games,
writes its seats, the entries' new ratings, the competition's next rating sequence
number and the rating events. If a rating changed since the claim (another result
of that entry was stored meanwhile) it writes nothing and the result is recorded
as without a claim, in a transaction: :func:`match_store` (the match, its
games and seats, the entries locked and their ratings read), the rating math in
Python, :func:`ratings_store`. Each statement chains its writes with
data-modifying ``WITH`` clauses: a write that depends on the guard reads the
guard's ``RETURNING``, so a refused result writes nothing. The ORM path of the
other databases (``services``) makes the same writes in more statements.

They take plain values (no model instances are built for rows just written) and
cast every parameter to its column's type. The claim and the one-statement
recording are prepared (:func:`prepared_cursor`): planning them costs more than
running them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Protocol

import psycopg
from django.conf import settings
from django.db import DatabaseError, connection
from psycopg import _queries as psycopg_queries
from psycopg.types.numeric import Int8BinaryDumper, Int8Dumper

from tournaments.models import Competition, Entry, GameRecord, Match, MatchSeat, RatingEvent


@dataclass(frozen=True)
class LockedSeat:
    """A seat of the match being recorded and its entry's rating, read under the entry's lock."""

    seat: int
    entry_id: int
    mu: float
    sigma: float


#: A prepare threshold never reached: psycopg prepares only what a cursor asks for
#: (``prepare=True``); Django's own cursors bind on the client and never prepare.
_ONLY_WHEN_ASKED = 2**62


#: psycopg's conversion of a statement's ``%s`` placeholders (a private function: None
#: where this psycopg has none of that name, and then its own conversion is used).
_query2pg = getattr(psycopg_queries, "_query2pg_nocache", None)


@functools.lru_cache(maxsize=64)
def _converted(query: bytes, encoding: str):
    return _query2pg(query, encoding)


class _ConvertedOnce(psycopg_queries.PostgresQuery):
    """A query whose text is converted once per text (up to 64 texts): psycopg caches the
    conversion only of texts under 4 KiB with at most 50 parameters, and converted the
    recording statement again for every match (about a tenth of its client's time)."""

    __slots__ = ()

    def convert(self, query, vars) -> None:
        if vars is None or not isinstance(query, str):
            return super().convert(query, vars)
        encoding = self._tx.encoding
        converted = _converted(query.encode(encoding), encoding)
        self.query, self._want_formats, self._order, self._parts = converted
        self.dump(vars)
        return None


class _PreparedCursor(psycopg.Cursor):
    """A server-side binding cursor whose statements are prepared (planned once per
    connection, then only bound and run). Integers are sent as ``bigint`` whatever their
    size, so that a statement keeps one set of parameter types (psycopg prepares a
    statement once per text and types)."""

    if _query2pg is not None:
        _query_cls = _ConvertedOnce

    def __init__(self, conn, **kwargs):
        super().__init__(conn, **kwargs)
        self.adapters.register_dumper(int, Int8Dumper)
        self.adapters.register_dumper(int, Int8BinaryDumper)

    def execute(self, query, params=None, *, prepare=None, binary=None):
        return super().execute(query, params, prepare=True, binary=binary)


def prepared_cursor():
    """A cursor on Django's connection (its transaction, its query log and error
    wrapping) whose statements are prepared, unless ``CARDROOM_PREPARED_STATEMENTS`` is
    off (for a connection pooler that cannot keep them); then an ordinary cursor.

    Planning the recording statement costs several times its execution; prepared, a
    statement is planned once per connection and SQL text (psycopg keeps up to 100).
    """
    if connection.vendor != "postgresql" or not settings.CARDROOM_PREPARED_STATEMENTS:
        return connection.cursor()
    connection.ensure_connection()
    connection.validate_thread_sharing()
    conn = connection.connection
    if conn.prepare_threshold is None:  # Django's default: psycopg then prepares nothing
        conn.prepare_threshold = _ONLY_WHEN_ASKED
    raw = _PreparedCursor(conn)
    if connection.queries_logged:
        return connection.make_debug_cursor(raw)
    return connection.make_cursor(raw)


def _quote(name: str) -> str:
    return connection.ops.quote_name(name)


def _table(model) -> str:
    return _quote(model._meta.db_table)


@functools.cache
def _row(model, names: tuple[str, ...]) -> tuple[list, str]:
    """The fields of ``names`` and the ``(...)`` of one row of their values, each cast."""
    fields = [model._meta.get_field(name) for name in names]
    return fields, "(" + ", ".join(f"%s::{f.db_type(connection)}" for f in fields) + ")"


def _values(model, names: list[str], rows: list[list[Any]]) -> tuple[str, list[Any]]:
    """``VALUES (...), ...`` of ``rows`` (one value per field of ``names``), each cast to
    its column's type, and the parameters prepared as Django saves them."""
    return _values_sql(model, tuple(names), len(rows)), _values_params(model, names, rows)


@functools.cache
def _values_sql(model, names: tuple[str, ...], count: int) -> str:
    return "VALUES " + ", ".join(_row(model, names)[1] for _ in range(count))


def _values_params(model, names: list[str], rows: list[list[Any]]) -> list[Any]:
    fields = _row(model, tuple(names))[0]
    params: list[Any] = []
    for row in rows:
        params += [f.get_db_prep_save(v, connection) for f, v in zip(fields, row, strict=True)]
    return params


def _columns(model, names: list[str]) -> str:
    return ", ".join(_quote(model._meta.get_field(name).column) for name in names)


#: Columns of the game records and of the seats written by :func:`match_store`.
GAME_FIELDS = ["index", "playoff", "scores", "ranking", "statuses", "data", "chances"]
SEAT_FIELDS = ["seat", "score", "points", "rank", "wins", "statuses", "log", "version"]

#: (entry, (mu, sigma) before, (mu, sigma) after, points won): one entry's rating update.
RatingRow = tuple[int, tuple[float, float], tuple[float, float], float]


def _guard(match_id: int, claimed_by: str | None) -> tuple[str, list[Any]]:
    """The condition on the match row ``m`` under which a result may be stored."""
    guard = "m.id = %s AND m.status <> %s"
    params: list[Any] = [match_id, Match.Status.DONE]
    if claimed_by is not None:
        guard += " AND m.status = %s AND m.claimed_by = %s"
        params += [Match.Status.RUNNING, claimed_by]
    return guard, params


def _result_writes(
    *, match_id, done, claimed_by, games, seats, synchronous_commit, condition: str = ""
) -> tuple[str, list[Any]]:
    """The ``WITH`` clauses ``done`` (the guarded update of the match, with ``condition``
    if given), ``games`` and ``seats``, which write only if ``done`` did."""
    sql = _result_writes_sql(
        claimed_by is not None, synchronous_commit, len(games), len(seats), condition
    )
    return sql, _result_writes_params(match_id, done, claimed_by, games, seats)


def _result_writes_params(match_id, done, claimed_by, games, seats) -> list[Any]:
    decided = Match._meta.get_field("decided_by").get_db_prep_save(done["decided_by"], connection)
    finished = connection.ops.adapt_datetimefield_value(done["finished_at"])
    games_params = _values_params(GameRecord, GAME_FIELDS, games)
    seats_params = _values_params(MatchSeat, SEAT_FIELDS, seats)
    guard_params = _guard(match_id, claimed_by)[1]
    return [Match.Status.DONE, finished, decided, *guard_params, *games_params, *seats_params]


@functools.cache
def _result_writes_sql(
    claimed: bool, synchronous_commit: bool, games: int, seats: int, condition: str
) -> str:
    """The text of :func:`_result_writes` for its shape (planned once per shape)."""
    guard = _guard(0, "" if claimed else None)[0]
    if not synchronous_commit:
        guard += " AND set_config('synchronous_commit', 'off', true) = 'off'"
    games_sql = _values_sql(GameRecord, tuple(GAME_FIELDS), games)
    seats_sql = _values_sql(MatchSeat, tuple(SEAT_FIELDS), seats)
    seat_columns = [MatchSeat._meta.get_field(n).column for n in SEAT_FIELDS]
    sets = ", ".join(f"{_quote(c)} = v.{_quote(c)}" for c in seat_columns[1:])
    return (
        f"done AS (UPDATE {_table(Match)} m SET status = %s, finished_at = %s::timestamptz, "
        f"decided_by = %s::jsonb, lease_until = NULL, error = '' WHERE {guard}{condition} "
        "RETURNING m.id), "
        f"games AS (INSERT INTO {_table(GameRecord)} "
        f"(match_id, {_columns(GameRecord, GAME_FIELDS)}) "
        f"SELECT done.id, v.* FROM done, ({games_sql}) AS v), "
        f"seats AS (UPDATE {_table(MatchSeat)} t SET {sets} FROM done, ({seats_sql}) "
        f"AS v({', '.join(_quote(c) for c in seat_columns)}) "
        "WHERE t.match_id = done.id AND t.seat = v.seat)"
    )


def _rating_writes(
    *, competition_id, match_id, games_played, rows: list[RatingRow], created_at, only_if: str
) -> tuple[str, list[Any]]:
    """The ``WITH`` clauses ``rated`` (the entries' new ratings, games and points), ``seq``
    (the competition's next rating sequence number) and ``events`` (the rating events
    under it), each written only if the query ``only_if`` returns a row."""
    entries_params = _values_params(
        Entry,
        ["id", "mu", "sigma", "points"],
        [[entry, after[0], after[1], points] for entry, _, after, points in rows],
    )
    events_params = _values_params(
        RatingEvent,
        ["entry", "mu_before", "sigma_before", "mu_after", "sigma_after"],
        [[entry, *before, *after] for entry, before, after, _ in rows],
    )
    created = connection.ops.adapt_datetimefield_value(created_at)
    params = [games_played, *entries_params, competition_id, match_id, created, *events_params]
    return _rating_writes_sql(len(rows), only_if), params


@functools.cache
def _rating_writes_sql(rows: int, only_if: str) -> str:
    """The text of :func:`_rating_writes` for its shape."""
    entries_sql = _values_sql(Entry, ("id", "mu", "sigma", "points"), rows)
    events_sql = _values_sql(
        RatingEvent, ("entry", "mu_before", "sigma_before", "mu_after", "sigma_after"), rows
    )
    return (
        f"rated AS (UPDATE {_table(Entry)} t SET mu = v.mu, sigma = v.sigma, "
        "games = t.games + %s, points = t.points + v.points "
        f"FROM ({entries_sql}) AS v(id, mu, sigma, points) "
        f"WHERE t.id = v.id AND EXISTS ({only_if})), "
        f"seq AS (UPDATE {_table(Competition)} SET rating_sequence = rating_sequence + 1 "
        f"WHERE id = %s AND EXISTS ({only_if}) RETURNING rating_sequence), "
        f"events AS (INSERT INTO {_table(RatingEvent)} (entry_id, match_id, sequence, "
        "mu_before, sigma_before, mu_after, sigma_after, created_at) "
        "SELECT v.entry, %s, seq.rating_sequence, v.mu_b, v.sigma_b, v.mu_a, v.sigma_a, "
        f"%s::timestamptz FROM seq, ({events_sql}) AS v(entry, mu_b, sigma_b, mu_a, sigma_a) "
        "RETURNING sequence)"
    )


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
    The lock is ``FOR NO KEY UPDATE`` (only ratings change): the key-share lock that a
    new seat's foreign key takes on its entry does not wait for it, so a round paired
    while results are recorded (``services.round_pair_ahead``) never waits for them, nor
    they for it (a pairing only key-share locks the competition row that a recording
    updates last).
    With ``synchronous_commit`` False the transaction commits without waiting for the
    disk (``tournaments.worker.execution`` says when that is safe).
    """
    writes, params = _result_writes(
        match_id=match_id, done=done, claimed_by=claimed_by, games=games, seats=seats,
        synchronous_commit=synchronous_commit,
    )  # fmt: skip
    sql = (
        f"WITH {writes} SELECT s.seat, e.id, e.mu, e.sigma FROM {_table(MatchSeat)} s "
        f"JOIN {_table(Entry)} e ON e.id = s.entry_id "
        "WHERE s.match_id = %s AND EXISTS (SELECT 1 FROM done) "
        "ORDER BY e.id FOR NO KEY UPDATE OF e"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, match_id])
        rows = cursor.fetchall()
    return [LockedSeat(*row) for row in rows] or None


def ratings_store(
    *, competition_id: int, match_id: int, games_played: int, rows: list[RatingRow], created_at
) -> int:
    """Write each entry's new rating, games and points, take the competition's next rating
    sequence number and append the rating events with it, in one statement; returns the number.

    ``rows``: (entry, (mu, sigma) before, (mu, sigma) after, points won) per entry, whose
    rows the transaction has locked (:func:`match_store`). The sequence number comes from
    an ``UPDATE ... RETURNING``, which locks the competition row from this last statement
    of the transaction until its commit, and no longer.
    """
    writes, params = _rating_writes(
        competition_id=competition_id, match_id=match_id, games_played=games_played,
        rows=rows, created_at=created_at, only_if="SELECT 1",
    )  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute(f"WITH {writes} SELECT sequence FROM events LIMIT 1", params)
        return cursor.fetchone()[0]


@functools.cache
def _store_rated_sql(
    expected: int, claimed: bool, synchronous_commit: bool, games: int, seats: int, ratings: str
) -> str:
    """The text of :func:`match_store_rated` for its shape (built once per shape, and its
    placeholders converted once: :class:`_PreparedCursor`)."""
    expected_sql = _values_sql(Entry, ("id", "mu", "sigma"), expected)
    results = _result_writes_sql(
        claimed, synchronous_commit, games, seats, " AND (SELECT ok FROM same)"
    )
    guard = _guard(0, "" if claimed else None)[0]
    others = f"FROM {_table(Match)} WHERE round_id = %s AND id <> %s AND status NOT IN (%s, %s)"
    return (
        f"WITH expected AS (SELECT * FROM ({expected_sql}) AS v(id, mu, sigma)), "
        f"locked AS (SELECT e.id, e.mu, e.sigma FROM {_table(Entry)} e "
        "WHERE e.id IN (SELECT id FROM expected) ORDER BY e.id FOR NO KEY UPDATE), "
        "same AS (SELECT count(*) = %s AS ok FROM locked l JOIN expected x "
        "ON x.id = l.id AND x.mu = l.mu AND x.sigma = l.sigma), "
        f"{results}, {ratings} "
        "SELECT (SELECT rating_sequence FROM seq), "
        f"EXISTS (SELECT 1 FROM {_table(Match)} m WHERE {guard}), "
        f"(SELECT count(*) {others}), (SELECT count(*) FILTER (WHERE status <> %s) {others})"
    )


@dataclass(frozen=True)
class Stored:
    """What :func:`match_store_rated` did.

    ``refused``: nothing written, the match is done already or no longer held.
    ``sequence``: the rating sequence number the result took; None (and nothing written)
    if it was not stored. ``round_complete`` as :attr:`services.Recording.round_complete`.
    """

    refused: bool
    sequence: int | None
    round_complete: bool | None


def match_store_rated(
    *,
    match_id: int,
    done: dict[str, Any],
    claimed_by: str | None,
    games: list[list[Any]],
    seats: list[list[Any]],
    expected: list[tuple[int, float, float]],
    rows: list[RatingRow],
    competition_id: int,
    games_played: int,
    round_id: int | None,
    synchronous_commit: bool = True,
    failed_settles: bool = False,
    then: Then | None = None,
) -> Stored:
    """:func:`match_store` and :func:`ratings_store` in one statement, for a rating update
    computed from the ratings the entries had when the match was claimed (``expected``:
    entry, mu, sigma, in entry order), provided they still have them.

    The statement first locks the entries in entry order and compares their ratings,
    as the last committed recording left them, with ``expected``. If one differs (another
    result of that entry was stored since the claim) it writes nothing and returns
    ``sequence`` None: the caller rates again from the ratings :func:`match_store` reads
    under the entries' locks (in the caller's transaction if it has one open, when
    this statement's locks are still held). Otherwise it
    writes what those two write, in the same order of locks (the competition row last),
    and says whether the match's round had other open matches (a failed one counts as
    open unless ``failed_settles``: in a ladder's batch).

    ``then`` (a list's next claim, ``claims.ClaimAhead``) is a statement sent right after
    this one, in the same round trip (:func:`_then_in_the_same_round_trip`).
    """
    expected_params = _values_params(Entry, ["id", "mu", "sigma"], [*map(list, expected)])
    results_params = _result_writes_params(match_id, done, claimed_by, games, seats)
    ratings_sql, ratings_params = _rating_writes(
        competition_id=competition_id, match_id=match_id, games_played=games_played,
        rows=rows, created_at=done["finished_at"], only_if="SELECT 1 FROM done",
    )  # fmt: skip
    guard_params = _guard(match_id, claimed_by)[1]
    settled = Match.Status.FAILED if failed_settles else Match.Status.DONE
    others_params = [round_id, match_id, Match.Status.DONE, settled]
    sql = _store_rated_sql(
        len(expected), claimed_by is not None, synchronous_commit, len(games), len(seats),
        ratings_sql,
    )  # fmt: skip
    params = [*expected_params, len(expected), *results_params, *ratings_params]
    params += [*guard_params, *others_params, Match.Status.RUNNING, *others_params]
    statement = then.statement() if then is not None and _can_pipeline() else None
    if statement is None:
        with prepared_cursor() as cursor:
            cursor.execute(sql, params)
            row = cursor.fetchone()
    else:
        row = _then_in_the_same_round_trip(sql, params, then, statement)
    sequence, holds, others_open, others_waiting = row
    if sequence is None:
        return Stored(refused=not holds, sequence=None, round_complete=None)
    if round_id is None or others_open == 0:
        complete = round_id is not None
    else:  # the others all running: one of them may have been stored meanwhile
        complete = None if others_waiting == 0 else False
    return Stored(refused=False, sequence=sequence, round_complete=complete)


class Then(Protocol):
    """A statement sent after the recording statement in the same round trip (a list's
    next claim: ``claims.ClaimAhead``)."""

    def statement(self) -> tuple[str, list[Any]] | None:
        """Its text and parameters (asked once, as the recording is sent), or None."""

    def take(self, row: Any) -> None:
        """Its first row (None if it returned none)."""

    def fail(self, error: BaseException) -> None:
        """It failed, and wrote nothing."""


def _then_in_the_same_round_trip(sql, params, then: Then, statement) -> Any:
    """Run ``sql`` (the recording) and then ``statement`` (``then``'s), each its own
    transaction, in one round trip to PostgreSQL: psycopg's pipeline mode, a ``Sync``
    between the two, so that the second commits or fails on its own and sees what the
    first wrote. Returns the first's row; gives ``then`` the second's row, or its error
    (the first's error is raised once ``then`` has what it got)."""
    with prepared_cursor() as first, prepared_cursor() as second:
        error: BaseException | None = None
        try:
            with connection.wrap_database_errors, connection.connection.pipeline() as pipeline:
                first.execute(sql, params)
                _sync(pipeline)
                second.execute(*statement)
        except DatabaseError as exc:  # the first error; the other statement's result is set
            error = exc
        if _has_result(second):
            then.take(second.fetchone())
        else:
            then.fail(error or DatabaseError("no result"))
        if not _has_result(first):
            raise error or DatabaseError("the recording statement returned no result")
        return first.fetchone()


def _can_pipeline() -> bool:
    """Whether a statement can follow the recording in its round trip: not inside a
    caller's transaction (where a ``Sync`` would not end the recording's), and a libpq
    with pipeline mode."""
    return not connection.in_atomic_block and psycopg.Pipeline.is_supported()


def _sync(pipeline: psycopg.Pipeline) -> None:
    """A ``Sync`` queued in ``pipeline`` (it ends the implicit transaction of what came
    before it), sent with what follows: psycopg's ``Pipeline.sync()`` would also wait for
    the results so far (a round trip of its own), which it is used for only where this
    psycopg has no ``_enqueue_sync`` (a private method)."""
    enqueue = getattr(pipeline, "_enqueue_sync", None)
    if enqueue is None:
        pipeline.sync()
    else:
        enqueue()


def _has_result(cursor) -> bool:
    """Whether the (Django-wrapped) psycopg ``cursor`` holds a result set."""
    raw = getattr(cursor, "cursor", cursor)
    return raw.pgresult is not None and raw.pgresult.status == psycopg.pq.ExecStatus.TUPLES_OK
