"""Options, decks, labels, forfeits and calls on finished games."""

from __future__ import annotations

import re

import pytest

import games
from games import IllegalAction
from games.money.sets import egypt_money, jordan_money, syria_money
from tests.games.money.support import filler, position

DECK = [r + s for s in "SHDC" for r in "A23456789T"]


def test_variants_registered():
    """MONEY-JO-1, MONEY-EG-1, MONEY-SY-1: the three variants exist in family money."""
    for vid in ("money-jordan", "money-egypt", "money-syria"):
        assert vid in games.variants()
        assert games.variant_info(vid).family == "money"


@pytest.mark.parametrize(
    ("deck", "problem"),
    [
        (DECK[:-1], "39 cards"),
        ([*DECK[:-1], DECK[0]], "twice"),
        ([*DECK[:-1], "KS"], "money card"),
        ([*DECK[:-1], "QH"], "money card"),
        ([*DECK[:-1], "ZZ"], "not a card"),
        ([*DECK[:-1], "X1"], "money.jokers is off"),
        ("AS 2S", "list"),
    ],
)
def test_bad_decks_are_refused(deck, problem):
    """MONEY-JO-3, MONEY-JO-17: a deck lists exactly the numerals, each once."""
    with pytest.raises(ValueError, match=problem):
        games.load("money-jordan").new_game(1, decks=[deck])


def test_more_than_one_deck_is_refused():
    """MONEY-JO-3: one deal per game."""
    with pytest.raises(ValueError, match="one deck"):
        games.load("money-jordan").new_game(1, decks=[DECK, DECK])


def test_jokers_deck_needs_both_jokers():
    """MONEY-JO-17: with jokers a deck holds 42 numerals."""
    game = games.load("money-jordan", money_jokers="true")
    with pytest.raises(ValueError, match="42"):
        game.new_game(1, decks=[DECK])
    state = game.new_game(1, decks=[[*DECK, "X1", "X2"]])
    assert state.observation(0)["stack_sizes"] == [21, 21]


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("money.capture", "sometimes"),
        ("money.jokers", "yes"),
        ("money.max_plays", 0),
        ("money.max_plays", "many"),
    ],
)
def test_bad_option_values(option, value):
    """COMMON-8, LIMIT-1: option values are checked, naming the option."""
    with pytest.raises(ValueError, match=re.escape(option)):
        games.load("money-jordan", **{option: value})


def test_option_keywords_and_canonical_name():
    """COMMON-8, LIMIT-1: keyword spelling works; the cap is configurable."""
    game = games.load("money-egypt", money_eg_values="10-15-20", money_max_plays="500")
    assert game.options["money.max_plays"] == 500
    assert game.canonical() == "money-egypt(money.eg_values=10-15-20,money.max_plays=500)"


def test_set_labels():
    """ACTION-6: letters joined by +, highest value first, ties by letter, none if empty."""
    jo = jordan_money()
    assert jo.label[jo.full] == "Q+Q+Q+Q+J+J+J+J+K+K+K+K"
    assert jo.label[0] == "none" and jo.parse("K+Q+J") == jo.parse("Q+J+K")
    sy, eg = syria_money(), egypt_money("5-10-15", True)
    assert sy.label[sy.initial_bank] == "K+K+Q+Q+J+J+X"
    assert eg.label[eg.initial_bank] == "A+A+J+J+K+K+Q+Q"
    with pytest.raises(ValueError):
        jo.parse("X")


def test_label_shapes():
    """ACTION-6: every label of a game has one of the documented shapes."""
    shapes = re.compile(
        r"^(turn|capture|decline|buy [A-Z] at ground change (none|[A-Z](\+[A-Z])*)"
        r"|buy [A-Z] at opponent|change (none|[A-Z](\+[A-Z])*)"
        r"|exchange [A-Z](\+[A-Z])* for [A-Z](\+[A-Z])* at (opponent|ground))$"
    )
    state = games.load("money-syria").new_game(1)
    assert all(shapes.match(x) for x in state.rules.table.labels)


def test_illegal_purchases_name_the_problem():
    """ACTION-7, FORFEIT-1, MONEY-JO-9, MONEY-JO-10, MONEY-JO-13: refused with the label
    named, state unchanged."""
    pile = filler(12)
    state = position(
        "money-jordan",
        stacks=[[], filler(20, pile)],
        pile=pile,
        banks=["J+Q", "Q+Q"],
        under="K",
        to_move=0,
    )
    before = state.record(), state.observation(0)
    for bad in (
        "buy J at opponent",
        "buy Q at ground change none",
        "exchange Q for Q at ground",
        "change K",
        "turn",
        "buy J at ground change J",
    ):
        with pytest.raises(IllegalAction, match=re.escape(repr(bad))):
            state.apply(bad)
        assert (state.record(), state.observation(0)) == before


def test_forfeit_offender_loses():
    """FORFEIT-2: in Money the offender loses and the opponent wins."""
    state = games.load("money-jordan").new_game(9)
    state.forfeit(0, "timeout")
    assert state.is_over() and state.ranking() == [2, 1]
    assert state.observation(1)["forfeit"] == {"seat": 0, "reason": "timeout"}
    again = games.replay(state.record())
    assert again.ranking() == [2, 1]
    with pytest.raises(IllegalAction):
        state.forfeit(1)
    with pytest.raises(IllegalAction, match="over"):
        state.apply("turn")
    with pytest.raises(IllegalAction):
        state.apply_id(0)
    assert state.legal_actions() == [] and state.current_player() is None


def test_ranking_before_the_end_and_bad_seats():
    """DESIGN 2: ranking only once over; seats are checked."""
    state = games.load("money-jordan").new_game(9)
    with pytest.raises(ValueError):
        state.ranking()
    with pytest.raises(ValueError):
        state.observation(2)


def test_play_forced_stops_at_a_real_choice():
    """ACTION-6: forced actions may be applied in a loop; each is recorded."""
    state = games.load("money-jordan").new_game(4)
    count = state.play_forced()
    assert count == len(state.record()["actions"]) > 0
    assert state.is_over() or len(state.legal_ids()) > 1
    assert games.replay(state.record()).record() == state.record()


@pytest.mark.parametrize(
    ("kwargs", "problem"),
    [
        ({"stacks": [["KS"], []], "pile": [], "banks": ["K", "K"]}, "KS"),
        ({"stacks": [["2S"], ["2S"]], "pile": [], "banks": ["K", "K"]}, "2S"),
        ({"stacks": [[], []], "pile": [], "banks": ["K", "K"]}, "no numeral"),
        ({"stacks": [["2S"], []], "pile": [], "banks": ["Q+Q+Q", "Q+Q"]}, "money"),
    ],
)
def test_bad_positions_are_refused(kwargs, problem):
    """MONEY-JO-2, MONEY-JO-3: test positions hold numerals once and the pack's money."""
    with pytest.raises(ValueError, match=problem):
        position("money-jordan", **kwargs)
