"""Variants, options, decks and the deal (MANIGLIA-GEN-1, -3, -4, COMMON-8)."""

from __future__ import annotations

import pytest

import games
from tests.games.maniglia.deals import PLAYERS, deck_for, pack, position

VARIANTS = ["maniglia-3", "maniglia-4", "maniglia-5", "maniglia-4-partners"]


def test_variants_are_registered_in_the_family():
    """MANIGLIA-GEN-1, EX-MANI-7: four variants, their table sizes and packs."""
    for v in VARIANTS:
        info = games.variant_info(v)
        assert info.family == "maniglia"
        assert info.players == PLAYERS[v]


@pytest.mark.parametrize(
    ("variant", "size", "hand"),
    [
        ("maniglia-3", 36, 12),
        ("maniglia-4", 40, 10),
        ("maniglia-5", 40, 8),
        ("maniglia-4-partners", 40, 10),
    ],
)
def test_whole_pack_is_dealt(variant, size, hand):
    """MANIGLIA-GEN-1, MANIGLIA-GEN-4, EX-MANI-7: all cards dealt, equal hands."""
    state = games.load(variant).new_game(11)
    deck = state.record()["decks"][0]
    assert len(deck) == size and sorted(deck) == sorted(pack(variant))
    n = PLAYERS[variant]
    hands = [state.observation(s)["hand"] for s in range(n)]
    assert [len(h) for h in hands] == [hand] * n
    assert sorted(c for h in hands for c in h) == sorted(deck)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_deal_pattern_from_the_dealers_right(variant, dealer):
    """MANIGLIA-GEN-3, MANIGLIA-GEN-4: packets counter-clockwise from the dealer's right,
    dealer last (3p 4+4+4, 4p 5+5, 5p 4+4)."""
    n = PLAYERS[variant]
    deck = pack(variant)
    packet = {3: 4, 4: 5, 5: 4}[n]
    state = games.load(variant).new_game(3, dealer=dealer, decks=[deck])
    for seat in range(n):
        expect = []
        for p in range(len(deck) // packet):
            if (dealer - 1 - p) % n == seat:
                expect += deck[p * packet : (p + 1) * packet]
        assert sorted(state.observation(seat)["hand"]) == sorted(expect)
    right = (dealer - 1) % n
    assert set(deck[:packet]) <= set(state.observation(right)["hand"])
    assert deck[-1] in state.observation(dealer)["hand"]


def test_deck_for_helper_deals_the_hands_asked_for():
    """MANIGLIA-GEN-4: the test helper's layout and the engine's deal agree."""
    hands = {
        0: ["7D", "AD"],
        2: ["KC"],
        1: ["2B", "3B", "4B", "5B", "6B", "JB", "NB", "KB", "AB", "7B"],
    }
    state = games.load("maniglia-4").new_game(1, dealer=2, decks=[deck_for("maniglia-4", 2, hands)])
    assert {"7D", "AD"} <= set(state.observation(0)["hand"])
    assert "KC" in state.observation(2)["hand"]
    assert sorted(state.observation(1)["hand"]) == sorted(hands[1])


@pytest.mark.parametrize("variant", VARIANTS)
def test_deal_passes_to_the_right(variant):
    """MANIGLIA-GEN-3, COMMON-2: each new deal's dealer is the previous dealer's right."""
    n = PLAYERS[variant]
    option = "target_partners" if variant == "maniglia-4-partners" else "target"
    state = games.load(variant, **{f"maniglia.{option}": 10_000}).new_game(5, dealer=1)
    dealers = [1]
    while len(dealers) < 6:
        deal = state.observation(0)["deal"]
        state.apply(state.legal_actions()[-1])  # auction games: everybody passes
        if state.observation(0)["deal"] != deal:
            dealers.append(state.observation(0)["dealer"])
    assert dealers == [(1 - i) % n for i in range(6)]


def test_first_dealer_comes_from_the_seed():
    """COMMON-2: without a fixed dealer, the seed decides; same seed, same dealer."""
    game = games.load("maniglia-5")
    dealers = {game.new_game(s).observation(0)["dealer"] for s in range(40)}
    assert dealers == set(range(5))
    assert game.new_game(7).record() == game.new_game(7).record()


def test_later_decks_come_from_the_seed():
    """MANIGLIA-GEN-4 (DESIGN 2): given decks fix the first deals, the seed the rest."""
    deck = pack("maniglia-4")
    state = games.load("maniglia-4").new_game(9, dealer=0, decks=[deck])
    while state.observation(0)["deal"] == 1:
        state.apply("pass")
    decks = state.record()["decks"]
    assert decks[0] == deck and len(decks) == 2 and sorted(decks[1]) == sorted(deck)


# -- options ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "defaults"),
    [
        (
            "maniglia-3",
            {
                "maniglia.overtake": "opponent",
                "maniglia.all_pass": "redeal",
                "maniglia.ranks": 9,
                "maniglia.target": 72,
            },
        ),
        (
            "maniglia-4",
            {
                "maniglia.overtake": "opponent",
                "maniglia.all_pass": "redeal",
                "maniglia.ranks": 10,
                "maniglia.target": 70,
            },
        ),
        (
            "maniglia-5",
            {
                "maniglia.overtake": "opponent",
                "maniglia.all_pass": "redeal",
                "maniglia.ranks": 10,
                "maniglia.target": 68,
            },
        ),
        ("maniglia-4-partners", {"maniglia.overtake": "opponent", "maniglia.target_partners": 35}),
    ],
)
def test_option_defaults(variant, defaults):
    """COMMON-8, MANIGLIA-GEN-5, MANIGLIA-AUC-3, MANIGLIA-AUC-7, MANIGLIA-4P-6:
    defaults (the whole pack: 9 ranks for maniglia-3, 10 for the others)."""
    assert games.load(variant).options == defaults


