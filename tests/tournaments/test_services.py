"""Competition services on the real database: create, enter, start, record, advance."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError

from bots.models import Bot
from tournaments import selectors, services
from tournaments.models import Competition, Match, RatingEvent
from tournaments.ratings import Rating, rate_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def organiser():
    return get_user_model().objects.create_user("org", password="pw-123456")


def builtin_bots(n: int, kind: str = "random") -> list[Bot]:
    return [Bot.objects.create(name=f"{kind}-{i}", builtin=kind) for i in range(n)]


def competition(
    organiser,
    *,
    variant="manni-basic",
    format="round-robin",
    kind="tournament",
    entries=4,
    games=3,
    **extra,
) -> Competition:
    comp = services.competition_create(
        created_by=organiser,
        name="Club night",
        kind=kind,
        variant=variant,
        format=format,
        games_per_match=games,
        **extra,
    )
    for bot in builtin_bots(entries):
        services.entry_create(competition=comp, bot=bot)
    return comp


def play_all(comp: Competition, limit: int = 100) -> int:
    """Play and record pending matches until none is left; returns how many were played."""
    played = 0
    while played < limit:
        match = comp.matches.filter(status=Match.Status.PENDING).order_by("id").first()
        if match is None:
            return played
        assert services.match_record_result(match=match, result=services.match_play(match=match))
        played += 1
    return played


def test_settings_are_checked_against_the_variant(organiser):
    with pytest.raises(ValidationError, match="unknown variant"):
        services.competition_create(
            created_by=organiser,
            name="x",
            kind="tournament",
            variant="poker",
            format="swiss",
            rounds_planned=3,
        )
    with pytest.raises(ValidationError, match="manni.tie"):
        services.competition_create(
            created_by=organiser,
            name="x",
            kind="tournament",
            variant="manni-basic",
            options={"manni.tie": "coin"},
            format="round-robin",
        )
    with pytest.raises(ValidationError, match="multiple of 3"):
        services.competition_create(
            created_by=organiser,
            name="x",
            kind="tournament",
            variant="manni-basic",
            format="round-robin",
            games_per_match=4,
        )
    with pytest.raises(ValidationError, match="ladder uses one of"):
        services.competition_create(
            created_by=organiser, name="x", kind="ladder", variant="manni-basic", format="swiss"
        )


def test_round_robin_runs_to_its_end_with_standings_and_ratings(organiser):
    comp = competition(organiser, entries=4)
    first = services.competition_start(competition=comp, by=organiser)
    assert first and all(m.seats.count() == 3 for m in first)
    played = play_all(comp)
    comp.refresh_from_db()
    assert comp.status == Competition.Status.FINISHED and played == comp.matches.count()
    rows = selectors.standings_for_competition(competition=comp)
    assert len(rows) == 4 and rows[0]["rank"] == 1
    assert sum(r["games"] for r in rows) == played * 3 * 3
    pairs = selectors.head_to_head_for_competition(competition=comp)
    assert pairs and all(p["ahead"] + p["behind"] + p["level"] == p["matches"] for p in pairs)


def test_recording_a_result_twice_changes_nothing(organiser):
    comp = competition(organiser, entries=3)
    match = services.competition_start(competition=comp)[0]
    result = services.match_play(match=match)
    assert services.match_record_result(match=match, result=result) is True
    snapshot = list(comp.entries.order_by("id").values_list("mu", "sigma", "games", "points"))
    events = RatingEvent.objects.count()
    assert services.match_record_result(match=match, result=result) is False
    assert (
        list(comp.entries.order_by("id").values_list("mu", "sigma", "games", "points")) == snapshot
    )
    assert RatingEvent.objects.count() == events
    assert match.game_records.count() == 3


def test_stored_ratings_equal_a_recompute_from_history(organiser):
    comp = competition(organiser, entries=4)
    services.competition_start(competition=comp)
    play_all(comp)
    ratings: dict[int, Rating] = {}
    for match in comp.matches.filter(status=Match.Status.DONE).order_by("id"):
        seats = list(match.seats.order_by("seat"))
        ratings.update(rate_game(ratings, [s.entry_id for s in seats], [s.rank for s in seats]))
    for entry in comp.entries.all():
        assert (entry.mu, entry.sigma) == (ratings[entry.pk].mu, ratings[entry.pk].sigma)


def test_swiss_pairs_rounds_until_the_planned_number(organiser):
    comp = competition(
        organiser, variant="money-jordan", format="swiss", entries=6, games=2, rounds_planned=3
    )
    services.competition_start(competition=comp)
    play_all(comp)
    comp.refresh_from_db()
    assert comp.status == Competition.Status.FINISHED
    assert comp.rounds.count() == 3 and comp.matches.count() == 9


def test_single_elimination_crowns_one_champion(organiser):
    comp = competition(
        organiser, variant="money-jordan", format="single-elimination", entries=4, games=2
    )
    services.competition_start(competition=comp)
    play_all(comp)
    comp.refresh_from_db()
    assert comp.status == Competition.Status.FINISHED and comp.matches.count() == 3
    assert {m.node for m in comp.matches.all()} == {"R1-0", "R1-1", "R2-0"}


def test_ladder_keeps_scheduling_until_closed(organiser):
    comp = competition(organiser, kind="ladder", format="ladder", entries=5)
    services.competition_start(competition=comp)
    assert play_all(comp, limit=6) == 6
    assert comp.matches.filter(status=Match.Status.PENDING).exists()
    services.competition_close(competition=comp, by=organiser)
    comp.refresh_from_db()
    assert comp.status == Competition.Status.FINISHED
    assert not comp.matches.filter(status=Match.Status.PENDING).exists()


def test_only_organisers_run_a_competition(organiser):
    comp = competition(organiser, entries=3)
    stranger = get_user_model().objects.create_user("x", password="pw-123456")
    with pytest.raises(PermissionDenied):
        services.competition_start(competition=comp, by=stranger)
    with pytest.raises(ValidationError, match="needs at least 3"):
        services.competition_start(competition=competition(organiser, entries=2), by=organiser)


def test_entries_close_at_the_start(organiser):
    comp = competition(organiser, entries=3)
    services.competition_start(competition=comp)
    with pytest.raises(ValidationError, match="entries close"):
        services.entry_create(competition=comp, bot=builtin_bots(1, "greedy")[0])
