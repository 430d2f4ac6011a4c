"""A list's short matches a few at a time (``lists.matches_execute``): claimed together in
one statement (``claims.matches_claim_with_seats``), played one after another, and their
results stored together in one statement (``services.record_many``).

A one-game match of quick bots costs the referee about a millisecond, and a claim and a
recording of their own cost a worker more than that each (bench/README.md, "Where a
match's bookkeeping time goes"). A batch holds as many matches as this worker plays in
about :data:`BATCH_S` (measured per competition as it goes: one match while it has
measured none), at most ``CARDROOM_RECORD_BATCH``. So a result is stored at most about
that long after it was played, and the standings move as often as the live pushes can
show it.

What it costs: a worker killed in a batch leaves the batch's matches to their lease
(the reaper sends them again, as it does a match whose worker died), and the results
it had played but not stored are played again, from the same seeds. A worker told to
stop plays its batch out and claims no more; if the drain's grace period ends inside a
batch, it stores the results it has and gives back at once the matches it has not
played. A batch that has held its matches for half a lease (:func:`hold_s`: a match far
longer than those measured before it, a bot that stalls) gives back those it has not
played, before the reaper could send them to another worker.

The results stored together share no entry: :class:`Recorder` stores what it holds
before it takes a result of an entry already among them (a ladder's batch can seat an
entry twice), and rates that one from the ratings it has just stored.
"""

from __future__ import annotations

import dataclasses
import time

from django.conf import settings
from django.db import DatabaseError

from config import metrics
from tournaments import services
from tournaments.models import Match
from tournaments.services import record_many
from tournaments.services.queue import Sender
from tournaments.worker.claims import (
    INFRASTRUCTURE_ERRORS,
    RECORDED,
    REFUSED,
    InfrastructureFault,
    async_commit_allowed,
    matches_claim_with_seats,
)
from tournaments.worker.execution import OnFault, Run

#: Seconds of play a batch holds (about): how long a result waits to be stored.
BATCH_S = 0.05


def hold_s() -> float:
    """How long a batch may hold the matches it has not played yet: half a match's lease
    (``CARDROOM_MATCH_LEASE_S``); then it gives them back (``lists._play_batch``)."""
    return settings.CARDROOM_MATCH_LEASE_S / 2


#: Per competition (the latest :data:`KEPT`): about how long one of its matches plays
#: on this worker, in seconds, as measured so far (a moving average).
_seconds_a_match: dict[int, float] = {}
KEPT = 64


def size_for(competition_id: int) -> int:
    """How many matches of ``competition_id`` the next batch claims: about
    :data:`BATCH_S` of play as this worker measured its matches so far, at least one, at
    most ``CARDROOM_RECORD_BATCH``; one while it has measured none."""
    per_match = _seconds_a_match.get(competition_id)
    if per_match is None:
        return 1
    return max(1, min(record_many.batch_size(), int(BATCH_S / max(per_match, 1e-6))))


def measured(competition_id: int, played: int, seconds: float) -> None:
    """``played`` matches of ``competition_id`` took ``seconds`` of play here."""
    if played <= 0:
        return
    per_match = seconds / played
    before = _seconds_a_match.pop(competition_id, None)
    _seconds_a_match[competition_id] = per_match if before is None else (before + per_match) / 2
    while len(_seconds_a_match) > KEPT:
        del _seconds_a_match[next(iter(_seconds_a_match))]


