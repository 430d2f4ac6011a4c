"""money-egypt (MONEY-EG-1..8) and money-syria (MONEY-SY-1..3)."""

from __future__ import annotations

import pytest

import games
from games import IllegalAction
from games.money.rules import NAMES
from tests.games.money.support import filler, position


def _stack(state, seat):
    return [NAMES[c] for c in state.stacks[seat]]


def test_egypt_capture_is_automatic():
    """MONEY-EG-1: matches always capture; money.capture cannot be set."""
    state = position(
        "money-egypt", stacks=[["5S", "9S"], ["2C"]], pile=["5H"], banks=["none", "none"], to_move=0
    )
    state.apply("turn")
    assert _stack(state, 0) == ["9S", "5H", "5S"]
    with pytest.raises(ValueError, match="fixed"):
        games.load("money-egypt", money_capture="auto")


def test_egypt_purchases_at_the_start_of_any_turn():
    """MONEY-EG-2, MONEY-EG-3: with cards left: turn, buys from either source, exchanges."""
    pile = filler(15)
    theirs = filler(15, pile)
    state = position(
        "money-egypt",
        stacks=[filler(3, pile, theirs), theirs],
        pile=pile,
        banks=["J", "Q+K"],
        to_move=0,
    )
    legal = state.legal_actions()
    assert legal[0] == "turn"
    assert "buy J at ground change none" in legal and "buy J at opponent" in legal
    assert "exchange J for K+Q at opponent" in legal
    state.apply("turn")
    assert state.current_player() == 1


def test_egypt_source_needs_enough_numerals():
    """MONEY-EG-3: a source with fewer than N numerals cannot sell; no 5-card threshold."""
    pile = filler(4)
    theirs = filler(3, pile)
    state = position(
        "money-egypt", stacks=[[], theirs], pile=pile, banks=["Q+K", "none"], under="Q", to_move=0
    )
    # Q (5) needs 5 numerals: neither source has them; K (10) with Q change needs 5 too.
    assert state.observation(0)["purchase"]["source"] == "stuck"
    rich = position(
        "money-egypt", stacks=[[], filler(6, pile)], pile=pile, banks=["Q", "none"], to_move=0
    )
    assert rich.legal_actions() == ["buy Q at opponent"]
    ground = position(
        "money-egypt", stacks=[[], theirs], pile=filler(5, theirs), banks=["Q", "none"], to_move=0
    )
    assert ground.legal_actions() == ["buy Q at ground change none"]


def test_egypt_packets_go_under_the_buyer_stack():
    """MONEY-EG-4: ground buys take the bottom of the pile, under the buyer's cards."""
    pile = filler(8)
    mine = filler(2, pile)
    state = position(
        "money-egypt",
        stacks=[mine, filler(5, pile, mine)],
        pile=pile,
        banks=["Q", "none"],
        to_move=0,
    )
    state.apply("buy Q at ground change none")
    assert _stack(state, 0) == mine + pile[:5]
    assert state.observation(0)["pile"] == pile[5:]
    assert state.legal_actions() == ["turn"]


@pytest.mark.parametrize(
    ("values", "table"),
    [
        ("5-10-15", {"J": 15, "K": 10, "Q": 5}),
        ("10-15-20", {"J": 20, "K": 15, "Q": 10}),
    ],
)
def test_egypt_values(values, table):
    """MONEY-EG-5, ACTION-6: Q < K < J by the chosen table; labels highest value first."""
    state = games.load("money-egypt", money_eg_values=values).new_game(1)
    obs = state.observation(0)
    assert obs["money_values"] == table
    assert obs["banks"] == ["J+J+K+K+Q+Q"] * 2
    with pytest.raises(ValueError):
        games.load("money-egypt", money_eg_values="5-10-20")


def test_egypt_aces_are_money():
    """MONEY-EG-6: aces worth 30; banks of 8, 36 numerals, 18 each; an ace in a deck is
    refused."""
    game = games.load("money-egypt", money_eg_aces_money=True)
    obs = game.new_game(3).observation(0)
    assert obs["money_values"]["A"] == 30 and obs["banks"][0] == "A+A+J+J+K+K+Q+Q"
    assert obs["stack_sizes"] == [18, 18]
    deck = [r + s for s in "SHDC" for r in "23456789T"]
    assert game.new_game(3, decks=[deck]).observation(0)["stack_sizes"] == [18, 18]
    with pytest.raises(ValueError, match="AS"):
        game.new_game(3, decks=[["AS", *deck[1:]]])


