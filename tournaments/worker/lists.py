"""Playing a list of short matches on one worker slot (``tournaments.matches_run``): one
after another, each claimed on its own (:func:`tournaments.worker.execution.match_execute`),
the next more urgent task looked for between two, and one more task of the list sent to
any free worker while at least two of its matches wait (module docstring of
``tournaments.worker.execution``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.db import connection

from config import fairshare
from tournaments import services
from tournaments.models import Match
from tournaments.services import record_many
from tournaments.services.queue import TASK_LIST_MAX, Sender, send_match_tasks
from tournaments.worker import batches, drain, execution
from tournaments.worker.claims import (
    GIVEN_BACK,
    INFRASTRUCTURE_ERRORS,
    SKIPPED,
    YIELDED,
    ClaimAhead,
    InfrastructureFault,
    match_give_back,
    matches_give_back,
)
from tournaments.worker.execution import OnFault

log = logging.getLogger(__name__)

Status = Match.Status


@dataclass
class Drained:
    """What :func:`matches_execute` did: each tried match's outcome (``recorded``,
    ``skipped``, ``refused``, ``failed`` or ``fault``) in the order tried, and the ids
    it left for later."""

    outcomes: dict[int, str]
    left: list[int]


#: How often a list of matches looks whether more urgent work waits (one round trip to
#: the broker): a more urgent task waits at most this long and one match more.
URGENT_LOOK_S = 0.05


def matches_execute(
    *,
    match_ids: list[int],
    start: int,
    claimed_by: str,
    on_fault: OnFault,
    budget_s: float,
    spread: Callable[[int], None] | None = None,
    send: Sender | None = send_match_tasks,
    urgent: Callable[[], bool] | None = None,
    yield_turn: Callable[[int], bool] | None = None,
) -> Drained:
    """Play the matches of ``match_ids`` that are still waiting, one after another, from
    position ``start`` on (and round to the ones before it), until none is left or
    ``budget_s`` seconds have passed, or until ``urgent()`` says that more urgent work
    waits (asked between two matches, at most every :data:`URGENT_LOOK_S` seconds). The
    caller sends what is left again, behind the queue's other work, so that a long list
    never keeps a worker from other competitions, nor from a kind of work it takes first.

    If at least two matches wait, ``spread`` is first called with the position where
    another worker should start on the same list (halfway through what waits), so that
    a free worker joins in; that one does the same, and so on while matches wait.

    When a result closes its round, the next round's matches are sent (``send``) for
    the other workers, and played here too after the list, with no wait for a message;
    so are those of a round another worker paired ahead when this list ran dry
    (:func:`_pair_ahead`).

    Each match is claimed on its own (:func:`match_execute`), where it can in the round
    trip that records the one before it (:class:`ClaimAhead`: one wait for the database
    a match, not two); one that another worker took meanwhile is skipped. A skip means
    this worker has run into another one playing the same list from there on, so instead
    of trying that worker's matches one by one it reads again which matches of the list
    still wait and goes on from the middle of them (:func:`_after_skip`): two workers on
    a list meet a handful of times, not once a match. An :class:`InfrastructureFault` of
    one match goes to ``on_fault`` (which gives it back for a retry of its own) and the
    next is tried. A fault outside any match (reading the list) raises.

    A worker that drains (``tournaments.worker.drain``) claims nothing more: what waits is left
    for the caller to send again; a match interrupted at the end of the drain's grace
    period is given back (:func:`match_give_back`) and left too.

    ``yield_turn(match_id)``, asked before each match, may send the match on its own for
    later and answer True: its tenants used more than their share of worker seconds while
    others' work waits (``config.fairshare``); the list goes on without it."""
    turns = _Turns(budget_s=budget_s, urgent=urgent)
    lists = _Lists([(list(match_ids), start)], send=send)
    outcomes: dict[int, str] = {}
    ids: list[int] = []
    while lists.pending or lists.paired_ahead(ids):
        ids, at = lists.pending.pop(0)
        order = _waiting_from(ids, at)
        if len(order) >= 2 and spread is not None and not drain.draining():
            spread(ids.index(order[len(order) // 2]))
        spread = None  # the first list only
        play = _play_batched if _batched() else _play_list
        left = play(
            ids,
            order,
            outcomes=outcomes,
            lists=lists,
            turns=turns,
            claimed_by=claimed_by,
            on_fault=on_fault,
            yield_turn=yield_turn,
        )
        if left is not None:
            return Drained(outcomes, left)
    return Drained(outcomes, [])


class _Turns:
    """When a list of matches gives way to other work: its budget is spent, or
    ``urgent()`` says that more urgent work waits (asked at most every
    :data:`URGENT_LOOK_S` seconds)."""

    def __init__(self, *, budget_s: float, urgent: Callable[[], bool] | None) -> None:
        self.deadline = time.monotonic() + budget_s
        self.look_at = time.monotonic() + URGENT_LOOK_S
        self.urgent = urgent

    def give_way(self) -> bool:
        now = time.monotonic()
        if now >= self.deadline:
            return True
        if self.urgent is None or now < self.look_at:
            return False
        self.look_at = now + URGENT_LOOK_S
        return self.urgent()


class _Lists:
    """The lists of matches a worker plays in turn (each with the position it starts
    from): the one it was given, then each next round its results paired (sent to the
    other workers and kept here too), then a round paired ahead (:func:`_pair_ahead`)."""

    def __init__(self, pending: list[tuple[list[int], int]], *, send: Sender | None) -> None:
        self.pending = pending
        self.send = send
        #: What a result that closes its round sends its next round's matches with.
        self.then: Sender | None = None if send is None else self.send_and_keep

    def send_and_keep(self, ids: list[int]) -> None:
        assert self.send is not None
        self.send(ids)
        self.pending.append((list(ids), 0))

    def join(self, ids: list[int]) -> None:
        """Another worker plays ``ids`` from the start: this one starts in their middle."""
        self.pending.append((list(ids), len(ids) // 2))

    def paired_ahead(self, ids: list[int]) -> bool:
        """Whether the round after the list ``ids`` was paired ahead and waits here now
        (inside an outer transaction the round paired ahead is sent, and kept here, only
        once it commits: then this list ends)."""
        if self.then is None or drain.draining():
            return False
        return _pair_ahead(ids, self.then, self.join) and bool(self.pending)

    def rest(self) -> list[int]:
        """The matches of the lists not started yet, in order."""
        return [i for ids, _ in self.pending for i in ids]


def _play_list(
    ids: list[int],
    order: list[int],
    *,
    outcomes: dict[int, str],
    lists: _Lists,
    turns: _Turns,
    claimed_by: str,
    on_fault: OnFault,
    yield_turn: Callable[[int], bool] | None,
) -> list[int] | None:
    """Play the matches of ``order`` (those of the list ``ids`` that wait, in the order to
    play them) one after another, each outcome into ``outcomes``; None once none is
    left, or what is left of all the lists when this worker stops here (it gives way,
    drains, or gave back a match at the end of the drain's grace period)."""
    tried: set[int] = set()
    stop = False  # the last recording's next claim found that the list stops there
    ahead: ClaimAhead | None = None  # the claim sent with the last recording

    def pick() -> int | None:
        """The match to claim with a recording (asked as it is sent): the next in
        ``order`` unless the list gives way or drains there, those that yield skipped.
        The recorded match's fair-share unit ends first, so that a slot the next match
        takes (``yield_turn``) is not given back when the recorded one ends."""
        nonlocal stop
        fairshare.end()
        if turns.give_way() or drain.draining():
            stop = True
            return None
        while order:
            if yield_turn is None or not yield_turn(order[0]):
                return order[0]
            tried.add(order[0])
            outcomes[order.pop(0)] = YIELDED
        return None

    while order:
        claimed, ahead = ahead, None
        if claimed is not None and claimed.match_id is not None:
            match_id = order.pop(0)  # claimed with the last recording (pick)
        elif stop or (outcomes and turns.give_way()) or drain.draining():
            return order + lists.rest()
        else:
            claimed = None
            match_id = order.pop(0)
            tried.add(match_id)
            if yield_turn is not None and yield_turn(match_id):
                outcomes[match_id] = YIELDED
                continue
        tried.add(match_id)
        ahead = ClaimAhead(pick, claimed_by=claimed_by) if settings.CARDROOM_CLAIM_AHEAD else None
        try:
            with drain.playing():
                outcome = execution.match_execute(
                    match_id=match_id, claimed_by=claimed_by, send=lists.then,
                    claimed=claimed, then=ahead,
                )  # fmt: skip
        except drain.DrainTimeout:
            outcomes[match_id] = GIVEN_BACK
            match_give_back(match_id=match_id, claimed_by=claimed_by, send=lambda ids: None)
            return [match_id, *order, *lists.rest()]
        except InfrastructureFault as fault:
            outcomes[match_id] = "fault"
            on_fault(match_id, fault)
            continue
        outcomes[match_id] = outcome
        if outcome == SKIPPED and order:
            order = _after_skip(ids, match_id, tried)
    return None


def _batched() -> bool:
    """Whether a list plays its matches in batches (``tournaments.worker.batches``)."""
    return connection.vendor == "postgresql" and record_many.batch_size() > 1


def _play_batched(
    ids: list[int],
    order: list[int],
    *,
    outcomes: dict[int, str],
    lists: _Lists,
    turns: _Turns,
    claimed_by: str,
    on_fault: OnFault,
    yield_turn: Callable[[int], bool] | None,
) -> list[int] | None:
    """:func:`_play_list` a batch at a time (``tournaments.worker.batches``): the matches of
    a batch claimed in one statement, played, and their results stored in one statement,
    before the list gives way or drains, or the next batch is claimed. A list that other
    workers may play too (its tasks were sent: ``send``) claims at most half of what waits
    of it at a time, as the worker invited to join starts from the middle."""
    recorder = batches.Recorder(
        claimed_by=claimed_by, send=lists.then, on_fault=on_fault, outcomes=outcomes
    )
    tried: set[int] = set()
    competition_id = _competitions.get(order[0]) if order else None
    while order:
        if (outcomes and turns.give_way()) or drain.draining():
            return order + lists.rest()
        size = 1 if competition_id is None else batches.size_for(competition_id)
        if lists.send is not None:  # sent to the other workers too: half of what waits
            size = min(size, (len(order) + 1) // 2)
        picked = _picked(order, size, outcomes=outcomes, tried=tried, yield_turn=yield_turn)
        if not picked:
            continue
        claimed = batches.claim(picked, claimed_by=claimed_by, on_fault=on_fault, outcomes=outcomes)
        recorder.claimed()
        taken = {match.pk for match, _ in claimed}
        skipped = [i for i in picked if i not in taken and i not in outcomes]
        for match_id in skipped:
            outcomes[match_id] = SKIPPED
        cut, seconds = _play_batch(
            claimed, recorder=recorder, outcomes=outcomes, claimed_by=claimed_by
        )
        recorder.flush()
        if cut is not None:
            return cut + order + lists.rest()
        if claimed:
            competition_id = claimed[0][0].competition_id
            batches.measured(competition_id, len(claimed), seconds)
        if skipped and order:
            order = _after_skip(ids, skipped[0], tried)
    return None


def _picked(
    order: list[int],
    size: int,
    *,
    outcomes: dict[int, str],
    tried: set[int],
    yield_turn: Callable[[int], bool] | None,
) -> list[int]:
    """The next batch's matches, taken from the front of ``order``: ``size`` of them, less
    those that give their turn (``yield_turn``, asked for each before the claim)."""
    picked: list[int] = []
    ahead = getattr(yield_turn, "ahead", None)
    if ahead is not None:  # what each match's answer reads, read for them all at once
        ahead(order[:size])
    while order and len(picked) < size:
        match_id = order.pop(0)
        tried.add(match_id)
        if yield_turn is not None and yield_turn(match_id):
            outcomes[match_id] = YIELDED
            continue
        picked.append(match_id)
    if yield_turn is not None:
        fairshare.release_slot()  # each match takes its own slot as it starts
    return picked


def _play_batch(
    claimed: list, *, recorder: batches.Recorder, outcomes: dict[int, str], claimed_by: str
) -> tuple[list[int] | None, float]:
    """Play the claimed matches of a batch one after another, each result kept by
    ``recorder``. Returns None, or the matches given back (the caller sends them again):
    when the drain's grace period ended in one of them, that one and those not played
    yet; when the batch has held its matches for half a lease (a match far longer than
    the ones measured before it, a bot that stalls), those not played yet, before their
    leases run out and the reaper sends them to another worker while this one still
    means to play them. And the seconds the matches took to play."""
    seconds = 0.0
    started = time.monotonic()
    for n, (match, seats) in enumerate(claimed):
        if n and time.monotonic() - started > batches.hold_s():
            rest = [m.pk for m, _ in claimed[n:]]
            recorder.flush()
            matches_give_back(match_ids=rest, claimed_by=claimed_by, send=lambda ids: None)
            return rest, seconds
        run = execution.Run(match, seats, claimed_by)
        try:
            with drain.playing():
                played = run.play()
        except drain.DrainTimeout:
            run.close()
            batches.count_drained(run)
            outcomes[match.pk] = GIVEN_BACK
            rest = [m.pk for m, _ in claimed[n + 1 :]]
            match_give_back(match_id=match.pk, claimed_by=claimed_by, send=lambda ids: None)
            recorder.flush()
            matches_give_back(match_ids=rest, claimed_by=claimed_by, send=lambda ids: None)
            return [match.pk, *rest], seconds
        except BaseException as exc:
            run.close()
            recorder.settle(run, exc)
            continue
        seconds += time.perf_counter() - run.started
        run.close()
        recorder.add(run, played)
    return None, seconds


def _after_skip(match_ids: list[int], skipped: int, tried: set[int]) -> list[int]:
    """What a worker plays of the list ``match_ids`` after finding ``skipped`` taken.

    Another worker took it, and goes on along the list from there. The matches of the
    list that still wait (and that this one has not tried), from ``skipped`` on, are
    split in two: the other worker keeps the first half, this one takes the second
    half first, then the first half's leftovers (``[3, 4, 5, 6]`` gives ``[5, 6, 3, 4]``).
    """
    waiting = [i for i in _waiting_from(match_ids, match_ids.index(skipped)) if i not in tried]
    half = len(waiting) // 2
    return waiting[half:] + waiting[:half]


def _pair_ahead(match_ids: list[int], send: Sender, join: Callable[[list[int]], None]) -> bool:
    """Once the list ``match_ids`` (one round's) has no match waiting, pair the next round
    if its format allows (``services.round_pair_ahead``) and send it; True if it did.

    If another worker paired it first (this one waited for its lock meanwhile), ``join``
    is given what waits of it, as this worker's next list from its middle, and True is
    returned: a message for that round is out already, and waiting for it would leave
    this worker idle for a round trip through the broker every round."""
    if not match_ids:
        return False
    found = Match.objects.filter(pk=match_ids[0]).values_list(
        "round_id", "competition_id", "round__number"
    )
    round_id, competition_id, number = found.first() or (None, None, None)
    if round_id is None:
        return False
    try:
        paired = services.round_pair_ahead(round_id=round_id, send=send)
    except INFRASTRUCTURE_ERRORS:
        return False  # the round's closing pairs it as usual
    if paired:
        return True
    waiting = _waiting_after(competition_id, number)
    if not waiting:
        return False
    join(waiting)
    return True


def _waiting_after(competition_id: int, round_number: int) -> list[int]:
    """The matches of the competition's rounds after ``round_number`` that wait and were
    never claimed (one given back after a fault waits for its own retry), in order."""
    return list(
        Match.objects.filter(
            competition_id=competition_id,
            round__number__gt=round_number,
            status__in=(Status.PENDING, Status.QUEUED),
            attempts=0,
        )
        .order_by("id")
        .values_list("pk", flat=True)[:TASK_LIST_MAX]
    )


def _waiting_from(match_ids: list[int], start: int) -> list[int]:
    """The matches of ``match_ids`` still waiting to be played, from ``start`` round (their
    competitions noted in :data:`_competitions`)."""
    rows = (
        Match.objects.filter(pk__in=match_ids, status__in=(Status.PENDING, Status.QUEUED))
        .values_list("pk", "competition_id")
        .order_by()
    )
    waiting = set()
    for match_id, competition_id in rows:
        waiting.add(match_id)
        _competitions[match_id] = competition_id
    while len(_competitions) > _KEPT:
        del _competitions[next(iter(_competitions))]
    start %= max(1, len(match_ids))
    return [i for i in match_ids[start:] + match_ids[:start] if i in waiting]


#: The competition of each match a list found waiting lately (the latest :data:`_KEPT`).
_competitions: dict[int, int] = {}
_KEPT = 1024
