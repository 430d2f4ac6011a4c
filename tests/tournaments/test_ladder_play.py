"""A ladder of built-in bots on the real database: it mixes, and the strong rise."""

from __future__ import annotations

import itertools

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bots.models import Bot, BotVersion
from tests.factories import passed
from tournaments import pairing, selectors, services
from tournaments.models import Competition, Match, Round
from tournaments.worker import execution

pytestmark = pytest.mark.django_db


def ladder(organiser, *, greedy: int, random: int, seed: int = 7) -> Competition:
    comp = services.competition_create(
        created_by=organiser,
        name="Ladder night",
        kind="ladder",
        variant="manni-basic",
        format="ladder",
        games_per_match=3,
        seed=seed,
    )
    for kind, count in (("greedy", greedy), ("random", random)):
        for i in range(count):
            bot = Bot.objects.create(name=f"{kind}-{i}", builtin=kind)
            services.entry_create(competition=comp, bot=bot)
    return comp


def play(comp: Competition, matches: int) -> None:
    """Play and record ``matches`` matches in order (a ladder never runs out of them)."""
    for _ in range(matches):
        match = (
            comp.matches.filter(status__in=[Match.Status.PENDING, Match.Status.QUEUED])
            .order_by("id")
            .first()
        )
        assert services.match_record(match=match, played=services.match_play(match=match))


def test_a_ladder_of_builtins_puts_the_greedy_copies_on_top_and_mixes(organiser):
    comp = ladder(organiser, greedy=3, random=3)
    services.competition_start(competition=comp)

    play(comp, 30)

    rows = selectors.standings_for_competition(competition=comp)
    assert {r["name"].split("-")[0] for r in rows[:3]} == {"greedy"}
    assert [r["rating"] for r in rows] == sorted((r["rating"] for r in rows), reverse=True)
    kinds = dict(comp.entries.values_list("pk", "bot__builtin"))
    meetings = {
        frozenset((kinds[a], kinds[b]))
        for match in comp.matches.prefetch_related("seats")
        for a, b in itertools.combinations([s.entry_id for s in match.seats.all()], 2)
    }
    assert frozenset(("greedy", "random")) in meetings
    assert frozenset(("greedy",)) in meetings  # greedy copies also meet each other


def test_the_ladder_batch_reads_a_bounded_number_of_queries(organiser):
    comp = ladder(organiser, greedy=2, random=4)
    services.competition_start(competition=comp)
    play(comp, 6)
    comp.matches.exclude(status=Match.Status.DONE).delete()  # everyone free again

    with CaptureQueriesContext(connection) as queries:
        plan = pairing.next_round(comp, 99)

    assert plan is not None and plan.tables
    assert len(queries) <= 5  # the fifth: the pairs the organisers keep apart (fair play)


def uploaded(owner, name: str, *statuses: str) -> Bot:
    """An uploaded bot with one version per status given (numbered from 1)."""
    bot = Bot.objects.create(name=name, owner=owner)
    for number, status in enumerate(statuses, 1):
        version = BotVersion.objects.create(
            bot=bot, number=number, sha256=f"{number:064x}", runtime="python", status=status
        )
        if status == BotVersion.Status.READY:
            passed(version)
    return bot


def seated(matches) -> set[int]:
    return {s.entry_id for m in matches for s in m.seats.all()}


def test_a_failed_match_holds_its_entries_out_of_no_batch_and_its_batch_closes(organiser):
    comp = ladder(organiser, greedy=0, random=6)
    services.competition_start(competition=comp)
    failed, played = comp.matches.order_by("id")
    assert execution.match_claim(match_id=failed.pk, claimed_by="w")
    assert execution.match_fail(match_id=failed.pk, claimed_by="w", error="a bot crashed")

    assert services.match_record(match=played, played=services.match_play(match=played))

    first = comp.rounds.get(number=1)
    assert first.status == Round.Status.FINISHED  # the failed match does not hold it open
    batch = list(comp.matches.filter(round__number=2).prefetch_related("seats"))
    assert seated(batch) == set(comp.entries.values_list("pk", flat=True))
    assert seated([failed]) <= seated(batch)  # its three entries play on


