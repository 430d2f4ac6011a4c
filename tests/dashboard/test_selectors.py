"""Reads of the dashboard: standings trends, rounds, brackets, the rating chart, the queue."""

from __future__ import annotations

from datetime import timedelta
from itertools import pairwise

import pytest
from django.utils import timezone

from tests.factories import make_competition, play_all, play_one
from tournaments.live.events import worker_label
from tournaments.models import Competition, Match, RatingEvent
from tournaments.selectors import TREND_MATCHES, competition_progress, standings_for_competition
from tournaments.watching.brackets import rounds_view
from tournaments.watching.panels import rating_series
from tournaments.watching.queue_panel import progress_by_competition, queue_status

pytestmark = pytest.mark.django_db


def rated(entry, path: list[float], *, sigma: float = 0.0) -> None:
    """Give ``entry`` a rating history through the displayed ratings ``path`` (one match per
    step, with a constant ``sigma``), and leave it at the last one."""
    competition = entry.competition
    for step, (before, after) in enumerate(pairwise(path)):
        competition.rating_sequence += 1
        match = Match.objects.create(competition=competition, seed=0, table=1000 + step)
        RatingEvent.objects.create(
            entry=entry,
            match=match,
            sequence=competition.rating_sequence,
            mu_before=before + 3 * sigma,
            sigma_before=sigma,
            mu_after=after + 3 * sigma,
            sigma_after=sigma,
        )
    competition.save(update_fields=["rating_sequence"])
    entry.mu, entry.sigma = path[-1] + 3 * sigma, sigma
    entry.save(update_fields=["mu", "sigma"])


def trends(competition, **kwargs) -> dict[int, float | None]:
    return {
        row["entry"]: row["trend"]
        for row in standings_for_competition(competition=competition, **kwargs)
    }


def test_the_trend_is_the_rating_change_over_the_last_five_rated_matches(organiser):
    competition = make_competition(organiser, start=True, entries=3)
    steady, falling, unrated = competition.entries.order_by("id")
    rated(steady, [10, 11, 12, 13, 14, 15, 16, 17])  # seven matches, one point up each
    rated(falling, [20, 18, 17.5], sigma=1.0)  # two matches only

    got = trends(competition)

    assert TREND_MATCHES == 5
    assert got[steady.pk] == pytest.approx(5.0)  # 17 now, 12 before the last five
    assert got[falling.pk] == pytest.approx(-2.5)  # fewer than five: since its first match
    assert got[unrated.pk] is None


def test_the_trend_is_in_the_standings_query_itself(organiser, django_assert_num_queries):
    competition = make_competition(organiser, entries=12, start=True)
    play_one(competition)
    play_one(competition)

    # One query for the rows and their trend, one for the finished tables the round
    # robin's tie-breaks read (head-to-head, Sonneborn-Berger, duplicate score).
    with django_assert_num_queries(2):
        rows = standings_for_competition(competition=competition, limit=10)

    assert len(rows) == 10
    assert sum(row["trend"] is not None for row in rows) >= 3


def test_the_trend_follows_real_results(organiser):
    competition = make_competition(organiser, entries=3, start=True)
    match = play_one(competition)

    got = trends(competition)

    events = list(RatingEvent.objects.filter(match=match))
    assert len(events) == 3  # one a seat: every entry played the match
    expected = {
        event.entry_id: (event.mu_after - 3 * event.sigma_after)
        - (event.mu_before - 3 * event.sigma_before)
        for event in events
    }
    assert {entry: got[entry] for entry in expected} == pytest.approx(expected)
    assert any(change != 0 for change in expected.values())  # a trend worth following


def boxes(view) -> dict[str, dict]:
    return {
        box["node"]: box
        for section in view["bracket"]["sections"]
        for column in section["columns"]
        for box in column["nodes"]
    }


def names(box) -> list[str | None]:
    return [seat["name"] for seat in box["seats"]]


