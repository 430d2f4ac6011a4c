"""Rounds: pairing the next round (or ladder batch), closing a finished round, and
pairing a round-robin round ahead while the one before it still plays."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from django.conf import settings
from django.db import connection, transaction

from tournaments import pairing
from tournaments.integrity import deals
from tournaments.live import events
from tournaments.models import Competition, Match, MatchSeat, Round
from tournaments.services import tables
from tournaments.services.collusion import collusion_watch_run
from tournaments.services.notify import notify_on_commit
from tournaments.services.queue import Sender, matches_enqueue, send_match_tasks

Format = Competition.Format


def match_seed(competition: Competition, round_number: int, table: int) -> int:
    """The seed of a match, from the competition's secret (or its chosen seed)."""
    where = {"competition_id": competition.pk, "round_number": round_number, "table": table}
    if competition.deal_secret:
        return deals.match_seed_from_secret(competition.deal_secret, **where)
    return deals.match_seed_from_seed(competition.seed, **where)


def pair_next(competition: Competition) -> list[Match]:
    """Create the next round (or ladder batch) the format calls for, if any."""
    number = (
        competition.rounds.order_by("-number").values_list("number", flat=True).first() or 0
    ) + 1
    # A public ladder's pairs flagged by the batch just played sit apart in this one.
    collusion_watch_run(competition=competition, round_number=number - 1)
    plan = pairing.next_round(competition, number)
    if plan is None:
        return []
    round_ = Round.objects.create(
        competition=competition, number=number, status=Round.Status.RUNNING
    )
    if plan.byes:
        round_.byes.set(plan.byes)
    # The one place that announces a new round (start, next round, ladder batch).
    notify_on_commit(competition.pk, events.ROUND_STARTED, round_=number)
    # One statement (two inserts elsewhere) whatever the number of tables: pairing a
    # ladder batch of thousands of entries must not cost a query per match.
    matches = [
        Match(
            competition=competition,
            round=round_,
            table=t,
            node=node,
            seed=match_seed(competition, number, t),
        )
        for t, (_, node) in enumerate(plan.tables)
    ]
    seats = [
        MatchSeat(match=match, seat=s, entry_id=entry_id)
        for match, (table, _) in zip(matches, plan.tables, strict=True)
        for s, entry_id in enumerate(table)
    ]
    if connection.vendor == "postgresql" and matches:
        tables.tables_insert(matches, seats)
        return matches
    matches = Match.objects.bulk_create(matches)
    MatchSeat.objects.bulk_create(seats)
    return matches


#: The first key of the advisory lock that serialises a competition's pairings.
PAIRING_LOCK_CLASS = 0x43_52_50  # "CRP"


def locked_for_pairing(competition_id: int) -> Competition:
    """The competition, read once the caller's transaction may pair its next round (or
    ladder batch): no one else pairs it until that transaction ends.

    On PostgreSQL the row is only key-share locked and the pairers of the competition
    queue on a transaction-level advisory lock: a status change (which locks the row
    ``FOR UPDATE``) still waits for a pairing and is waited for, but recording a result,
    whose rating sequence updates the row, does not wait for a pairing (about 8 ms a
    round of a 46-entry round robin, while every other worker recorded nothing). The row
    is read again once the advisory lock is held, as the pairer before may have
    finished the competition. Elsewhere the row is locked ``FOR UPDATE``.
    """
    if connection.vendor != "postgresql":
        return Competition.objects.select_for_update().get(pk=competition_id)
    table = connection.ops.quote_name(Competition._meta.db_table)
    with connection.cursor() as cursor:
        # The row first (the advisory lock is taken for the row the CTE locked): whoever
        # holds it FOR UPDATE (pause, resume) and then pairs (``competition_resume``) can
        # never wait for this transaction's advisory lock.
        cursor.execute(
            f"WITH c AS MATERIALIZED (SELECT id FROM {table} WHERE id = %s FOR KEY SHARE) "
            "SELECT pg_advisory_xact_lock(%s, %s) FROM c",
            [competition_id, PAIRING_LOCK_CLASS, competition_id % 2**31],  # keys may be shared
        )
        if cursor.fetchone() is None:
            raise Competition.DoesNotExist(f"no competition {competition_id}")
    return Competition.objects.get(pk=competition_id)


