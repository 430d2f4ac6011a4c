"""Version tests: is a bot's new version better than its old one? An SPRT on a worker.

:func:`version_test_create` checks a request and stores a pending
:class:`~tournaments.models.VersionTest`; after commit one
``tournaments.version_test_run`` task is sent. :func:`version_test_play` (the
task's body) claims the test with a guarded status change and plays duplicate
deals between the two versions (``tournaments.worker.sprt_deals``: uploaded versions
sandboxed, built-in ones in-process), writing the counts, the LLR and any
decision after every deal. It plays for about :data:`SLICE_S` seconds, then
gives the test back as pending and sends the task again, so no task runs long
and a test whose worker died is taken over once its lease expires (the reaper sends
it again: :func:`version_tests_reap`); it resumes at the next deal and plays the same
deals it would have played anyway. Between two decisions the worker looks whether the
test is still its own (``config.leases.watch``): a cancelled test stops there.
"""

from __future__ import annotations

import dataclasses
import inspect
import secrets
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

import games
from bots import selectors as bot_selectors
from bots.models import Bot, BotVersion
from bots.referee.players import Player
from bots.referee.seating import seat_player
from bots.sandbox.errors import SandboxUnavailable
from bots.services import bot_version_path
from config import leases, liveness
from config.task_sending import send_task
from tournaments.models import VersionTest
from tournaments.ratings.confidence import Sprt, SprtResult
from tournaments.selectors import allowance_use as allowances
from tournaments.services import is_partnership
from tournaments.services.queue import queue_deadline
from tournaments.worker import drain
from tournaments.worker.sprt_deals import PlayerFactory, deal_scores

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
#: The most games one test may ask for (a test that has not decided by then stops).
MAX_GAMES = 20_000
#: The error rates a test may ask for: below the floor a test can all but never decide
#: (alpha = beta = 1e-300 puts its bounds at +-690), above the ceiling it decides by chance.
ERROR_RATE_MIN, ERROR_RATE_MAX = 0.001, 0.5
#: The Elo bounds a test may ask for: each within +-ELO_LIMIT, elo1 at least ELO_GAP_MIN
#: above elo0 (a narrower gap needs more deals than any test may play).
ELO_LIMIT, ELO_GAP_MIN = 1000.0, 1.0
#: The parameter limits in words, for the docs and the answers that refuse a request.
LIMITS = (
    f"alpha and beta from {ERROR_RATE_MIN} to {ERROR_RATE_MAX}; elo0 and elo1 from "
    f"-{ELO_LIMIT:g} to {ELO_LIMIT:g} with elo1 at least {ELO_GAP_MIN:g} above elo0; "
    f"max_games from one deal to {MAX_GAMES}"
)
#: The bot at the seats beyond the two versions (variants for three or more).
FILLER = "random"

Status = VersionTest.Status
Sender = Callable[[int], None]
#: The Celery task that plays a slice of a version test (``tournaments.worker.tasks``).
VERSION_TEST_TASK = "tournaments.version_test_run"


def send_version_test_task(test_id: int) -> None:
    """One ``tournaments.version_test_run`` task for ``test_id`` on the version tests' queue,
    taken after every other kind of work (``CARDROOM_QUEUES``; found by name in the app's
    registry, ``config.task_sending``: the tasks module calls this one, never the reverse).
    A pending test's ``lease_until`` becomes its requeue deadline, as a queued match's
    (``tournaments.worker.version_test_requeue``: the reaper sends again a lost message)."""
    VersionTest.objects.filter(pk=test_id, status=Status.PENDING).update(
        lease_until=queue_deadline()
    )
    send_task(
        VERSION_TEST_TASK,
        [test_id],
        queue=settings.CARDROOM_VERSION_TEST_QUEUE,
        unsent=f"version test {test_id} stays pending",
    )


def _version(bot: Bot, number: int, field: str) -> BotVersion:
    version = bot.versions.filter(number=number).first()
    if version is None:
        raise ValidationError({field: f"{bot} has no version {number}"})
    if version.status != BotVersion.Status.READY:
        raise ValidationError({field: f"{version} is {version.status}, not ready to play"})
    return version


def _checked_sprt(elo0: float, elo1: float, alpha: float, beta: float) -> Sprt:
    """The test's SPRT; ``ValidationError`` naming the field outside :data:`LIMITS`."""
    for field, rate in (("alpha", alpha), ("beta", beta)):
        if not ERROR_RATE_MIN <= rate <= ERROR_RATE_MAX:
            raise ValidationError(
                {field: f"{field} must be from {ERROR_RATE_MIN} to {ERROR_RATE_MAX}, not {rate}"}
            )
    for field, elo in (("elo0", elo0), ("elo1", elo1)):
        if not -ELO_LIMIT <= elo <= ELO_LIMIT:
            raise ValidationError(
                {field: f"{field} must be from -{ELO_LIMIT:g} to {ELO_LIMIT:g}, not {elo}"}
            )
    if not elo1 - elo0 >= ELO_GAP_MIN:
        raise ValidationError(
            {
                "elo1": f"need elo0 < elo1 with elo1 at least {ELO_GAP_MIN:g} above elo0, "
                f"got {elo0}, {elo1}"
            }
        )
    try:
        return Sprt(elo0, elo1, alpha, beta)
    except ValueError as exc:
        field = "elo1" if "elo" in str(exc) else "alpha"
        raise ValidationError({field: str(exc)}) from None


