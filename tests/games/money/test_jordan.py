"""money-jordan rules MONEY-JO-1..20 (the base of all three variants)."""

from __future__ import annotations

import pytest

import games
from games import IllegalAction
from games.money.rules import NAMES
from tests.games.money.support import filler, position


def _stack(state, seat):
    return [NAMES[c] for c in state.stacks[seat]]


def _deck():
    return [r + s for s in "SHDC" for r in "A23456789T"]


def test_two_players_and_suits_never_matter():
    """MONEY-JO-1, MONEY-JO-2: two seats; a 5 of spades matches a 5 of hearts, A is 1."""
    game = games.load("money-jordan")
    assert game.num_players == 2
    state = position(
        "money-jordan", stacks=[["5S", "AD"], ["AC"]], pile=["5H"], banks=["K", "K"], to_move=0
    )
    state.apply("turn")
    assert _stack(state, 0) == ["AD", "5H", "5S"]
    state.apply("turn")  # AC on an empty pile: no capture
    state.apply("turn")  # AD on AC: the aces match
    assert _stack(state, 0) == ["5H", "5S", "AC", "AD"]


def test_money_values_and_banks():
    """MONEY-JO-2, MONEY-JO-3, ACTION-6: K 5, J 10, Q 15; banks of 2 K, 2 J, 2 Q."""
    obs = games.load("money-jordan").new_game(1).observation(0)
    assert obs["money_values"] == {"Q": 15, "J": 10, "K": 5}
    assert obs["banks"] == ["Q+Q+J+J+K+K", "Q+Q+J+J+K+K"]
    assert obs["scores"] == [80, 80]


@pytest.mark.parametrize("dealer", [0, 1])
def test_deal_alternates_non_dealer_first(dealer):
    """MONEY-JO-3, MONEY-JO-5: 20 each, non-dealer first, first card received on top;
    the non-dealer plays first."""
    deck = _deck()
    state = games.load("money-jordan").new_game(5, dealer=dealer, decks=[deck])
    first = 1 - dealer
    assert state.current_player() == first
    assert _stack(state, first) == deck[0::2] and _stack(state, dealer) == deck[1::2]
    assert state.observation(0)["stack_sizes"] == [20, 20]
    state.apply("turn")
    state.apply("turn")
    assert state.observation(0)["history"] == [[first, "turn", deck[0]], [dealer, "turn", deck[1]]]


def test_turns_alternate_and_first_card_starts_pile():
    """MONEY-JO-6: a card on an empty pile (money under it or not) never captures."""
    state = position(
        "money-jordan",
        stacks=[["5S", "6S"], ["7S"]],
        pile=[],
        banks=["K", "K"],
        under="J",
        to_move=0,
    )
    state.apply("turn")
    assert state.observation(0)["pile"] == ["5S"] and state.current_player() == 1
    assert state.observation(0)["under_pile"] == "J"


def test_choice_mode_capture_and_decline():
    """MONEY-JO-7, MONEY-JO-18: in choice mode the player who matched decides; a decline
    is final and later cards compare with the new top."""
    kwargs = dict(
        stacks=[["5S", "9S"], ["5D", "2C"]], pile=["5H"], banks=["K", "K"], under="J", to_move=0
    )
    state = position("money-jordan", {"money.capture": "choice"}, **kwargs)
    state.apply("turn")
    assert state.current_player() == 0 and state.legal_actions() == ["capture", "decline"]
    state.apply("decline")
    assert state.current_player() == 1
    state.apply("turn")  # 5D on the declined 5S: a new match
    assert state.legal_actions() == ["capture", "decline"] and state.current_player() == 1
    state.apply("capture")
    assert _stack(state, 1) == ["2C", "5H", "5S", "5D"]
    assert state.observation(0)["banks"] == ["K", "J+K"]
    auto = position("money-jordan", **kwargs)
    auto.apply("turn")
    assert auto.current_player() == 1 and _stack(auto, 0) == ["9S", "5H", "5S"]