def test_options_by_keyword_and_canonical_name():
    """COMMON-8: dotted names or underscore keywords."""
    game = games.load("maniglia-4", maniglia_overtake="strict", maniglia_all_pass="dealer-forced")
    assert game.options["maniglia.overtake"] == "strict"
    assert (
        game.canonical() == "maniglia-4(maniglia.overtake=strict,maniglia.all_pass=dealer-forced)"
    )
    assert games.load("maniglia-3", **{"maniglia.target": "100"}).options["maniglia.target"] == 100


@pytest.mark.parametrize(
    ("variant", "options", "needle"),
    [
        ("maniglia-4-partners", {"maniglia.target": 70}, "unknown option"),
        ("maniglia-4-partners", {"maniglia.all_pass": "redeal"}, "unknown option"),
        ("maniglia-3", {"maniglia.target_partners": 35}, "unknown option"),
        ("maniglia-4", {"maniglia.trump": "D"}, "unknown option"),
        ("maniglia-4", {"maniglia.overtake": "always"}, "maniglia.overtake"),
        ("maniglia-4", {"maniglia.all_pass": "forced"}, "maniglia.all_pass"),
        ("maniglia-5", {"maniglia.target": 0}, "maniglia.target"),
        ("maniglia-5", {"maniglia.target": "x"}, "maniglia.target"),
        ("maniglia-5", {"maniglia.target": True}, "maniglia.target"),
        ("maniglia-4-partners", {"maniglia.target_partners": -3}, "maniglia.target_partners"),
        ("maniglia-4-partners", {"maniglia.target_partners": 10_001}, "maniglia.target_partners"),
    ],
)
def test_bad_options_are_rejected(variant, options, needle):
    """COMMON-8: an option of another variant or a value out of range raises ValueError."""
    with pytest.raises(ValueError, match=needle):
        games.load(variant, **options)


# -- decks and dealer ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "deck", "needle"),
    [
        ("maniglia-4", pack("maniglia-4")[:-1], "39 cards, expected 40"),
        ("maniglia-4", [*pack("maniglia-4")[:-1], "7D"], "'7D' twice"),
        ("maniglia-4", [*pack("maniglia-4")[:-1], "7X"], "'7X'"),
        ("maniglia-4", [*pack("maniglia-4")[:-1], "TH"], "'TH'"),
        ("maniglia-3", pack("maniglia-4"), "40 cards, expected 36"),
        ("maniglia-3", [*pack("maniglia-3")[:-1], "2D"], "'2D', which is not a card"),
        ("maniglia-5", "7D AD", "must be a list"),
        ("maniglia-4-partners", [*pack("maniglia-4")[:-1], 7], "7"),
    ],
)
def test_bad_decks_are_rejected(variant, deck, needle):
    """MANIGLIA-GEN-1: a deck must hold exactly the variant's pack (no 2s in maniglia-3)."""
    with pytest.raises(ValueError, match=needle):
        games.load(variant).new_game(1, decks=[deck])


@pytest.mark.parametrize(
    ("variant", "dealer"),
    [
        ("maniglia-3", 3),
        ("maniglia-4", -1),
        ("maniglia-5", 5),
        ("maniglia-4-partners", 4),
        ("maniglia-4", True),
        ("maniglia-4", "0"),
    ],
)
def test_bad_dealer_is_rejected(variant, dealer):
    """COMMON-2: the dealer must be a seat of the table."""
    with pytest.raises(ValueError, match="dealer"):
        games.load(variant).new_game(1, dealer=dealer)


def test_position_helper_sets_options():
    """MANIGLIA-GEN-5: options reach the state through the test helper."""
    state = position("maniglia-4", 0, {}, maniglia_overtake="strict")
    assert state.observation(0)["options"]["maniglia.overtake"] == "strict"
