"""manni-hornafjordur: HORN-1..10 and EX-HORN-1..5."""

from __future__ import annotations

import random

import pytest

import games
from games.cards import FRENCH_INDEX
from games.core import competition_ranks
from games.manni.rules import GRAND, NULLO, SUIT, horn_contract, horn_tally, trick_winner
from tests.games.manni.helpers import D, L, R, hand, horn_deck, new, play_out_trick

V = "manni-hornafjordur"


def c(name: str) -> int:
    return FRENCH_INDEX[name]


def no_exchanges(state):
    for _ in range(3):
        state.apply("draw")


def test_full_pack_with_twos_as_ordinary_cards():
    """HORN-1, HORN-2: three players, 52 cards; the 2s are ordinary cards."""
    state = new(V, horn_deck(l=["2S"], r=["3S"], d=["4S"], contract="9H"))
    assert sum(state.observation(0)["hand_sizes"]) == 36
    no_exchanges(state)
    play_out_trick(state, "2S", "3S", "4S")
    assert state.observation(0)["tricks_won"][D] == 1
    with pytest.raises(ValueError, match="51 cards"):
        games.load(V).new_game(1, decks=[horn_deck()[:-1]])


def test_contract_card_bands():
    """HORN-4, EX-HORN-1: 2-5 Nullo, 6-9 suit, T-A no-trump; the alt table shifts the bands."""
    assert horn_contract(c("4D")) == (NULLO, -1)
    assert horn_contract(c("2S")) == (NULLO, -1)
    assert horn_contract(c("7C")) == (SUIT, 3)
    assert horn_contract(c("9H")) == (SUIT, 1)
    assert horn_contract(c("TS")) == (GRAND, -1)
    assert horn_contract(c("AH")) == (GRAND, -1)
    assert horn_contract(c("6S"), "alt") == (NULLO, -1)
    assert horn_contract(c("TS"), "alt") == (SUIT, 0)
    assert horn_contract(c("JS"), "alt") == (GRAND, -1)


def test_contract_card_is_the_last_card_public_and_dealt_to_the_dealer():
    """HORN-4, HORN-5: the deck's last card sets the contract, is shown, and goes to D."""
    state = new(V, horn_deck(contract="7C"))
    for seat in range(3):
        obs = state.observation(seat)
        assert obs["contract_card"] == "7C" and obs["contract"] == "suit" and obs["trump"] == "C"
        assert obs["contract_card_holder"] == D
    assert "7C" in hand(state, D)
    alt = new(V, horn_deck(contract="TS"), horn_cut_table="alt")
    assert alt.observation(0)["contract"] == "suit" and alt.observation(0)["trump"] == "S"


def test_deal_pattern_manni_first_then_three_each():
    """HORN-5: 4 to the Manni, 3 to L, R, D, four times; the Manni is drawn from its top."""
    deck = horn_deck()
    state = new(V, deck)
    cycles = [deck[13 * i : 13 * i + 13] for i in range(4)]
    assert hand(state, L) == {x for cyc in cycles for x in cyc[4:7]}
    assert hand(state, R) == {x for cyc in cycles for x in cyc[7:10]}
    assert hand(state, D) == {x for cyc in cycles for x in cyc[10:13]}
    state.apply(f"discard {sorted(hand(state, L))[0]}")
    state.apply("draw")
    assert deck[42] in hand(state, L)  # the last Manni card dealt is drawn first


def test_exchange_limits_follow_what_is_left():
    """HORN-6, EX-HORN-2, ACTION-3: L <= 7, R <= 5, D <= min(12, Manni left)."""
    for l_n, r_n, d_limit in ((7, 5, 4), (3, 0, 12), (2, 5, 9)):
        state = new(V, horn_deck())
        for seat, n in ((L, l_n), (R, r_n)):
            for _ in range(n):
                state.apply(next(a for a in state.legal_actions() if a.startswith("discard")))
            if n == (7 if seat == L else 5):
                assert state.legal_actions() == ["draw"]
            state.apply("draw")
        assert state.current_player() == D
        assert state.observation(D)["exchange_limit"] == d_limit
        for _ in range(d_limit):
            state.apply(next(a for a in state.legal_actions() if a.startswith("discard")))
        assert state.legal_actions() == ["draw"]