@transaction.atomic
def ladder_pair_batch(
    *, competition: Competition, send: Sender | None = send_match_tasks
) -> list[Match]:
    """The next batch of a running ladder with no open match, queued (``send``; None
    leaves it pending); [] if it is not idle.

    The competition is locked for pairing, so two reapers never pair the same batch twice.
    """
    competition = locked_for_pairing(competition.pk)
    if competition.status != Competition.Status.RUNNING or competition.format != Format.LADDER:
        return []
    open_ = [Match.Status.PENDING, Match.Status.QUEUED, Match.Status.RUNNING]
    if competition.matches.filter(status__in=open_).exists():
        return []
    matches = pair_next(competition)
    if matches and send is not None:
        matches_enqueue(competition=competition, send=send)
    return matches


@dataclass
class RoundClosing:
    """What closing a finished round changed: the next round's matches, the end."""

    round_number: int
    paired: list[Match] = dataclasses.field(default_factory=list)
    competition_finished: bool = False


def round_close_if_complete(
    *,
    competition: Competition,
    round_id: int | None,
    known_complete: bool = False,
    send: Sender | None = send_match_tasks,
) -> RoundClosing | None:
    """Finish round ``round_id`` if none of its matches is open or failed any more, and
    pair the next round (or finish the competition); None if it stays open or someone
    else closed it. The next round's matches are queued once the closing has committed
    (``send``; None leaves them pending).

    Called after a result has committed (by the recorder, and by the reaper for a
    recorder that died in between). Of two last results recorded at once both may
    see the round complete: the guarded ``UPDATE`` of the round's status lets one of
    them close it, and the other does not wait for it (the round's row is locked
    ``SKIP LOCKED``): the first holds that lock while it pairs the next round, and
    the second has other matches to play meanwhile. Should the first fail, its round
    stays running and complete, and the reaper closes it. One unlocked query when the
    round stays open; none with ``known_complete`` (the recording saw no other open
    match in the round).
    """
    if round_id is None:
        return None
    # A failed match holds up its round until an organiser sees to it, but not a ladder's
    # batch: nothing comes after it that needs its result.
    settled = [Match.Status.DONE]
    if competition.format == Format.LADDER:
        settled.append(Match.Status.FAILED)
    if not known_complete and (
        Match.objects.filter(round_id=round_id).exclude(status__in=settled).exists()
    ):
        return None
    with transaction.atomic():
        number = _round_finish(round_id)
        if number is None:
            return None
        closing = RoundClosing(number)
        close_round(competition, closing)
        changes = [events.ROUND_FINISHED]
        if closing.competition_finished:
            changes.append(events.COMPETITION_FINISHED)
        notify_on_commit(competition.pk, *changes, round_=closing.round_number)
    if closing.paired and send is not None:
        matches_enqueue(competition=competition, send=send)
    return closing


