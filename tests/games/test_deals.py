"""Deals as a shuffle makes them (games/deals.py), decks given deal by deal, and pickling."""

from __future__ import annotations

import json
import math
import pickle
import random
from collections import Counter

import pytest

import games
from games.deals import Dealing, card_names, deal_count, deal_groups, pack_cards

#: Every variant, and the small decks of docs/training.md.
CASES = [(v, {}) for v in games.variants()] + [
    ("manni-basic", {"manni.ranks": 3}),
    ("maniglia-4", {"maniglia.ranks": 1}),
    ("maniglia-3", {"maniglia.ranks": 3}),
]


def view(game, dealer: int, deck: list[int]) -> str:
    """Everything every seat sees of the first decision, and who acts with what."""
    names = card_names(game)
    state = game.new_game(0, dealer=dealer, decks=[[names[c] for c in deck]])
    seats = range(game.num_players)
    return json.dumps([*(state.observation(s) for s in seats), state.legal_ids()], sort_keys=True)


@pytest.mark.parametrize(("variant", "options"), CASES)
def test_the_groups_are_exactly_what_a_deal_decides(variant, options):
    """Cards exchanged inside a group deal the same game; across two groups, another."""
    game = games.load(variant, **options)
    rnd = random.Random(variant)
    cards = list(pack_cards(game))
    for _ in range(3):
        dealer = rnd.randrange(game.num_players)
        groups = deal_groups(game, dealer)
        assert sorted(p for _, ps in groups for p in ps) == list(range(len(cards)))
        deck = rnd.sample(cards, len(cards))
        shuffled = deck[:]
        for _, positions in groups:
            held = [deck[p] for p in positions]
            rnd.shuffle(held)
            for p, card in zip(positions, held, strict=True):
                shuffled[p] = card
        assert view(game, dealer, shuffled) == view(game, dealer, deck)
        if len(groups) > 1:
            a, b = rnd.sample(range(len(groups)), 2)
            swapped = deck[:]
            pa, pb = groups[a][1][0], groups[b][1][0]
            swapped[pa], swapped[pb] = swapped[pb], swapped[pa]
            seen = [json.loads(view(game, dealer, d)) for d in (deck, swapped)]
            records = [
                game.new_game(0, dealer=dealer, decks=[[card_names(game)[c] for c in d]])
                for d in (deck, swapped)
            ]
            # Some seat, or the hidden cards a seat will draw, tell the two apart.
            assert seen[0] != seen[1] or _hidden(records[0]) != _hidden(records[1])


def _hidden(state) -> str:
    """What no observation shows yet: the Manni, the stacks."""
    parts = [getattr(state, name, None) for name in ("manni", "stacks")]
    return repr(parts)


def enumerate_deals(dealing: Dealing) -> Counter:
    """Every path of the chance nodes of one deal: the deal reached and its probability."""
    out: Counter = Counter()

    def walk(node: Dealing, p: float) -> None:
        if node.complete:
            key = tuple(tuple(sorted(node.deck[q] for q in ps)) for _, ps in node.groups)
            out[key] += p
            return
        outcomes = node.outcomes()
        assert sum(q for _, q in outcomes) == pytest.approx(1.0)
        for card, q in outcomes:
            child = node.copy()
            child.deal(card)
            walk(child, p * q)

    walk(dealing, 1.0)
    return out


@pytest.mark.parametrize(
    ("variant", "options", "deals"),
    [("maniglia-4", {"maniglia.ranks": 1}, 24), ("maniglia-3", {"maniglia.ranks": 3}, 34650)],
)
def test_card_by_card_every_deal_is_one_path_and_equally_likely(variant, options, deals):
    game = games.load(variant, **options)
    found = enumerate_deals(Dealing(deal_groups(game, 0), pack_cards(game)))
    assert len(found) == deals == deal_count(game, first=False)
    assert min(found.values()) == pytest.approx(1 / deals)
    assert max(found.values()) == pytest.approx(1 / deals)


def test_the_number_of_deals_of_each_pack():
    assert deal_count(games.load("maniglia-4", maniglia_ranks=1)) == 96  # 4 dealers * 4!
    # 3 dealers * 48! / (12!^4): three hands and the Manni.
    hands = math.factorial(12) ** 4
    assert deal_count(games.load("manni-basic")) == 3 * math.factorial(48) // hands
    money = games.load("money-jordan")
    assert deal_count(money) == 2 * math.factorial(len(pack_cards(money)))  # ordered stacks


def test_a_card_that_cannot_come_next_is_named():
    game = games.load("maniglia-4", maniglia_ranks=3)
    dealing = Dealing(deal_groups(game, 1), pack_cards(game))
    with pytest.raises(ValueError, match=r"card 30 cannot come next \(to seat 0\)"):
        dealing.deal(30)  # ascending: three more of seat 0's cards must lie above it
    with pytest.raises(ValueError, match="cannot come next"):
        dealing.deal("7D")
    dealing.deal(7)
    with pytest.raises(ValueError, match="card 7 cannot"):
        dealing.deal(7)


@pytest.mark.parametrize("variant", ["manni-basic", "maniglia-4-partners", "laugavatnsmanni"])
def test_a_state_awaiting_decks_waits_between_deals_for_the_next(variant):
    """``await_decks``: the next deal waits for ``deal_next``; the record replays."""
    game = games.load(variant)
    first = game.new_game(3).record()["decks"][0]
    state = game.new_game(3, decks=[first], await_decks=True)
    rnd = random.Random(3)
    names = card_names(game)
    waited = 0
    while not state.is_over() and waited < 3:
        if state.awaiting_deck():
            assert state.current_player() is None and state.legal_ids() == []
            assert state.observation(0)["phase"] == "dealing"
            with pytest.raises(games.IllegalAction):
                state.apply_id(0)
            with pytest.raises(ValueError, match="not a card of this pack"):
                state.deal_next(["nonsense"] * len(first))
            state.deal_next([names[c] for c in rnd.sample(pack_cards(game), len(first))])
            waited += 1
            continue
        state.apply_id(rnd.choice(state.legal_ids()))
    assert waited == 3
    with pytest.raises(ValueError, match="not waiting for a deck"):
        state.deal_next(first)
    assert games.replay(state.record()).record() == state.record()
    with pytest.raises(ValueError, match="needs the first deal's deck"):
        game.new_game(3, await_decks=True)


@pytest.mark.parametrize("variant", games.variants())
def test_games_and_states_pickle_to_equal_ones(variant):
    game = games.load(variant, **({"money.max_plays": 200} if "money" in variant else {}))
    again = pickle.loads(pickle.dumps(game))
    assert again.canonical() == game.canonical() and again.options == game.options
    state = game.new_game(5)
    rnd = random.Random(5)
    for _ in range(40):
        if state.is_over():
            break
        state.apply_id(rnd.choice(state.legal_ids()))
    copy = pickle.loads(pickle.dumps(state))
    assert type(copy) is type(state) and copy.record() == state.record()
    for seat in range(game.num_players):
        assert copy.observation(seat) == state.observation(seat)
    assert copy.legal_ids() == state.legal_ids()


def test_a_corrupt_pickled_state_is_an_error_not_another_state():
    state = games.load("manni-basic").new_game(1)
    state.apply("keep")
    data = pickle.dumps(state)
    forged = data.replace(b"keep", b"pass")  # a label of the table, not legal there
    assert forged != data
    with pytest.raises(games.IllegalAction, match="record action 0"):
        pickle.loads(forged)
