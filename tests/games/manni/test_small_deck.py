"""manni-basic with a small deck (``manni.ranks``; not a rule of the real game)."""

from __future__ import annotations

import random

import pytest

import games
from tests.games.manni.helpers import ALL, D, L, R, hand, new

V = "manni-basic"


def small_pack(ranks: int) -> set[str]:
    """The cards of the ``ranks`` highest ranks of each suit (A high)."""
    return {c for c in ALL if c[0] in "23456789TJQKA"[13 - ranks :]}


def test_small_pack_is_the_highest_ranks():
    """MANNI-BASIC-2: 3 ranks keep A K Q of each suit; 12 is the real pack."""
    assert small_pack(3) == {r + s for s in "SHDC" for r in "AKQ"}
    for ranks in (3, 6, 9, 12):
        deck = games.load(V, manni_ranks=ranks).new_game(5).record()["decks"][0]
        assert len(deck) == len(set(deck)) == 4 * ranks
        assert set(deck) == small_pack(ranks)
    assert small_pack(12) == {c for c in ALL if c[0] != "2"}


def test_small_deck_deals_a_quarter_each_in_packets_of_three():
    """MANNI-BASIC-4: 6 ranks give 6 cards each in two rounds of 3 to L, R, D;
    the 6 left are the Manni."""
    deck = sorted(small_pack(6))
    random.Random(1).shuffle(deck)
    state = new(V, deck, manni_ranks=6)
    assert hand(state, L) == set(deck[0:3] + deck[9:12])
    assert hand(state, R) == set(deck[3:6] + deck[12:15])
    assert hand(state, D) == set(deck[6:9] + deck[15:18])
    obs = state.observation(L)
    assert obs["manni_size"] == 6
    assert obs["hand_sizes"] == [6, 6, 6]


def test_taking_the_small_manni_swaps_hands_of_the_small_size():
    """MANNI-BASIC-5: the taker's 3 cards go out of play, the 3 Manni cards
    (the deck's last quarter) become his hand."""
    deck = sorted(small_pack(3))
    random.Random(2).shuffle(deck)
    state = new(V, deck, manni_ranks=3)
    state.apply("take")  # L, first to answer
    assert hand(state, L) == set(deck[9:12])
    assert set(state.observation(L)["out_of_play"]) == set(deck[0:3])
    assert state.observation(R)["manni_size"] == 0


def test_a_card_outside_the_small_pack_is_refused():
    """COMMON-3: a given deck must hold exactly the small pack."""
    deck = sorted(small_pack(3))
    deck[0] = "JS"
    with pytest.raises(ValueError, match="'JS', which is not a card of this pack"):
        new(V, deck, manni_ranks=3)
    with pytest.raises(ValueError, match="has 48 cards, expected 12"):
        new(V, sorted(small_pack(12)), manni_ranks=3)


@pytest.mark.parametrize("bad", [4, 0, 13, "3", 3.0, True, None])
def test_a_bad_ranks_value_names_the_option_and_the_allowed_values(bad):
    """COMMON-8: only 3, 6, 9 or 12 ranks give equal hands and a whole par."""
    with pytest.raises(ValueError, match=r"option manni\.ranks must be one of 3, 6, 9, 12"):
        games.load(V, manni_ranks=bad)


def test_other_manni_variants_have_no_small_deck():
    with pytest.raises(ValueError, match="unknown option 'manni.ranks'"):
        games.load("laugavatnsmanni", manni_ranks=6)


def test_par_and_target_scale_with_the_ranks():
    """MANNI-BASIC-7, MANNI-BASIC-8: par N/3 (4 of 12), target 10 N / 12
    rounded up (3, 5, 8, 10)."""
    targets = {}
    for ranks in (3, 6, 9, 12):
        state = games.load(V, manni_ranks=ranks).new_game(0)
        targets[ranks] = (state.par, state.target)
    assert targets == {3: (1, 3), 6: (2, 5), 9: (3, 8), 12: (4, 10)}


def _cards_in_view(state) -> tuple[list[str], int]:
    """Every card some seat holds, has put out of play or played this deal, and the Manni."""
    seen: list[str] = []
    for seat in range(3):
        obs = state.observation(seat)
        seen += obs["hand"] + obs["out_of_play"]
    deal = state.observation(0)["history"][-1]
    seen += [a[5:] for a in deal["actions"] if a.startswith("play ")]
    return seen, state.observation(0)["manni_size"]


@pytest.mark.parametrize("ranks", [3, 6, 9])
def test_random_small_games_conserve_cards_and_score_the_small_scale(ranks):
    """MANNI-BASIC-7, MANNI-BASIC-8, LIMIT-3: in many random games every card
    of the small pack is somewhere at every step; each deal's scores add up to its tricks
    (N) less three pars and sum to zero; the game ends exactly when a total reaches the
    scaled target (or at the deal cap)."""
    game = games.load(V, manni_ranks=ranks)
    pack, par, target = small_pack(ranks), ranks // 3, -(-10 * ranks // 12)
    rng = random.Random(ranks)
    deals = 0
    for seed in range(60):
        state = game.new_game(seed)
        totals = [0, 0, 0]
        while not state.is_over():
            seen, manni = _cards_in_view(state)
            assert len(seen) == len(set(seen)) and set(seen) <= pack
            assert len(seen) + manni == len(pack) == 4 * ranks
            assert state.observation(0)["hand_sizes"][0] <= ranks
            deal = state.deal_number()
            ids = state.legal_ids()
            state.apply_id(ids[rng.randrange(len(ids))])
            if state.is_over() or state.deal_number() != deal:
                gained = [a - b for a, b in zip(state.scores(), totals, strict=True)]
                assert sum(gained) == 0
                assert sum(g + par for g in gained) == ranks  # the deal's tricks
                assert all(-par <= g <= ranks - par for g in gained)
                totals = state.scores()
                deals += 1
                if not state.is_over():
                    assert max(totals) < target
        assert max(totals) >= target or state.deal_number() == 100
    assert deals > 60 * 2  # small targets still take more than one deal as a rule
