"""Pure rule helpers: card points, trick winner, MANIGLIA-GEN-5 legality, scoring."""

from __future__ import annotations

import itertools

import pytest

from games.cards import LATIN_INDEX
from games.maniglia.rules import (
    FULL_PACK,
    PACK_WITHOUT_TWOS,
    auction_deal_points,
    beats,
    card_points,
    deal_hands,
    deal_value,
    partners_deal_points,
    playable,
    trick_winner,
    turn_up_bonus,
)

D, C, S, B = range(4)


def mask(*cards: str) -> int:
    m = 0
    for c in cards:
        m |= 1 << LATIN_INDEX[c]
    return m


def names(m: int) -> set[str]:
    return {c for c, i in LATIN_INDEX.items() if m >> i & 1}


def card(name: str) -> int:
    return LATIN_INDEX[name]


def test_rank_order_high_to_low():
    """MANIGLIA-GEN-1: in each suit 7 > A > K > N > J > 6 > 5 > 4 > 3 > 2."""
    order = ["7", "A", "K", "N", "J", "6", "5", "4", "3", "2"]
    for suit in "DCSB":
        for hi, lo in itertools.combinations(order, 2):
            assert beats(card(hi + suit), card(lo + suit), trump=-1)
            assert not beats(card(lo + suit), card(hi + suit), trump=-1)


def test_packs_hold_40_and_36_cards():
    """MANIGLIA-GEN-1, EX-MANI-7: the 40-card Latin pack; maniglia-3 drops the four 2s."""
    assert FULL_PACK.bit_count() == 40
    assert PACK_WITHOUT_TWOS.bit_count() == 36
    assert not names(PACK_WITHOUT_TWOS) & {"2D", "2C", "2S", "2B"}


def test_card_points_sum_to_60_in_both_packs():
    """MANIGLIA-GEN-2: 7 = 5, A = 4, K = 3, N = 2, J = 1, others 0; 60 per pack."""
    assert [card_points(mask(r + "D")) for r in "23456JNKA7"] == [0, 0, 0, 0, 0, 1, 2, 3, 4, 5]
    assert card_points(FULL_PACK) == 60
    assert card_points(PACK_WITHOUT_TWOS) == 60


def test_deal_value_is_60_plus_one_per_trick():
    """MANIGLIA-GEN-2, EX-MANI-7: a deal is worth 72 / 70 / 68 for 3 / 4 / 5 players."""
    assert [deal_value(n) for n in (3, 4, 5)] == [72, 70, 68]


def test_trick_points_example():
    """EX-MANI-1: 7D, AD, 2D, KS give 5 + 4 + 0 + 3 = 12 card points (+1 trick = 13)."""
    assert card_points(mask("7D", "AD", "2D", "KS")) + 1 == 13


@pytest.mark.parametrize(
    ("cards", "trump", "winner"),
    [
        (["KC", "NC", "7D", "3C"], S, 0),  # off-suit 7 never wins (COMMON-5)
        (["KC", "AC", "7C", "3C"], S, 2),
        (["AC", "4S", "6S", "3C"], S, 2),  # EX-MANI-4: the higher trump wins
        (["5D", "7D", "6D", "2S"], S, 3),  # any trump beats the led suit
        (["2S", "7D", "AS", "3S"], S, 2),  # trump led
        (["5D", "7B", "6D"], C, 2),
    ],
)
def test_trick_winner(cards, trump, winner):
    """MANIGLIA-GEN-6 (COMMON-5): highest trump, else highest card of the led suit."""
    assert trick_winner([card(c) for c in cards], trump) == winner


# -- MANIGLIA-GEN-5, card by card -----------------------------------------------------


def legal(hand, led, win, opponent, trump, strict):
    return names(
        playable(
            mask(*hand),
            "DCSB".index(led) if led else -1,
            card(win) if win else -1,
            opponent,
            "DCSB".index(trump),
            strict,
        )
    )


def test_leader_plays_any_card():
    """MANIGLIA-GEN-5 step 1: the leader plays any card, under both options."""
    hand = ["7D", "2C", "KS", "3B"]
    for strict in (False, True):
        assert legal(hand, None, None, True, "S", strict) == set(hand)


def test_follow_and_beat_opponent_example():
    """MANIGLIA-GEN-5 step 2, EX-MANI-2: trump S, KC led by an opponent."""
    for strict in (False, True):
        assert legal(["NC", "3C", "7S"], "C", "KC", True, "S", strict) == {"NC", "3C"}
        assert legal(["AC", "NC", "3C", "7S"], "C", "KC", True, "S", strict) == {"AC"}


def test_void_must_trump_opponent_example():
    """MANIGLIA-GEN-5 steps 3 and 4, EX-MANI-3."""
    for strict in (False, True):
        # P1 5D (opponent of P2); P2 has no coins: any trump wins, so 2S.
        assert legal(["2S", "KC"], "D", "5D", True, "S", strict) == {"2S"}
    # P2's 7D is winning; P4 is P2's partner: either card by default.
    assert legal(["2S", "KC"], "D", "7D", False, "S", False) == {"2S", "KC"}
    # strict: a void player holding a trump must play one.
    assert legal(["2S", "KC"], "D", "7D", False, "S", True) == {"2S"}


def test_must_overtrump_opponent_example():
    """MANIGLIA-GEN-5 step 3, EX-MANI-4: AC led, 4S (opponent) winning; 6S must be played."""
    for strict in (False, True):
        assert legal(["2S", "6S", "KD"], "C", "4S", True, "S", strict) == {"6S"}


def test_strict_beats_partner_example():
    """MANIGLIA-GEN-5 option strict, EX-MANI-4: partner's 5D winning, holding KD and 3D."""
    assert legal(["KD", "3D"], "D", "5D", False, "S", False) == {"KD", "3D"}
    assert legal(["KD", "3D"], "D", "5D", False, "S", True) == {"KD"}


