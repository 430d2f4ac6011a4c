"""Where an author's challenge or version test waits: its place and an estimated start.

The users' lane takes its queues in order (docs/queues.md): validations, then
challenges, then version tests. A challenge that has not started waits behind every
validation queued and the challenges that asked before it (each takes a turn of its
competition's window); a version test behind all of those and the tests that asked
before it (each plays a slice, ``tournaments.worker.version_test_slices.SLICE_S``, then goes to the
back). The estimate divides that work by the work of the users' lane running now (at
least one slot), with a validation's length from the last ones
(``bots.waiting.validation_length_s``) and a challenge match's from the last ones.
"""

from __future__ import annotations

import statistics

from bots import waiting as bot_waiting
from bots.waiting import Place, place
from tournaments.models import Challenge, Competition, Match, VersionTest

#: A challenge match's length when none has been played yet (seconds).
DEFAULT_MATCH_S = 5.0
#: A version test's turn at a slot: a slice (``tournaments.worker.version_test_slices.SLICE_S``).
TEST_SLICE_S = 20.0
OPEN = (Match.Status.QUEUED, Match.Status.PENDING)


def _match_length_s() -> float:
    """About how long a challenge's match takes: the median gap between two matches of one
    challenge finishing one after the other, over the last ones played (no start time is
    kept); :data:`DEFAULT_MATCH_S` before any."""
    recent = (
        Match.objects.filter(
            competition__kind=Competition.Kind.CHALLENGE,
            status=Match.Status.DONE,
            finished_at__isnull=False,
        )
        .order_by("-pk")
        .values_list("competition_id", "finished_at")[: 5 * bot_waiting.RECENT]
    )
    by_challenge: dict[int, list] = {}
    for competition, finished in recent:
        by_challenge.setdefault(competition, []).append(finished)
    gaps = [
        (later - earlier).total_seconds()
        for times in by_challenge.values()
        for earlier, later in zip(sorted(times), sorted(times)[1:], strict=False)
    ]
    gaps = [g for g in gaps if g > 0]
    return statistics.median(gaps) if gaps else DEFAULT_MATCH_S


