"""How sure the ranking is, through the API: standings and head-to-head columns, compare."""

from __future__ import annotations

import pytest

from tests.factories import builtin_bots, make_competition, play_all
from tournaments import services
from tournaments.models import Competition, Entry, Match

pytestmark = pytest.mark.django_db


@pytest.fixture
def played(organiser) -> Competition:
    """Three random bots and a greedy one, a double round robin played to its end."""
    comp = make_competition(organiser, entries=3, format="double-round-robin", games=6, seed=1)
    services.entry_create(competition=comp, bot=builtin_bots(1, "greedy")[0])
    services.competition_start(competition=comp)
    play_all(comp)
    return comp


def test_standings_carry_the_95_interval_and_the_chance_to_be_above_the_next(anon, played):
    rows = anon.get(f"/api/competitions/{played.pk}/standings/").json()

    for row in rows:
        assert row["rating_low"] < row["mu"] < row["rating_high"]
        assert row["rating_high"] - row["rating_low"] == pytest.approx(
            2 * 1.96 * row["sigma"], rel=1e-3
        )
    assert [row["p_above_next"] is None for row in rows] == [False] * (len(rows) - 1) + [True]
    assert rows[0]["name"] == "greedy-0" and rows[0]["p_above_next"] > 0.5


def test_head_to_head_gives_games_score_and_a_sign_test(anon, played):
    rows = anon.get(f"/api/competitions/{played.pk}/head-to-head/").json()

    greedy = [r for r in rows if "greedy-0" in (r["name"], r["opponent_name"])]
    assert len(greedy) == 3
    for row in greedy:
        assert row["trial"] == "deal" and row["trials"] == 2 * row["matches"]
        assert row["games"] == 6 * row["matches"]
        assert 0 < row["p_value"] <= 1


def test_compare_answers_is_a_better_than_b(anon, played):
    greedy = played.entries.get(bot__builtin="greedy")
    other = played.entries.exclude(pk=greedy.pk).order_by("id").first()

    response = anon.get(f"/api/competitions/{played.pk}/compare/?a={greedy.pk}&b={other.pk}")

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["a"]["entry"] == greedy.pk and body["b"]["entry"] == other.pk
    assert 0.5 < body["p_stronger"] < 1
    assert 0.5 < body["p_wins"] <= body["p_stronger"]
    met = Match.objects.filter(competition=played, seats__entry=greedy).filter(seats__entry=other)
    assert body["head_to_head"]["trials"] == 2 * met.count() > 0  # two deals a match
    assert body["head_to_head"]["trials_won"] > body["head_to_head"]["trials_lost"]
    assert body["answer"].startswith("greedy-0 is stronger than random-")
    assert "head-to-head" in body["answer"] and "p = " in body["answer"]


def test_compare_refuses_entries_of_different_competitions_naming_the_problem(
    anon, organiser, played
):
    other = make_competition(organiser, name="Another", games=6)
    stranger = services.entry_create(competition=other, bot=builtin_bots(1, "ismcts")[0])
    mine = played.entries.first()
    before = (Entry.objects.count(), Competition.objects.count())

    response = anon.get(f"/api/competitions/{played.pk}/compare/?a={mine.pk}&b={stranger.pk}")

    assert response.status_code == 400
    assert response.json() == {
        "b": [
            f"entry {stranger.pk} is in competition {other.pk}, not in competition "
            f"{played.pk}: only entries of one competition can be compared"
        ]
    }
    assert (Entry.objects.count(), Competition.objects.count()) == before


@pytest.mark.parametrize(
    ("query", "field", "words"),
    [
        ("a=1", "b", "required"),
        ("a=x&b=1", "a", "valid integer"),
        ("a=0&b=1", "a", "greater than or equal to 1"),
        (f"a=1&b={2**63}", "b", "less than or equal to"),
        ("a=99999&b=1", "a", "entry 99999 does not exist"),
    ],
)
def test_compare_names_the_bad_parameter(anon, league, query, field, words):
    comp = league["competition"]
    query = query.replace("b=1", f"b={league['entries'][0].pk}")

    response = anon.get(f"/api/competitions/{comp.pk}/compare/?{query}")

    assert response.status_code == 400
    assert words in " ".join(response.json()[field])


def test_compare_of_the_same_entry_twice_is_refused(anon, league):
    entry = league["entries"][0]
    response = anon.get(
        f"/api/competitions/{league['competition'].pk}/compare/?a={entry.pk}&b={entry.pk}"
    )
    assert response.status_code == 400 and "same entry" in response.json()["b"][0]


def test_compare_in_a_hidden_competition_is_not_found(as_alice, organiser):
    hidden = make_competition(organiser, name="Secret", is_public=False, games=6)
    a, b = (services.entry_create(competition=hidden, bot=bot) for bot in builtin_bots(2))
    assert (
        as_alice.get(f"/api/competitions/{hidden.pk}/compare/?a={a.pk}&b={b.pk}").status_code == 404
    )
    assert as_alice.get(f"/api/competitions/{2**63}/compare/?a=1&b=2").status_code == 404


def test_compare_of_equal_unrated_entries_is_even(anon, league):
    a, b, _ = league["entries"]
    body = anon.get(
        f"/api/competitions/{league['competition'].pk}/compare/?a={a.pk}&b={b.pk}"
    ).json()
    assert body["p_stronger"] == 0.5  # equal, unrated entries
    assert body["head_to_head"]["trials"] == 2  # the league's done match: two games of one rotation
