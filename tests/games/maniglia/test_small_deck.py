"""maniglia-3/-4/-5 with a small deck (``maniglia.ranks``; not a rule of the real game)."""

from __future__ import annotations

import copy
import random

import pytest

import games
from games.cards import LATIN_INDEX
from games.maniglia.rules import POINTS, deal_hands
from tests.games.maniglia.deals import LATIN, PLAYERS

AUCTION = ("maniglia-3", "maniglia-4", "maniglia-5")
ALLOWED = {"maniglia-3": (3, 6, 9), "maniglia-4": tuple(range(1, 11)), "maniglia-5": (5, 10)}


def small_pack(ranks: int) -> set[str]:
    """The ``ranks`` highest ranks of each suit (Maniglia order 2 3 4 5 6 J N K A 7)."""
    return {c for c in LATIN if c[0] in "23456JNKA7"[10 - ranks :]}


def points(cards) -> int:
    return sum(POINTS[LATIN_INDEX[c]] for c in cards)


def test_small_pack_is_the_highest_ranks_and_its_value():
    """MANIGLIA-GEN-1, MANIGLIA-GEN-2: 3 ranks keep 7 A K (12 points a suit);
    5 or more keep all 60 points; 9 is maniglia-3's real pack, 10 the whole 40."""
    assert small_pack(3) == {r + s for s in "DCSB" for r in "7AK"}
    assert [points(small_pack(r)) for r in (1, 2, 3, 4, 5, 9, 10)] == [20, 36, 48, 56, 60, 60, 60]
    assert small_pack(9) == {c for c in LATIN if c[0] != "2"}


@pytest.mark.parametrize("variant", AUCTION)
def test_every_allowed_small_deck_deals_equal_hands_of_its_cards(variant):
    """MANIGLIA-GEN-4: every card of the small pack is dealt, 4N / n each."""
    n = PLAYERS[variant]
    for ranks in ALLOWED[variant]:
        state = games.load(variant, maniglia_ranks=ranks).new_game(ranks)
        deck = state.record()["decks"][0]
        assert set(deck) == small_pack(ranks) and len(deck) == 4 * ranks
        hands = [state.observation(s)["hand"] for s in range(n)]
        assert [len(h) for h in hands] == [4 * ranks // n] * n
        assert set().union(*hands) == small_pack(ranks)


def test_small_hands_come_in_packets_that_divide_them():
    """MANIGLIA-GEN-4: 6 cards each (4 players) in packets of 3 from the
    dealer's right, dealer last; 4 each (3 players) in one packet of 4."""
    deck = list(range(24))
    hands = deal_hands(deck, dealer=0, players=4)  # right of 0 is 3, then 2, 1, 0
    expect = {3: [0, 1, 2, 12, 13, 14], 2: [3, 4, 5, 15, 16, 17], 1: [6, 7, 8, 18, 19, 20]}
    expect[0] = [9, 10, 11, 21, 22, 23]
    assert {s: sorted(c for c in deck if hands[s] >> c & 1) for s in range(4)} == expect
    hands = deal_hands(list(range(12)), dealer=1, players=3)
    assert [h.bit_count() for h in hands] == [4, 4, 4]
    assert hands[0] == 0b1111  # the dealer's right (seat 0) gets the first packet


def test_max_bid_and_target_follow_the_value_of_a_small_deal():
    """MANIGLIA-AUC-2, MANIGLIA-AUC-7: MAX = the small pack's points + its
    tricks (48 + 3 = 51 for 3 ranks, 4 players); the target's default follows, a given
    target stays."""
    game = games.load("maniglia-4", maniglia_ranks=3)
    assert game.options["maniglia.target"] == 51
    assert game.canonical() == "maniglia-4(maniglia.ranks=3,maniglia.target=51)"
    state = game.new_game(4)
    obs = state.observation(state.current_player())
    assert (obs["min_bid"], obs["max_bid"], obs["target"]) == (20, 51, 51)
    assert state.legal_actions() == [f"bid {b}" for b in range(20, 52)] + ["pass"]
    state.apply("bid 51")  # MAX ends the auction at once
    assert state.observation(0)["phase"] == "trump"
    given = games.load("maniglia-4", maniglia_ranks=3, maniglia_target=200)
    assert given.options["maniglia.target"] == 200
    assert games.load("maniglia-3", maniglia_ranks=3).new_game(0).observation(0)["max_bid"] == 52
    assert games.load("maniglia-4", maniglia_ranks=1).new_game(0).observation(0)["max_bid"] == 21


@pytest.mark.parametrize(
    ("variant", "bad", "allowed"),
    [
        ("maniglia-3", 4, "3, 6, 9"),
        ("maniglia-3", 10, "3, 6, 9"),
        ("maniglia-4", 0, "1, 2, 3, 4, 5, 6, 7, 8, 9, 10"),
        ("maniglia-4", 11, "1, 2, 3, 4, 5, 6, 7, 8, 9, 10"),
        ("maniglia-5", 4, "5, 10"),
        ("maniglia-5", "5", "5, 10"),
    ],
)
def test_a_bad_ranks_value_names_the_option_and_the_allowed_values(variant, bad, allowed):
    """COMMON-8: only counts that deal equal hands are allowed."""
    with pytest.raises(ValueError, match=rf"option maniglia\.ranks must be one of {allowed}, "):
        games.load(variant, maniglia_ranks=bad)


def test_the_partnership_game_has_no_small_deck():
    with pytest.raises(ValueError, match="unknown option 'maniglia.ranks'"):
        games.load("maniglia-4-partners", maniglia_ranks=5)


@pytest.mark.parametrize(("variant", "ranks"), [("maniglia-3", 3), ("maniglia-4", 2)])
def test_random_small_games_score_the_whole_small_deal(variant, ranks):
    """MANIGLIA-GEN-2, MANIGLIA-AUC-6: in many random games each played
    deal's card points add up to the small pack's points and its tricks to the hand size,
    so declarer + others = MAX; the bid scored is never above MAX; the game ends at the
    derived target."""
    game = games.load(variant, maniglia_ranks=ranks)
    n = PLAYERS[variant]
    value = points(small_pack(ranks)) + 4 * ranks // n
    rng = random.Random(ranks)
    played = 0
    for seed in range(80):
        state = game.new_game(seed)
        state.playout(rng)
        for deal in state.observation(0)["history"]:
            result = deal["result"]
            if result["thrown_in"]:
                continue
            assert sum(result["card_points"]) == points(small_pack(ranks))
            assert sum(result["tricks"]) == 4 * ranks // n
            assert 20 <= result["bid"] <= value
            assert sorted(set(result["points"])) in ([0, result["bid"]], [result["bid"]])
            played += 1
        assert max(state.scores()) >= value or state.deal_number() == 100
    assert played >= 80


def test_a_small_deck_game_copies_compiled_or_pure():
    """Wrappers deep-copy states holding the game (OpenSpiel's clone): the options' derived
    target must copy too, also from the compiled build (build_engines.py)."""
    game = copy.deepcopy(games.load("maniglia-4", maniglia_ranks=3))
    assert game.options["maniglia.target"] == 51
    assert copy.deepcopy(game.new_game(1)).observation(0)["max_bid"] == 51