def test_buying_only_with_an_empty_stack():
    """MONEY-JO-8: with cards left a Jordanian player can only turn; money is never
    played to the pile."""
    state = games.load("money-jordan").new_game(2)
    assert state.legal_actions() == ["turn"]
    with pytest.raises(IllegalAction):
        state.apply("buy K at opponent")


@pytest.mark.parametrize(
    ("g", "expected"),
    [
        (4, ["buy Q at opponent", "buy J at opponent", "buy K at opponent"]),
        (5, ["buy K at ground change none"]),
    ],
)
def test_source_threshold(g, expected):
    """MONEY-JO-9: five or more numerals on the ground: buy there; fewer: from the
    opponent."""
    pile = filler(g)
    state = position(
        "money-jordan", stacks=[[], filler(30, pile)], pile=pile, banks=["Q+J+K", "none"], to_move=0
    )
    assert state.legal_actions() == expected


def test_source_fallback_to_opponent():
    """MONEY-JO-9: no ground plan even with an exchange, so the opponent sells."""
    pile = filler(7)
    state = position(
        "money-jordan", stacks=[[], filler(20, pile)], pile=pile, banks=["J", "Q"], to_move=0
    )
    assert state.legal_actions() == ["buy J at opponent"]
    assert state.observation(0)["purchase"]["source"] == "opponent"


def test_exchange_moves_money_both_ways():
    """MONEY-JO-10: given cards go to the place the received ones came from; the
    opponent cannot refuse; equal value only."""
    pile = filler(12)
    state = position(
        "money-jordan",
        stacks=[[], filler(20, pile)],
        pile=pile,
        banks=["Q", "J+K+K"],
        under="J+K",
        to_move=0,
    )
    legal = state.legal_actions()
    assert "exchange Q for J+K at opponent" in legal
    assert "exchange Q for J+K at ground" in legal
    assert "exchange Q for J+K+K at opponent" not in legal  # unequal value
    state.apply("exchange Q for J+K at ground")
    obs = state.observation(0)
    assert obs["banks"] == ["J+K", "J+K+K"] and obs["under_pile"] == "Q"


def test_ground_buy_change_comes_from_money_already_under():
    """MONEY-JO-11, MONEY-JO-13: change only from money that lay under the pile; the
    numerals from the bottom; the top card unchanged."""
    pile = filler(8)
    state = position(
        "money-jordan",
        stacks=[[], filler(20, pile)],
        pile=pile,
        banks=["J", "none"],
        under="K",
        to_move=0,
    )
    assert state.legal_actions() == ["buy J at ground change K"]
    state.apply("buy J at ground change K")
    assert _stack(state, 0) == pile[:5]
    obs = state.observation(0)
    assert obs["pile"] == pile[5:] and obs["banks"][0] == "K" and obs["under_pile"] == "J"


def test_whole_pile_bought_leaves_money_under_empty_pile():
    """MONEY-JO-11: with N = g the pile is empty and the money stays on the ground."""
    pile = filler(5)
    state = position(
        "money-jordan", stacks=[[], filler(20, pile)], pile=pile, banks=["K", "none"], to_move=0
    )
    state.apply("buy K at ground change none")
    obs = state.observation(0)
    assert obs["pile"] == [] and obs["under_pile"] == "K"


def test_seller_gives_top_of_his_stack_order_kept():
    """MONEY-JO-12, MONEY-JO-18, MONEY-JO-19: the seller decides; the buyer then turns
    in the same turn."""
    seller = filler(36)
    state = position("money-jordan", stacks=[[], seller], pile=[], banks=["K", "J"], to_move=0)
    state.apply("buy K at opponent")
    assert state.current_player() == 1 and state.legal_actions() == ["change none"]
    state.apply("change none")
    assert _stack(state, 0) == seller[:5] and state.current_player() == 0
    assert state.observation(1)["banks"] == ["none", "J+K"]
    state.apply("turn")
    assert state.observation(0)["pile"] == [seller[0]]


