"""Match results and knockout placements: one meaning of a result (docs/competitions.md)."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats import TableResult, double_elimination, single_elimination
from tournaments.formats.match_result import (
    game_points,
    knockout_decision,
    lot_order,
    match_ranks,
    strict_cut,
)


def game(seats, ranking, scores):
    return {"seats": list(seats), "ranking": list(ranking), "scores": list(scores)}


def test_game_points_come_before_the_total_score():
    # Seat 0 wins two games narrowly and loses one badly: -34 in all, but 2 games won.
    games = [
        game([0, 1], [1, 2], [-10, -11]),
        game([0, 1], [1, 2], [-10, -11]),
        game([0, 1], [2, 1], [-14, -11]),
    ]
    assert game_points(games, 2) == [2.0, 1.0]
    assert match_ranks(games, 2) == [1, 2]  # -34 above -33: it won more games


def test_level_game_points_are_ordered_by_total_score_and_level_both_share():
    games = [game([0, 1, 2], [1, 2, 3], [5, 3, 1]), game([0, 1, 2], [3, 2, 1], [1, 3, 6])]
    assert game_points(games, 3) == [2.0, 2.0, 2.0]
    assert match_ranks(games, 3) == [2, 2, 1]  # totals 6, 6, 7


def test_partners_are_not_opponents():
    g = game([0, 1, 2, 3], [1, 2, 1, 2], [3, 1, 3, 1])
    assert game_points([g], 4, teams=((0, 2), (1, 3))) == [2.0, 0.0, 2.0, 0.0]


def test_duplicate_rotation_counts_each_player_at_its_seat():
    # Player 1 sits at seat 0 in the second game and wins it.
    games = [game([0, 1], [1, 2], [3, 1]), game([1, 0], [1, 2], [3, 1])]
    assert game_points(games, 2) == [1.0, 1.0]
    assert match_ranks(games, 2) == [1, 1]


def test_knockout_chain_score_then_playoff_then_lot():
    level = [game([0, 1], [1, 2], [3, 1]), game([1, 0], [1, 2], [3, 1])]
    decided = knockout_decision(level, 2, seed=7)
    assert decided.decided_by["rule"] == "lot" and sorted(decided.ranks) == [1, 2]
    assert knockout_decision(level, 2, seed=7, playoff_cap=2).needs_playoff

    by_score = [game([0, 1], [1, 2], [3, 1]), game([1, 0], [1, 2], [4, 1])]
    assert knockout_decision(by_score, 2, seed=7).decided_by == {"rule": "score", "level": [0, 1]}
    assert knockout_decision(by_score, 2, seed=7).ranks == (2, 1)

    playoff = [game([0, 1], [1, 2], [2, 0]), game([1, 0], [1, 1], [1, 1])]
    decided = knockout_decision(level, 2, seed=7, playoff=playoff, playoff_cap=2)
    assert decided.ranks == (1, 2)
    assert decided.decided_by == {
        "rule": "play-off",
        "level": [0, 1],
        "games": 2,
        "points": [1.5, 0.5],
        "scores": [3, 1],
    }

    still_level = [game([0, 1], [1, 2], [2, 0]), game([1, 0], [1, 2], [2, 0])]
    decided = knockout_decision(level, 2, seed=7, playoff=still_level, playoff_cap=2)
    assert decided.decided_by["rule"] == "lot" and decided.decided_by["games"] == 2
    assert decided.ranks[decided.decided_by["draw"][0]] == 1


def test_the_lot_is_drawn_from_the_match_seed():
    assert lot_order(7, [0, 1, 2]) == lot_order(7, [0, 1, 2])
    firsts = {lot_order(seed, [0, 1])[0] for seed in range(20)}
    assert firsts == {0, 1}
    digest = hashlib.sha256(b"cardroom-lot:7").digest()
    assert lot_order(7, [0, 1])[0] == int.from_bytes(digest[:8], "big") % 2


@settings(max_examples=200, deadline=None)
@given(
    seats=st.integers(2, 5),
    data=st.data(),
    seed=st.integers(0, 2**56),
    cap=st.integers(0, 6),
)
def test_knockout_matches_always_have_one_winner(seats, data, seed, cap):
    partners = seats == 4 and data.draw(st.booleans())
    teams = ((0, 2), (1, 3)) if partners else None
    rank = st.integers(1, seats)
    count = data.draw(st.integers(1, 4))
    games = []
    for g in range(count):
        ranks = data.draw(st.lists(rank, min_size=seats, max_size=seats))
        if partners:
            ranks = [ranks[0], ranks[1], ranks[0], ranks[1]]
        scores = data.draw(st.lists(st.integers(-3, 3), min_size=seats, max_size=seats))
        if partners:
            scores = [scores[0], scores[1], scores[0], scores[1]]
        rotation = [(s - g) % seats for s in range(seats)]
        games.append(game(rotation, ranks, scores))
    playoff = games[: data.draw(st.integers(0, min(cap, len(games))))]
    decision = knockout_decision(
        games, seats, seed=seed, playoff=playoff, playoff_cap=len(playoff), teams=teams
    )
    winners = [p for p, r in enumerate(decision.ranks) if r == 1]
    assert len(winners) == (2 if partners else 1)
    assert strict_cut(decision.ranks, len(winners))
    assert decision.decided_by["rule"] in {"games", "score", "play-off", "lot"}
    if partners:
        assert decision.ranks[0] == decision.ranks[2] and decision.ranks[1] == decision.ranks[3]


def _play(bracket, outcome_seed, partners=False):
    """Play every ready table; each table's ranks come from a knockout decision."""
    results = {}
    while True:
        ready = bracket.ready(results)
        if not ready:
            return results
        for node_id, table in ready:
            luck = [
                hashlib.sha256(repr((outcome_seed, node_id, e)).encode()).digest() for e in table
            ]
            ranks = [1 + sum(1 for o in luck if o < mine) for mine in luck]
            if partners:
                ranks = [min(ranks[0], ranks[2]), min(ranks[1], ranks[3])] * 2
                ranks = [1 if r == min(ranks) else 2 for r in ranks]
            results[node_id] = TableResult(table, tuple(ranks))