def test_a_single_elimination_bracket_is_drawn_by_round_with_byes(organiser):
    competition = make_competition(
        organiser,
        variant="money-jordan",
        format="single-elimination",
        entries=5,
        games=2,
        start=True,
    )

    view = rounds_view(competition=competition)

    assert view["current"] is None
    (section,) = view["bracket"]["sections"]
    assert section["name"] == "Bracket"
    assert [c["label"] for c in section["columns"]] == ["Round 1", "Round 2", "Final"]
    assert [len(c["nodes"]) for c in section["columns"]] == [4, 2, 1]
    nodes = boxes(view)
    # Five entries in an eight-slot bracket: the top three seeds pass round one unplayed.
    assert sorted(n for n, box in nodes.items() if box["status"] == "bye") == [
        "R1-0",
        "R1-2",
        "R1-3",
    ]
    assert all(box["seats"][0]["winner"] for box in nodes.values() if box["status"] == "bye")
    created = dict(competition.matches.values_list("node", "pk"))
    assert {n: box["match"] for n, box in nodes.items() if box["match"]} == created
    assert nodes["R3-0"]["status"] == "waiting" and names(nodes["R3-0"]) == [None, None]


def test_a_finished_bracket_match_marks_its_winner_who_moves_on(organiser):
    competition = make_competition(
        organiser,
        variant="money-jordan",
        format="single-elimination",
        entries=5,
        games=2,
        start=True,
    )
    first = play_one(competition)  # R1-1, the only real first-round match
    winner = first.seats.get(rank=1).entry.bot.name

    nodes = boxes(rounds_view(competition=competition))

    played = nodes[first.node]
    assert played["status"] == "done"
    assert [s["name"] for s in played["seats"] if s["winner"]] == [winner]
    assert sorted(s["rank"] for s in played["seats"]) == [1, 2]
    assert winner in names(nodes["R2-0"])  # its next node knows it already

    play_all(competition)
    view = rounds_view(competition=competition)
    final = boxes(view)["R3-0"]
    assert final["status"] == "done" and sum(s["winner"] for s in final["seats"]) == 1
    assert [r["status"] for r in view["rounds"]] == ["finished"] * len(view["rounds"])
    assert all(r["done"] == r["matches"] for r in view["rounds"])


def test_a_double_elimination_bracket_has_winners_losers_and_grand_final(organiser):
    competition = make_competition(
        organiser,
        variant="money-jordan",
        format="double-elimination",
        entries=4,
        games=2,
        start=True,
    )

    view = rounds_view(competition=competition)

    sections = view["bracket"]["sections"]
    assert [s["name"] for s in sections] == ["Winners bracket", "Losers bracket", "Grand final"]
    columns = [[c["label"] for c in s["columns"]] for s in sections]
    assert columns == [
        ["Round 1", "Winners final"],
        ["Round 1", "Losers final"],
        ["Grand final", "Reset final"],
    ]
    nodes = boxes(view)
    assert sorted(nodes) == ["GF", "GF2", "L1-0", "L2-0", "W1-0", "W1-1", "W2-0"]
    assert nodes["W1-0"]["match"] and nodes["W1-1"]["match"]
    assert nodes["L1-0"]["status"] == "waiting"

    play_all(competition)
    nodes = boxes(rounds_view(competition=competition))
    # The losers of the first round meet in the losers' bracket.
    losers = {s["name"] for n in ("W1-0", "W1-1") for s in nodes[n]["seats"] if not s["winner"]}
    assert set(names(nodes["L1-0"])) == losers
    assert nodes["GF"]["status"] == "done"
    reset_played = nodes["GF2"]["match"] is not None
    assert nodes["GF2"]["status"] == ("done" if reset_played else "not-needed")


def test_a_round_robin_shows_its_rounds_and_the_current_pairings(organiser):
    competition = make_competition(organiser, entries=8, start=True)
    total = competition.matches.count()

    view = rounds_view(competition=competition)

    assert view["bracket"] is None
    assert view["rounds"] == [{"number": 1, "status": "running", "matches": total, "done": 0}]
    current = view["current"]
    assert current["number"] == 1 and len(current["tables"]) == total
    assert all(len(table["seats"]) == 3 for table in current["tables"])

    match = play_one(competition)
    view = rounds_view(competition=competition)
    assert view["rounds"][0]["done"] == 1
    row = next(t for t in view["current"]["tables"] if t["id"] == match.pk)
    assert row["status"] == "done" and sorted(s["rank"] for s in row["seats"])[0] == 1