def test_egypt_seven_of_diamonds_captures_any_pile():
    """MONEY-EG-7: the 7D takes any pile holding a numeral, but not an empty pile."""
    options = {"money.eg_seven_diamonds": True}
    state = position(
        "money-egypt",
        options,
        stacks=[["7D", "2S"], ["3C"]],
        pile=["4H", "9H"],
        banks=["none", "none"],
        to_move=0,
    )
    state.apply("turn")
    assert _stack(state, 0) == ["2S", "4H", "9H", "7D"]
    empty = position(
        "money-egypt", options, stacks=[["7D"], ["3C"]], pile=[], banks=["none", "none"], to_move=0
    )
    empty.apply("turn")
    assert empty.observation(0)["pile"] == ["7D"]
    plain = position(
        "money-egypt",
        stacks=[["7D", "2S"], ["3C"]],
        pile=["4H", "9H"],
        banks=["none", "none"],
        to_move=0,
    )
    plain.apply("turn")
    assert plain.observation(0)["pile"] == ["4H", "9H", "7D"]


def test_egypt_order_exchange_before_buy():
    """MONEY-EG-8, LIMIT-2: one exchange then one buy; after the buy only turn; with cards
    left an exchange without a buy is allowed."""
    pile = filler(12)
    mine = filler(2, pile)
    state = position(
        "money-egypt",
        stacks=[mine, filler(10, pile, mine)],
        pile=pile,
        banks=["J", "Q+K"],
        to_move=0,
    )
    state.apply("exchange J for K+Q at opponent")
    legal = state.legal_actions()
    assert legal[0] == "turn" and not any(x.startswith("exchange") for x in legal)
    assert "buy Q at ground change none" in legal
    with pytest.raises(IllegalAction):
        state.apply("exchange K for J at opponent")
    keep = state.clone()
    state.apply("buy Q at ground change none")
    assert state.legal_actions() == ["turn"]
    keep.apply("turn")  # exchange without buying
    assert keep.current_player() == 1


def test_syria_money_and_deck():
    """MONEY-SY-1: jokers are money worth 5; bank X+2J+2Q+2K; 40 numerals, 20 each."""
    game = games.load("money-syria")
    obs = game.new_game(2).observation(1)
    assert obs["money_values"] == {"K": 20, "Q": 15, "J": 10, "X": 5}
    assert obs["banks"] == ["K+K+Q+Q+J+J+X"] * 2 and obs["stack_sizes"] == [20, 20]
    deck = [r + s for s in "SHDC" for r in "A23456789T"]
    with pytest.raises(ValueError, match="X1"):
        game.new_game(2, decks=[[*deck[:-1], "X1"]])
    with pytest.raises(ValueError, match="jokers"):
        games.load("money-syria", money_jokers=False)


def test_syria_ground_buy_takes_top_of_pile_with_change():
    """MONEY-SY-2, MONEY-JO-11: top N cards, lowest first; change from under the pile."""
    pile = filler(9)
    state = position(
        "money-syria",
        stacks=[[], filler(20, pile)],
        pile=pile,
        banks=["J", "none"],
        under="X",
        to_move=0,
    )
    assert state.legal_actions() == ["buy J at ground change X"]  # 9 < 10: change needed
    state.apply("buy J at ground change X")
    assert _stack(state, 0) == pile[-5:] and state.observation(0)["pile"] == pile[:-5]


def test_syria_capture_option():
    """MONEY-SY-3: money.capture as in Jordan, default auto."""
    assert games.load("money-syria").options["money.capture"] == "auto"
    state = position(
        "money-syria",
        {"money.capture": "choice"},
        stacks=[["5S"], ["5H"]],
        pile=["5D"],
        banks=["X", "X"],
        to_move=0,
    )
    state.apply("turn")
    assert state.legal_actions() == ["capture", "decline"]
