"""Partnership variants: fixed teams (an entry is a team) against rotating partners."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from bots.models import Bot, BotVersion
from tournaments import pairing, selectors, services
from tournaments.models import Competition, Entry, Match, RatingEvent
from tournaments.worker import execution

pytestmark = pytest.mark.django_db


def _bot(name: str, builtin: str = "random", owner=None) -> Bot:
    return Bot.objects.create(name=name, builtin=builtin, owner=owner)


def _maniglia(organiser, **extra) -> Competition:
    return services.competition_create(
        created_by=organiser,
        name="Partners' night",
        kind=extra.pop("kind", "tournament"),
        variant="maniglia-4-partners",
        format=extra.pop("format", "round-robin"),
        games_per_match=4,
        seed=7,
        **extra,
    )


def _play_all(comp: Competition) -> dict[int, list[str]]:
    """Play every match to the end; the bots that played each match, in seat order."""
    players = {}
    for _ in range(100):
        match = (
            comp.matches.filter(status__in=[Match.Status.PENDING, Match.Status.QUEUED])
            .order_by("id")
            .first()
        )
        if match is None:
            break
        played = services.match_play(match=match)
        players[match.pk] = list(played.players)
        assert services.match_record(match=match, played=played)
    comp.refresh_from_db()
    return players


def _teams(comp: Competition) -> list[Entry]:
    """Four teams: two greedy bots; one random bot at both seats; two random bots; a
    greedy and a random bot."""
    greedy = [_bot(f"greedy-{i}", "greedy") for i in range(3)]
    rand = [_bot(f"random-{i}") for i in range(4)]
    pairs = [(greedy[0], greedy[1]), (rand[0], None), (rand[1], rand[2]), (greedy[2], rand[3])]
    return [services.entry_create(competition=comp, bot=a, partner=b) for a, b in pairs]


def test_fixed_teams_sit_as_partners_meet_every_team_once_and_rank_as_teams(organiser):
    comp = _maniglia(organiser, partnerships="fixed")
    teams = _teams(comp)
    assert teams[1].partner == teams[1].bot  # one bot at both seats of its side
    assert pairing.planned_matches(comp) == 6  # every pair of the four teams once
    services.competition_start(competition=comp, by=organiser)

    players = _play_all(comp)

    assert comp.status == Competition.Status.FINISHED
    met = Counter()
    points_won = Counter()
    by_pk = {team.pk: team for team in teams}
    for match in comp.matches.prefetch_related("seats"):
        seats = sorted(match.seats.all(), key=lambda s: s.seat)
        a, b = by_pk[seats[0].entry_id], by_pk[seats[1].entry_id]
        # Each team at the two seats of its side (0 + 2 against 1 + 3), its own bots there.
        assert [s.entry_id for s in seats] == [a.pk, b.pk, a.pk, b.pk] and a != b
        assert players[match.pk] == [str(a.bot), str(b.bot), str(a.partner), str(b.partner)]
        met[frozenset((a.pk, b.pk))] += 1
        winners = {s.entry_id for s in seats if s.rank == 1}
        for winner in winners:  # a match's point, shared by the sides ranked first
            points_won[winner] += 1 / len(winners)
    assert len(players) == 6
    assert set(met) == {frozenset(p) for p in itertools.combinations(by_pk, 2)}
    assert set(met.values()) == {1}  # a round robin of teams

    standings = selectors.standings_for_competition(competition=comp)
    points = [row["points"] for row in standings]
    assert len(standings) == 4 and points == sorted(points, reverse=True)
    # Each team's points are the matches it won (a shared first place shares the point),
    # whoever won them: the team that won most leads, under its two bots' names.
    assert {row["entry"]: row["points"] for row in standings} == pytest.approx(
        {team.pk: points_won[team.pk] for team in teams}
    )
    best = standings[0]["entry"]
    assert points_won[best] == max(points_won.values())
    assert standings[0]["name"] == f"{by_pk[best].bot} & {by_pk[best].partner}"
    assert {row["name"] for row in standings} == {
        "greedy-0 & greedy-1",
        "random-0 & random-0",
        "random-1 & random-2",
        "greedy-2 & random-3",
    }
    pairs = selectors.head_to_head_for_competition(competition=comp)
    assert len(pairs) == 6 and {row["matches"] for row in pairs} == {1}
    assert {row["name"] for row in pairs} <= {row["name"] for row in standings}
    # A team has one rating, updated once a match; a match is worth one point to share.
    assert sum(row["points"] for row in standings) == 6
    for team in teams:
        assert RatingEvent.objects.filter(entry=team).count() == 3
        assert next(r["games"] for r in standings if r["entry"] == team.pk) == 3 * 4


def test_workers_claim_play_and_record_fixed_teams_to_the_end(organiser):
    comp = _maniglia(organiser, partnerships="fixed")
    teams = {team.pk: team for team in _teams(comp)}
    services.competition_start(competition=comp, by=organiser, send=None)
    first = comp.matches.order_by("id").first()
    claimed, claimed_seats = execution.match_claim_with_seats(match_id=first.pk, claimed_by="w1")
    seats = [teams[s.entry_id] for s in claimed_seats]
    # The claim reads the bot at each seat: a team's partner at its side's second seat.
    assert [s.bot_name for s in claimed_seats] == [
        str(seats[0].bot),
        str(seats[1].bot),
        str(seats[0].partner),
        str(seats[1].partner),
    ]
    assert services.match_record(
        match=claimed,
        played=services.match_play(match=claimed, claimed_seats=claimed_seats),
        claimed_by="w1",
        claimed_seats=claimed_seats,
        send=None,
    )
    for _ in range(10):
        pending = comp.matches.filter(status=Match.Status.PENDING).values_list("pk", flat=True)
        if not pending:
            break
        for pk in pending:
            assert execution.match_execute(match_id=pk, claimed_by="w1", send=None) == "recorded"
    comp.refresh_from_db()
    assert comp.status == Competition.Status.FINISHED and comp.matches.count() == 6
    for team in teams.values():  # one rating event a match, one entry a team
        assert RatingEvent.objects.filter(entry=team).count() == 3
    assert sum(e.points for e in comp.entries.all()) == 6


def test_rotating_partners_stay_the_default_and_seat_four_bots(organiser):
    comp = _maniglia(organiser)
    assert comp.partnerships == Competition.Partnerships.ROTATING
    bots = [_bot(f"r{i}") for i in range(4)]
    for bot in bots:
        services.entry_create(competition=comp, bot=bot)
    services.competition_start(competition=comp, by=organiser)
    players = _play_all(comp)
    assert comp.status == Competition.Status.FINISHED
    (match,) = comp.matches.all()
    seated = list(match.seats.order_by("seat").values_list("entry_id", flat=True))
    assert len(set(seated)) == 4  # four entries, two by two partners for this table
    assert sorted(players[match.pk]) == sorted(str(b) for b in bots)
    standings = selectors.standings_for_competition(competition=comp)
    assert sorted(row["name"] for row in standings) == ["r0", "r1", "r2", "r3"]
    assert {e.partner for e in comp.entries.all()} == {None}


def test_fixed_teams_play_a_swiss_of_teams(organiser):
    comp = _maniglia(organiser, partnerships="fixed", format="swiss", rounds_planned=2)
    teams = _teams(comp)
    services.competition_start(competition=comp, by=organiser)
    _play_all(comp)
    assert comp.status == Competition.Status.FINISHED
    assert comp.matches.count() == 4
    for match in comp.matches.all():
        seated = list(match.seats.order_by("seat").values_list("entry_id", flat=True))
        assert seated[0] == seated[2] and seated[1] == seated[3] != seated[0]
    rows = selectors.standings_for_competition(competition=comp)
    assert sorted(row["entry"] for row in rows) == sorted(t.pk for t in teams)


def test_a_league_season_of_fixed_teams_carries_its_teams_into_the_next(organiser):
    comp = _maniglia(organiser, kind="league-season", partnerships="fixed")
    teams = _teams(comp)
    services.competition_start(competition=comp, by=organiser)
    _play_all(comp)
    season = services.league_next_season(competition=comp, promote=0, by=organiser)
    assert season.fixed_teams
    assert {(e.bot_id, e.partner_id) for e in season.entries.all()} == {
        (t.bot_id, t.partner_id) for t in teams
    }


def test_a_team_choice_is_refused_where_the_variant_has_no_partnerships(organiser):
    for choice in ("fixed", "rotating"):
        with pytest.raises(ValidationError) as caught:
            services.competition_create(
                created_by=organiser,
                name="x",
                kind="tournament",
                variant="manni-basic",
                format="round-robin",
                partnerships=choice,
            )
        assert "manni-basic has no partnerships" in caught.value.message_dict["partnerships"][0]
    with pytest.raises(ValidationError) as caught:
        _maniglia(organiser, partnerships="fixed", format="single-elimination")
    assert "fixed teams play round robins" in caught.value.message_dict["partnerships"][0]


def test_a_partner_is_refused_outside_fixed_teams(organiser):
    comp = _maniglia(organiser)
    with pytest.raises(ValidationError) as caught:
        services.entry_create(competition=comp, bot=_bot("a"), partner=_bot("b"))
    assert "does not play fixed teams" in caught.value.message_dict["partner"][0]
    assert not comp.entries.exists()


def test_no_bot_plays_in_two_teams(organiser):
    comp = _maniglia(organiser, partnerships="fixed")
    a, b, c = _bot("a"), _bot("b"), _bot("c")
    services.entry_create(competition=comp, bot=a, partner=b)
    with pytest.raises(ValidationError) as caught:
        services.entry_create(competition=comp, bot=c, partner=b)
    assert caught.value.message_dict["partner"] == ["b is already entered (in the team a & b)"]
    with pytest.raises(ValidationError) as caught:
        services.entry_create(competition=comp, bot=b)
    assert caught.value.message_dict["bot"] == ["b is already entered (in the team a & b)"]
    assert comp.entries.count() == 1


def test_a_partner_that_does_not_play_the_variant_is_refused(organiser):
    comp = _maniglia(organiser, partnerships="fixed")
    owner = get_user_model().objects.create_user("ann", password="x")
    uploaded = Bot.objects.create(name="manni-only", owner=owner)  # no version: plays nothing
    with pytest.raises(ValidationError) as caught:
        services.entry_create(competition=comp, bot=_bot("a"), partner=uploaded)
    assert "ann/manni-only" in caught.value.message_dict["partner"][0]


def test_two_teams_are_needed_to_start(organiser):
    comp = _maniglia(organiser, partnerships="fixed")
    services.entry_create(competition=comp, bot=_bot("a"), partner=_bot("b"))
    with pytest.raises(ValidationError, match="fixed teams needs at least 2 teams, got 1"):
        services.competition_start(competition=comp, by=organiser)


def test_partners_of_one_owner_may_share_their_side_but_two_teams_of_one_owner_never_meet(
    organiser,
):
    ann = get_user_model().objects.create_user("ann", password="x")
    comp = _maniglia(organiser, partnerships="fixed")
    own = [_bot(f"ann-{i}", owner=ann) for i in range(3)]
    services.entry_create(competition=comp, bot=own[0], partner=own[1])  # partners: allowed
    for i in range(2):
        services.entry_create(competition=comp, bot=_bot(f"x{i}"), partner=_bot(f"y{i}"))
    assert pairing.fair_play_problem(comp) is None
    services.competition_start(competition=comp, by=organiser)
    assert comp.matches.exists()

    other = _maniglia(organiser, partnerships="fixed")
    first = services.entry_create(competition=other, bot=own[0], partner=own[1])
    second = services.entry_create(competition=other, bot=_bot("z"), partner=own[2])
    assert pairing.entries_apart(other) == {frozenset((first.pk, second.pk))}
    assert "ann/ann-0 & ann/ann-1, z & ann/ann-2 may not share a table" in (
        pairing.fair_play_problem(other)
    )


def test_a_team_plays_once_its_partner_can_and_the_start_names_the_team(organiser):
    ann = get_user_model().objects.create_user("ann", password="x")
    waiting = Bot.objects.create(name="fresh", owner=ann)
    BotVersion.objects.create(
        bot=waiting, number=1, sha256="0" * 64, runtime=BotVersion.Runtime.PYTHON,
        entry_point="bot.py", status=BotVersion.Status.PENDING,
    )  # fmt: skip
    comp = _maniglia(organiser, partnerships="fixed")
    services.entry_create(competition=comp, bot=_bot("lead"), partner=waiting)
    services.entry_create(competition=comp, bot=_bot("other"))
    assert list(comp.entries.filter(pairing.playable(comp.variant))) == [
        comp.entries.get(bot__name="other")
    ]
    with pytest.raises(ValidationError, match="no ready version to play yet: lead & ann/fresh"):
        services.competition_start(competition=comp, by=organiser)
    assert not comp.matches.exists()