SHAPES = [(2, 1), (3, 1), (4, 1), (5, 1)]


@settings(max_examples=80, deadline=None)
@given(
    shape=st.sampled_from([*SHAPES, "double"]),
    n=st.integers(2, 30),
    outcome=st.integers(0, 10**6),
)
def test_champion_first_runner_up_second_and_same_round_shares_a_rank(shape, n, outcome):
    try:
        if shape == "double":
            bracket = double_elimination(list(range(n)))
        else:
            bracket = single_elimination(list(range(n)), shape[0], advance=shape[1])
    except ValueError:
        return
    results = _play(bracket, outcome)
    placements = bracket.placements(results)
    champion = bracket.champion(results)
    assert placements[0].entry == champion
    assert placements[0].rank == 1 and [p.rank for p in placements].count(1) == 1
    assert sorted(p.entry for p in placements) == list(range(n))
    states = bracket.states(results)
    final_id = bracket._final_id(states)
    final = results[final_id]
    runner_up = next(e for e in final.entries() if final.entry_rank(e) == 2)
    assert placements[1].entry == runner_up and placements[1].rank == 2
    by_round: dict[int, set[int]] = {}
    for p in placements[2:]:
        if p.eliminated_at == final_id:
            continue
        by_round.setdefault(p.eliminated_round, set()).add(p.rank)
    assert all(len(ranks) == 1 for ranks in by_round.values())  # same round, same rank
    rounds = sorted(by_round, reverse=True)
    assert [min(by_round[r]) for r in rounds] == sorted(min(by_round[r]) for r in rounds)


@pytest.mark.parametrize("n", [4, 8])
def test_partner_champions_share_first_place(n):
    bracket = single_elimination(list(range(n)), 4, advance=2)
    results = _play(bracket, 3, partners=True)
    placements = bracket.placements(results)
    assert [p.rank for p in placements[:2]] == [1, 1]
    assert placements[0].entry == bracket.champion(results)


def test_before_the_end_entries_still_in_share_the_top_rank():
    bracket = single_elimination(list(range(4)))
    results = {"R1-0": TableResult((0, 3), (2, 1))}
    rows = {p.entry: p for p in bracket.placements(results)}
    assert rows[0].rank == 4 and rows[0].eliminated_at == "R1-0"
    assert {rows[e].rank for e in (1, 2, 3)} == {1}


def _lower_seed_wins(results, node_id, table):
    """The table's result with the better seed (lower number) winning."""
    ranks = tuple(1 if e == min(table) else 2 for e in table)
    results[node_id] = TableResult(table, ranks)


def test_mid_double_elimination_the_unbeaten_lead_those_in_the_losers_bracket():
    bracket = double_elimination(list(range(8)))
    results = {}
    for node_id, table in bracket.ready(results):  # the first round: W1-*
        _lower_seed_wins(results, node_id, table)
    ranks = {p.entry: p.rank for p in bracket.placements(results)}
    # Seeds 0-3 won their first table, 4-7 lost it and play on in the losers' bracket.
    assert {ranks[e] for e in (0, 1, 2, 3)} == {1}
    assert {ranks[e] for e in (4, 5, 6, 7)} == {5}

    for node_id, table in bracket.ready(results):  # W2-* and L1-*
        _lower_seed_wins(results, node_id, table)
    rows = {p.entry: p for p in bracket.placements(results)}
    assert {rows[e].rank for e in (0, 1)} == {1}  # still unbeaten
    assert {rows[e].rank for e in (2, 3, 4, 5)} == {3}  # one loss each
    assert {rows[e].rank for e in (6, 7)} == {7}  # out after two losses
    assert all(rows[e].eliminated_at and rows[e].eliminated_at.startswith("L1") for e in (6, 7))
    assert all(rows[e].eliminated_at is None for e in range(6))

    while ready := bracket.ready(results):
        for node_id, table in ready:
            _lower_seed_wins(results, node_id, table)
    final = bracket.placements(results)
    assert [p.entry for p in final[:2]] == [0, 1]  # the champion first, the runner-up second
    assert [p.rank for p in final[:2]] == [1, 2]
