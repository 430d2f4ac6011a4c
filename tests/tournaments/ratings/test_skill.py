"""Ratings: openskill Plackett-Luce updates, replay, inheritance."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.ratings import (
    INITIAL_SIGMA,
    PARTNER_SEATS,
    Inheritance,
    RatedGame,
    Rating,
    apply_event,
    inherit,
    rate_game,
    recompute,
)

ratings_st = st.builds(Rating, mu=st.floats(0, 50), sigma=st.floats(0.5, 8.3))


@given(k=st.integers(2, 5), data=st.data())
def test_winner_gains_and_loser_loses(k, data):
    before = {i: data.draw(ratings_st) for i in range(k)}
    seats = list(range(k))
    ranks = list(range(1, k + 1))
    after = rate_game(before, seats, ranks)
    assert after[0].mu > before[0].mu
    assert after[k - 1].mu < before[k - 1].mu


def test_new_entries_start_at_defaults_and_display_is_conservative():
    after = rate_game({}, ["a", "b"], [1, 2])
    assert Rating().display == pytest.approx(0.0)
    assert after["a"].display == after["a"].mu - 3 * after["a"].sigma
    assert after["a"].uncertainty == after["a"].sigma < INITIAL_SIGMA


@given(k=st.integers(2, 5), rating=ratings_st)
def test_tied_symmetric_entries_move_equally(k, rating):
    before = dict.fromkeys(range(k), rating)
    after = rate_game(before, list(range(k)), [1] * k)
    # Equal up to the model's float rounding (sums taken in seat order).
    for i in range(k):
        assert after[i].mu == pytest.approx(after[0].mu, abs=1e-9)
        assert after[i].sigma == pytest.approx(after[0].sigma, abs=1e-9)
    assert after[0].mu == pytest.approx(rating.mu, abs=1e-9)


def test_ties_share_a_rank_in_the_middle():
    after = rate_game({}, ["w", "x", "y", "z"], [1, 2, 2, 4])
    assert after["x"] == after["y"]
    assert after["w"].mu > after["x"].mu > after["z"].mu


def test_partnership_teams_move_together():
    seats = ["a1", "b1", "a2", "b2"]
    after = rate_game({}, seats, [1, 2, 1, 2], teams=PARTNER_SEATS)
    assert after["a1"] == after["a2"] and after["b1"] == after["b2"]
    assert after["a1"].mu > 25 > after["b1"].mu
    with pytest.raises(ValueError, match="different ranks"):
        rate_game({}, seats, [1, 2, 2, 1], teams=PARTNER_SEATS)


def test_team_entry_seated_twice_counts_once():
    after = rate_game({}, ["A", "B", "A", "B"], [2, 1, 2, 1], teams=PARTNER_SEATS)
    assert set(after) == {"A", "B"} and after["B"].mu > after["A"].mu


games_st = st.lists(
    st.tuples(
        st.permutations(list(range(6))),
        st.integers(2, 5),
        st.lists(st.integers(1, 5), min_size=5, max_size=5),
    ),
    max_size=25,
)


@settings(max_examples=30, deadline=None)
@given(games=games_st, shuffle=st.randoms(use_true_random=False))
def test_recompute_equals_incremental_bit_for_bit(games, shuffle):
    history = [
        RatedGame(order=(i // 3, i % 3), seats=tuple(perm[:k]), ranks=tuple(ranks[:k]))
        for i, (perm, k, ranks) in enumerate(games)
    ]
    history.insert(len(history) // 2, Inheritance(order=(len(games) // 6, 5), entry=9, parent=0))
    incremental: dict = {}
    for event in sorted(history, key=lambda e: e.order):
        incremental = apply_event(incremental, event)
    shuffled = list(history)
    shuffle.shuffle(shuffled)
    replayed = recompute(shuffled)
    assert replayed.keys() == incremental.keys()
    for e in replayed:
        assert (replayed[e].mu, replayed[e].sigma) == (incremental[e].mu, incremental[e].sigma)


def test_recompute_rejects_duplicate_order_keys():
    game = RatedGame(order=(1, 1), seats=("a", "b"), ranks=(1, 2))
    with pytest.raises(ValueError, match="share the order key"):
        recompute([game, game])


@given(rating=ratings_st, widen=st.floats(0, 10) | st.floats(1e-3, 10))
def test_inherit_widens_sigma_up_to_the_initial(rating, widen):
    child = inherit(rating.mu, rating.sigma, widen=widen)
    assert child.mu == rating.mu
    assert rating.sigma <= child.sigma <= max(INITIAL_SIGMA, rating.sigma)
    if widen >= 1e-3 and rating.sigma < INITIAL_SIGMA - 1e-3:
        assert child.sigma > rating.sigma


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: rate_game({}, ["a"], [1]), "at least two teams"),
        (lambda: rate_game({}, ["a", "b"], [1]), "2 seats but 1 ranks"),
        (lambda: rate_game({}, ["a", "b"], [0, 1]), "ranks must be"),
        (lambda: rate_game({}, ["a", "a"], [1, 2]), "two teams"),
        (lambda: rate_game({}, ["a", "b", "c"], [1, 2, 3], teams=[(0, 1)]), "cover seats"),
        (lambda: inherit(25, 5, widen=-1), "widen"),
        (lambda: Rating(25, 0), "sigma > 0"),
    ],
)
def test_bad_input_raises_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_ratings_package_imports_no_framework():
    root = Path(__file__).resolve().parents[3] / "tournaments" / "ratings"
    forbidden = {"django", "rest_framework", "celery", "channels", "kombu", "daphne", "uvicorn"}
    for path in root.rglob("*.py"):
        tree = ast.parse(path.read_text())
        names = {
            a.name.split(".")[0]
            for n in ast.walk(tree)
            if isinstance(n, ast.Import)
            for a in n.names
        }
        names |= {
            n.module.split(".")[0]
            for n in ast.walk(tree)
            if isinstance(n, ast.ImportFrom) and n.module and n.level == 0
        }
        assert not names & forbidden, path