def _waiting_challenges() -> list[int]:
    """The running challenges none of whose matches has started, the oldest first."""
    started = Match.objects.exclude(status__in=OPEN).values("competition_id")
    return list(
        Challenge.objects.filter(status=Challenge.Status.RUNNING)
        .exclude(competition_id__in=started)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def _running_users_work() -> int:
    """Pieces of the users' lane's work running now: validations, challenge matches,
    version tests (its busy slots)."""
    matches = Match.objects.filter(
        competition__kind=Competition.Kind.CHALLENGE, status=Match.Status.RUNNING
    ).count()
    tests = VersionTest.objects.filter(status=VersionTest.Status.RUNNING).count()
    return bot_waiting.running_validations() + matches + tests


def challenge_place(challenge: Challenge) -> Place | None:
    """Where ``challenge`` waits for its first match; None once one started (or over).
    ``resumed``: a match of it was taken by a worker that stopped (killed, restarted) and
    waits again (a claim that ended without a result leaves its attempt counted; a worker
    that drains gives its match back uncounted)."""
    if challenge.status != Challenge.Status.RUNNING:
        return None
    waiting = _waiting_challenges()
    if challenge.pk not in waiting:
        return None
    validations = len(bot_waiting.waiting_validations())
    before = waiting.index(challenge.pk)
    unit = _match_length_s()
    work_s = validations * bot_waiting.validation_length_s() + before * unit
    resumed = Match.objects.filter(
        competition_id=challenge.competition_id, status__in=OPEN, attempts__gt=0
    ).exists()
    return _place(validations + before, work_s, resumed=resumed)


def version_test_place(test: VersionTest) -> Place | None:
    """Where ``test`` waits for its first slice, or for the next one after a worker that
    stopped in the middle of a slice (``resumed``: ``resumed_at`` set by the reaper); None
    once it started (or is over)."""
    if test.status != VersionTest.Status.PENDING or (test.trials and not test.resumed_at):
        return None
    validations = len(bot_waiting.waiting_validations())
    challenges = len(_waiting_challenges())
    tests = VersionTest.objects.filter(
        status__in=[VersionTest.Status.PENDING, VersionTest.Status.RUNNING], pk__lt=test.pk
    ).count()
    work_s = (
        validations * bot_waiting.validation_length_s()
        + challenges * _match_length_s()
        + tests * TEST_SLICE_S
    )
    return _place(validations + challenges + tests, work_s, resumed=test.resumed_at is not None)


def _place(ahead: int, work_s: float, *, resumed: bool) -> Place:
    """A place behind ``ahead`` pieces of work that take ``work_s`` seconds in all."""
    unit = work_s / ahead if ahead else 0.0
    found = place(ahead, unit_s=unit, running=_running_users_work())
    return {**found, "resumed": resumed}


def _units_waiting(queues: list[str]) -> tuple[list[int], list[int], list[int]]:
    """The validations, version tests and matches whose messages wait first in
    ``queues`` (a look at the broker, ``config.task_sending.peek``), as ids."""
    from config.task_sending import peek

    versions, tests, matches = [], [], []
    for task, args in peek(queues):
        if not args:
            continue
        if task == bot_waiting.VALIDATE_TASK:
            versions.append(args[0])
        elif task == "tournaments.version_test_run":
            tests.append(args[0])
        elif task == "tournaments.match_run":
            matches.append(args[0])
        elif task == "tournaments.matches_run" and isinstance(args[0], list):
            matches.extend(args[0])
    return versions, tests, matches


def owners_waiting(queues: list[str]) -> set[int | None]:
    """The owners of the work whose messages wait first in ``queues`` (a look at the
    broker, ``config.task_sending.peek``): a validation's, a version test's, the owners of
    the bots at a match's table (None for a table of house bots alone)."""
    versions, tests, matches = _units_waiting(queues)
    owners, _ = _owners_of(versions, tests, matches)
    return owners


def _owners_of(
    versions: list[int], tests: list[int], matches: list[int]
) -> tuple[set[int | None], dict[int, int]]:
    """The owners of those units (None: a table of house bots alone), and each match's
    competition."""
    from bots.models import BotVersion
    from tournaments.models import MatchSeat

    owners: set[int | None] = set()
    if versions:
        owners |= set(
            BotVersion.objects.filter(pk__in=versions).values_list("bot__owner_id", flat=True)
        )
    if tests:
        owners |= set(
            VersionTest.objects.filter(pk__in=tests).values_list("bot__owner_id", flat=True)
        )
    competitions: dict[int, int] = {}
    if matches:
        seated = MatchSeat.objects.filter(match_id__in=matches).values_list(
            "match_id", "match__competition_id", "entry__bot__owner_id"
        )
        by_match: dict[int, set[int | None]] = {}
        for match_id, competition_id, owner in seated:
            by_match.setdefault(match_id, set()).add(owner)
            competitions[match_id] = competition_id
        for owned in by_match.values():  # a table of house bots alone is nobody's: None
            owners |= (owned - {None}) or {None}
    return owners, competitions


def tenants_waiting(queues: list[str]) -> set[str]:
    """The tenants (``config.fairshare``) of the work whose messages wait first in
    ``queues``: each match's competition, and every owner (accounts linked as one:
    ``tournaments.worker.tenants``; ``"owner:"`` for a table of house bots alone, nobody's)."""
    from config import fairshare
    from tournaments.worker import tenants

    versions, tests, matches = _units_waiting(queues)
    owners, competitions = _owners_of(versions, tests, matches)
    found = {fairshare.competition(c) or "" for c in set(competitions.values())}
    ids = [o for o in owners if o is not None]
    found |= {t or "" for t in tenants.owner_tenants(ids)}
    if None in owners:
        found.add(HOUSE)
    return found - {""}


#: The owner tenant of a table of house bots alone: nobody's, so never heavy.
HOUSE = "owner:"
