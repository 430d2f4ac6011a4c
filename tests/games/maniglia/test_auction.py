"""maniglia-3/-4/-5: MANIGLIA-AUC-1..8, ACTION-5, EX-MANI-6, EX-MANI-7, LIMIT-4, FORFEIT-2."""

from __future__ import annotations

import random

import pytest

import games
from tests.games.maniglia.deals import PLAYERS, play_out, position

AUCTION = ["maniglia-3", "maniglia-4", "maniglia-5"]
MAX = {"maniglia-3": 72, "maniglia-4": 70, "maniglia-5": 68}
# EX-MANI-6 deals (dealer 0 = P4, P1 = seat 3): with the auction of the example, trump S
# and every player always playing his first legal card, P4 takes 27 card points in 3
# tricks (DECK_MADE) or 26 in 2 (DECK_FAILED).
DECK_MADE = (
    "KC 7B JS 3C 5D 3B 2S 6S 6C JB AD KB 5S NC JC 4C KD 6B 6D 4D 5C 2D AC ND 2C 5B "
    "3D 2B AS NS KS 7C 3S 4S 4B 7S NB 7D AB JD"
).split()
DECK_FAILED = (
    "2C KC 5B AB JC 3B JB 4C 4D 2S 7B AC 2D JS KB 3D NB AS 3C 3S KD 6B 7D NC 6C "
    "6D 7C KS 5D AD 2B 4S 5C 6S NS 5S 7S JD ND 4B"
).split()
EX6_AUCTION = ["bid 20", "bid 25", "pass", "bid 30", "pass", "pass"]


def bids(lo, hi):
    return [f"bid {n}" for n in range(lo, hi + 1)]


@pytest.mark.parametrize("variant", AUCTION)
def test_no_turn_up_and_everyone_for_himself(variant):
    """MANIGLIA-AUC-1: no card is turned up; no sides until a declarer exists."""
    obs = games.load(variant).new_game(1).observation(0)
    assert "turned_card" not in obs and obs["trump"] is None
    assert obs["teams"] is None and obs["phase"] == "auction"


@pytest.mark.parametrize("variant", AUCTION)
def test_auction_opens_at_the_dealers_right_with_all_bids(variant):
    """MANIGLIA-AUC-2, ACTION-5, ACTION-7: dealer's right first; bid 20..MAX, then pass."""
    n = PLAYERS[variant]
    state = games.load(variant).new_game(1, dealer=1)
    assert state.current_player() == 0
    assert state.legal_actions() == [*bids(20, MAX[variant]), "pass"]
    ids = state.legal_ids()
    assert ids == sorted(ids)
    state.apply("bid 33")
    assert state.current_player() == (1 - 2) % n
    assert state.legal_actions() == [*bids(34, MAX[variant]), "pass"]
    assert state.observation(2)["bids"] == [[0, "bid 33"]]
    assert state.observation(2)["min_bid"] == 34


def test_auction_example():
    """MANIGLIA-AUC-2, MANIGLIA-AUC-4, MANIGLIA-AUC-5, EX-MANI-6: P1 20, P2 25, P3 pass,
    P4 30, P1 pass, P2 pass: P4 declares at 30, names trump, P1 leads; 71 is illegal;
    P3 may not bid after passing."""
    state = games.load("maniglia-4").new_game(1, dealer=0)
    turns = []
    for label in EX6_AUCTION:
        turns.append(state.current_player())
        if label == "bid 30":
            assert "bid 71" not in state.legal_actions()
            with pytest.raises(games.IllegalAction, match="bid 71"):
                state.apply("bid 71")
        state.apply(label)
    assert turns == [3, 2, 1, 0, 3, 2]  # P3 (seat 1) is skipped after his pass
    obs = state.observation(1)
    assert obs["phase"] == "trump" and obs["declarer"] == 0 and obs["contract"] == 30
    assert state.current_player() == 0
    assert state.legal_actions() == ["trump D", "trump C", "trump S", "trump B"]
    state.apply("trump S")
    obs = state.observation(1)
    assert obs["trump"] == "S" and obs["teams"] == [[0], [1, 2, 3]]
    assert state.current_player() == 3 and obs["leader"] == 3  # P1 leads


