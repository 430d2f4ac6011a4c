"""Knockouts and duplicate matches on the real database: one winner per match, play-off
games on fresh deals that verify, partners advancing as a team, duplicate in every format."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.factories import builtin_bots, play_all
from tournaments import selectors, services
from tournaments.models import Competition, GameRecord, Match

pytestmark = pytest.mark.django_db


def make(organiser, *, variant, format, games, bots, kind="tournament", **extra) -> Competition:
    competition = services.competition_create(
        created_by=organiser,
        name="Night",
        kind=kind,
        variant=variant,
        format=format,
        games_per_match=games,
        duplicate=True,
        **extra,
    )
    for bot in bots:
        services.entry_create(competition=competition, bot=bot)
    services.competition_start(competition=competition)
    return competition


@pytest.mark.parametrize(
    ("variant", "format", "kind", "games", "extra"),
    [
        ("manni-basic", "round-robin", "tournament", 3, {}),
        ("manni-basic", "swiss", "tournament", 3, {"rounds_planned": 2}),
        ("money-jordan", "single-elimination", "tournament", 2, {}),
        ("money-jordan", "double-elimination", "tournament", 2, {}),
        ("money-jordan", "ladder", "ladder", 2, {}),
    ],
)
def test_every_format_plays_every_deal_once_per_seat_rotation(
    organiser, variant, format, kind, games, extra
):
    bots = builtin_bots(2, "greedy") + builtin_bots(2, "random")
    competition = make(
        organiser, variant=variant, format=format, kind=kind, games=games, bots=bots, **extra
    )
    play_all(competition, limit=6)
    seats = competition.seats_per_table
    played = competition.matches.filter(status=Match.Status.DONE)
    assert played.exists()
    for match in played:
        records = match.game_records.filter(playoff=0)
        seeds = Counter(record.record()["seed"] for record in records)
        assert len(seeds) == games // seats and set(seeds.values()) == {seats}
    rows = selectors.standings_for_competition(competition=competition)
    assert all(row["duplicate"] for row in rows)


def test_play_off_deals_are_fresh_marked_and_verifiable(organiser):
    # Two greedy copies in duplicate always tie: play-offs up to the cap, then the lot.
    competition = make(
        organiser,
        variant="money-jordan",
        format="single-elimination",
        games=2,
        bots=builtin_bots(2, "greedy"),
        playoff_games_cap=4,
    )
    play_all(competition)
    (match,) = competition.matches.all()
    assert match.decided_by["rule"] in ("play-off", "lot")
    records = list(match.game_records.order_by("index"))
    assert [r.index for r in records] == list(range(len(records)))
    main = {r.record()["seed"] for r in records if r.playoff == 0}
    extra = [r for r in records if r.playoff]
    if match.decided_by["rule"] == "lot":
        assert len(extra) == 4 and {r.playoff for r in extra} == {1, 2}
    assert extra and not main & {r.record()["seed"] for r in extra}
    assert [s.rank for s in match.seats.order_by("seat")].count(1) == 1
    competition.refresh_from_db()
    assert competition.status == Competition.Status.FINISHED
    report = selectors.deals_verification(competition=competition)
    assert report["problems"] == [] and report["games"] == len(records)


def test_a_zero_cap_goes_straight_to_the_lot(organiser):
    competition = make(
        organiser,
        variant="money-jordan",
        format="single-elimination",
        games=2,
        bots=builtin_bots(2, "greedy"),
        playoff_games_cap=0,
    )
    play_all(competition)
    (match,) = competition.matches.all()
    assert match.decided_by["rule"] in ("lot", "score", "games")
    assert not GameRecord.objects.filter(match=match, playoff__gt=0).exists()


def test_partners_advance_as_one_team_and_share_the_title(organiser):
    competition = make(
        organiser,
        variant="maniglia-4-partners",
        format="single-elimination",
        games=4,
        bots=builtin_bots(4, "random"),
    )
    play_all(competition)
    (match,) = competition.matches.all()
    ranks = [s.rank for s in match.seats.order_by("seat")]
    assert ranks[0] == ranks[2] and ranks[1] == ranks[3] and sorted(set(ranks)) == [1, 2]
    rows = selectors.standings_for_competition(competition=competition)
    assert [row["rank"] for row in rows] == [1, 1, 3, 3]
