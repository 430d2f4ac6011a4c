"""manni-basic: MANNI-BASIC-1..9, LIMIT-3, FORFEIT-2 and EX-MANNI-1..5."""

from __future__ import annotations

import random

import pytest

import games
from games.core import competition_ranks
from games.manni.rules import basic_game_over
from tests.games.manni.helpers import D, L, R, basic_deck, hand, new, play_out_trick

V = "manni-basic"


def keep_all(state):
    for _ in range(3):
        state.apply("keep")


def test_deal_pattern_gives_packets_of_four_to_left_right_dealer():
    """MANNI-BASIC-4, MANNI-BASIC-1: packets of 4 to L, R, D three times; 12 left form the Manni."""
    deck = basic_deck()
    state = new(V, deck)
    assert hand(state, L) == set(deck[0:4] + deck[12:16] + deck[24:28])
    assert hand(state, R) == set(deck[4:8] + deck[16:20] + deck[28:32])
    assert hand(state, D) == set(deck[8:12] + deck[20:24] + deck[32:36])
    assert state.observation(L)["manni_size"] == 12


def test_pack_has_no_twos_and_ranks_ace_high():
    """MANNI-BASIC-2: 48 cards without the 2s; A K Q ... 3 with the ace highest."""
    with_two = basic_deck()
    with_two[0] = "2S"
    with pytest.raises(ValueError, match="2S"):
        new(V, with_two)
    state = new(V, basic_deck(l=["KS"], r=["AS"], d=["3S"]))
    keep_all(state)
    play_out_trick(state, "KS", "AS", "3S")
    assert state.observation(0)["tricks_won"][R] == 1


def test_trump_follows_the_deal_number_and_is_public_at_once():
    """MANNI-BASIC-3, EX-MANNI-3: H, S, D, C, then again; deal 6 spades, deal 8 clubs."""
    state = games.load(V, manni_tie="play-on").new_game(11)
    rnd = random.Random(1)
    seen = {}
    while not state.is_over() and state.deal <= 8:
        obs = state.observation(0)
        seen.setdefault(obs["deal"], obs["trump"])  # known before the first decision
        state.apply(rnd.choice(state.legal_actions()))
    expected = {1: "H", 2: "S", 3: "D", 4: "C", 5: "H", 6: "S", 7: "D", 8: "C"}
    assert {k: v for k, v in seen.items() if k <= 8} == {k: expected[k] for k in seen if k <= 8}
    assert len(seen) >= 6


def test_manni_choice_left_then_right_then_dealer():
    """MANNI-BASIC-5, MANNI-BASIC-9, ACTION-2: each answers keep or take, L first."""
    state = new(V, basic_deck())
    assert state.current_player() == L and state.legal_actions() == ["keep", "take"]
    state.apply("keep")
    assert state.current_player() == R
    state.apply("keep")
    assert state.current_player() == D
    state.apply("keep")
    assert state.observation(L)["phase"] == "play" and state.current_player() == L
    assert state.observation(L)["manni_taker"] is None


def test_right_takes_the_manni_dealer_not_asked():
    """EX-MANNI-4, MANNI-BASIC-5: R takes; D is not asked; R's 12 cards leave play; L leads."""
    deck = basic_deck()
    state = new(V, deck)
    old = hand(state, R)
    state.apply("keep")
    state.apply("take")
    assert hand(state, R) == set(deck[36:48])
    assert set(state.observation(R)["out_of_play"]) == old
    assert state.observation(L)["out_of_play"] == []
    assert state.observation(D)["manni_taker"] == R
    assert state.current_player() == L
    assert all(a.startswith("play ") for a in state.legal_actions())


