"""laugavatnsmanni: LAUG-1..13, LIMIT-5 and EX-LAUG-1..6."""

from __future__ import annotations

import json
import random

import pytest

import games
from games.manni.rules import LAUG_CONTRACTS, LAUG_RANK, laug_deal_scores
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
    assert obs["trump"] == "H"  # known before the exchange
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


def test_first_passer_still_overcalls_the_dealer_worked_example():
    """EX-LAUG-6, LAUG-7 step 3, LAUG-12: B passes, D calls Diamonds, A passes, B calls Spades."""
    state = new(V, laug_deck())
    a, b, d = L, R, D
    state.apply("announce clubs")
    state.apply("pass")  # B
    state.apply("great diamonds")  # D
    state.apply("pass")  # A does not keep
    assert state.current_player() == b
    assert state.legal_actions() == ["great grand", "great hearts", "great spades", "pass"]
    state.apply("great spades")
    obs = state.observation(a)
    assert obs["declarer"] == b and obs["contract"] == "spades" and obs["great"] is True
    assert obs["great_calls"] == [[d, "diamonds"], [b, "spades"]]
    assert obs["great_available"] == [False, True, False]  # D's and B's gone, A's remains
    assert obs["unused_contracts"][b] == list(LAUG_CONTRACTS)  # great calls use no type
    assert state.current_player() == b and obs["phase"] == "exchange"  # nobody else is asked
    state.apply("draw")
    assert state.current_player() == d  # B's left leads
    assert laug_deal_scores([14, 1, 1], 0, 3, True) == [0, 0, 0]  # 14 tricks needed


def test_nothing_ranks_above_great_grand_so_b_is_not_asked():
    """EX-LAUG-6, LAUG-4, LAUG-7 step 3: D calls great Grand, A passes: D declares at once."""
    state = new(V, laug_deck())
    state.apply("announce clubs")
    state.apply("pass")
    state.apply("great grand")
    state.apply("pass")
    obs = state.observation(R)
    assert obs["phase"] == "exchange" and state.current_player() == D
    assert obs["declarer"] == D and obs["contract"] == "grand" and obs["great"] is True
    assert obs["history"][-1]["seats"] == [L, R, D, L]  # B answered once only
    assert obs["great_available"] == [False, True, True]


def test_first_passer_passes_again_and_the_dealer_declares():
    """LAUG-7 step 3: B may still overcall D but passes: D declares his great call."""
    state = new(V, laug_deck())
    for label in ("announce hearts", "pass", "great clubs", "pass", "pass"):
        state.apply(label)
    obs = state.observation(L)
    assert obs["declarer"] == D and obs["contract"] == "clubs" and obs["great"] is True
    assert obs["great_calls"] == [[D, "clubs"]]
    assert obs["great_available"] == [False, True, True]  # passing twice keeps B's call
    assert state.current_player() == D


def fingerprint(state) -> str:
    views = [state.observation(seat) for seat in range(3)]
    return json.dumps([state.record(), views, state.legal_actions()], sort_keys=True)


def refused(state, label: str) -> None:
    """``label`` raises IllegalAction and leaves every view of the state as it was."""
    before = fingerprint(state)
    with pytest.raises(games.IllegalAction, match=label):
        state.apply(label)
    assert fingerprint(state) == before


def test_late_overcall_that_does_not_outrank_the_dealer_is_refused():
    """LAUG-7 step 3, FORFEIT-1: B's call must rank above D's, an equal or lower one is illegal."""
    state = new(V, laug_deck())
    for label in ("announce clubs", "pass", "great spades", "pass"):
        state.apply(label)
    assert state.current_player() == R
    for label in ("great spades", "great diamonds", "great clubs"):
        refused(state, label)
    state.apply("great hearts")
    assert state.observation(0)["declarer"] == R


def test_late_overcall_in_a_type_b_announced_earlier_is_refused():
    """LAUG-6, LAUG-7 step 3, FORFEIT-1: B may not name a type he announced in an earlier deal."""
    state = games.load(V).new_game(8, dealer=0)
    rnd = random.Random(8)
    for contract in ("nullo", "hearts", "clubs", "grand", "nullo", "diamonds"):
        quiet_deal(state, contract, rnd)
    a, b, d = L, R, D  # deal 7: B announced Nullo and Hearts, D Clubs and Diamonds
    state.apply("announce clubs")
    state.apply("pass")
    state.apply("great spades")
    state.apply("pass")
    assert state.current_player() == b
    assert state.legal_actions() == ["great grand", "pass"]
    refused(state, "great hearts")
    state.apply("pass")
    assert state.observation(a)["declarer"] == d


