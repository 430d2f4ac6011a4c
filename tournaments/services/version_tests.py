"""Version tests: is a bot's new version better than its old one? An SPRT on a worker.

:func:`version_test_create` checks a request and stores a pending
:class:`~tournaments.models.VersionTest`; after commit one
``tournaments.version_test_run`` task is sent (:func:`send_version_test_task`), which
plays it on a worker (``tournaments.worker.version_test_slices``).
:func:`version_test_cancel` stops it for good. What a test stands at is read by
``tournaments.selectors.version_tests``.
"""

from __future__ import annotations

import inspect
import secrets
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

import games
from bots import selectors as bot_selectors
from bots.models import Bot, BotVersion
from config.task_sending import send_task
from tournaments.models import VersionTest
from tournaments.ratings.confidence import Sprt
from tournaments.selectors import allowance_use as allowances
from tournaments.services.queue import queue_deadline

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