def test_full_value_only_no_short_purchase_labels():
    """MONEY-JO-13: a buyer may not take less than V (no label exists for it)."""
    pile = filler(12)
    state = position(
        "money-jordan", stacks=[[], filler(20, pile)], pile=pile, banks=["J", "none"], to_move=0
    )
    assert state.legal_actions() == ["buy J at ground change none"]
    for bad in ("buy J at ground change K", "buy J at opponent", "change K"):
        with pytest.raises(IllegalAction):
            state.apply(bad)


def test_stuck_buyer_takes_everything_from_the_richer_source():
    """MONEY-JO-14: no legal purchase: lowest card to the source with more numerals,
    all its numerals taken, surplus lost."""
    options = {"money.eg_aces_money": True, "money.eg_values": "10-15-20"}
    pile, theirs = ["2S", "3S", "4S"], ["5S", "6S", "7S", "8S"]
    state = position(
        "money-egypt", options, stacks=[[], theirs], pile=pile, banks=["A+J", "none"], to_move=0
    )
    assert state.observation(0)["purchase"]["source"] == "stuck"
    assert state.legal_actions() == ["buy J at opponent"]
    state.apply("buy J at opponent")
    assert _stack(state, 0) == theirs and _stack(state, 1) == []
    assert state.observation(0)["banks"] == ["A", "J"] and state.legal_actions() == ["turn"]
    ground = position(
        "money-egypt", options, stacks=[[], pile], pile=theirs, banks=["A", "none"], to_move=0
    )
    assert ground.legal_actions() == ["buy A at ground change none"]
    ground.apply("buy A at ground change none")
    assert _stack(ground, 0) == theirs and ground.observation(0)["under_pile"] == "A"


def test_observation_is_public_information_only():
    """MONEY-JO-15, MONEY-JO-3: banks, pile, under-pile money, stack sizes and history;
    stack contents never, not even the owner's."""
    deck = _deck()
    state = games.load("money-jordan").new_game(0, dealer=0, decks=[deck])
    obs = state.observation(1)
    for key in (
        "banks",
        "pile",
        "under_pile",
        "stack_sizes",
        "history",
        "plays",
        "max_plays",
        "scores",
        "phase",
        "current_player",
        "pending_purchase",
    ):
        assert key in obs
    assert not any(card in str(obs) for card in deck)


def test_player_without_numerals_or_money_loses():
    """MONEY-JO-16, MONEY-JO-19: checked at the start of his turn; the opponent wins."""
    state = position(
        "money-jordan", stacks=[["2S"], ["3S", "4S"]], pile=[], banks=["none", "K"], to_move=0
    )
    state.apply("turn")
    assert not state.is_over()
    state.apply("turn")
    assert state.is_over() and state.current_player() is None
    assert state.ranking() == [2, 1]
    assert state.observation(0)["result"] == {"reason": "loss", "loser": 0, "ranking": [2, 1]}
    with pytest.raises(IllegalAction):
        state.apply("turn")


def test_jokers_are_numerals_matching_each_other():
    """MONEY-JO-17: 42 numerals, 21 each; a joker matches only the other joker."""
    game = games.load("money-jordan", money_jokers=True)
    assert game.new_game(1).observation(0)["stack_sizes"] == [21, 21]
    state = position(
        "money-jordan",
        {"money.jokers": True},
        stacks=[["X2", "AS"], ["X1"]],
        pile=["5S"],
        banks=["K", "K"],
        to_move=1,
    )
    state.apply("turn")
    state.apply("turn")
    assert _stack(state, 0) == ["AS", "5S", "X1", "X2"]


def test_exchange_sides_share_no_denomination():
    """MONEY-JO-19: giving Q+K for J+K+K is only the exchange Q for J+K."""
    pile = filler(12)
    state = position(
        "money-jordan", stacks=[[], filler(20, pile)], pile=pile, banks=["Q+K", "J+K+K"], to_move=0
    )
    legal = state.legal_actions()
    assert "exchange Q for J+K at opponent" in legal
    assert not any("Q+K for" in x or "K for K" in x for x in legal)
    with pytest.raises(IllegalAction):
        state.apply("exchange K for K at opponent")


