"""A ladder of built-in bots on the real database: it mixes, and the strong rise."""

from __future__ import annotations

import itertools

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bots.models import Bot
from tournaments import pairing, selectors, services
from tournaments.models import Competition, Match

pytestmark = pytest.mark.django_db


@pytest.fixture
def organiser():
    return get_user_model().objects.create_user("org", password="pw-123456")


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
        match = comp.matches.filter(status=Match.Status.PENDING).order_by("id").first()
        assert services.match_record_result(match=match, result=services.match_play(match=match))


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
    assert len(queries) <= 4
