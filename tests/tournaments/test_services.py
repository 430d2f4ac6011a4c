"""Competition services on the real database: create, enter, start, record, advance."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError

from bots.models import Bot
from tests.factories import WAITING, builtin_bots, make_competition, passed, play_all
from tournaments import selectors, services
from tournaments.models import Competition, Match, RatingEvent
from tournaments.ratings import Rating, rate_game

pytestmark = pytest.mark.django_db


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
    comp = make_competition(organiser, entries=4)
    first = services.competition_start(competition=comp, by=organiser)
    assert first and all(m.seats.count() == 3 for m in first)
    played = len(play_all(comp))
    comp.refresh_from_db()
    assert comp.status == Competition.Status.FINISHED and played == comp.matches.count()
    rows = selectors.standings_for_competition(competition=comp)
    assert len(rows) == 4 and rows[0]["rank"] == 1
    assert sum(r["games"] for r in rows) == played * 3 * 3
    pairs = selectors.head_to_head_for_competition(competition=comp)
    assert pairs and all(p["ahead"] + p["behind"] + p["level"] == p["matches"] for p in pairs)


def test_recording_a_result_twice_changes_nothing(organiser):
    comp = make_competition(organiser, entries=3)
    match = services.competition_start(competition=comp)[0]
    result = services.match_play(match=match)
    assert services.match_record(match=match, played=result) is True
    snapshot = list(comp.entries.order_by("id").values_list("mu", "sigma", "games", "points"))
    events = RatingEvent.objects.count()
    assert services.match_record(match=match, played=result) is False
    assert (
        list(comp.entries.order_by("id").values_list("mu", "sigma", "games", "points")) == snapshot
    )
    assert RatingEvent.objects.count() == events
    assert match.game_records.count() == 3


def test_stored_ratings_equal_a_recompute_from_history(organiser):
    comp = make_competition(organiser, entries=4)
    services.competition_start(competition=comp)
    play_all(comp)
    ratings: dict[int, Rating] = {}
    for match in comp.matches.filter(status=Match.Status.DONE).order_by("id"):
        seats = list(match.seats.order_by("seat"))
        ratings.update(rate_game(ratings, [s.entry_id for s in seats], [s.rank for s in seats]))
    for entry in comp.entries.all():
        assert (entry.mu, entry.sigma) == (ratings[entry.pk].mu, ratings[entry.pk].sigma)


def test_swiss_pairs_rounds_until_the_planned_number(organiser):
    comp = make_competition(
        organiser, variant="money-jordan", format="swiss", entries=6, games=2, rounds_planned=3
    )
    services.competition_start(competition=comp)
    play_all(comp)
    comp.refresh_from_db()
    assert comp.status == Competition.Status.FINISHED
    assert comp.rounds.count() == 3 and comp.matches.count() == 9
    rows = selectors.standings_for_competition(competition=comp)
    assert [r["rank"] for r in rows] == sorted(r["rank"] for r in rows)
    assert all("buchholz" in r["tiebreaks"] for r in rows)
    points = [r["points"] for r in rows]
    assert points == sorted(points, reverse=True)


def test_single_elimination_crowns_one_champion(organiser):
    comp = make_competition(
        organiser, variant="money-jordan", format="single-elimination", entries=4, games=2
    )
    services.competition_start(competition=comp)
    play_all(comp)
    comp.refresh_from_db()
    assert comp.status == Competition.Status.FINISHED and comp.matches.count() == 3
    assert {m.node for m in comp.matches.all()} == {"R1-0", "R1-1", "R2-0"}


def test_a_bracket_the_entries_cannot_fill_is_refused_at_the_start(organiser):
    comp = make_competition(
        organiser, variant="maniglia-4", format="single-elimination", entries=12, games=4
    )
    with pytest.raises(ValidationError, match="cannot pair the first round"):
        services.competition_start(competition=comp)
    comp.refresh_from_db()
    assert comp.status == Competition.Status.DRAFT and not comp.matches.exists()


def test_ladder_keeps_scheduling_until_closed(organiser):
    comp = make_competition(organiser, kind="ladder", format="ladder", entries=5)
    services.competition_start(competition=comp, send=None)
    assert len(play_all(comp, limit=6)) == 6
    assert comp.matches.filter(status=Match.Status.PENDING).exists()
    services.competition_close(competition=comp, by=organiser)
    comp.refresh_from_db()
    assert comp.status == Competition.Status.FINISHED
    assert not comp.matches.filter(status=Match.Status.PENDING).exists()


def test_only_organisers_run_a_competition(organiser):
    comp = make_competition(organiser, entries=3)
    stranger = get_user_model().objects.create_user("x", password="pw-123456")
    with pytest.raises(PermissionDenied):
        services.competition_start(competition=comp, by=stranger)
    with pytest.raises(ValidationError, match="needs at least 3"):
        services.competition_start(competition=make_competition(organiser, entries=2), by=organiser)


def test_entries_close_at_the_start(organiser):
    comp = make_competition(organiser, entries=3)
    services.competition_start(competition=comp)
    with pytest.raises(ValidationError, match="entries close"):
        services.entry_create(competition=comp, bot=builtin_bots(1, "greedy")[0])


def test_league_divisions_play_apart_and_the_next_season_promotes(organiser):
    comp = make_competition(
        organiser,
        kind="league-season",
        format="round-robin",
        entries=6,
        variant="money-jordan",
        games=2,
    )
    divisions = services.league_assign_divisions(competition=comp, division_size=3)
    assert [len(d) for d in divisions] == [3, 3]
    services.competition_start(competition=comp)
    play_all(comp)
    comp.refresh_from_db()
    assert comp.status == Competition.Status.FINISHED
    division = dict(comp.entries.values_list("pk", "division"))
    for match in comp.matches.all():
        assert len({division[s.entry_id] for s in match.seats.all()}) == 1
    rows = selectors.standings_for_competition(competition=comp)
    top_of_lower = next(r for r in rows if division[r["entry"]] == 1)
    season = services.league_next_season(competition=comp, promote=1, by=organiser)
    moved = season.entries.get(bot_id=top_of_lower["bot"])
    assert moved.division == 0 and season.status == Competition.Status.DRAFT
    assert sorted(season.entries.values_list("division", flat=True)) == [0, 0, 0, 1, 1, 1]


def test_a_new_bot_version_inherits_the_rating_with_wider_uncertainty(organiser):
    from bots.models import BotVersion

    comp = make_competition(organiser, kind="ladder", format="ladder", entries=3)
    services.competition_start(competition=comp, send=None)
    author = Bot.objects.create(owner=organiser, name="mine")
    v1, v2 = (
        BotVersion.objects.create(
            bot=author, number=n, sha256="0" * 64, runtime="python", status="ready"
        )
        for n in (1, 2)
    )
    passed([v1, v2])
    entry = comp.matches.order_by("id").first().seats.get(seat=0).entry
    played = 0
    while played < 2:
        match = comp.matches.filter(status__in=WAITING).order_by("id").first()
        result = services.match_play(match=match)
        seat = match.seats.filter(entry=entry).values_list("seat", flat=True).first()
        if seat is not None:
            version = v1 if played == 0 else v2
            result.versions = [version.pk if s == seat else None for s in range(3)]
            played += 1
        services.match_record(match=match, played=result)
    events = list(RatingEvent.objects.filter(entry=entry).order_by("sequence"))
    assert len(events) == 2
    assert events[1].sigma_before > events[0].sigma_after  # widened for version 2
    assert events[1].mu_before == events[0].mu_after


def test_standings_can_be_cut_to_the_top_rows(organiser):
    comp = make_competition(organiser, entries=5)
    services.competition_start(competition=comp)
    play_all(comp)
    full = selectors.standings_for_competition(competition=comp)
    assert selectors.standings_for_competition(competition=comp, limit=2) == full[:2]