def _pair(bot: Bot, new: int | None, old: int | None) -> tuple[int, int]:
    """The versions to test: ``new`` (None: the newest ready version) against ``old``
    (None: the newest ready version before ``new``); ``ValidationError`` naming the field
    for a version against itself, or no version to take by default."""
    ready = bot.versions.filter(status=BotVersion.Status.READY).order_by("-number")
    ready = list(ready.values_list("number", flat=True))
    if new is None:
        if not ready:
            raise ValidationError({"new": f"{bot} has no ready version to test"})
        new = ready[0]
    elif old is None:
        _version(bot, new, "new")  # a version that is not there or not ready says so
    if old is None:
        old = next((n for n in ready if n < new), None)
        if old is None:
            why = "to test it against: a version test needs two ready versions"
            raise ValidationError({"old": f"{bot} has no ready version older than v{new} {why}"})
    if new == old:
        listed = ", ".join(f"v{n}" for n in ready) or "none"
        raise ValidationError(
            {
                "old": f"v{new} cannot be tested against itself: choose another version as "
                f"old, usually the one before it (ready: {listed})"
            }
        )
    return new, old


def version_test_create(
    *,
    bot: Bot,
    new: int | None = None,
    old: int | None = None,
    variant: str,
    options: dict[str, Any] | None = None,
    elo0: float = 0.0,
    elo1: float = 5.0,
    alpha: float = 0.05,
    beta: float = 0.05,
    max_games: int = 20_000,
    by=None,
    send: Sender | None = send_version_test_task,
) -> VersionTest:
    """A pending test of version ``new`` of ``bot`` (None: its newest ready version)
    against its version ``old`` (None: the newest ready version before ``new``).

    Only the bot's owner (or staff) may ask. Raises ``PermissionDenied`` for anyone
    else and ``ValidationError`` naming the field for an unknown or unready version,
    the same version twice, an unknown variant or option, a variant either version has
    not passed its validation in, SPRT parameters outside
    :data:`LIMITS`, or ``max_games`` below one deal or above :data:`MAX_GAMES`, and
    ``AllowanceExceeded`` beyond the owner's open version tests or version-test games
    of the day (``tournaments.selectors.allowance_use``). The task is sent after commit (never with
    ``send=None``).
    """
    staff = by is not None and by.is_authenticated and by.is_staff
    if not staff and (by is None or bot.owner_id != by.pk):
        raise PermissionDenied("only the bot's owner may test its versions")
    new, old = _pair(bot, new, old)
    new_version, old_version = _version(bot, new, "new"), _version(bot, old, "old")
    try:
        players = games.load(variant, **(options or {})).num_players
    except ValueError as exc:
        raise ValidationError({"variant": str(exc)}) from None
    for version in (new_version, old_version):
        if not bot_selectors.version_passed(version=version, variant=variant):
            raise ValidationError(
                {"variant": f"{version} has not passed its validation in {variant}"}
            )
    _checked_sprt(elo0, elo1, alpha, beta)
    if not players <= max_games <= MAX_GAMES:
        raise ValidationError(
            {"max_games": f"max_games must be from {players} (one deal) to {MAX_GAMES}"}
        )
    if bot.owner_id is not None:  # the owner's allowance, whoever asks
        allowances.version_test_allowed(user=bot.owner, games=max_games)
    test = VersionTest.objects.create(
        bot=bot,
        new=new_version,
        old=old_version,
        variant=variant,
        options=options or {},
        elo0=elo0,
        elo1=elo1,
        alpha=alpha,
        beta=beta,
        max_games=max_games,
        seed=secrets.randbelow(2**63),
        created_by=by if by is not None and by.is_authenticated else None,
    )
    if send is not None:
        transaction.on_commit(lambda: send(test.pk))
    return test


def defaults() -> dict[str, Any]:
    """The parameters a request may leave out, with the values :func:`version_test_create`
    takes then (the site's form starts from them)."""
    names = ("elo0", "elo1", "alpha", "beta", "max_games")
    parameters = inspect.signature(version_test_create).parameters
    return {name: parameters[name].default for name in names}


def players_of(test: VersionTest) -> int:
    return games.load(test.variant, **test.options).num_players


def sprt_of(test: VersionTest) -> Sprt:
    return Sprt(test.elo0, test.elo1, test.alpha, test.beta)


def counts_of(test: VersionTest) -> dict[float, float]:
    """The stored counts on the full grid of trial scores (``1 / (2 * players)`` steps)."""
    steps = 2 * players_of(test)
    counts = {i / steps: 0.0 for i in range(steps + 1)}
    for score, count in test.counts.items():  # keys are fractions of the grid: "4/6"
        counts[int(score.partition("/")[0]) / steps] += count
    return counts


def result_of(test: VersionTest) -> SprtResult:
    """Where the test stands: LLR, bounds, decision, trials, mean score and its Elo."""
    return sprt_of(test).test(counts_of(test))


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


def version_test_cancel(*, test: VersionTest, by) -> VersionTest:
    """Stop ``test`` for good: no more of its deals are played (a slice in play stops
    between two decisions, within :data:`config.leases.WATCH_S` and one decision; the
    deal cut off is not counted). What it played so far stays, and only that counts against
    the owner's version-test games of the day (``tournaments.selectors.allowance_use``).

    Only the bot's owner and staff may cancel. Raises ``PermissionDenied`` for anyone else
    and ``ValidationError`` for a test that is already over (done, failed or cancelled).
    """
    staff = by is not None and by.is_authenticated and by.is_staff
    if not staff and (by is None or test.bot.owner_id != by.pk):
        raise PermissionDenied("only the bot's owner may cancel its version tests")
    stopped = VersionTest.objects.filter(
        pk=test.pk, status__in=[Status.PENDING, Status.RUNNING]
    ).update(status=Status.CANCELLED, lease_until=None, finished_at=timezone.now())
    test.refresh_from_db()
    if not stopped:
        raise ValidationError(f"version test {test.pk} is already over ({test.status})")
    return test
