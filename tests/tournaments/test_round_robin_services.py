"""Round robins at three seats through the database, played by built-in bots."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from django.core.exceptions import ValidationError

from tests.factories import make_competition, play_all
from tournaments import services
from tournaments.models import Competition, Match

pytestmark = pytest.mark.django_db


def _meetings(comp: Competition) -> tuple[Counter, Counter]:
    """Matches per entry and meetings per pair, from the stored seats."""
    games: Counter = Counter()
    pairs: Counter = Counter()
    for match in comp.matches.prefetch_related("seats"):
        seated = [s.entry_id for s in match.seats.all()]
        assert len(seated) == len(set(seated)) == comp.seats_per_table
        games.update(seated)
        pairs.update(frozenset(p) for p in itertools.combinations(seated, 2))
    return games, pairs


def _play(organiser, entries: int) -> Competition:
    comp = make_competition(organiser, entries=entries)
    services.competition_start(competition=comp, by=organiser)
    play_all(comp)
    comp.refresh_from_db()
    assert comp.status == Competition.Status.FINISHED
    assert not comp.matches.exclude(status=Match.Status.DONE).exists()
    return comp


def test_four_entries_at_three_seats_play_all_four_tables(organiser):
    comp = _play(organiser, entries=4)
    games, pairs = _meetings(comp)
    assert comp.matches.count() == 4 and comp.rounds.count() == 4
    assert set(games.values()) == {3} and len(games) == 4
    assert len(pairs) == 6 and set(pairs.values()) == {2}
    assert {frozenset(s.entry_id for s in m.seats.all()) for m in comp.matches.all()} == {
        frozenset(t) for t in itertools.combinations(comp.entries.values_list("id", flat=True), 3)
    }


def test_seven_entries_at_three_seats_meet_every_pair_once(organiser):
    comp = _play(organiser, entries=7)
    games, pairs = _meetings(comp)
    assert comp.matches.count() == 7
    assert set(games.values()) == {3} and len(games) == 7
    assert len(pairs) == 21 and set(pairs.values()) == {1}
    byes = Counter(e for r in comp.rounds.all() for e in r.byes.values_list("id", flat=True))
    assert set(byes.values()) == {4}, "every entry sits out the same number of rounds"


def test_a_round_robin_with_fewer_entries_than_seats_is_refused(organiser):
    comp = make_competition(organiser, entries=2)
    with pytest.raises(ValidationError, match="needs at least 3 entries, got 2"):
        services.competition_start(competition=comp, by=organiser)
    comp.refresh_from_db()
    assert comp.status == Competition.Status.DRAFT and not comp.matches.exists()