def _round_finish(round_id: int) -> int | None:
    """Mark round ``round_id`` finished if it is running and nobody else is closing it (its
    row locked ``SKIP LOCKED``); its number, or None. One statement on PostgreSQL."""
    if connection.vendor != "postgresql":
        unclaimed = Round.objects.filter(pk=round_id, status=Round.Status.RUNNING)
        unclaimed = unclaimed.select_for_update(no_key=True, skip_locked=True).values("pk")
        if not Round.objects.filter(pk__in=unclaimed).update(status=Round.Status.FINISHED):
            return None
        return Round.objects.values_list("number", flat=True).get(pk=round_id)
    table = connection.ops.quote_name(Round._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET status = %s WHERE id = (SELECT id FROM {table} WHERE id = %s "
            "AND status = %s FOR NO KEY UPDATE SKIP LOCKED) RETURNING number",
            [Round.Status.FINISHED, round_id, Round.Status.RUNNING],
        )
        row = cursor.fetchone()
    return None if row is None else row[0]


def close_round(competition: Competition, closing: RoundClosing) -> None:
    if competition.format == Format.LADDER and settings.CARDROOM_LADDER_PAUSE_S > 0:
        return  # a paced ladder: the reaper pairs the next batch after the pause
    if competition.format == Format.LADDER and house_only(competition):
        return  # a standing ladder nobody entered rests: the reaper pairs it once someone does
    locked = locked_for_pairing(competition.pk)
    if locked.status != Competition.Status.RUNNING:
        return  # closed meanwhile
    if (
        locked.format in PAIRED_AHEAD
        and locked.rounds.filter(status=Round.Status.RUNNING).values_list("pk").first()
    ):
        # A round paired ahead (round_pair_ahead) still plays: whichever of the two
        # closes last pairs the next round or finishes the competition.
        return
    closing.paired = pair_next(locked)
    if not closing.paired and competition.format != Format.LADDER:
        Competition.objects.filter(pk=competition.pk).update(status=Competition.Status.FINISHED)
        competition.status = Competition.Status.FINISHED
        closing.competition_finished = True


def house_only(competition: Competition) -> bool:
    """Whether ``competition`` is a standing open ladder whose entries are all house bots
    (owner-less built-ins, ``tournaments.selectors.ladders``): its first batch shows it
    playing, then it rests until an author enters, so that ten ladders nobody entered do
    not hold the workers with games no one looks at."""
    return (
        bool(competition.standing)
        and not competition.entries.filter(bot__owner__isnull=False).exists()
    )


#: Formats whose next round never depends on results (the schedule is fixed at the
#: start): it may be paired while the round before it still plays (round_pair_ahead).
PAIRED_AHEAD = frozenset({Format.ROUND_ROBIN, Format.DOUBLE_ROUND_ROBIN})


def round_pair_ahead(*, round_id: int, send: Sender | None = send_match_tasks) -> list[Match]:
    """Pair the round after ``round_id`` now, while its last matches are still played,
    and queue them (``send``; None leaves them pending).

    Only for :data:`PAIRED_AHEAD` formats (their schedule never depends on results),
    only when ``round_id`` is the competition's latest round, and only once none of
    its matches waits any more (each is being played or done): so a worker whose
    list ran dry plays on into the next round instead of waiting for the last match
    of this one and the pairing after it. At most two rounds run at once, and an
    entry may play a match of each. Returns the new matches, or [] when it does
    nothing (then the round's closing pairs as usual, :func:`round_close_if_complete`).
    The competition is locked for pairing as the closing locks it
    (:func:`locked_for_pairing`), so of the two exactly one pairs the next round.
    """
    competition_id = (
        Round.objects.filter(pk=round_id, status=Round.Status.RUNNING)
        .values_list("competition_id", flat=True)
        .first()
    )
    if competition_id is None:
        return []
    with transaction.atomic():
        locked = locked_for_pairing(competition_id)
        if locked.status != Competition.Status.RUNNING or locked.format not in PAIRED_AHEAD:
            return []
        running = list(
            locked.rounds.filter(status=Round.Status.RUNNING).values_list("pk", flat=True)
        )
        latest = locked.rounds.order_by("-number").values_list("pk", flat=True).first()
        if latest != round_id or running != [round_id]:
            return []  # the next round is paired already, or two rounds run now
        statuses = set(Match.objects.filter(round_id=round_id).values_list("status", flat=True))
        if Match.Status.RUNNING not in statuses or statuses & {
            Match.Status.PENDING,
            Match.Status.QUEUED,
        }:
            return []  # matches still wait, or none is left playing (the closing pairs)
        paired = pair_next(locked)
        if paired and send is not None:
            matches_enqueue(competition=locked, send=send)
    return paired
