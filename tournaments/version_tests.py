"""Version tests: is a bot's new version better than its old one? An SPRT on a worker.

:func:`version_test_create` checks a request and stores a pending
:class:`~tournaments.models.VersionTest`; after commit one
``tournaments.version_test_run`` task is sent. :func:`version_test_play` (the
task's body) claims the test with a guarded status change and plays duplicate
deals between the two versions (``tournaments.sprt``: uploaded versions
sandboxed, built-in ones in-process), writing the counts, the LLR and any
decision after every deal. It plays for about :data:`SLICE_S` seconds, then
gives the test back as pending and sends the task again, so no task runs long
and a test whose worker died is taken over once its lease expires; it resumes
at the next deal and plays the same deals it would have played anyway.
"""

from __future__ import annotations

import inspect
import secrets
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

import games
from bots import selectors as bot_selectors
from bots.models import Bot, BotVersion
from bots.referee.players import Player
from bots.referee.seating import seat_player
from bots.sandbox.errors import SandboxUnavailable
from bots.services import bot_version_path
from config.task_sending import send_task
from tournaments import allowances, drain, leases
from tournaments.models import VersionTest
from tournaments.ratings.confidence import Sprt, SprtResult
from tournaments.services import is_partnership
from tournaments.sprt import PlayerFactory, deal_scores

#: A task plays deals for about this many seconds, then sends itself again.
SLICE_S = 60.0
#: A running test whose lease ran out (its worker is gone) may be claimed again.
LEASE_S = 10 * SLICE_S
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
#: The Celery task that plays a slice of a version test (``tournaments.tasks``).
VERSION_TEST_TASK = "tournaments.version_test_run"


def send_version_test_task(test_id: int) -> None:
    """One ``tournaments.version_test_run`` task for ``test_id`` on the version tests' queue,
    taken after every other kind of work (``CARDROOM_QUEUES``; found by name in the app's
    registry, ``config.task_sending``: the tasks module calls this one, never the reverse)."""
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


def version_test_create(
    *,
    bot: Bot,
    new: int,
    old: int,
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
    """A pending test of version ``new`` of ``bot`` against its version ``old``.

    Only the bot's owner (or staff) may ask. Raises ``PermissionDenied`` for anyone
    else and ``ValidationError`` naming the field for an unknown or unready version,
    the same version twice, an unknown variant or option, a variant either version has
    not passed its validation in, SPRT parameters outside
    :data:`LIMITS`, or ``max_games`` below one deal or above :data:`MAX_GAMES`, and
    ``AllowanceExceeded`` beyond the owner's open version tests or version-test games
    of the day (``tournaments.allowances``). The task is sent after commit (never with
    ``send=None``).
    """
    staff = by is not None and by.is_authenticated and by.is_staff
    if not staff and (by is None or bot.owner_id != by.pk):
        raise PermissionDenied("only the bot's owner may test its versions")
    if new == old:
        raise ValidationError({"old": f"new and old are the same version ({new})"})
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


def _claim(test_id: int) -> bool:
    """Take test ``test_id`` with a lease (``tournaments.leases``): pending, or running
    with an expired lease (its worker is gone)."""
    tests = VersionTest.objects.filter(pk=test_id)
    return bool(leases.claim(tests, waiting=[Status.PENDING], lease_s=LEASE_S))


def version_test_play(
    *, test_id: int, slice_s: float = SLICE_S, send: Sender | None = send_version_test_task
) -> str:
    """Claim test ``test_id`` and play deals for about ``slice_s`` seconds.

    Returns ``skipped`` (done, failed, or held by a live lease: a second delivery),
    ``done`` (decided, or ``max_games`` reached undecided), ``continued`` (given back
    as pending and sent again, unless ``send`` is None) or ``failed`` (the versions
    cannot be played; ``error`` says why).
    """
    if not _claim(test_id):
        return "skipped"
    test = VersionTest.objects.select_related("new", "old").get(pk=test_id)
    if test.status != Status.RUNNING:  # cancelled between the claim and here
        return "skipped"
    players, sprt, counts = players_of(test), sprt_of(test), counts_of(test)
    started = time.monotonic()
    try:
        scores = deal_scores(
            test.variant,
            _maker(test.new),
            _maker(test.old),
            _filler,
            seed=test.seed,
            options=test.options,
            partnership=is_partnership(test.variant),
            start=test.trials,
        )
        while True:
            score = next(scores)
            key = min(counts, key=lambda point: abs(point - score))
            counts[key] += 1
            result = sprt.test(counts)
            finished = result.decision is not None or result.trials * players >= test.max_games
            if not _save(test, counts, result, finished):
                return "cancelled"
            if finished:
                return "done"
            if time.monotonic() - started >= slice_s or drain.draining():
                break  # a worker that stops plays no more deals: the rest goes on elsewhere
    except (ValueError, OSError, SandboxUnavailable) as exc:  # a version cannot be run here
        VersionTest.objects.filter(pk=test_id, status=Status.RUNNING).update(
            status=Status.FAILED, error=f"{type(exc).__name__}: {exc}"[:2000], lease_until=None
        )
        return "failed"
    VersionTest.objects.filter(pk=test_id, status=Status.RUNNING).update(
        status=Status.PENDING, lease_until=None
    )
    if send is not None:
        send(test_id)
    return "continued"


def version_test_give_back(*, test_id: int, send: Sender | None = send_version_test_task) -> bool:
    """A running test back to pending and sent again, because its worker stops
    (``tournaments.drain``): the deal that was in play was not saved and is played again
    from its seed. False if the test was not running."""
    given = bool(
        VersionTest.objects.filter(pk=test_id, status=Status.RUNNING).update(
            status=Status.PENDING, lease_until=None
        )
    )
    if given and send is not None:
        send(test_id)
    return given


def _key(score: float, steps: int) -> str:
    return f"{round(score * steps)}/{steps}"


def _save(test: VersionTest, counts: dict[float, float], result: SprtResult, done: bool) -> bool:
    """Write the test's state after a deal (and renew its lease); False, writing nothing,
    once the test was cancelled."""
    now = timezone.now()
    steps = len(counts) - 1
    return (
        VersionTest.objects.filter(pk=test.pk, status=Status.RUNNING).update(
            trials=result.trials,
            counts={_key(score, steps): count for score, count in counts.items() if count},
            llr=result.llr,
            decision=result.decision or "",
            status=Status.DONE if done else Status.RUNNING,
            finished_at=now if done else None,
            lease_until=None if done else leases.lease_until(lease_s=LEASE_S, now=now),
        )
        == 1
    )


def version_test_cancel(*, test: VersionTest, by) -> VersionTest:
    """Stop ``test`` for good: no more of its deals are played (a slice being played stops
    after its current deal). What it played so far stays.

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
