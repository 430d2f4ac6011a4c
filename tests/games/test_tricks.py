"""The trick-taking core (games/tricks.py): suit layouts, trick keys, history spans."""

from __future__ import annotations

import random

import pytest

import games
from games.cards import FRENCH_NAMES, LATIN_NAMES, bits_of
from games.maniglia.rules import beats
from games.manni.rules import trick_winner
from games.tricks import (
    FRENCH_LAYOUT,
    LATIN_LAYOUT,
    P_OVER,
    P_PLAY,
    PublicHistory,
    SuitLayout,
    TrickState,
    trick_keys,
)

LAYOUTS = [(FRENCH_LAYOUT, FRENCH_NAMES, 13), (LATIN_LAYOUT, LATIN_NAMES, 10)]


@pytest.mark.parametrize(("layout", "names", "width"), LAYOUTS)
def test_a_layout_names_the_suit_arithmetic(layout, names, width):
    assert layout.width == width and layout.full == (1 << width) - 1
    for card in range(4 * width):
        assert layout.suit_of(card) == card // width
        assert layout.ranks[card] == card % width
        assert layout.card(card // width, card % width) == card
        assert layout.masks[card // width] >> card & 1
    assert sum(layout.masks) == (1 << 4 * width) - 1
    rnd = random.Random(width)
    for _ in range(200):
        hand = rnd.getrandbits(4 * width)
        patterns = [layout.suit_mask(hand, s) for s in range(4)]
        assert patterns == [(hand >> (width * s)) & ((1 << width) - 1) for s in range(4)]
        assert sum(layout.with_suit(p, s) for s, p in enumerate(patterns)) == hand
        assert layout.with_suit(patterns[1], 1) == hand & layout.masks[1]
        assert layout.cards_of(hand) == bits_of(hand)
        assert layout.names_of(hand) == [names[c] for c in bits_of(hand)]
        assert layout.suit_lists(hand) == [
            [c for c in bits_of(hand) if c // width == s] for s in range(4)
        ]


def test_with_suit_keeps_a_pattern_inside_its_suit():
    assert FRENCH_LAYOUT.with_suit(0x3FFFF, 1) == FRENCH_LAYOUT.masks[1]
    assert LATIN_LAYOUT.with_suit(1 << 10, 2) == 0


def test_a_lister_spreads_any_table_over_the_suits():
    layout = SuitLayout(3, [f"c{c}" for c in range(12)])
    doubled = layout.lister(layout.mapped([2 * c for c in range(12)]))
    assert doubled(0b101_000_010_001) == [0, 8, 18, 22]
    assert layout.names_of(0b100_000_000_011) == ["c0", "c1", "c11"]
    with pytest.raises(ValueError):
        layout.lister(layout.cards[:3])


def test_french_trick_keys_make_the_documented_winner():
    # COMMON-5 over random tricks: the highest key is the card trick_winner names.
    rnd = random.Random(5)
    for trump in (-1, 0, 1, 2, 3):
        keys = trick_keys(FRENCH_LAYOUT, trump, range(1, 14))
        for _ in range(300):
            cards = rnd.sample(range(52), 3)
            led = cards[0] // 13
            best = max(range(3), key=lambda i: keys[led][cards[i]])
            assert best == trick_winner(cards, trump)


def test_latin_trick_keys_agree_with_beats():
    # The incremental winner of apply_id (keys) is the winner of rules.beats.
    rnd = random.Random(7)
    for trump in range(4):
        keys = trick_keys(LATIN_LAYOUT, trump, range(1, 11))
        for _ in range(300):
            lead, *rest = rnd.sample(range(40), 4)
            led, win = lead // 10, lead
            for card in rest:
                assert (keys[led][card] > keys[led][win]) == beats(card, win, trump)
                if beats(card, win, trump):
                    win = card


def test_history_spans_cover_each_entry_once_and_every_deal():
    history: list[int] = []
    starts: list[int] = []
    view = PublicHistory(history)
    got: list[list[int]] = []

    def catch_up() -> None:
        for index, begin, end in view.spans(starts):
            if index == len(view.deals):
                view.deals.append(index)
                got.append([])
            got[index] += history[begin:end]

    assert view.spans(starts) == []
    starts.append(0)
    catch_up()
    assert got == [[]]
    history += [1, 2]
    catch_up()
    history += [3]
    starts.append(len(history))  # deal 2 starts, nothing played yet
    starts.append(len(history))  # and deal 3 (deal 2 thrown in at once)
    history += [4]
    catch_up()
    assert got == [[1, 2, 3], [], [4]]
    assert view.spans(starts) == []
    history += [5, 6]
    catch_up()
    assert got == [[1, 2, 3], [], [4, 5, 6]] and view.seen == 6


@pytest.mark.parametrize("variant", games.variants())
def test_the_trick_games_share_the_core(variant):
    state = games.load(variant).new_game(3)
    if state.game.variant.family not in ("manni", "maniglia"):
        assert not isinstance(state, TrickState)
        return
    assert isinstance(state, TrickState)
    assert state.n == state.game.num_players == len(state.after)
    # COMMON-1, MANIGLIA-GEN-3: play goes the way the dealer moves.
    step = 1 if state.game.variant.dealer_rotation == "left" else -1
    assert state.after == tuple((s + step) % state.n for s in range(state.n))
    rnd = random.Random(3)
    while not state.is_over():
        if state.phase == P_PLAY and state.trick:
            assert state.win_seat >= 0 and state.win_card in state.trick
        ids = state.legal_ids()
        state.apply_id(ids[int(rnd.random() * len(ids))])
    assert state.phase == P_OVER and state.current_player() is None