def test_passed_player_is_skipped_in_later_rounds():
    """MANIGLIA-AUC-2: a pass is final; bidding goes on among the others."""
    state = games.load("maniglia-5").new_game(1, dealer=0)
    for label, seat in [
        ("bid 20", 4),
        ("pass", 3),
        ("bid 21", 2),
        ("pass", 1),
        ("bid 22", 0),
        ("bid 23", 4),
        ("pass", 2),
        ("pass", 0),
    ]:
        assert state.current_player() == seat
        state.apply(label)
    obs = state.observation(0)
    assert obs["declarer"] == 4 and obs["contract"] == 23 and obs["phase"] == "trump"


@pytest.mark.parametrize("variant", AUCTION)
def test_a_bid_of_max_ends_the_auction_at_once(variant):
    """MANIGLIA-AUC-2, EX-MANI-7: after a bid of MAX nobody else speaks."""
    state = games.load(variant).new_game(1, dealer=0)
    state.apply(f"bid {MAX[variant]}")
    obs = state.observation(0)
    n = PLAYERS[variant]
    assert obs["phase"] == "trump" and obs["declarer"] == n - 1
    assert obs["contract"] == MAX[variant]


@pytest.mark.parametrize("variant", AUCTION)
def test_all_pass_throws_the_deal_in(variant):
    """MANIGLIA-AUC-3, LIMIT-4: everyone passes: unscored, the deal passes right."""
    n = PLAYERS[variant]
    state = games.load(variant).new_game(1, dealer=2)
    for _ in range(n):
        state.apply("pass")
    obs = state.observation(0)
    assert obs["deal"] == 2 and obs["dealer"] == 1 and obs["phase"] == "auction"
    assert obs["scores"] == [0] * n
    assert obs["history"][0]["result"] == {"thrown_in": True}
    assert state.current_player() == 0


@pytest.mark.parametrize("variant", AUCTION)
def test_dealer_forced_to_bid_20(variant):
    """MANIGLIA-AUC-3 option dealer-forced: all others passed, the dealer must bid 20."""
    n = PLAYERS[variant]
    state = games.load(variant, maniglia_all_pass="dealer-forced").new_game(1, dealer=2)
    for _ in range(n - 1):
        state.apply("pass")
    assert state.current_player() == 2
    assert state.legal_actions() == ["bid 20"]
    with pytest.raises(games.IllegalAction):
        state.apply("pass")
    state.apply("bid 20")
    obs = state.observation(0)
    assert obs["declarer"] == 2 and obs["contract"] == 20 and obs["phase"] == "trump"


def test_dealer_forced_only_when_nobody_bid():
    """MANIGLIA-AUC-3: with a bid standing the dealer may pass as usual."""
    state = games.load("maniglia-3", maniglia_all_pass="dealer-forced").new_game(1, dealer=0)
    state.apply("bid 20")
    state.apply("pass")
    assert state.current_player() == 0
    assert state.legal_actions() == [*bids(21, 72), "pass"]


def test_declarer_names_any_suit():
    """MANIGLIA-AUC-4, MANIGLIA-AUC-8, ACTION-5: the declarer picks one of four suits."""
    for suit in "DCSB":
        state = games.load("maniglia-3").new_game(1, dealer=0)
        state.apply("bid 40")
        state.apply("pass")
        state.apply("pass")
        assert state.current_player() == 2
        state.apply(f"trump {suit}")
        assert state.observation(1)["trump"] == suit


@pytest.mark.parametrize("variant", AUCTION)
def test_dealers_right_leads_whoever_declares(variant):
    """MANIGLIA-AUC-5: the dealer's right leads the first trick."""
    n = PLAYERS[variant]
    state = games.load(variant).new_game(1, dealer=1)
    for _ in range(n - 1):
        state.apply("pass")
    state.apply("bid 20")  # the dealer declares
    state.apply("trump B")
    assert state.current_player() == 0


@pytest.mark.parametrize(
    ("deck", "scores"), [(DECK_MADE, [30, 0, 0, 0]), (DECK_FAILED, [0, 30, 30, 30])]
)
def test_scoring_example(deck, scores):
    """MANIGLIA-AUC-6, EX-MANI-6: 27 points in 3 tricks make 30 (P4 +30); 26 in 2 tricks
    fail (P1, P2, P3 +30 each)."""
    state = games.load("maniglia-4").new_game(1, dealer=0, decks=[deck])
    for label in [*EX6_AUCTION, "trump S"]:
        state.apply(label)
    while state.observation(0)["deal"] == 1:
        state.apply(state.legal_actions()[0])
    result = state.observation(0)["history"][0]["result"]
    assert result["declarer"] == 0 and result["bid"] == 30
    assert (result["card_points"][0], result["tricks"][0]) == (
        (27, 3) if deck is DECK_MADE else (26, 2)
    )
    assert state.scores() == scores