def test_a_swiss_current_round_moves_on_when_a_round_finishes(organiser):
    competition = make_competition(
        organiser, format="swiss", entries=6, rounds_planned=2, start=True
    )
    for _ in range(competition.matches.count()):
        play_one(competition)

    view = rounds_view(competition=competition)

    assert [(r["number"], r["status"]) for r in view["rounds"]] == [
        (1, "finished"),
        (2, "running"),
    ]
    assert view["current"]["number"] == 2
    assert all(t["status"] == "pending" for t in view["current"]["tables"])


def test_the_rating_series_start_before_the_first_rated_match(organiser):
    competition = make_competition(organiser, entries=4, start=True)
    play_one(competition)
    play_one(competition)

    chart = rating_series(competition=competition)

    top = [row["entry"] for row in standings_for_competition(competition=competition)]
    assert [s["entry"] for s in chart["series"]] == top
    for series in chart["series"]:
        history = RatingEvent.objects.filter(entry=series["entry"]).order_by("sequence")
        first = history.first()
        assert series["points"][0] == [
            first.sequence - 1,
            pytest.approx(first.mu_before - 3 * first.sigma_before),
        ]
        assert [x for x, _ in series["points"][1:]] == [e.sequence for e in history]


def test_the_queue_status_counts_matches_and_lists_the_workers_holding_leases(organiser, settings):
    competition = make_competition(organiser, entries=9, start=True)  # three tables a round
    done = play_one(competition)
    held, waiting = competition.matches.filter(status=Match.Status.PENDING).order_by("id")[:2]
    until = timezone.now() + timedelta(seconds=settings.CARDROOM_MATCH_LEASE_S)
    Match.objects.filter(pk=held.pk).update(
        status=Match.Status.RUNNING, claimed_by="host-a/4242/task-7", lease_until=until
    )
    Match.objects.filter(pk=waiting.pk).update(status=Match.Status.QUEUED)

    status = queue_status(competition_id=competition.pk, staff=True)

    total = competition.matches.count()
    assert (status["done"], status["running"], status["queued"]) == (1, 1, 1)
    assert status["pending"] == total - 3 and status["total"] == total
    assert status["results_per_minute"] == 1  # ``done`` finished just now
    assert status["workers"] == [
        {
            "worker": "host-a/4242",
            "match": held.pk,
            "since": (until - timedelta(seconds=settings.CARDROOM_MATCH_LEASE_S)).isoformat(),
            "until": until.isoformat(),
        }
    ]
    public = queue_status(competition_id=competition.pk)["workers"]
    assert [w["worker"] for w in public] == [worker_label("host-a/4242")]  # not for all eyes
    Match.objects.filter(pk=done.pk).update(finished_at=timezone.now() - timedelta(minutes=5))
    assert queue_status(competition_id=competition.pk)["results_per_minute"] == 0


def test_the_list_progress_matches_each_competitions_progress(organiser, django_assert_num_queries):
    made = [make_competition(organiser, name=f"Night {i}", entries=8, start=True) for i in range(3)]
    play_one(made[1])
    competitions = list(Competition.objects.filter(pk__in=[c.pk for c in made]).order_by("id"))

    with django_assert_num_queries(2):  # the match counts, the entries of the schedules
        rows = progress_by_competition(competitions)

    for competition in competitions:
        expected = competition_progress(competition=competition)
        assert {k: rows[competition.pk][k] for k in expected} == expected
    schedule = rows[competitions[1].pk]["schedule"]
    assert schedule["total"] == 16 > rows[competitions[1].pk]["total"]  # all of its rounds
    assert rows[competitions[1].pk]["percent"] == round(100 * 1 / 16) > 0
    assert rows[competitions[0].pk]["percent"] == 0
