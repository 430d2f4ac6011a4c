"""Recording several played matches of one competition in one statement: a list's
worker plays a few short matches, then stores them together (``tournaments.worker.batches``).

A one-game match of quick bots costs the referee about a millisecond; storing it
alone (``services.match_record``: one statement, its own transaction) cost several,
most of it the statement's fixed cost on both sides: a round trip, a transaction, a
commit, the competition's rating sequence taken, a dozen parameters prepared one by
one. :func:`matches_record` stores up to a few dozen results in one statement of the
same writes, with every row sent as arrays (one text for any number of matches,
prepared once per connection):

- it locks the entries (entry order, ``FOR NO KEY UPDATE``, as one result's statement
  does) and the matches (id order, ``FOR UPDATE``), and writes anything only if every
  match is still held by the worker (running, claimed by it) and every entry still has
  the rating the worker rated from (:attr:`Ready.expected`): then it marks the matches
  done, inserts their games, writes their seats, the entries' new ratings, games and
  points, takes one rating sequence number per match (the competition row updated once,
  last) and appends the rating events, each match under its own number in the order
  given;
- otherwise it writes nothing. If every match is still held (a rating changed: another
  worker stored results of these entries first, as when a round paired ahead is played
  while the round before it is stored), the results are rated again from the ratings
  as they are now and the statement is sent once more; else, or if that fails too,
  each result is stored on its own through ``services.match_record`` (which refuses
  the ones no longer held and rates the others from the entries' ratings as they are).

The results of one statement share no entry (the caller stores what it holds before a
result of an entry already among them: ``tournaments.worker.batches``), so each is rated
from the ratings the entries had before the statement, as if stored one by one.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db import connection

from tournaments.live import events
from tournaments.models import Competition, Entry, GameRecord, Match, MatchSeat, RatingEvent
from tournaments.services import record_statements as recording
from tournaments.services.notify import notify_on_commit
from tournaments.services.queue import Sender
from tournaments.services.rating import rating_rows
from tournaments.services.record import (
    after_stored,
    is_rated,
    keep_stderr,
    match_record,
    result_rows,
)
from tournaments.services.results import ClaimedSeat, PlayedMatch, Recording

Format = Competition.Format
Status = Match.Status


@dataclasses.dataclass
class Ready:
    """A played match with all that storing it writes, computed before the statement:
    ``seats`` as the claim read them (the ratings as the worker knows them), ``done``,
    ``games`` and ``seat_rows`` as ``services.record`` builds them, ``rows`` the rating
    update (``recording.RatingRow``) and ``expected`` the entries' ratings it was
    computed from (entry, mu, sigma)."""

    match: Match
    played: PlayedMatch
    seats: list[ClaimedSeat]
    done: dict[str, Any]
    games: list[list[Any]]
    seat_rows: list[list[Any]]
    rows: list[recording.RatingRow]
    expected: list[tuple[int, float, float]]

    @property
    def entries(self) -> set[int]:
        return {entry for entry, _, _ in self.expected}


def batchable(match: Match, seats: Sequence[ClaimedSeat] | None, players: int) -> bool:
    """Whether ``match``'s result can be stored with others (:func:`matches_record`): a
    rated match on PostgreSQL whose claim read its seats (one per player)."""
    return (
        connection.vendor == "postgresql"
        and is_rated(match.competition)
        and bool(seats)
        and len(seats or ()) == players
    )


def ready(match: Match, played: PlayedMatch, seats: Sequence[ClaimedSeat]) -> Ready:
    """``played`` made ready to store (:class:`Ready`), rated from ``seats``' ratings.
    Raises ``ValidationError`` if the result does not fit the match, ``TypeError`` if
    ``played`` is not a :class:`PlayedMatch`."""
    if not isinstance(played, PlayedMatch):
        raise TypeError(f"played must be a PlayedMatch, not {type(played).__name__}")
    teams, ranks, done, games, seat_rows = result_rows(match, played)
    ordered = sorted(seats, key=lambda s: s.seat)
    rows = rating_rows(match, ordered, ranks, teams, played.versions)
    expected = sorted({(s.entry_id, s.mu, s.sigma) for s in ordered})  # a team once
    return Ready(match, played, ordered, done, games, seat_rows, rows, expected)


def matches_record(
    items: Sequence[Ready],
    *,
    claimed_by: str,
    send: Sender | None,
    synchronous_commit: bool = True,
) -> tuple[list[bool], bool]:
    """Store ``items`` (matches of one competition sharing no entry, each held by
    ``claimed_by``) in one statement if every one is still held and rated from its
    entries' current ratings, else each on its own (``services.match_record``); then, as
    for one result, each uploaded bot's stderr kept and the rounds they completed closed
    (the next one paired and sent with ``send``). Returns True per item if it was
    stored, and whether they were stored together (each rated as :class:`Ready` says)."""
    if not items:
        return [], True
    competition = items[0].match.competition
    entries = [e for item in items for e, _, _ in item.expected]
    stored = None
    if len(set(entries)) == len(entries) and all(
        item.match.competition_id == competition.pk for item in items
    ):
        stored = _store(items, claimed_by=claimed_by, synchronous_commit=synchronous_commit)
        if stored == RATED_FROM_OLD:  # (another worker's results of these entries came first)
            _rerate(items)
            stored = _store(items, claimed_by=claimed_by, synchronous_commit=synchronous_commit)
    if not isinstance(stored, tuple):  # one no longer held, or ratings changed again: alone
        return [
            match_record(
                match=item.match,
                played=item.played,
                claimed_by=claimed_by,
                claimed_seats=item.seats,
                send=send,
                synchronous_commit=synchronous_commit,
            )  # fmt: skip
            for item in items
        ], False
    sequence, rounds = stored
    competition.rating_sequence = sequence
    for item in items:
        item.match.status, item.match.finished_at = Status.DONE, item.done["finished_at"]
        notify_on_commit(competition.pk, events.MATCH_FINISHED, match_id=item.match.pk)
        keep_stderr(item.match.pk, item.played)
    closing = {}
    for item in items:  # the last match of each round stands for it
        closing[item.match.round_id] = item.match.pk
    for round_id, match_id in closing.items():
        complete = rounds.get(round_id, True) if round_id is not None else False
        after_stored(Recording(competition, match_id, round_id, round_complete=complete), send=send)
    return [True] * len(items), True


#: What :func:`_store` returns when it wrote nothing because a rating changed (every
#: match still held): the results are rated again from the ratings as they are.
RATED_FROM_OLD = "rated from old ratings"


def _store(
    items: Sequence[Ready], *, claimed_by: str, synchronous_commit: bool
) -> tuple[int, dict[int, bool | None]] | str | None:
    """The statement (module docstring): the competition's last rating sequence number
    and, per round of the items, whether it is complete (``Recording.round_complete``);
    :data:`RATED_FROM_OLD` or None if it wrote nothing (a rating changed since the items
    were rated; a match no longer held)."""
    competition = items[0].match.competition
    ids = [item.match.pk for item in items]
    expected = [e for item in items for e in item.expected]
    params: list[Any] = [
        [e for e, _, _ in expected],
        [float(mu) for _, mu, _ in expected],  # (a whole number comes as an int from JSON)
        [float(sigma) for _, _, sigma in expected],
        ids,
        Status.RUNNING,
        claimed_by,
        len(expected),
        len(ids),
        *_match_params(items),
        *_game_params(items),
        *_seat_params(items),
        *_rating_params(items, competition),
    ]
    settled = Status.FAILED if competition.format == Format.LADDER else Status.DONE
    rounds = sorted({item.match.round_id for item in items if item.match.round_id is not None})
    params += [Status.DONE, settled, Status.DONE, settled, Status.RUNNING, rounds, ids]
    with recording.prepared_cursor() as cursor:
        cursor.execute(_statement(not synchronous_commit), params)
        rated, held, sequence, open_rounds = cursor.fetchone()
    if held and not rated:
        return RATED_FROM_OLD
    if not (rated and held) or sequence is None:
        return None
    if isinstance(open_rounds, str):
        open_rounds = json.loads(open_rounds)
    complete: dict[int, bool | None] = {}
    for round_id, others_open, others_waiting in open_rounds or ():
        if others_open:  # the others all running: one of them may have been stored meanwhile
            complete[round_id] = None if others_waiting == 0 else False
    return sequence, complete


def _rerate(items: Sequence[Ready]) -> None:
    """Rate each item again from its entries' ratings as the database holds them now (one
    read), in place: a round paired ahead is claimed while the round before it is still
    being stored by another worker, whose results of the same entries come first."""
    entries = {e for item in items for e, _, _ in item.expected}
    now = {pk: (mu, sigma) for pk, mu, sigma in Entry.objects.filter(pk__in=entries).values_list(
        "pk", "mu", "sigma"
    )}  # fmt: skip
    for item in items:
        seats = [
            dataclasses.replace(s, mu=now[s.entry_id][0], sigma=now[s.entry_id][1])
            if s.entry_id in now
            else s
            for s in item.seats
        ]
        fresh = ready(item.match, item.played, seats)
        item.seats, item.rows, item.expected = fresh.seats, fresh.rows, fresh.expected


def _match_params(items: Sequence[Ready]) -> list[Any]:
    adapt = connection.ops.adapt_datetimefield_value
    return [
        [item.match.pk for item in items],
        [adapt(item.done["finished_at"]) for item in items],
        [json.dumps(item.done["decided_by"]) for item in items],
    ]


def _game_params(items: Sequence[Ready]) -> list[Any]:
    columns: list[list[Any]] = [[] for _ in range(7)]
    for item in items:
        for index, playoff, scores, ranking, statuses, data, _chances in item.games:
            for column, value in zip(
                columns,
                (item.match.pk, index, playoff, json.dumps(scores), json.dumps(ranking),
                 json.dumps(statuses), bytes(data)),
                strict=True,
            ):  # fmt: skip
                column.append(value)
    return columns


def _seat_params(items: Sequence[Ready]) -> list[Any]:
    columns: list[list[Any]] = [[] for _ in range(9)]
    for item in items:
        for seat, score, points, rank, wins, statuses, log, version in item.seat_rows:
            values = (
                item.match.pk, seat, float(score), float(points), rank, wins,
                json.dumps(statuses), log, version,
            )  # fmt: skip
            for column, value in zip(columns, values, strict=True):
                column.append(value)
    return columns


def _rating_params(items: Sequence[Ready], competition: Competition) -> list[Any]:
    """The entries' new ratings, games and points, then the rating events (each match's
    place in the statement: its sequence number is the competition's before it plus
    that place)."""
    entries: list[list[Any]] = [[], [], [], [], []]
    rated: list[list[Any]] = [[], [], [], [], [], [], []]
    for place, item in enumerate(items, 1):
        for entry, before, after, points in item.rows:
            mu, sigma = float(after[0]), float(after[1])
            for column, value in zip(
                entries, (entry, mu, sigma, competition.games_per_match, float(points)),
                strict=True,
            ):  # fmt: skip
                column.append(value)
            values = (entry, item.match.pk, place, float(before[0]), float(before[1]), mu, sigma)
            for column, value in zip(rated, values, strict=True):
                column.append(value)
    created = connection.ops.adapt_datetimefield_value(items[-1].done["finished_at"])
    return [*entries, len(items), competition.pk, len(items), created, *rated]


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _game_columns() -> str:
    quote = connection.ops.quote_name
    return ", ".join(quote(GameRecord._meta.get_field(n).column) for n in recording.GAME_FIELDS)


def _statement(async_commit: bool) -> str:
    """The text of the statement (module docstring), one for any number of matches: its
    arrays sent in binary where the statement is prepared (``CARDROOM_PREPARED_STATEMENTS``:
    several times cheaper to send than as text), else bound as text on the client."""
    text = _statement_text(async_commit)
    return text if settings.CARDROOM_PREPARED_STATEMENTS else text.replace("%b", "%s")


@functools.cache
def _statement_text(async_commit: bool) -> str:
    m, g, s = _table(Match), _table(GameRecord), _table(MatchSeat)
    e, c, r = _table(Entry), _table(Competition), _table(RatingEvent)
    quick = " AND set_config('synchronous_commit', 'off', true) = 'off'" if async_commit else ""
    return (
        "WITH expected AS (SELECT * FROM unnest(%b::bigint[], %b::float8[], %b::float8[]) "
        "AS x(id, mu, sigma)), "
        f"locked AS (SELECT t.id, t.mu, t.sigma FROM {e} t "
        "WHERE t.id IN (SELECT id FROM expected) ORDER BY t.id FOR NO KEY UPDATE), "
        f"held AS (SELECT t.id FROM {m} t WHERE t.id = ANY(%b::bigint[]) "
        "AND t.status = %s AND t.claimed_by = %s ORDER BY t.id FOR UPDATE), "
        "same AS (SELECT (SELECT count(*) FROM locked l JOIN expected x "
        "ON x.id = l.id AND x.mu = l.mu AND x.sigma = l.sigma) = %s AS rated, "
        "(SELECT count(*) FROM held) = %s AS held), "
        f"done AS (UPDATE {m} t SET status = 'done', finished_at = v.finished_at, "
        "decided_by = v.decided_by::jsonb, lease_until = NULL, error = '' "
        "FROM unnest(%b::bigint[], %b::timestamptz[], %b::text[]) "
        "AS v(id, finished_at, decided_by) "
        "WHERE t.id = v.id AND t.id IN (SELECT id FROM held) "
        f"AND (SELECT rated AND held FROM same){quick} "
        "RETURNING t.id), "
        f"games AS (INSERT INTO {g} (match_id, {_game_columns()}) "
        "SELECT v.match_id, v.index, v.playoff, v.scores::jsonb, "
        "v.ranking::jsonb, v.statuses::jsonb, v.data, NULL "
        "FROM unnest(%b::bigint[], %b::int[], %b::int[], %b::text[], %b::text[], %b::text[], "
        "%b::bytea[]) AS v(match_id, index, playoff, scores, ranking, statuses, data) "
        "WHERE v.match_id IN (SELECT id FROM done)), "
        f"seats AS (UPDATE {s} t SET score = v.score, points = v.points, rank = v.rank, "
        "wins = v.wins, statuses = v.statuses::jsonb, log = v.log, version_id = v.version "
        "FROM unnest(%b::bigint[], %b::int[], %b::float8[], %b::float8[], %b::int[], "
        "%b::int[], %b::text[], %b::text[], %b::bigint[]) "
        "AS v(match_id, seat, score, points, rank, wins, statuses, log, version) "
        "WHERE t.match_id = v.match_id AND t.seat = v.seat "
        "AND v.match_id IN (SELECT id FROM done)), "
        f"rated AS (UPDATE {e} t SET mu = v.mu, sigma = v.sigma, games = t.games + v.games, "
        "points = t.points + v.points "
        "FROM unnest(%b::bigint[], %b::float8[], %b::float8[], %b::int[], %b::float8[]) "
        "AS v(id, mu, sigma, games, points) WHERE t.id = v.id AND EXISTS (SELECT 1 FROM done)), "
        f"seq AS (UPDATE {c} SET rating_sequence = rating_sequence + %s "
        "WHERE id = %s AND EXISTS (SELECT 1 FROM done) RETURNING rating_sequence), "
        f"events AS (INSERT INTO {r} (entry_id, match_id, sequence, mu_before, sigma_before, "
        "mu_after, sigma_after, created_at) SELECT v.entry, v.match_id, "
        "seq.rating_sequence - %s + v.place, v.mu_b, v.sigma_b, v.mu_a, v.sigma_a, "
        "%s::timestamptz FROM seq, unnest(%b::bigint[], %b::bigint[], %b::int[], "
        "%b::float8[], %b::float8[], %b::float8[], %b::float8[]) "
        "AS v(entry, match_id, place, mu_b, sigma_b, mu_a, sigma_a)) "
        "SELECT (SELECT rated FROM same), (SELECT held FROM same), "
        "(SELECT rating_sequence FROM seq), "
        "(SELECT json_agg(json_build_array(o.round_id, o.others_open, o.others_waiting)) FROM "
        "(SELECT round_id, count(*) FILTER (WHERE status NOT IN (%s, %s)) AS others_open, "
        "count(*) FILTER (WHERE status NOT IN (%s, %s, %s)) AS others_waiting "
        f"FROM {m} WHERE round_id = ANY(%b::bigint[]) AND NOT (id = ANY(%b::bigint[])) "
        "GROUP BY round_id) o)"
    )


def batch_size() -> int:
    """At most this many results a statement (``CARDROOM_RECORD_BATCH``; 1: each on its own)."""
    return max(1, int(settings.CARDROOM_RECORD_BATCH))
