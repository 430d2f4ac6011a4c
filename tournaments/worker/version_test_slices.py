"""Playing a version test on a worker: slices of duplicate deals until its SPRT decides.

:func:`version_test_play` (the body of the ``tournaments.version_test_run`` task, sent
by ``tournaments.services.version_tests``) claims the test with a guarded status change
and plays duplicate deals between the two versions (``tournaments.worker.sprt_deals``:
uploaded versions sandboxed, built-in ones in-process), writing the counts, the LLR and
any decision after every deal. It plays for about :data:`SLICE_S` seconds, then gives the
test back as pending and sends the task again, so no task runs long and a test whose
worker died is taken over once its lease expires (the reaper sends it again:
:func:`version_tests_reap`); it resumes at the next deal and plays the same deals it would
have played anyway. Between two decisions the worker looks whether the test is still its
own (``config.leases.watch``): a cancelled test stops there.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from bots.models import BotVersion
from bots.referee.players import Player
from bots.referee.seating import seat_player
from bots.sandbox.errors import SandboxUnavailable
from bots.services import bot_version_path
from config import leases, liveness
from tournaments.models import VersionTest
from tournaments.ratings.confidence import SprtResult
from tournaments.selectors.version_tests import counts_of, players_of, sprt_of
from tournaments.services import is_partnership
from tournaments.services.version_tests import Sender, send_version_test_task
from tournaments.worker import drain
from tournaments.worker.sprt_deals import PlayerFactory, deal_scores

Status = VersionTest.Status


#: A task plays deals for about this many seconds, then sends itself again: short, so
#: that a slot of the users' lane is free for the next person's upload within seconds.
SLICE_S = 20.0
#: A running test whose lease ran out (its worker is gone) may be claimed again, and the
#: reaper sends it again (:func:`version_tests_reap`).
#: The kind of work a slice holds (``config.liveness.hold``).
HOLD_KIND = "version-test"
LEASE_S = 600.0
#: While a deal plays, its worker renews the test's lease this often (a deal may be long).
RENEW_S = LEASE_S / 4
#: A slice stops this long before Celery's soft time limit, even in the middle of a deal.
TIME_LIMIT_MARGIN_S = 60
#: A slice stops after this long even in the middle of a deal, and a deal that does not
#: end within one slice of this length fails its test: bots that sleep just under their
#: move time on every decision cannot make one slice hold a slot for half an hour.
DEAL_LIMIT_S = 300.0
#: The bot at the seats beyond the two versions (variants for three or more).
FILLER = "random"


def _maker(version: BotVersion) -> PlayerFactory:
    """Fresh players of ``version`` (``bots.referee.seating.seat_player``): built-ins
    in-process, uploads sandboxed."""
    if version.runtime == BotVersion.Runtime.BUILTIN:
        name = version.entry_point.removeprefix("builtin:")
        return lambda seed, index: seat_player(
            builtin=name, seed=seed, seat=index, name=str(version)
        )
    path = bot_version_path(version=version)
    return lambda seed, index: seat_player(path=path, seed=seed, seat=index)


def _filler(seed: int, index: int) -> Player:
    return seat_player(builtin=FILLER, seed=seed, seat=index)


@dataclasses.dataclass
class _Hold:
    """A worker's hold on a running test: the end of the lease it took, which each of its
    writes checks and moves on. A test cancelled, or taken over after that lease ran out
    (:func:`version_tests_reap`), is no longer held: nothing more of it is written here."""

    test_id: int
    lease_until: datetime | None
    renewed: float = dataclasses.field(default_factory=time.monotonic)
    #: Deals this hold saved.
    deals: int = 0

    def held(self) -> QuerySet[VersionTest]:
        return VersionTest.objects.filter(
            pk=self.test_id, status=Status.RUNNING, lease_until=self.lease_until
        )

    def write(self, *, release: bool = False, **fields: Any) -> bool:
        """Write ``fields`` if the test is still held, renewing the lease (``release``: end
        it); False, writing nothing, if it is not."""
        now = timezone.now()
        until = None if release else leases.lease_until(lease_s=LEASE_S, now=now)
        if not self.held().update(lease_until=until, **fields):
            return False
        self.lease_until, self.renewed = until, time.monotonic()
        return True

    def still_held(self) -> bool:
        """Looked at between two decisions (``leases.watch``): renews the lease once
        :data:`RENEW_S` have passed since the last write (a deal may outlast a lease)."""
        if time.monotonic() - self.renewed >= RENEW_S:
            return self.write()
        return self.held().exists()


def _claim(test_id: int) -> _Hold | None:
    """Take test ``test_id`` with a lease (``config.leases``): pending, or running
    with an expired lease (its worker is gone); None if it is not claimable."""
    now = timezone.now()
    claimed = leases.claimed(VersionTest, lease_s=LEASE_S, now=now)
    claimable = leases.claimable(VersionTest, waiting=[Status.PENDING], now=now)
    if not VersionTest.objects.filter(claimable, pk=test_id).update(**claimed, resumed_at=None):
        return None
    liveness.hold(HOLD_KIND, test_id)  # its worker's death is seen within seconds
    return _Hold(test_id, claimed["lease_until"])


class _OutOfTime(Exception):
    """The slice's task nears Celery's time limit in the middle of a deal."""


def _watch(hold: _Hold, started: float) -> Callable[..., None]:
    """The check between two decisions: :class:`~config.leases.ClaimLost` once the
    test is cancelled or taken over, :class:`_OutOfTime` once the task nears its limit."""
    held = leases.watch(hold.still_held)
    task_limit = settings.CELERY_TASK_SOFT_TIME_LIMIT
    limit = DEAL_LIMIT_S
    if task_limit:
        limit = min(limit, task_limit - TIME_LIMIT_MARGIN_S)

    def look(*args: Any) -> None:
        held()
        if time.monotonic() - started >= limit:
            raise _OutOfTime(
                f"one deal took longer than {limit:.0f} s, more than a version test gives a"
                " deal: the versions are too slow to test (a bot that thinks close to its"
                " move time on every decision)"
            )

    return look


def version_test_play(
    *, test_id: int, slice_s: float = SLICE_S, send: Sender | None = send_version_test_task
) -> str:
    """Claim test ``test_id`` and play deals for about ``slice_s`` seconds.

    Returns ``skipped`` (done, failed, or held by a live lease: a second delivery),
    ``done`` (decided, or ``max_games`` reached undecided), ``continued`` (given back
    as pending and sent again, unless ``send`` is None), ``cancelled`` (cancelled, or
    taken over, while it played: play stops between two decisions, the deal in play not
    counted) or ``failed`` (the versions cannot be played, or one deal outlasts the
    task's time limit; ``error`` says why).
    """
    hold = _claim(test_id)
    if hold is None:
        return "skipped"
    test = VersionTest.objects.select_related("new", "old").get(pk=test_id)
    if test.status != Status.RUNNING:  # cancelled between the claim and here
        return "skipped"
    try:
        outcome = _play(test, hold, slice_s)
    except leases.ClaimLost:
        return "cancelled"
    except _OutOfTime as exc:
        if not hold.deals:  # one deal alone outlasts a task: it would be played again and again
            hold.write(release=True, status=Status.FAILED, error=str(exc))
            return "failed"
        outcome = "continued"  # the deal cut off is played again from its seed by the next task
    except (ValueError, OSError, SandboxUnavailable) as exc:  # a version cannot be run here
        error = f"{type(exc).__name__}: {exc}"[:2000]
        hold.write(release=True, status=Status.FAILED, error=error)
        return "failed"
    given_back = outcome == "continued" and hold.write(release=True, status=Status.PENDING)
    if given_back and send is not None:
        send(test_id)
    return outcome


def _play(test: VersionTest, hold: _Hold, slice_s: float) -> str:
    """Play deals of ``test`` from its next one for about ``slice_s`` seconds, saving each;
    ``done``, ``cancelled`` (found so when saving) or ``continued`` (the slice is over)."""
    players, sprt, counts = players_of(test), sprt_of(test), counts_of(test)
    started = time.monotonic()
    scores = deal_scores(
        test.variant,
        _maker(test.new),
        _maker(test.old),
        _filler,
        seed=test.seed,
        options=test.options,
        partnership=is_partnership(test.variant),
        start=test.trials,
        on_action=_watch(hold, started),
    )
    while True:
        score = next(scores)
        key = min(counts, key=lambda point: abs(point - score))
        counts[key] += 1
        result = sprt.test(counts)
        finished = result.decision is not None or result.trials * players >= test.max_games
        if not _save(hold, counts, result, finished):
            return "cancelled"
        if finished:
            return "done"
        if time.monotonic() - started >= slice_s or drain.draining():
            return "continued"  # a worker that stops plays no more deals: the rest elsewhere


def version_test_give_back(*, test_id: int, send: Sender | None = send_version_test_task) -> bool:
    """A running test back to pending and sent again, because its worker stops
    (``tournaments.worker.drain``): the deal that was in play was not saved and is played again
    from its seed. False if the test was not running."""
    given = bool(
        VersionTest.objects.filter(pk=test_id, status=Status.RUNNING).update(
            status=Status.PENDING, lease_until=None
        )
    )
    if given and send is not None:
        send(test_id)
    return given


def version_tests_reap(*, send: Sender | None = send_version_test_task) -> list[int]:
    """Running tests whose lease ran out, or whose worker process stopped beating
    (``config.liveness``: killed, past its hard time limit, its machine gone), back to
    pending and sent again; their ids. Each resumes at
    its next deal; the deal that was in play is played again from its seed. Called by the
    reaper (``tournaments.matches_reap``); safe to run concurrently and repeatedly."""
    now = timezone.now()
    running = VersionTest.objects.filter(status=Status.RUNNING, lease_until__gte=now)
    dead = liveness.gone_holds(HOLD_KIND, running.values_list("pk", flat=True))
    if dead:  # its worker process stopped beating: no need to wait for its lease
        running.filter(pk__in=[int(pk) for pk in dead]).update(
            lease_until=now - timedelta(microseconds=1)
        )
    expired = VersionTest.objects.filter(leases.expired(VersionTest, now=now))
    reaped = [
        pk
        for pk in expired.values_list("pk", flat=True)
        if expired.filter(pk=pk).update(status=Status.PENDING, lease_until=None, resumed_at=now)
    ]
    if send is not None:
        for pk in reaped:
            send(pk)
    return reaped


def _key(score: float, steps: int) -> str:
    return f"{round(score * steps)}/{steps}"


def _save(hold: _Hold, counts: dict[float, float], result: SprtResult, done: bool) -> bool:
    """Write the test's state after a deal (and renew its lease); False, writing nothing,
    once the test was cancelled or taken over."""
    steps = len(counts) - 1
    saved = hold.write(
        release=done,
        trials=result.trials,
        counts={_key(score, steps): count for score, count in counts.items() if count},
        llr=result.llr,
        decision=result.decision or "",
        status=Status.DONE if done else Status.RUNNING,
        finished_at=timezone.now() if done else None,
    )
    hold.deals += saved
    return saved
