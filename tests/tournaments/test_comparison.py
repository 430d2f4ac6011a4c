"""How sure the results are, on the real database: standings columns, head-to-head tests,
"is A better than B?"."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from tests.factories import builtin_bots, make_competition, play_all
from tournaments import selectors, services
from tournaments.models import Competition
from tournaments.ratings.confidence import Z95
from tournaments.selectors import comparison

pytestmark = pytest.mark.django_db


def greedy_against_randoms(organiser, **extra) -> Competition:
    comp = make_competition(organiser, entries=3, **extra)
    services.entry_create(competition=comp, bot=builtin_bots(1, "greedy")[0])
    return comp


def played(organiser, **extra) -> Competition:
    comp = greedy_against_randoms(organiser, seed=1, **extra)
    services.competition_start(competition=comp)
    play_all(comp)
    return comp


def test_standings_carry_intervals_and_the_chance_to_be_above_the_next_row(organiser):
    comp = played(organiser, format="double-round-robin", games=6)
    rows = selectors.standings_for_competition(competition=comp)
    for row in rows:
        assert row["rating_low"] == pytest.approx(row["mu"] - Z95 * row["sigma"])
        assert row["rating_high"] == pytest.approx(row["mu"] + Z95 * row["sigma"])
        assert row["rating"] < row["rating_low"] < row["mu"] < row["rating_high"]
    assert rows[-1]["p_above_next"] is None
    assert all(0 < row["p_above_next"] < 1 for row in rows[:-1])
    assert rows[0]["name"] == "greedy-0"  # greedy beats random bots
    assert rows[0]["p_above_next"] > 0.5


def test_a_cut_table_compares_its_last_row_with_the_entry_below(organiser):
    comp = played(organiser)
    full = selectors.standings_for_competition(competition=comp)
    top = selectors.standings_for_competition(competition=comp, limit=2)
    assert len(top) == 2
    assert top[1]["p_above_next"] == pytest.approx(full[1]["p_above_next"])


def test_head_to_head_counts_games_score_and_deal_trials(organiser):
    comp = played(organiser, games=6)  # 3 seats, duplicate: 2 deals a match
    rows = selectors.head_to_head_for_competition(competition=comp)
    assert rows
    for row in rows:
        assert row["trial"] == "deal"
        assert row["games"] == 6 * row["matches"]  # every game of a shared match
        assert row["score"] + row["opponent_score"] == row["games"]
        assert row["trials"] == 2 * row["matches"]
        assert row["trials_won"] + row["trials_lost"] + row["trials_level"] == row["trials"]
        assert 0 < row["p_value"] <= 1


def test_head_to_head_of_a_plain_competition_tests_over_matches(organiser):
    comp = played(organiser, games=2, duplicate=False)
    for row in selectors.head_to_head_for_competition(competition=comp):
        assert row["trial"] == "match"
        assert row["trials"] == row["matches"]
        assert (row["trials_won"], row["trials_lost"], row["trials_level"]) == (
            row["ahead"],
            row["behind"],
            row["level"],
        )


def test_compare_answers_with_the_model_and_the_head_to_head(organiser):
    comp = played(organiser, format="double-round-robin", games=6)
    greedy = comp.entries.get(bot__builtin="greedy")
    other = comp.entries.exclude(pk=greedy.pk).first()
    answer = comparison.compare_entries(competition=comp, a=greedy.pk, b=other.pk)
    reverse = comparison.compare_entries(competition=comp, a=other.pk, b=greedy.pk)
    assert answer["p_stronger"] == pytest.approx(1 - reverse["p_stronger"])
    h2h = answer["head_to_head"]
    assert h2h["trials"] == reverse["head_to_head"]["trials"] > 0
    assert h2h["trials_won"] == reverse["head_to_head"]["trials_lost"]
    assert h2h["p_value"] == pytest.approx(reverse["head_to_head"]["p_value"])
    assert answer["p_stronger"] > 0.5 and h2h["trials_won"] > h2h["trials_lost"]
    assert "head-to-head" in answer["answer"] and "p = " in answer["answer"]
    assert answer["a"]["name"] == "greedy-0"


def test_compare_refuses_entries_of_another_competition_and_unknown_ids(organiser):
    comp = played(organiser)
    other = greedy_against_randoms(organiser)
    mine, theirs = comp.entries.first(), other.entries.first()
    with pytest.raises(ValidationError, match=f"entry {theirs.pk} is in competition {other.pk}"):
        comparison.compare_entries(competition=comp, a=mine.pk, b=theirs.pk)
    with pytest.raises(ValidationError, match="entry 999999 does not exist"):
        comparison.compare_entries(competition=comp, a=999999, b=mine.pk)
    with pytest.raises(ValidationError, match="same entry"):
        comparison.compare_entries(competition=comp, a=mine.pk, b=mine.pk)
