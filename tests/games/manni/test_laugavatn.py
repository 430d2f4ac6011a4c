"""laugavatnsmanni: LAUG-1..13, LIMIT-5 and EX-LAUG-1..5."""

from __future__ import annotations

import random

import pytest

import games
from games.manni.rules import LAUG_RANK, laug_deal_scores
from tests.games.manni.helpers import D, L, R, hand, laug_deck, new, play_out_trick

V = "laugavatnsmanni"


def finish_deal(state, rnd):
    deal = state.deal
    while state.deal == deal and not state.is_over():
        legal = state.legal_actions()
        state.apply("draw" if "draw" in legal else rnd.choice(legal))


def quiet_deal(state, contract, rnd):
    """The announcer names ``contract``; everyone else passes; cards played at random."""
    state.apply(f"announce {contract}")
    while state.legal_actions()[-1] == "pass":
        state.apply("pass")
    finish_deal(state, rnd)


def test_deal_pattern_sixteen_each_and_a_four_card_manni():
    """LAUG-1, LAUG-2, LAUG-3: 52 cards, 4-card packets to L, R, D; the Manni top is dealt last."""
    deck = laug_deck(manni=["AS", "KS", "QS", "JS"])
    state = new(V, deck)
    assert hand(state, L) == {x for i in range(4) for x in deck[12 * i : 12 * i + 4]}
    assert hand(state, D) == {x for i in range(4) for x in deck[12 * i + 8 : 12 * i + 12]}
    assert deck[48:] == ["JS", "QS", "KS", "AS"]
    state.apply("announce hearts")
    state.apply("pass")
    state.apply("pass")
    assert state.current_player() == L  # the announcer declares and exchanges
    state.apply(f"discard {sorted(hand(state, L) - {'AS'})[0]}")
    state.apply("draw")
    assert "AS" in hand(state, L)


def test_contracts_and_their_great_ranks():
    """LAUG-4, ACTION-4: six contracts; Grand > Hearts > Spades > Diamonds > Clubs; Nullo none."""
    state = new(V, laug_deck())
    assert state.legal_actions() == [
        f"announce {c}" for c in ("nullo", "grand", "hearts", "spades", "diamonds", "clubs")
    ]
    assert LAUG_RANK[1] > LAUG_RANK[2] > LAUG_RANK[3] > LAUG_RANK[4] > LAUG_RANK[5] > LAUG_RANK[0]


def test_each_player_announces_each_contract_once():
    """LAUG-5, LAUG-11, LIMIT-5, LAUG-13: 18 deals; used contracts drop out; the sixth is forced."""
    state = games.load(V).new_game(4, dealer=0)
    rnd = random.Random(4)
    announced = {0: [], 1: [], 2: []}
    while not state.is_over():
        seat = state.current_player()
        options = state.legal_actions()
        assert len(options) == 6 - len(announced[seat])
        choice = rnd.choice(options)
        announced[seat].append(choice)
        state.apply(choice)
        while state.legal_actions() and state.legal_actions()[-1] == "pass":
            state.apply("pass")
        finish_deal(state, rnd)
    assert state.deal == 18
    assert all(sorted(v) == sorted(set(v)) and len(v) == 6 for v in announced.values())


def test_great_call_sequence_worked_example():
    """EX-LAUG-4, LAUG-6, LAUG-7, LAUG-12: B calls Diamonds, A passes, D overcalls Hearts."""
    state = games.load(V).new_game(8, dealer=0)
    rnd = random.Random(8)
    for contract in ("nullo", "hearts", "clubs", "grand", "nullo", "diamonds"):
        quiet_deal(state, contract, rnd)
    a, b, d = L, R, D
    assert state.deal == 7 and state.current_player() == a
    state.apply("announce spades")
    assert state.current_player() == b
    assert state.legal_actions() == [
        "great grand",
        "great spades",
        "great diamonds",
        "great clubs",
        "pass",
    ]
    state.apply("great diamonds")
    assert state.current_player() == a
    assert state.legal_actions() == [
        "great hearts",
        "great spades",
        "great diamonds",
        "great clubs",
        "pass",
    ]
    state.apply("pass")
    assert state.current_player() == d
    assert state.legal_actions() == ["great grand", "great hearts", "great spades", "pass"]
    with pytest.raises(games.IllegalAction):
        state.apply("great clubs")  # lower than Diamonds
    state.apply("great hearts")
    obs = state.observation(a)
    assert obs["declarer"] == d and obs["contract"] == "hearts" and obs["great"] is True
    assert obs["great_available"] == [False, True, False]
    assert "spades" not in obs["unused_contracts"][a]
    assert state.current_player() == d  # D exchanges
    state.apply("draw")
    assert state.current_player() == a  # D's left leads


