"""The worked examples EX-MONEY-1..7 of RULES.md section 9."""

from __future__ import annotations

import pytest

from games import IllegalAction
from tests.games.money.support import filler, position


def test_ex_money_1_capture_puts_pile_under_stack_oldest_first():
    """EX-MONEY-1, MONEY-JO-4, MONEY-JO-7, MONEY-JO-6: auto capture, orientation, bank gain."""
    state = position(
        "money-jordan",
        stacks=[["5S", "9S", "2S"], ["4C"]],
        pile=["3H", "8H", "5H"],
        banks=["none", "Q"],
        under="K",
        to_move=0,
    )
    state.apply("turn")
    obs = state.observation(0)
    assert _stack(state, 0) == ["9S", "2S", "3H", "8H", "5H", "5S"]
    assert obs["banks"][0] == "K" and obs["under_pile"] == "none" and obs["pile"] == []
    assert state.current_player() == 1
    state.apply("turn")  # the opponent starts a new pile
    assert state.observation(0)["pile"] == ["4C"]


def test_ex_money_1_only_the_top_card_matches():
    """EX-MONEY-1, MONEY-JO-6: an 8 matches only an older card, so no capture."""
    state = position(
        "money-jordan",
        stacks=[["8S", "9S"], ["4C"]],
        pile=["3H", "8H", "5H"],
        banks=["none", "Q"],
        under="K",
        to_move=0,
    )
    state.apply("turn")
    assert state.observation(1)["pile"] == ["3H", "8H", "5H", "8S"]
    assert _stack(state, 0) == ["9S"]


def _stack(state, seat):
    from games.money.rules import NAMES

    return [NAMES[c] for c in state.stacks[seat]]


def _ex2():
    pile = filler(12)
    state = position(
        "money-jordan",
        stacks=[[], filler(10, pile)],
        pile=pile,
        banks=["J+Q", "Q+Q"],
        under="K",
        to_move=0,
    )
    return state, pile


def test_ex_money_2_exactly_three_ground_plans():
    """EX-MONEY-2, MONEY-JO-9, MONEY-JO-11, MONEY-JO-13: the three legal plans."""
    state, _ = _ex2()
    # ACTION-7: ground buys by paid card, highest value first, then by change.
    assert state.legal_actions() == [
        "buy Q at ground change K",
        "buy J at ground change none",
        "buy J at ground change K",
    ]
    for bad in ("buy J at opponent", "buy Q at opponent", "buy Q at ground change none"):
        with pytest.raises(IllegalAction):
            state.apply(bad)


@pytest.mark.parametrize(
    ("label", "taken", "bank", "under"),
    [
        ("buy J at ground change none", 10, "Q", "J+K"),
        ("buy J at ground change K", 5, "Q+K", "J"),
        ("buy Q at ground change K", 10, "J+K", "Q"),
    ],
)
def test_ex_money_2_each_plan(label, taken, bank, under):
    """EX-MONEY-2, MONEY-JO-11: the paid card goes under the pile; n1 is played next."""
    state, pile = _ex2()
    state.apply(label)
    assert _stack(state, 0) == pile[:taken]
    obs = state.observation(0)
    assert obs["pile"] == pile[taken:]
    assert (obs["banks"][0], obs["under_pile"]) == (bank, under)
    assert state.legal_actions() == ["turn"] and state.current_player() == 0
    state.apply("turn")
    assert state.observation(1)["pile"][-1] == pile[0]


def test_ex_money_3_exchange_then_buy():
    """EX-MONEY-3, MONEY-JO-10, MONEY-JO-19: the only plan needs an exchange first."""
    pile = filler(7)
    state = position(
        "money-jordan", stacks=[[], filler(20, pile)], pile=pile, banks=["Q", "J+K+K"], to_move=0
    )
    assert state.legal_actions() == ["exchange Q for J+K at opponent"]
    state.apply("exchange Q for J+K at opponent")
    assert state.legal_actions() == ["buy K at ground change none"]
    with pytest.raises(IllegalAction):
        state.apply("buy K at opponent")
    state.apply("buy K at ground change none")
    obs = state.observation(1)
    assert (obs["banks"], obs["under_pile"]) == (["J", "Q+K"], "K")
    assert _stack(state, 0) == pile[:5]


def test_ex_money_4_seller_change_choices():
    """EX-MONEY-4, MONEY-JO-12, MONEY-JO-18: the seller answers with his change."""
    pile = filler(3)
    seller = filler(37, pile)
    state = position(
        "money-jordan", stacks=[[], seller], pile=pile, banks=["Q", "J+J+K"], to_move=0
    )
    assert "buy Q at opponent" in state.legal_actions()
    state.apply("buy Q at opponent")
    assert state.current_player() == 1
    assert state.observation(0)["pending_purchase"] == {
        "buyer": 0,
        "seller": 1,
        "paid": "Q",
        "value": 15,
    }
    assert state.legal_actions() == ["change none", "change K", "change J"]
    with pytest.raises(IllegalAction):
        state.apply("change J+K")
    state.apply("change K")
    assert _stack(state, 0) == seller[:10]  # MONEY-JO-12: from the top, order kept
    assert state.observation(0)["banks"] == ["K", "Q+J+J"]
    assert state.current_player() == 0 and state.legal_actions() == ["turn"]


def test_ex_money_5_egypt_buy_with_cards_left():
    """EX-MONEY-5, MONEY-EG-2, MONEY-EG-4: bottom of the seller's stack, under the buyer's."""
    mine = ["2S", "3S", "4S", "5S"]
    seller = filler(12, mine)
    state = position("money-egypt", stacks=[mine, seller], pile=[], banks=["Q", "J+K"], to_move=0)
    assert "turn" in state.legal_actions() and "buy Q at opponent" in state.legal_actions()
    state.apply("buy Q at opponent")
    assert state.legal_actions() == ["change none"]
    state.apply("change none")
    assert _stack(state, 0) == mine + seller[-5:]
    assert _stack(state, 1) == seller[:-5]
    assert state.legal_actions() == ["turn"]
    state.apply("turn")
    assert state.observation(0)["pile"] == ["2S"]


def test_ex_money_6_syria_buys_from_top_of_pile():
    """EX-MONEY-6, MONEY-SY-2: the top five, lowest first; the pile keeps its bottom."""
    pile = ["2S", "9S", "4S", "7S", "AS", "6S"]
    state = position(
        "money-syria", stacks=[[], filler(20, pile)], pile=pile, banks=["X", "K"], to_move=0
    )
    assert state.legal_actions() == ["buy X at ground change none"]
    state.apply("buy X at ground change none")
    assert _stack(state, 0) == ["9S", "4S", "7S", "AS", "6S"]
    assert state.observation(0)["pile"] == ["2S"]


def test_ex_money_7_cap_wealth_decides():
    """EX-MONEY-7, LIMIT-1: at the cap, numerals + bank value; 38 beats 37."""
    mine = filler(19)
    theirs = filler(12, mine)
    state = position(
        "money-jordan",
        {"money.max_plays": 100},
        stacks=[mine, theirs],
        pile=[],
        banks=["K+Q", "J+J+K"],
        to_move=0,
        plays=99,
    )
    state.apply("turn")
    assert state.is_over()
    assert state.scores() == [38, 37]
    assert state.ranking() == [1, 2]
    assert state.observation(0)["result"]["reason"] == "cap"