def check_whole_game(state):
    """Recompute MANIGLIA-AUC-6/-7 and LIMIT-4 from the public per-deal history."""
    n = state.game.num_players
    target = state.game.options["maniglia.target"]
    history = state.observation(0)["history"]
    running = [0] * n
    for i, deal in enumerate(history):
        r = deal["result"]
        if r["thrown_in"]:
            continue
        d, bid = r["declarer"], r["bid"]
        assert sum(r["card_points"]) == 60
        assert sum(r["tricks"]) == (36 if n == 3 else 40) // n
        total = r["card_points"][d] + r["tricks"][d]
        assert r["declarer_total"] == total and r["made"] == (total >= bid)
        for s in range(n):
            running[s] += (bid if total >= bid else 0) if s == d else (0 if total >= bid else bid)
        assert (max(running) >= target) == (i == len(history) - 1 and i + 1 < 100)
    assert state.scores() == running
    ranks = [1 + sum(o > v for o in running) for v in running]
    assert state.ranking() == ranks


@pytest.mark.parametrize("variant", AUCTION)
def test_scores_and_ranking_over_whole_games(variant):
    """MANIGLIA-AUC-6, MANIGLIA-AUC-7, EX-MANI-7: declarer or everybody else scores the
    bid; the game ends after the deal that reaches MAX; ranked by points, ties share."""
    tied = 0
    for seed in range(30):
        state = games.load(variant).new_game(seed)
        play_out(state, random.Random(seed).choice)
        check_whole_game(state)
        tied += len(set(state.ranking())) < PLAYERS[variant]
    assert tied  # failed contracts leave several players level


def test_three_player_deals_have_twelve_tricks():
    """EX-MANI-7, MANIGLIA-GEN-4: maniglia-3 deals 12 cards each and plays 12 tricks."""
    state = games.load("maniglia-3").new_game(12, dealer=0)
    assert state.observation(0)["hand_sizes"] == [12, 12, 12]
    assert state.observation(0)["target"] == 72 and state.observation(0)["max_bid"] == 72
    state.apply("bid 72")
    state.apply("trump C")
    while state.observation(0)["deal"] == 1 and not state.is_over():
        state.apply(state.legal_actions()[0])
    result = state.observation(0)["history"][0]["result"]
    assert sum(result["tricks"]) == 12


@pytest.mark.parametrize("variant", AUCTION)
def test_deal_cap_counts_thrown_in_deals(variant):
    """LIMIT-4, MANIGLIA-AUC-3: 100 deals including throw-ins, then rank by points."""
    state = games.load(variant).new_game(2)
    while not state.is_over():
        state.apply("pass")
    obs = state.observation(0)
    assert obs["deal"] == 100 and len(state.record()["decks"]) == 100
    assert state.ranking() == [1] * PLAYERS[variant]


def test_deal_cap_after_scored_deals():
    """LIMIT-4: a long game with a high custom target stops at deal 100."""
    state = games.load("maniglia-5", maniglia_target=10_000).new_game(9)
    play_out(state, random.Random(9).choice)
    assert state.observation(0)["deal"] == 100
    check_whole_game(state)


def test_forfeit_offender_last_alone():
    """FORFEIT-2: the offender is last alone; the others rank by the last completed deal."""
    state = position(
        "maniglia-4", 0, {}, ["bid 40", "pass", "pass", "pass", "trump D"], maniglia_target=200
    )
    while state.observation(0)["deal"] == 1:
        state.apply(state.legal_actions()[0])
    scores = state.scores()
    for _ in range(5):
        state.apply(state.legal_actions()[0])  # the unfinished deal is discarded
    state.forfeit(1, "illegal")
    assert state.scores() == scores
    others = [1 + sum(scores[o] > scores[s] for o in (0, 2, 3)) for s in (0, 2, 3)]
    assert state.ranking() == [others[0], 4, others[1], others[2]]
    assert games.replay(state.record()).ranking() == state.ranking()


def test_forfeit_ties_among_the_others_share():
    """FORFEIT-2, COMMON-7: before any deal is complete the others share rank 1."""
    state = games.load("maniglia-5").new_game(1)
    state.forfeit(3, "timeout")
    assert state.ranking() == [1, 1, 1, 5, 1]