def test_announcer_keeps_after_the_dealer_calls():
    """LAUG-7: B passes, D calls great, A keeps with a great call and declares."""
    state = new(V, laug_deck())
    state.apply("announce clubs")
    state.apply("pass")
    state.apply("great clubs")  # D: any eligible type
    assert state.current_player() == L
    state.apply("great clubs")  # A keeps in the type he just announced
    obs = state.observation(0)
    assert obs["declarer"] == L and obs["great"] and obs["contract"] == "clubs"
    assert obs["great_available"] == [False, False, True]


def test_first_caller_declares_when_nobody_keeps_or_overcalls():
    """LAUG-7: B calls, A and D pass: B declares his great call."""
    state = new(V, laug_deck())
    state.apply("announce grand")
    state.apply("great clubs")
    state.apply("pass")
    state.apply("pass")
    obs = state.observation(0)
    assert obs["declarer"] == R and obs["contract"] == "clubs" and obs["great"]


def test_everybody_passes_announcer_plays_his_contract():
    """LAUG-7: B and D pass: A plays the contract he announced."""
    state = new(V, laug_deck())
    state.apply("announce diamonds")
    state.apply("pass")
    state.apply("pass")
    obs = state.observation(0)
    assert obs["declarer"] == L and obs["contract"] == "diamonds" and not obs["great"]


def test_nullo_has_no_great_calls():
    """EX-LAUG-5, LAUG-8: after Nullo nobody calls; A may exchange up to 4; B leads."""
    state = new(V, laug_deck())
    state.apply("announce nullo")
    assert state.current_player() == L
    for _ in range(4):
        state.apply(next(x for x in state.legal_actions() if x.startswith("discard")))
    assert state.legal_actions() == ["draw"]
    state.apply("draw")
    assert state.current_player() == R and state.observation(R)["trump"] is None


def test_skat_exchange_takes_all_four_then_discards_four():
    """LAUG-8, ACTION-3: with laug.exchange=skat the declarer adds the Manni and discards 4."""
    deck = laug_deck(manni=["AS", "KS", "QS", "JS"])
    state = new(V, deck, laug_exchange="skat")
    state.apply("announce nullo")
    assert {"AS", "KS", "QS", "JS"} <= hand(state, L) and len(hand(state, L)) == 20
    assert "draw" not in state.legal_actions()
    for _ in range(4):
        state.apply(state.legal_actions()[0])
    assert len(hand(state, L)) == 16 and state.observation(0)["phase"] == "play"


def test_first_lead_option():
    """LAUG-9: the declarer's left leads by default; dealer-left on request."""
    state = new(V, laug_deck())
    state.apply("announce hearts")
    state.apply("great grand")  # B = R calls and declares
    state.apply("pass")
    state.apply("pass")
    state.apply("draw")
    assert state.current_player() == D  # R's left
    other = new(V, laug_deck(), laug_first_lead="dealer-left")
    other.apply("announce hearts")
    other.apply("great grand")
    other.apply("pass")
    other.apply("pass")
    other.apply("draw")
    assert other.current_player() == L


def test_nullo_ace_low_option():
    """LAUG-2: the ace is high in Nullo unless laug.nullo_ace_low is set."""
    for ace_low, winner in ((False, R), (True, L)):
        state = new(V, laug_deck(l=["5S"], r=["AS"], d=["2S"]), laug_nullo_ace_low=ace_low)
        state.apply("announce nullo")
        state.apply("draw")
        assert state.current_player() == R  # the declarer L's left leads
        play_out_trick(state, "AS", "2S", "5S")
        assert state.observation(0)["tricks_won"][winner] == 1


def test_scoring_cases():
    """LAUG-10, EX-LAUG-1, EX-LAUG-2, EX-LAUG-3: every case sums to zero."""
    assert laug_deal_scores([9, 4, 3], 0, 2, False) == [1, 0, -1]
    assert laug_deal_scores([3, 6, 7], 0, 0, False) == [1, 0, -1]
    assert laug_deal_scores([15, 1, 0], 0, 2, True) == [4, -2, -2]
    assert laug_deal_scores([16, 0, 0], 0, 1, True) == [8, -4, -4]
    assert laug_deal_scores([14, 2, 0], 0, 1, True) == [0, 1, -1]
    assert laug_deal_scores([12, 3, 1], 0, 1, True) == [-2, 2, 0]


def test_stop_at_option_ends_early():
    """LAUG-11: laug.stop_at ends the game after the first deal where a total reaches N."""
    state = games.load(V, laug_stop_at=3).new_game(6)
    rnd = random.Random(6)
    while not state.is_over():
        assert max(state.scores()) < 3
        state.apply(rnd.choice(state.legal_actions()))
    assert max(state.scores()) >= 3 and state.deal < 18
    with pytest.raises(ValueError, match="laug.stop_at"):
        games.load(V, laug_stop_at=0)