def test_late_overcall_by_a_b_whose_great_call_is_used_up_is_refused():
    """LAUG-6, LAUG-7 step 3, FORFEIT-1: B called in an earlier deal: not asked, may not call."""
    state = games.load(V).new_game(3, dealer=0)
    rnd = random.Random(3)
    state.apply("announce grand")
    state.apply("great clubs")  # seat 2 (B of deal 1) uses his great call
    state.apply("pass")
    state.apply("pass")
    finish_deal(state, rnd)
    quiet_deal(state, "nullo", rnd)
    quiet_deal(state, "nullo", rnd)
    assert state.deal == 4 and state.dealer == D  # seat 2 is B again
    state.apply("announce clubs")
    assert state.legal_actions() == ["pass"]
    state.apply("pass")
    state.apply("great diamonds")
    state.apply("pass")
    obs = state.observation(R)
    assert obs["great_available"][R] is False
    assert state.current_player() == D and obs["phase"] == "exchange"
    for label in ("great grand", "great hearts", "pass"):
        refused(state, label)
    assert state.observation(0)["declarer"] == D


RANK = {"grand": 5, "hearts": 4, "spades": 3, "diamonds": 2, "clubs": 1}


def great_types(obs: dict, seat: int, above: int) -> list[str]:
    """LAUG-6 from the public record: types ``seat`` may still call, ranked above ``above``."""
    if not obs["great_available"][seat]:
        return []
    names = set(obs["unused_contracts"][seat])
    if seat == obs["announcer"]:
        names.add(obs["announced"])  # LAUG-7: A may keep in the type he just named
    return [t for t in RANK if t in names and RANK[t] > above]


def great_turn(obs: dict) -> tuple[int, int] | None:
    """LAUG-7 restated: who answers next and the rank his call must beat, or None when done."""
    a, b, d = obs["announcer"], (obs["dealer"] + 2) % 3, obs["dealer"]
    said = obs["history"][-1]["actions"][1:]  # the answers after the announcement
    shape = ["p" if x == "pass" else "g" for x in said]
    rank = [RANK.get(x.removeprefix("great "), 0) for x in said]
    turns = {"": (b, 0), "g": (a, 0), "p": (d, 0), "pg": (a, 0)}
    if "".join(shape) in turns:
        return turns["".join(shape)]
    if shape == ["g", "p"]:
        return d, rank[0]
    if shape == ["p", "g", "p"] and great_types(obs, b, rank[1]):
        return b, rank[1]
    return None


def test_great_call_answers_follow_a_restatement_of_the_sequence():
    """LAUG-7, LAUG-12, LAUG-13: whose answer it is and his legal calls follow from public facts."""
    reached_late_overcall = 0
    for seed in range(80):
        state = games.load(V).new_game(seed)
        rnd = random.Random(seed)
        while not state.is_over():
            legal = state.legal_actions()
            asked = legal[-1] == "pass"  # only great-call answers end with pass (ACTION-7)
            if asked:
                obs = state.observation(0)
                seat, above = great_turn(obs)
                assert state.current_player() == seat
                assert legal == [f"great {t}" for t in great_types(obs, seat, above)] + ["pass"]
                reached_late_overcall += len(obs["history"][-1]["actions"]) == 4
            # Pass often, so great calls stay available into later deals.
            state.apply("pass" if asked and rnd.random() < 0.5 else rnd.choice(legal))
            if asked and state.observation(0)["phase"] != "great":
                assert great_turn(state.observation(0)) is None
    assert reached_late_overcall >= 10


def test_a_record_through_a_late_overcall_replays():
    """LAUG-7 step 3, COMMON-3: the record of a game where B overcalls late replays exactly."""
    state = new(V, laug_deck())
    for label in ("announce clubs", "pass", "great diamonds", "pass", "great spades"):
        state.apply(label)
    rnd = random.Random(5)
    while not state.is_over():
        state.apply(rnd.choice(state.legal_actions()))
    again = games.replay(state.record())
    assert again.record() == state.record()
    assert again.observation(1) == state.observation(1)
    # A record of the rule before the amendment (D declared at once) no longer replays.
    old = {**state.record(), "actions": ["announce clubs", "pass", "great diamonds", "pass"]}
    old["actions"].append("draw")
    with pytest.raises(games.IllegalAction, match="record action 4"):
        games.replay(old)


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
