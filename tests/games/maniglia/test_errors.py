"""Bad input: illegal labels and ids, calls on a finished game (FORFEIT-1, ACTION-5, -7).

Every rejected call raises with a message naming the problem and leaves the
state exactly as it was (record and every observation).
"""

from __future__ import annotations

import pytest

import games
from tests.games.maniglia.deals import position


def snapshot(state):
    return state.record(), [state.observation(s) for s in range(state.game.num_players)]


def assert_rejected(state, label, needle=None):
    before = snapshot(state)
    with pytest.raises(games.IllegalAction) as info:
        state.apply(label)
    assert (needle or repr(label)) in str(info.value)
    assert snapshot(state) == before


@pytest.mark.parametrize(
    "label",
    [
        "bid 19",
        "bid 0",
        "bid 71",
        "bid 72",
        "bid 73",
        "bid 020",
        "bid",
        "bid 30 ",
        "Bid 30",
        "BID 30",
        "trump D",
        "play 7D",
        "pass ",
        "",
        None,
        30,
        "bid twenty",
    ],
)
def test_bad_auction_labels(label):
    """MANIGLIA-AUC-2, ACTION-5, FORFEIT-1: out-of-range, malformed or out-of-phase labels
    (including a trump call by a non-declarer) are illegal; the state is unchanged."""
    state = games.load("maniglia-4").new_game(1, dealer=0)
    assert_rejected(state, label)


def test_bid_must_exceed_the_highest():
    """MANIGLIA-AUC-2: the minimum is the highest bid + 1."""
    state = games.load("maniglia-5").new_game(1, dealer=0)
    state.apply("bid 30")
    for label in ("bid 30", "bid 29", "bid 20", "bid 69"):
        assert_rejected(state, label)
    state.apply("bid 31")


def test_passed_player_never_speaks_again():
    """MANIGLIA-AUC-2, EX-MANI-6: after passing, a seat is never asked to bid again."""
    state = games.load("maniglia-4").new_game(1, dealer=0)
    state.apply("pass")  # seat 3
    seen = []
    for label in ("bid 20", "bid 21", "bid 22", "bid 23", "bid 24", "bid 25", "pass", "pass"):
        seen.append(state.current_player())
        state.apply(label)
    assert 3 not in seen
    assert state.observation(0)["phase"] == "trump"


def test_trump_call_only_by_the_declarer_in_his_phase():
    """MANIGLIA-AUC-4: trump labels are legal only for the declarer before play."""
    state = games.load("maniglia-3").new_game(1, dealer=0)
    state.apply("bid 20")  # seat 2
    assert_rejected(state, "trump S")  # seat 1 is bidding, not naming trump
    state.apply("pass")
    state.apply("pass")
    assert_rejected(state, "bid 25")
    assert_rejected(state, "trump X")
    assert_rejected(state, "trump d")
    state.apply("trump S")
    assert_rejected(state, "trump C")


def test_card_breaking_the_overtake_rule():
    """MANIGLIA-GEN-5, FORFEIT-1: a card not held, or one the overtake rule forbids."""
    hands = {3: ["KC"], 2: ["AC", "NC", "3C", "7S", "2D", "3D", "4D", "5D", "6D", "JD"]}
    state = position("maniglia-4-partners", 0, hands, ["play KC"])
    assert_rejected(state, "play NC")  # must beat the opponent's KC
    assert_rejected(state, "play 7S")  # must follow suit
    assert_rejected(state, "play KC")  # already played
    assert_rejected(state, "play 2B")  # not held
    assert_rejected(state, "play 8D")
    assert_rejected(state, "pass")
    state.apply("play AC")


def test_fast_path_rejects_bad_ids():
    """ACTION-7: ``apply_id`` rejects ids outside the legal list, of any type."""
    state = games.load("maniglia-4").new_game(1, dealer=0)
    before = snapshot(state)
    for bad in (-1, 43, 98, 10**9, 44.0, "44", None, True):
        with pytest.raises(games.IllegalAction):
            state.apply_id(bad)
    assert snapshot(state) == before
    state.apply_id(44)
    state.apply_id(97)
    state.apply_id(97)
    state.apply_id(97)
    with pytest.raises(games.IllegalAction, match="bid 20"):
        state.apply_id(44)
    state.apply_id(40)
    before = snapshot(state)
    for bad in (40, 44, 97, 40.0, True, -3):
        with pytest.raises(games.IllegalAction):
            state.apply_id(bad)
    assert snapshot(state) == before


def test_calls_on_a_finished_game():
    """FORFEIT-1, FORFEIT-2: a finished game accepts no action and no second forfeit."""
    state = games.load("maniglia-4-partners").new_game(1)
    state.forfeit(0, "crash")
    before = snapshot(state)
    assert state.legal_actions() == [] and state.legal_ids() == []
    assert state.current_player() is None
    assert_rejected(state, "play 7D", "the game is over")
    with pytest.raises(games.IllegalAction):
        state.apply_id(0)
    with pytest.raises(games.IllegalAction, match="already over"):
        state.forfeit(1)
    assert snapshot(state) == before


def test_bad_queries():
    """FORFEIT-2: ranking only once over; seats must exist."""
    state = games.load("maniglia-5").new_game(1)
    with pytest.raises(ValueError, match="only defined once the game is over"):
        state.ranking()
    for seat in (-1, 5, "0", None, True):
        with pytest.raises(ValueError, match="seat"):
            state.observation(seat)
        with pytest.raises(ValueError, match="seat"):
            state.forfeit(seat)
    assert not state.is_over()


def test_bad_seed():
    """DESIGN 2: the seed must be an int."""
    with pytest.raises(ValueError, match="seed"):
        games.load("maniglia-3").new_game("1")


def test_replay_rejects_a_tampered_record():
    """ACTION-7: replaying a record with an illegal action names the action's index."""
    state = games.load("maniglia-4").new_game(1, dealer=0)
    state.apply("bid 30")
    record = state.record()
    record["actions"].append("bid 29")
    with pytest.raises(games.IllegalAction, match="record action 1"):
        games.replay(record)