def test_cannot_beat_means_any_card_of_the_suit():
    """MANIGLIA-GEN-5 step 2: unable to beat W, any card of the led suit."""
    for strict in (False, True):
        assert legal(["3C", "NC", "AD"], "C", "7C", True, "D", strict) == {"3C", "NC"}


def test_trumped_trick_following_suit_need_not_beat_the_trump():
    """MANIGLIA-GEN-5 step 2: W is a trump, not of the led suit: any card of the led suit."""
    for strict in (False, True):
        assert legal(["3C", "AC", "7S"], "C", "2S", True, "S", strict) == {"3C", "AC"}


def test_void_with_only_lower_trumps():
    """MANIGLIA-GEN-5 step 3: no trump that wins: any card; strict: any trump."""
    hand = ["2S", "3S", "KD"]
    assert legal(hand, "C", "AS", True, "S", False) == set(hand)
    assert legal(hand, "C", "AS", True, "S", True) == {"2S", "3S"}
    assert legal(hand, "C", "AS", False, "S", True) == {"2S", "3S"}


def test_void_without_trumps_plays_anything():
    """MANIGLIA-GEN-5 steps 3/4: no led suit and no trump: any card, both options."""
    hand = ["KD", "3B", "NB"]
    for opponent, strict in itertools.product((False, True), repeat=2):
        assert legal(hand, "C", "AC", opponent, "S", strict) == set(hand)


def test_trump_led_must_overtrump_an_opponent():
    """MANIGLIA-GEN-5 step 2 with trump led: follow with a higher trump against an opponent."""
    assert legal(["3S", "AS", "KD"], "S", "KS", True, "S", False) == {"AS"}
    assert legal(["3S", "AS", "KD"], "S", "KS", False, "S", False) == {"3S", "AS"}
    assert legal(["3S", "AS", "KD"], "S", "KS", False, "S", True) == {"AS"}


def test_playable_matches_a_literal_reading_on_all_small_hands():
    """MANIGLIA-GEN-5: the bitmask function agrees with a direct reading of the rule."""
    pool = ["3D", "KD", "7D", "2C", "AC", "4S", "NS", "7S"]
    for size in (1, 2, 3):
        for hand in itertools.combinations(pool, size):
            for led, win in (("D", "JD"), ("D", "6S"), ("C", "KC"), ("S", "JS")):
                for opponent, strict in itertools.product((False, True), repeat=2):
                    got = legal(list(hand), led, win, opponent, "S", strict)
                    assert got == literal(hand, led, win, opponent, "S", strict), (
                        hand,
                        led,
                        win,
                        opponent,
                        strict,
                    )


def literal(hand, led, win, opponent, trump, strict):
    rank = "23456JNKA7".index
    follow = [c for c in hand if c[1] == led]
    must = opponent or strict
    if follow:
        if must and win[1] == led:
            higher = [c for c in follow if rank(c[0]) > rank(win[0])]
            return set(higher or follow)
        return set(follow)
    trumps = [c for c in hand if c[1] == trump]
    if not must or not trumps:
        return set(hand)
    if win[1] == trump:
        winning = [c for c in trumps if rank(c[0]) > rank(win[0])]
    else:
        winning = trumps
    if winning:
        return set(winning)
    return set(trumps) if strict else set(hand)


# -- scoring helpers ---------------------------------------------------------------------


def test_partners_scoring_example():
    """MANIGLIA-4P-3, MANIGLIA-4P-5, EX-MANI-5 (the arithmetic)."""
    assert turn_up_bonus(card("AD"), 27) == 4  # 27 -> 31
    assert partners_deal_points([25 + 4, 35 + 6]) == [0, 6]  # 12 -> 18
    assert turn_up_bonus(card("7B"), 30) == 0
    assert turn_up_bonus(card("7B"), 29) == 5
    assert partners_deal_points([36 + 6, 70 - 42]) == [7, 0]  # 30 -> 37
    assert partners_deal_points([35, 35]) == [0, 0]


def test_auction_scoring_example():
    """MANIGLIA-AUC-6, EX-MANI-6: 27 + 3 = 30 makes a bid of 30; 26 + 2 = 28 fails."""
    assert auction_deal_points(4, 3, 30, 27 + 3) == [0, 0, 0, 30]
    assert auction_deal_points(4, 3, 30, 26 + 2) == [30, 30, 30, 0]


def test_deal_hands_follows_the_pattern():
    """MANIGLIA-GEN-4: packets from the dealer's right, counter-clockwise, dealer last."""
    deck = list(range(40))
    hands = deal_hands(deck, 0, 4)  # order 3, 2, 1, 0 in packets of 5
    assert hands[3] == rules_mask(list(range(0, 5)) + list(range(20, 25)))
    assert hands[0] == rules_mask(list(range(15, 20)) + list(range(35, 40)))
    hands5 = deal_hands(deck, 2, 5)  # order 1, 0, 4, 3, 2 in packets of 4
    assert hands5[1] == rules_mask([0, 1, 2, 3, 20, 21, 22, 23])
    assert hands5[2] == rules_mask([16, 17, 18, 19, 36, 37, 38, 39])
    pack36 = [c for c in range(40) if c % 10]
    hands3 = deal_hands(pack36, 1, 3)  # order 0, 2, 1 in packets of 4
    assert hands3[0] == rules_mask(pack36[0:4] + pack36[12:16] + pack36[24:28])
    assert hands3[1] == rules_mask(pack36[8:12] + pack36[20:24] + pack36[32:36])


def rules_mask(cards: list[int]) -> int:
    return sum(1 << c for c in cards)
