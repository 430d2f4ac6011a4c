"""Rating a recorded table: the entries' ratings before (widened for a new version of
a bot), after, and the points won, stored with the competition's rating sequence."""

from __future__ import annotations

from django.db import connection
from django.db.models import F, OuterRef, Subquery
from django.utils import timezone

from tournaments.models import Competition, Entry, Match, MatchSeat, RatingEvent
from tournaments.ratings import Rating, TableResult, inherit, rate_game, table_points
from tournaments.services import record_statements as recording


def _last_versions(entry_ids: list[int], match: Match) -> dict[int, int | None]:
    """The bot version each entry played in its last recorded match before ``match``
    (a team's at its first seat)."""
    last = (
        MatchSeat.objects.filter(entry_id=OuterRef("pk"), match__status=Match.Status.DONE)
        .exclude(version=None)
        .exclude(match_id=match.pk)
        .order_by("-match_id", "seat")
        .values("version_id")[:1]
    )
    rows = Entry.objects.filter(pk__in=entry_ids).annotate(last=Subquery(last))
    return dict(rows.values_list("pk", "last"))


def _starting_ratings(
    seats: list[recording.LockedSeat], match: Match, versions: list[int | None]
) -> dict[int, Rating]:
    """Each entry's rating, widened when a new version of its bot plays for the first time
    (one query, only when uploaded bots play)."""
    before = {s.entry_id: Rating(s.mu, s.sigma) for s in seats}
    played: dict[int, int | None] = {}
    for seat, version in zip(seats, versions or [None] * len(seats), strict=True):
        played.setdefault(seat.entry_id, version)  # a team: the version at its first seat
    if not any(v is not None for v in played.values()):
        return before
    last = _last_versions(list(played), match)
    for entry_id, version in played.items():
        if version is not None and last.get(entry_id) not in (None, version):
            rating = before[entry_id]  # a new version: same mu, wider sigma
            before[entry_id] = inherit(rating.mu, rating.sigma)
    return before


def rate(
    competition: Competition,
    match: Match,
    seats: list[recording.LockedSeat],
    ranks: list[int],
    teams,
    versions: list[int | None],
) -> None:
    """Rate the table (``seats`` in seat order) and store it: new ratings, games and
    points of the entries, and their rating events under the next sequence number."""
    rows = rating_rows(match, seats, ranks, teams, versions)
    store = recording.ratings_store if connection.vendor == "postgresql" else _ratings_store_orm
    competition.rating_sequence = store(
        competition_id=competition.pk,
        match_id=match.pk,
        games_played=competition.games_per_match,
        rows=rows,
        created_at=timezone.now(),
    )


def rating_rows(match: Match, seats, ranks: list[int], teams, versions: list[int | None]):
    """(entry, (mu, sigma) before, (mu, sigma) after, points won) per entry of the table
    (``seats`` in seat order, each with ``entry_id``, ``mu`` and ``sigma``), in entry order."""
    before = _starting_ratings(seats, match, versions)
    table = [s.entry_id for s in seats]
    after = rate_game(before, table, ranks, teams=teams)
    points = table_points(TableResult(tuple(table), tuple(ranks), teams))
    return [  # a team (one entry at two seats) once
        (e, (before[e].mu, before[e].sigma), (after[e].mu, after[e].sigma), points[e])
        for e in sorted(set(table))
    ]


def _ratings_store_orm(*, competition_id, match_id, games_played, rows, created_at) -> int:
    """:func:`recording.ratings_store` through the ORM (databases other than PostgreSQL)."""
    for entry_id, _, (mu, sigma), points in rows:
        Entry.objects.filter(pk=entry_id).update(
            mu=mu, sigma=sigma, games=F("games") + games_played, points=F("points") + points
        )
    table = connection.ops.quote_name(Competition._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET rating_sequence = rating_sequence + 1 "
            "WHERE id = %s RETURNING rating_sequence",
            [competition_id],
        )
        (sequence,) = cursor.fetchone()
    RatingEvent.objects.bulk_create(
        [
            RatingEvent(
                entry_id=entry_id,
                match_id=match_id,
                sequence=sequence,
                mu_before=before[0],
                sigma_before=before[1],
                mu_after=after[0],
                sigma_after=after[1],
                created_at=created_at,
            )
            for entry_id, before, after, _ in rows
        ]
    )
    return sequence