def test_trump_wins_against_a_higher_card_of_the_led_suit():
    """EX-MANNI-1, COMMON-5: deal 1, trump H: L leads KS, R (no spades) 3H, D AS: R wins."""
    no_spades = ["3H", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD", "AD"]
    state = new(V, basic_deck(l=["KS"], r=no_spades, d=["AS"]))
    keep_all(state)
    play_out_trick(state, "KS", "3H", "AS")
    assert state.observation(0)["tricks_won"] == [0, 0, 1]
    assert state.current_player() == R  # the winner leads next


def test_must_follow_suit_but_need_not_trump_or_beat():
    """MANNI-BASIC-6, EX-MANNI-2, ACTION-1: follow if able, else any card; off-suit never wins."""
    state = new(V, basic_deck(l=["9D"], r=["4D", "AS", "QD"], d=["AC"]))
    keep_all(state)
    state.apply("play 9D")
    assert state.legal_actions() == ["play 4D", "play QD"]
    with pytest.raises(games.IllegalAction):
        state.apply("play AS")
    state.apply("play QD")
    d_cards = hand(state, D)
    if not any(c.endswith("D") for c in d_cards):
        assert len(state.legal_actions()) == len(d_cards)


def test_deal_score_is_tricks_minus_four_and_totals_sum_to_zero():
    """MANNI-BASIC-7: deal score t - 4, added to totals that always sum to 0."""
    state = new(V, basic_deck())
    rnd = random.Random(4)
    while True:
        obs = state.observation(0)
        if sum(obs["tricks_won"]) == 11 and len(obs["trick"]) == 2:
            break
        state.apply(rnd.choice(state.legal_actions()))
    before = obs["tricks_won"]
    state.apply(state.legal_actions()[0])  # the last card of the deal
    assert state.deal == 2
    extra = [s - (t - 4) for s, t in zip(state.scores(), before, strict=True)]
    assert sorted(extra) == [0, 0, 1]  # the last trick's winner
    assert sum(state.scores()) == 0


def test_game_over_at_ten_and_tie_rule():
    """MANNI-BASIC-8, EX-MANNI-5, COMMON-7: end at >= 10; ties for first share or play on."""
    totals = [9 + 0, 8 + 2, -17 - 2]  # tricks 4, 6, 2
    assert totals == [9, 10, -19] and basic_game_over(totals, "share")
    assert competition_ranks(totals) == [2, 1, 3]
    tied = [8 + 2, 9 + 1, -17 - 3]  # tricks 6, 5, 1
    assert tied == [10, 10, -20]
    assert basic_game_over(tied, "share") and competition_ranks(tied) == [1, 1, 3]
    assert not basic_game_over(tied, "play-on")
    assert not basic_game_over([9, 0, -9], "share")


def test_game_ends_when_a_total_reaches_ten():
    """MANNI-BASIC-8: a random game stops after the first deal with a total >= 10."""
    state = games.load(V).new_game(2)
    rnd = random.Random(2)
    while not state.is_over():
        assert max(state.scores()) < 10
        state.apply(rnd.choice(state.legal_actions()))
    assert max(state.scores()) >= 10
    assert state.ranking() == competition_ranks(state.scores())


def test_deal_cap_ends_the_game():
    """LIMIT-3: a game stops after deal 100 whatever the totals."""
    state = games.load(V).new_game(3)
    state.deal = 100  # white-box: jump to the last allowed deal
    rnd = random.Random(3)
    while not state.is_over():
        state.apply(rnd.choice(state.legal_actions()))
    assert state.deal == 100


def test_forfeit_ranks_offender_last_and_discards_the_deal():
    """FORFEIT-2: the offender is last alone; others by totals after the last complete deal."""
    state = games.load(V).new_game(9)
    rnd = random.Random(9)
    while state.deal < 3:
        state.apply(rnd.choice(state.legal_actions()))
    for _ in range(10):
        state.apply(rnd.choice(state.legal_actions()))
    totals = state.scores()
    offender = state.current_player()
    state.forfeit(offender, "timeout")
    assert state.is_over() and state.scores() == totals
    ranks = state.ranking()
    assert ranks[offender] == 3
    others = [s for s in range(3) if s != offender]
    assert [ranks[s] for s in others] == competition_ranks([totals[s] for s in others])
    replayed = games.replay(state.record())
    assert replayed.ranking() == ranks
    assert state.record()["forfeit"] == {"seat": offender, "reason": "timeout"}