def test_a_ladder_leaves_out_an_entry_until_its_bot_has_a_ready_version(organiser):
    comp = ladder(organiser, greedy=0, random=3)
    waiting = services.entry_create(
        competition=comp, bot=uploaded(organiser, "fresh", BotVersion.Status.VALIDATING)
    )
    services.competition_start(competition=comp)  # a ladder starts: the entry waits
    assert waiting.pk not in seated(comp.matches.prefetch_related("seats"))

    BotVersion.objects.filter(bot=waiting.bot).update(status=BotVersion.Status.READY)
    passed(waiting.bot.versions.all())
    comp.matches.update(status=Match.Status.DONE)  # everyone free again
    plan = pairing.next_round(comp, 2)
    assert waiting.pk in {e for table, _ in plan.tables for e in table}


def test_a_tournament_does_not_start_with_an_entry_that_cannot_play(organiser):
    comp = services.competition_create(
        created_by=organiser, name="Cup", kind="tournament", variant="money-jordan",
        format="round-robin",
    )  # fmt: skip
    for i in range(3):
        bot = Bot.objects.create(name=f"random-{i}", builtin="random")
        services.entry_create(competition=comp, bot=bot)
    late = uploaded(organiser, "late", BotVersion.Status.REJECTED, BotVersion.Status.PENDING)
    services.entry_create(competition=comp, bot=late)

    with pytest.raises(ValidationError, match="no ready version to play yet: org/late"):
        services.competition_start(competition=comp)
    comp.refresh_from_db()
    assert comp.status == Competition.Status.DRAFT and not comp.matches.exists()

    BotVersion.objects.filter(bot=late, number=2).update(status=BotVersion.Status.READY)
    passed(late.versions.filter(number=2))
    assert services.competition_start(competition=comp)


@pytest.mark.parametrize(
    ("statuses", "refused"),
    [((), True), (("rejected",), True), (("rejected", "pending"), False), (("ready",), False)],
)
def test_an_entry_needs_a_version_that_is_or_may_become_ready(organiser, statuses, refused):
    comp = ladder(organiser, greedy=0, random=0)
    bot = uploaded(organiser, "mine", *statuses)
    if refused:
        with pytest.raises(ValidationError, match="has no version to play"):
            services.entry_create(competition=comp, bot=bot, by=organiser)
        assert not comp.entries.exists()
    else:
        assert services.entry_create(competition=comp, bot=bot, by=organiser)


def test_the_reaper_closes_a_ladder_batch_whose_last_match_failed_but_not_a_tournament_round(
    organiser,
):
    comp = ladder(organiser, greedy=0, random=6)
    cup = services.competition_create(
        created_by=organiser, name="Cup", kind="tournament", variant="money-jordan",
        format="round-robin",
    )  # fmt: skip
    for i in range(4):
        services.entry_create(
            competition=cup, bot=Bot.objects.create(name=f"c{i}", builtin="random")
        )
    for competition in (comp, cup):
        services.competition_start(competition=competition)
        played, failed = competition.matches.order_by("id")[:2]
        competition.matches.exclude(pk__in=[played.pk, failed.pk]).update(status=Match.Status.DONE)
        assert services.match_record(match=played, played=services.match_play(match=played))
        assert execution.match_claim(match_id=failed.pk, claimed_by="w")
        assert execution.match_fail(match_id=failed.pk, claimed_by="w", error="a bot crashed")

    rounds = selectors.rounds_complete_but_running()

    assert [r.competition_id for r in rounds] == [comp.pk]  # the round robin waits for it
    execution.matches_reap(send=lambda ids: None)
    assert comp.rounds.get(number=1).status == Round.Status.FINISHED
    assert comp.rounds.filter(number=2).exists()
    assert cup.rounds.get(number=1).status == Round.Status.RUNNING