def test_exchange_only_when_a_buy_can_follow():
    """MONEY-JO-19: in Jordan exchanges happen only when a buy is compulsory and a
    legal buy of the chosen source can follow."""
    pile = filler(12)
    state = position(
        "money-jordan", stacks=[[], filler(20, pile)], pile=pile, banks=["Q", "J+K"], to_move=0
    )
    # A Q needs 15 numerals; after Q for J+K a J (10 <= 12) or a K can be bought.
    assert state.legal_actions() == ["exchange Q for J+K at opponent"]
    pile = filler(7)
    state = position(
        "money-jordan", stacks=[[], filler(20, pile)], pile=pile, banks=["J", "Q"], to_move=0
    )
    assert state.legal_actions() == ["buy J at opponent"]  # no exchange enables the ground


def test_opponent_buy_needs_a_change_within_the_seller_stack():
    """MONEY-JO-19, MONEY-JO-12: buy from the opponent only if some change leaves N no
    larger than his stack; the seller may only choose such a change."""
    theirs = filler(7)
    state = position(
        "money-jordan", stacks=[[], theirs], pile=filler(2, theirs), banks=["J+K", "J+K"], to_move=0
    )
    assert state.legal_actions() == ["buy J at opponent", "buy K at opponent"]
    state.apply("buy J at opponent")
    assert state.legal_actions() == ["change K"]  # change none would need 10 numerals
    lean = position(
        "money-jordan", stacks=[[], theirs], pile=filler(2, theirs), banks=["J+K", "J"], to_move=0
    )
    assert lean.legal_actions() == ["buy K at opponent"]


def test_cap_counts_turns_and_waits_for_the_capture_answer():
    """MONEY-JO-19, LIMIT-1: the cap counts turns; in choice mode the game ends after the
    answer to the capping play's capture."""
    state = position(
        "money-jordan",
        {"money.capture": "choice", "money.max_plays": 3},
        stacks=[["5S", "2S"], ["5D"]],
        pile=[],
        banks=["K", "K"],
        to_move=0,
        plays=1,
    )
    state.apply("turn")
    assert not state.is_over()
    state.apply("turn")  # the third play matches
    assert not state.is_over() and state.legal_actions() == ["capture", "decline"]
    state.apply("capture")
    assert state.is_over() and state.observation(0)["plays"] == 3
    assert state.scores() == [6, 7] and state.ranking() == [2, 1]


def test_equal_wealth_at_the_cap_is_a_draw():
    """LIMIT-1, COMMON-7: equal wealth shares rank 1."""
    state = position(
        "money-jordan",
        {"money.max_plays": 1},
        stacks=[["2S", "3S"], ["4S"]],
        pile=[],
        banks=["K", "K+K"],
        to_move=0,
    )
    state.apply("turn")
    assert state.is_over() and state.scores() == [6, 11]
    assert state.ranking() == [2, 1]
    even = position(
        "money-jordan",
        {"money.max_plays": 1},
        stacks=[["2S", "3S"], ["4S"]],
        pile=[],
        banks=["K", "K"],
        to_move=0,
    )
    even.apply("turn")
    assert even.scores() == [6, 6] and even.ranking() == [1, 1]
    assert games.load("money-jordan").options["money.max_plays"] == 10_000


@pytest.mark.parametrize(
    ("variant", "option", "value"),
    [
        ("money-egypt", "money.capture", "auto"),
        ("money-egypt", "money_capture", "choice"),
        ("money-syria", "money.jokers", True),
        ("money-jordan", "money.eg_values", "5-10-15"),
        ("money-jordan", "money.colour", "red"),
    ],
)
def test_fixed_and_unknown_options_are_refused(variant, option, value):
    """MONEY-JO-20, MONEY-EG-1, COMMON-8: fixed or replaced options raise ValueError."""
    with pytest.raises(ValueError, match=option.replace("_", ".", 1).split(".")[-1]):
        games.load(variant, **{option: value})