class Recorder:
    """Played results waiting to be stored together (:func:`record_many.matches_record`),
    and their outcomes once stored (``outcomes``: ``recorded``, ``refused``, ``failed`` or
    ``fault``, the last given to ``on_fault``)."""

    def __init__(
        self, *, claimed_by: str, send: Sender | None, on_fault: OnFault, outcomes: dict
    ) -> None:
        self.claimed_by, self.send, self.on_fault = claimed_by, send, on_fault
        self.outcomes: dict[int, str] = outcomes
        self.items: list[tuple[Run, record_many.Ready]] = []
        self.entries: set[int] = set()
        #: The entries' ratings as this worker stored them since its batch's claim read
        #: them: a later result of the batch is rated from these.
        self.ratings: dict[int, tuple[float, float]] = {}

    def claimed(self) -> None:
        """A new batch was claimed: its claim read the entries' ratings afresh."""
        self.ratings.clear()

    def add(self, run: Run, played: services.PlayedMatch) -> None:
        """Keep ``played`` (``run``'s match) to store with the others; a result that
        cannot be stored with others (a challenge's) is stored at once."""
        match = run.match
        if not record_many.batchable(match, run.seats, len(played.players)):
            self._alone(run, played)
            return
        if self.entries & {s.entry_id for s in run.seats} or (
            self.items and self.items[0][1].match.competition_id != match.competition_id
        ):
            self.flush()
        seats = [self._known(seat) for seat in run.seats]
        try:
            item = record_many.ready(match, played, seats)
        except BaseException as exc:
            self.settle(run, exc)
            return
        self.items.append((run, item))
        self.entries |= item.entries

    def flush(self) -> None:
        """Store the results held, in one statement if it can (or each on its own)."""
        if not self.items:
            return
        items, self.items, self.entries = self.items, [], set()
        started = time.perf_counter()
        try:
            stored, together = record_many.matches_record(
                [item for _, item in items],
                claimed_by=self.claimed_by,
                send=self.send,
                synchronous_commit=not async_commit_allowed(),
            )
        except BaseException as exc:  # each match's outcome, as if stored alone
            if isinstance(exc, DatabaseError) and not isinstance(exc, INFRASTRUCTURE_ERRORS):
                for run, item in items:  # (a value one result holds: only that one fails)
                    self._alone(run, item.played)
                return
            for run, _ in items:
                self.settle(run, exc)
            return
        for (run, item), recorded in zip(items, stored, strict=True):
            outcome = RECORDED if recorded else REFUSED
            self.outcomes[run.match.pk] = outcome
            run.observed(outcome, started)
            for entry, _, after, _ in item.rows:
                if together:
                    self.ratings[entry] = after
                else:  # rated from what the database held: unknown here
                    self.ratings.pop(entry, None)

    def _known(self, seat):
        rating = self.ratings.get(seat.entry_id)
        if rating is None:
            return seat
        return dataclasses.replace(seat, mu=rating[0], sigma=rating[1])

    def _alone(self, run: Run, played: services.PlayedMatch) -> None:
        started = time.perf_counter()
        try:
            recorded = services.match_record(
                match=run.match, played=played, claimed_by=self.claimed_by,
                claimed_seats=run.seats, send=self.send,
                synchronous_commit=not async_commit_allowed(),
            )  # fmt: skip
        except BaseException as exc:
            self.settle(run, exc)
            return
        outcome = RECORDED if recorded else REFUSED
        self.outcomes[run.match.pk] = outcome
        run.observed(outcome, started)

    def settle(self, run: Run, exc: BaseException) -> None:
        """The outcome of ``exc`` raised while storing ``run``'s match (``Run.failed``);
        an infrastructure fault goes to ``on_fault`` (the match given back for a retry)."""
        try:
            self.outcomes[run.match.pk] = run.failed(exc)
        except InfrastructureFault as fault:
            self.outcomes[run.match.pk] = "fault"
            self.on_fault(run.match.pk, fault)


def claim(
    match_ids: list[int], *, claimed_by: str, on_fault: OnFault, outcomes: dict
) -> list[tuple[Match, list]]:
    """Claim ``match_ids`` in one statement: those claimed, in the order given. If the
    claim fails for the infrastructure, each goes to ``on_fault`` (nothing was claimed)."""
    try:
        taken = matches_claim_with_seats(match_ids=match_ids, claimed_by=claimed_by)
    except INFRASTRUCTURE_ERRORS as exc:
        fault = InfrastructureFault(f"{type(exc).__name__}: {exc}")
        for match_id in match_ids:
            outcomes[match_id] = "fault"
            on_fault(match_id, fault)
        return []
    return [taken[i] for i in match_ids if i in taken]


def count_drained(run: Run) -> None:
    metrics.inc(metrics.MATCHES_FAILED, run.kind, "drained")
