"""Recording a played match once: its games, its seats and the rating update, in one
transaction, then its round (or its challenge) closed if it was the last open match:
:func:`match_record`, the one door for every result."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.utils import timezone

from tournaments.formats import match_result
from tournaments.integrity import chances
from tournaments.live import events
from tournaments.models import Competition, GameRecord, Match, MatchSeat
from tournaments.ratings import PARTNER_SEATS
from tournaments.services import record_statements as recording
from tournaments.services.competitions import is_partnership
from tournaments.services.lifecycle import challenge_close_if_settled
from tournaments.services.notify import notify_on_commit
from tournaments.services.queue import Sender, send_match_tasks
from tournaments.services.rating import rate, rating_rows
from tournaments.services.results import (
    ClaimedSeat,
    PlayedMatch,
    Recording,
    match_decision,
    match_ranks,
)
from tournaments.services.rounds import round_close_if_complete
from tournaments.services.stderr_logs import match_stderr_logs_keep

Format = Competition.Format


def match_record(
    *,
    match: Match,
    played: PlayedMatch,
    claimed_by: str | None = None,
    claimed_seats: Sequence[ClaimedSeat] | None = None,
    send: Sender | None = send_match_tasks,
    synchronous_commit: bool = True,
    then: recording.Then | None = None,
) -> bool:
    """Record ``played``, what :func:`match_play` returned for ``match``, once: its games,
    its seats and the rating update in one transaction; then, once that has committed,
    close what the result may have completed. True if stored; False, changing nothing, if
    not (already recorded, or the lease was taken over). The one door for every result:
    the workers', the benchmarks' and the tests' alike.

    With ``claimed_by`` (a worker) the result is stored only while that worker holds the
    match (running, claimed by it); None stores it whoever holds it. ``claimed_seats`` are
    the seats as the claim read them (``execution.match_claim_with_seats``, with the
    entries' ratings): on PostgreSQL the result is then stored and rated in one statement.
    ``synchronous_commit=False`` lets the transaction commit without waiting for the disk
    (PostgreSQL only; see ``tournaments.worker.execution``). Raises ``ValidationError``
    (changing nothing) if the result does not fit the match's seats, ``TypeError`` if
    ``played`` is not a :class:`PlayedMatch`.

    After the commit: each uploaded bot's whole stderr, kept compressed by the sandbox, is
    stored for its owner within their allowance (``services.stderr_logs``); a challenge
    is closed if that was its last open match
    (:func:`challenge_close_if_settled`); otherwise the match's round is closed if it is
    complete (:func:`round_close_if_complete`, not asked again when the recording saw
    the round's other matches all done, not at all when it saw one waiting), its next
    round's matches queued with ``send`` (None leaves them pending) and, if it closed,
    the soft-play tallies of the competition's games counted in the background
    (``tournaments.integrity.chances``: a game is stored without its tally). Inside an outer
    transaction the closing joins it.

    ``then`` (a list's next claim, ``claims.ClaimAhead``) is sent with the recording
    statement in one round trip when the result is stored in one statement
    (``recording.match_store_rated``); otherwise it is never asked.
    """
    if not isinstance(played, PlayedMatch):
        raise TypeError(f"played must be a PlayedMatch, not {type(played).__name__}")
    stored = _match_store_played(
        match=match,
        played=played,
        claimed_by=claimed_by,
        claimed_seats=claimed_seats,
        synchronous_commit=synchronous_commit,
        then=then,
    )
    if stored is None:
        return False
    keep_stderr(match.pk, played)
    after_stored(stored, send=send)
    return True


def keep_stderr(match_id: int, played: PlayedMatch) -> None:
    """Each uploaded bot's whole stderr, kept for its owner (``services.stderr_logs``)."""
    if any(full is not None for full in played.full_stderr):
        match_stderr_logs_keep(match_id=match_id, full_stderr=played.full_stderr)


def after_stored(stored: Recording, *, send: Sender | None) -> None:
    """What a stored result may have completed (:func:`match_record`): its challenge
    closed, or its round closed and the next one paired and sent."""
    competition = stored.competition
    if competition.kind == Competition.Kind.CHALLENGE:
        challenge_close_if_settled(competition_id=competition.pk)
    elif stored.round_complete is not False:  # False: other matches of it still wait
        closed = round_close_if_complete(
            competition=competition,
            round_id=stored.round_id,
            known_complete=bool(stored.round_complete),
            send=send,
        )
        if closed is not None and send is not None:  # the round's soft-play tallies
            chances.count_later(competition)


def _match_store_played(
    *,
    match: Match,
    played: PlayedMatch,
    claimed_by: str | None,
    claimed_seats: Sequence[ClaimedSeat] | None,
    synchronous_commit: bool,
    then: recording.Then | None = None,
) -> Recording | None:
    """Store a played match, its records and the rating update, once, in one transaction
    (:func:`match_record`); None, changing nothing, when it is not stored.

    On PostgreSQL, for a match whose ``claimed_seats`` are given (as
    ``execution.match_claim_with_seats`` read them, with the entries' ratings): one
    statement (``recording.match_store_rated``), which is a transaction of its own unless
    the caller has one open (no ``BEGIN``, no ``COMMIT``). If a rating changed since the
    claim, that statement writes nothing and the result is recorded as for a match without a
    claim, in one transaction (joining the caller's, without a savepoint): two statements
    whatever the seats and games, the guarded ``UPDATE`` of the match with the games, the
    seats and the entries locked (in entry order, so two recordings never deadlock); then
    the entries' ratings with the competition's rating sequence, taken last so that the
    competition row stays locked only for the last statement and the commit. Elsewhere the
    same writes through the ORM. The round is not touched: :func:`match_record` closes it
    once the result has committed (no lock shared by the matches of a round while they
    record). Two results that share an entry are serialised by its row lock, so the
    sequence order is the order in which their updates were applied (a recompute replays
    it). The seats record the match's ranks (a knockout's with its tie-break, see
    :func:`match_decision`); ratings and points follow the ranks of the match's own games,
    where level seats stay level.
    """
    competition = match.competition
    teams, ranks, done, games_, seats = result_rows(match, played)
    players = len(played.players)
    claimed = claimed_seats
    rated = is_rated(competition)
    if rated and connection.vendor == "postgresql" and claimed and len(claimed) == players:
        stored = _match_store_rated(
            match, done, claimed_by, games_, seats, synchronous_commit, claimed, ranks, teams,
            played.versions, then,
        )  # fmt: skip
        if stored is None or isinstance(stored, Recording):
            return stored
        # Another result of one of its entries was stored since the claim: as below.
    with transaction.atomic(savepoint=False):  # in a caller's transaction: no savepoint
        store = _match_store_sql if connection.vendor == "postgresql" else _match_store_orm
        locked = store(match, done, claimed_by, games_, seats, synchronous_commit)
        if locked is None:
            return None
        if len(locked) != players:
            raise ValidationError("the result does not fit the match's seats")
        match.status, match.finished_at = Match.Status.DONE, done["finished_at"]
        seats_ = sorted(locked, key=lambda s: s.seat)
        if rated:
            rate(competition, match, seats_, ranks, teams, played.versions)
        notify_on_commit(competition.pk, events.MATCH_FINISHED, match_id=match.pk)
    return Recording(competition=competition, match_id=match.pk, round_id=match.round_id)


def result_rows(match: Match, played: PlayedMatch):
    """What recording ``played`` writes, computed before any statement: the teams (or
    None), the match's ranks for the ratings, ``done`` (the match's ``finished_at`` and
    ``decided_by``), the game rows and the seat rows. Raises ``ValidationError`` if the
    result does not fit the match."""
    competition = match.competition
    teams = PARTNER_SEATS if is_partnership(competition.variant) else None
    players = len(played.players)
    if not played.result.games:
        raise ValidationError("the result holds no game")
    try:
        decision = match_decision(competition=competition, match=match, result=played)
        ranks = match_ranks(played, players, teams)
        points = match_result.game_points(played.games_json(), players, teams)
    except (IndexError, KeyError, ValueError) as exc:
        raise ValidationError(f"the result does not fit the match: {exc}") from None
    done = {"finished_at": timezone.now(), "decided_by": decision.decided_by}
    return teams, ranks, done, _game_rows(played), _seat_rows(played, list(decision.ranks), points)


def is_rated(competition: Competition) -> bool:
    """Whether the results of ``competition`` move ratings and standings: a challenge's
    never do (``tournaments.services.challenges``)."""
    return competition.kind != Competition.Kind.CHALLENGE


def _game_rows(played: PlayedMatch) -> list[list[Any]]:
    """The game records' rows in ``recording.GAME_FIELDS`` order (play-off games last)."""
    games_ = [(0, game) for game in played.result.games]
    games_ += [(p.set, p.game) for p in played.playoff]
    return [
        [
            g.index,
            playoff_set,
            g.scores,
            g.ranking,
            g.statuses,
            GameRecord.pack(g.record),
            None,  # the soft-play tally: counted off the hot path (tournaments.integrity.chances)
        ]
        for playoff_set, g in games_
    ]


def _seat_rows(played: PlayedMatch, ranks: list[int], points: list[float]) -> list[list[Any]]:
    """Each seat's row in ``recording.SEAT_FIELDS`` order: score, points, rank, wins,
    statuses, log and the version played."""
    standings = played.result.standings()
    players = len(played.players)
    logs = played.logs or played.result.logs or [""] * players
    versions = played.versions or [None] * players
    rows = []
    for player in range(players):
        row = standings[player]
        rows.append(
            [
                player,
                row.get("score", 0),
                points[player],
                ranks[player],
                row.get("wins", 0),
                row.get("statuses", {}),
                # (no NUL: PostgreSQL's text columns refuse it)
                logs[player][-8_000:].replace("\x00", "\N{REPLACEMENT CHARACTER}")
                if player < len(logs)
                else "",
                versions[player] if player < len(versions) else None,
            ]
        )
    return rows


def _match_store_rated(
    match,
    done,
    claimed_by,
    games_,
    seats,
    synchronous_commit,
    claimed,
    ranks,
    teams,
    versions,
    then,
) -> Recording | None | bool:
    """Store the result and its rating update in one statement, rated from the entries'
    ratings as the claim read them (``claimed``), if they are still those
    (:func:`recording.match_store_rated`). Returns the recording, None if the result is
    refused, or False (nothing written) if a rating changed since the claim."""
    competition = match.competition
    seats_ = sorted(claimed, key=lambda s: s.seat)
    rows = rating_rows(match, seats_, ranks, teams, versions)
    stored = recording.match_store_rated(
        match_id=match.pk,
        done=done,
        claimed_by=claimed_by,
        games=games_,
        seats=seats,
        expected=sorted({(s.entry_id, s.mu, s.sigma) for s in seats_}),  # a team once
        rows=rows,
        competition_id=competition.pk,
        games_played=competition.games_per_match,
        round_id=match.round_id,
        synchronous_commit=synchronous_commit,
        failed_settles=competition.format == Format.LADDER,
        then=then,
    )
    if stored.refused:
        return None
    if stored.sequence is None:
        return False
    match.status, match.finished_at = Match.Status.DONE, done["finished_at"]
    competition.rating_sequence = stored.sequence
    notify_on_commit(competition.pk, events.MATCH_FINISHED, match_id=match.pk)
    return Recording(
        competition=competition,
        match_id=match.pk,
        round_id=match.round_id,
        round_complete=stored.round_complete,
    )


def _match_store_sql(match, done, claimed_by, games_, seats, synchronous_commit):
    return recording.match_store(
        match_id=match.pk,
        done=done,
        claimed_by=claimed_by,
        games=games_,
        seats=seats,
        synchronous_commit=synchronous_commit,
    )


def _match_store_orm(
    match, done, claimed_by, games_, seats, synchronous_commit
) -> list[recording.LockedSeat] | None:
    """:func:`recording.match_store` through the ORM (databases other than PostgreSQL)."""
    guard = Match.objects.filter(pk=match.pk).exclude(status=Match.Status.DONE)
    if claimed_by is not None:
        guard = guard.filter(status=Match.Status.RUNNING, claimed_by=claimed_by)
    if not guard.update(status=Match.Status.DONE, lease_until=None, error="", **done):
        return None
    locked = list(
        MatchSeat.objects.filter(match_id=match.pk)
        .select_related("entry")
        .select_for_update(of=("entry",))
        .order_by("entry_id")
    )
    fields = recording.GAME_FIELDS
    GameRecord.objects.bulk_create(
        [GameRecord(match=match, **dict(zip(fields, g, strict=True))) for g in games_]
    )
    by_seat = {s.seat: s for s in locked}
    for row in seats:
        seat = by_seat.get(row[0])
        if seat is not None:
            for name, value in zip(recording.SEAT_FIELDS[1:], row[1:], strict=True):
                setattr(seat, "version_id" if name == "version" else name, value)
    MatchSeat.objects.bulk_update(locked, recording.SEAT_FIELDS[1:])
    return [recording.LockedSeat(s.seat, s.entry_id, s.entry.mu, s.entry.sigma) for s in locked]
