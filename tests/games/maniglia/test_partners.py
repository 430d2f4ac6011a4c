"""maniglia-4-partners: MANIGLIA-4P-1..6, EX-MANI-5, LIMIT-4 and FORFEIT-2."""

from __future__ import annotations

import random

import pytest

import games
from tests.games.maniglia.deals import deck_for, pack, play_out, position

P = "maniglia-4-partners"
POINTS = dict(zip("23456JNKA7", (0, 0, 0, 0, 0, 1, 2, 3, 4, 5), strict=True))


def test_partners_sit_opposite():
    """MANIGLIA-4P-1: teams 0+2 and 1+3 share scores and ranks."""
    state = games.load(P).new_game(2)
    obs = state.observation(1)
    assert obs["teams"] == [[0, 2], [1, 3]]
    play_out(state, random.Random(2).choice)
    scores, ranks = state.scores(), state.ranking()
    assert scores[0] == scores[2] and scores[1] == scores[3]
    assert ranks[0] == ranks[2] and ranks[1] == ranks[3]
    assert sorted({ranks[0], ranks[1]}) == [1, 2]


def test_turned_card_is_the_dealers_last_card_and_trump():
    """MANIGLIA-4P-2, MANIGLIA-GEN-7: the dealer's final card is face up, gives trump,
    is public, and everyone knows he holds it until he plays it."""
    state = position(P, 2, {2: ["KB", "7B", "3C"]})
    assert state.record()["decks"][0][-1] == "3C"
    for seat in range(4):
        obs = state.observation(seat)
        assert obs["turned_card"] == "3C" and obs["trump"] == "C"
        assert obs["turned_card_held"] is True
        assert obs["history"][0]["turned_card"] == "3C"
    assert "3C" in state.observation(2)["hand"]
    while "play 3C" not in state.legal_actions() or state.current_player() != 2:
        state.apply(state.legal_actions()[-1 if state.current_player() == 2 else 0])
    state.apply("play 3C")
    assert state.observation(0)["turned_card_held"] is False


@pytest.mark.parametrize(("turned", "bonus"), [("AD", 4), ("7S", 5), ("JB", 1), ("5C", 0)])
def test_turn_up_bonus_at_once(turned, bonus):
    """MANIGLIA-4P-3, EX-MANI-5: the dealer's team scores the turned card's value at once."""
    state = position(P, 1, {1: [turned]})
    assert state.scores() == [0, bonus, 0, bonus]
    assert state.observation(0)["turn_up_bonus"] == bonus
    assert state.observation(0)["game_points"] == [0, bonus]


def test_dealers_right_leads_ten_tricks():
    """MANIGLIA-4P-4: the dealer's right leads the first of 10 tricks."""
    state = games.load(P).new_game(6, dealer=0)
    assert state.current_player() == 3 and state.observation(0)["leader"] == 3
    while state.observation(0)["deal"] == 1:
        state.apply(state.legal_actions()[0])
    result = state.observation(0)["history"][0]["result"]
    assert sum(result["tricks"]) == 10
    assert state.observation(0)["hand_sizes"] == [10, 10, 10, 10]


def test_custom_low_target_reached_by_a_turn_up_ends_the_game():
    """MANIGLIA-4P-6, MANIGLIA-4P-3: with a target of 4, a turned ace ends the game at once."""
    state = position(P, 1, {1: ["AD"]}, maniglia_target_partners=4)
    assert state.is_over() and state.current_player() is None
    assert state.legal_actions() == []
    assert state.ranking() == [2, 1, 2, 1]
    obs = state.observation(0)
    assert obs["phase"] == "over" and obs["game_points"] == [0, 4] and obs["trick"] == []
    assert obs["history"] == [
        {"deal": 1, "dealer": 1, "turned_card": "AD", "turn_up_bonus": 4, "actions": []}
    ]
    assert games.replay(state.record()).record() == state.record()
    state = position(P, 1, {1: ["AD"]}, maniglia_target_partners=5)
    assert not state.is_over()


def replay_scores(history, target, over):
    """Recompute MANIGLIA-4P-3/-5/-6 from the public per-deal history."""
    running = [0, 0]
    suppressed = 0
    for i, deal in enumerate(history):
        team = deal["dealer"] % 2
        value = POINTS[deal["turned_card"][0]]
        expect = value if running[team] <= 29 else 0
        suppressed += bool(value) and running[team] > 29
        assert deal["turn_up_bonus"] == expect
        running[team] += expect
        if "result" not in deal:
            assert i == len(history) - 1
            continue
        r = deal["result"]
        totals = [
            r["card_points"][0] + r["card_points"][2] + r["tricks"][0] + r["tricks"][2],
            r["card_points"][1] + r["card_points"][3] + r["tricks"][1] + r["tricks"][3],
        ]
        assert sum(totals) == 70 and r["team_totals"] == totals
        gained = [max(0, t - 35) for t in totals]
        assert r["game_points"] == gained and min(gained) == 0
        running = [running[0] + gained[0], running[1] + gained[1]]
        last = i == len(history) - 1
        assert (max(running) >= target or i + 1 == 100) == (last and over)
    return running, suppressed


def test_scores_follow_the_rules_over_whole_games():
    """MANIGLIA-4P-3, MANIGLIA-4P-5, MANIGLIA-4P-6, EX-MANI-5: turn-up only at 29 or
    fewer, (total - 35) for the team with 35+, the game ends at 35, ranked by team."""
    suppressed = 0
    for seed in range(40):
        state = games.load(P).new_game(seed)
        play_out(state, random.Random(seed).choice)
        history = state.observation(0)["history"]
        running, n = replay_scores(history, 35, True)
        suppressed += n
        assert state.scores() == [running[0], running[1], running[0], running[1]]
        assert max(running) >= 35 and min(running) < 35
        win = 0 if running[0] > running[1] else 1
        assert state.ranking() == [1 if s % 2 == win else 2 for s in range(4)]
    assert suppressed > 0  # some deal saw a dealer's team on 30+ with a pointed turn-up


def test_deal_cap_ranks_by_game_points():
    """LIMIT-4: 100 deals at most; then teams rank by game points."""
    state = games.load(P, maniglia_target_partners=10_000).new_game(3)
    play_out(state, random.Random(3).choice)
    obs = state.observation(0)
    assert obs["deal"] == 100 and len(obs["history"]) == 100 and state.is_over()
    gp = obs["game_points"]
    assert state.ranking() == [1 if gp[s % 2] >= gp[1 - s % 2] else 2 for s in range(4)]


def test_forfeit_loses_for_the_offenders_team():
    """FORFEIT-2: in maniglia-4-partners the offender's team loses, the other wins."""
    state = games.load(P).new_game(4)
    for _ in range(7):
        state.apply(state.legal_actions()[0])
    state.forfeit(2, "timeout")
    assert state.is_over() and state.ranking() == [2, 1, 2, 1]
    assert state.observation(1)["forfeit"] == {"seat": 2, "reason": "timeout"}
    again = games.replay(state.record())
    assert again.ranking() == [2, 1, 2, 1] and again.record() == state.record()


def test_explicit_full_deck_round_trip():
    """MANIGLIA-4P-2, MANIGLIA-GEN-4: the deck helper puts the dealer's card last."""
    deck = deck_for(P, 3, {3: ["2B", "7D"]})
    assert deck[-1] == "7D" and sorted(deck) == sorted(pack(P))