def test_exchange_discards_first_then_draws_hidden_from_others():
    """HORN-6, HORN-10, COMMON-6: discards leave play face down; only the count is public."""
    state = new(V, horn_deck(manni=["AS", "KS", "QS"]))
    first, second = sorted(hand(state, L))[:2]
    state.apply(f"discard {first}")
    state.apply(f"discard {second}")
    assert "draw" in state.legal_actions()
    state.apply("draw")
    assert {"AS", "KS"} <= hand(state, L) and "QS" not in hand(state, L)
    assert state.observation(L)["out_of_play"] == sorted([first, second], key=FRENCH_INDEX.get)
    other = state.observation(R)
    assert other["exchanged"] == [2] and other["manni_size"] == 14
    assert other["history"][0]["actions"][:2] == ["discard", "discard"]
    assert state.observation(L)["history"][0]["actions"][0] == f"discard {first}"


def test_nullo_ranks_the_ace_lowest():
    """HORN-3, EX-HORN-3: in Nullo 5S, AS, 2S: the leader wins; in no-trump AS wins."""
    nullo, grand = (-1, True), (-1, False)
    cards = [c("5S"), c("AS"), c("2S")]
    assert trick_winner(cards, *nullo) == 0
    assert trick_winner(cards, *grand) == 1
    assert trick_winner([c("5S"), c("AS"), c("2H")], 1) == 2  # hearts trump, void in spades
    state = new(V, horn_deck(l=["5S"], r=["AS"], d=["2S"], contract="4D"))
    no_exchanges(state)
    play_out_trick(state, "5S", "AS", "2S")
    assert state.observation(0)["tricks_won"][L] == 1


def test_play_left_leads_and_must_follow():
    """HORN-7: L leads the first trick; follow suit if able, otherwise any card."""
    state = new(V, horn_deck(l=["5S"], r=["AS", "KD"], contract="9H"))
    no_exchanges(state)
    assert state.current_player() == L
    state.apply("play 5S")
    assert "play KD" not in state.legal_actions() and "play AS" in state.legal_actions()


def test_plus_and_minus_tallies():
    """HORN-8, EX-HORN-4: Nullo 2/4/6 gives +2 plus and +2 minus; suit 3/4/5 the reverse."""
    assert [horn_tally(NULLO, t) for t in (2, 4, 6)] == [(2, 0), (0, 0), (0, 2)]
    assert [horn_tally(SUIT, t) for t in (3, 4, 5)] == [(0, 1), (0, 0), (1, 0)]
    assert horn_tally(GRAND, 12) == (8, 0)


def test_end_at_ten_plus_points_final_is_plus_minus_minus():
    """HORN-9, EX-HORN-5: P1 reaches 10 plus; finals 4, 7, -11 rank P2, P1, P3."""
    plus, minus = [9, 8, 5], [6, 2, 14]
    for seat, t in enumerate((5, 5, 2)):
        p, m = horn_tally(SUIT, t)
        plus[seat] += p
        minus[seat] += m
    assert plus == [10, 9, 5] and minus == [6, 2, 16]
    finals = [p - m for p, m in zip(plus, minus, strict=True)]
    assert finals == [4, 7, -11] and competition_ranks(finals) == [2, 1, 3]


def test_random_game_ends_on_plus_points_and_scores_are_plus_minus_minus():
    """HORN-9, LIMIT-3: the game ends after the first deal with someone at >= 10 plus."""
    state = games.load(V).new_game(21)
    rnd = random.Random(21)
    while not state.is_over():
        assert max(state.observation(0)["plus"]) < 10
        state.apply(rnd.choice(state.legal_actions()))
    obs = state.observation(0)
    assert max(obs["plus"]) >= 10 or state.deal == 100
    assert state.scores() == [p - m for p, m in zip(obs["plus"], obs["minus"], strict=True)]
