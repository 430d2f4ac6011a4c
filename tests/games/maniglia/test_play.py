"""Card play through the engine: MANIGLIA-GEN-3, -5, -6, -7 and EX-MANI-2..4.

Positions are dealt from explicit decks with every hand given in full. Play
order within a trick is P1..P4 from the dealer's right, counter-clockwise:
with dealer 0 at four players P1 = 3, P2 = 2, P3 = 1, P4 = 0 (so partners
P1+P3 = seats 1+3 and P2+P4 = seats 0+2). In the partnership game the
dealer's last card is turned up and gives trump.
"""

from __future__ import annotations

import random

import games
from games.cards import LATIN_INDEX
from games.maniglia.rules import playable
from tests.games.maniglia.deals import accepted_cards, legal_cards, position

P = "maniglia-4-partners"


def both(variant, hands, actions, **options):
    """The position under the default option and under ``strict`` (dealer 0)."""
    return (
        position(variant, 0, hands, actions, **options),
        position(variant, 0, hands, actions, maniglia_overtake="strict", **options),
    )


def assert_legal(state, expected):
    """The legal list and the cards ``apply`` accepts, tried one by one, are ``expected``."""
    assert sorted(legal_cards(state)) == sorted(expected)
    assert sorted(accepted_cards(state)) == sorted(expected)


def assert_rejects(state, card):
    before = (state.record(), state.observation(state.current_player()))
    try:
        state.apply(f"play {card}")
    except games.IllegalAction as exc:
        assert f"play {card}" in str(exc)
    else:
        raise AssertionError(f"play {card} was accepted")
    assert (state.record(), state.observation(before[1]["seat"])) == before


def test_follow_and_beat_opponent():
    """MANIGLIA-GEN-5 step 2, EX-MANI-2: trump S, KC led; NC or 3C (7S illegal);
    holding AC as well, AC only; both options."""
    hands = {
        3: ["KC", "2D", "3D", "4D", "5D", "6D", "JD", "2B", "3B", "4B"],
        2: ["NC", "3C", "7S", "ND", "KD", "AD", "7D", "5B", "6B", "JB"],
        1: ["2C", "4C", "5C", "6C", "JC", "AC", "7C", "NB", "KB", "AB"],
        0: ["7B", "2S", "3S", "4S", "6S", "JS", "NS", "KS", "AS", "5S"],
    }
    for state in both(P, hands, ["play KC"]):
        assert state.observation(2)["trump"] == "S"
        assert state.legal_actions() == ["play 3C", "play NC"]  # ACTION-7: suit, then rank
        assert_legal(state, ["3C", "NC"])
        assert_rejects(state, "7S")
    hands[2][0], hands[1][5] = "AC", "NC"
    for state in both(P, hands, ["play KC"]):
        assert_legal(state, ["AC"])
        assert_rejects(state, "NC")


def test_void_must_trump_an_opponent():
    """MANIGLIA-GEN-5 step 3, EX-MANI-3: P1 leads 5D; P2, no coins, holds 2S and KC: 2S."""
    hands = {
        3: ["5D", "2D", "3D", "4D", "6D", "JD", "ND", "KD", "AD", "7D"],
        2: ["2S", "KC", "2C", "3C", "4C", "5C", "2B", "3B", "4B", "5B"],
        1: ["6C", "JC", "NC", "AC", "7C", "3S", "4S", "6B", "JB", "NB"],
        0: ["KB", "AB", "7B", "6S", "JS", "NS", "KS", "AS", "7S", "5S"],
    }
    for state in both(P, hands, ["play 5D"]):
        assert_legal(state, ["2S"])
        assert_rejects(state, "KC")


def test_void_free_when_partner_wins():
    """MANIGLIA-GEN-5 step 4 and option strict, EX-MANI-3: P1 5D, P2 7D, P3 6D; P4 (no
    coins, 2S and KC) may play either card; strict: must trump."""
    hands = {
        3: ["5D", "2D", "3D", "4D", "JB", "NB", "KB", "AB", "7B", "6C"],
        2: ["7D", "JD", "KD", "AD", "JC", "NC", "AC", "7C", "3S", "4S"],
        1: ["6D", "ND", "JS", "NS", "KS", "AS", "7S", "5S", "6S", "2B"],
        0: ["KC", "2C", "3C", "4C", "5C", "3B", "4B", "5B", "6B", "2S"],  # 2S turned up
    }
    default, strict = both(P, hands, ["play 5D"])
    for state in (default, strict):
        assert_legal(state, ["7D", "JD", "KD", "AD"])  # must beat the opponent's 5D
        state.apply("play 7D")
        assert_legal(state, ["6D", "ND"])  # cannot beat 7D: any coin
        state.apply("play 6D")
    assert_legal(default, hands[0])
    assert_legal(strict, ["2S"])
    assert_rejects(strict, "KC")


def test_must_overtrump_an_opponent_and_the_trick_points():
    """MANIGLIA-GEN-5 step 3, MANIGLIA-GEN-6, EX-MANI-4: trump S; P1 AC, P2 (no cups) 4S,
    P3 (no cups; 2S, 6S, KD) must play 6S, P4 plays 3C; P1+P3 score 4 + 1 = 5."""
    hands = {
        3: ["AC", "2C", "4C", "5C", "6C", "JS", "NS", "KS", "AS", "7S"],
        2: ["4S", "AD", "7D", "4B", "5B", "6B", "JB", "NB", "KB", "AB"],
        1: ["2S", "6S", "3S", "KD", "2D", "3D", "4D", "5D", "6D", "7B"],
        0: ["3C", "JC", "NC", "KC", "7C", "JD", "ND", "2B", "3B", "5S"],  # 5S turned up
    }
    for state in both(P, hands, ["play AC"]):
        assert_legal(state, ["4S"])
        state.apply("play 4S")
        assert_legal(state, ["6S"])
        assert_rejects(state, "2S")
        assert_rejects(state, "KD")
        state.apply("play 6S")
        assert_legal(state, ["3C", "JC", "NC", "KC", "7C"])  # follow suit; W is a trump
        state.apply("play 3C")
        obs = state.observation(2)
        assert obs["team_totals"] == [0, 5]
        assert obs["tricks_won"] == [0, 1, 0, 0] and obs["card_points"] == [0, 4, 0, 0]
        assert obs["leader"] == 1 and state.current_player() == 1  # MANIGLIA-GEN-6
        assert obs["trick"] == []


def test_strict_must_beat_a_partner():
    """MANIGLIA-GEN-5 option strict, EX-MANI-4: P1 5D, P2 4D, P3 holds KD and 3D:
    default KD or 3D (partner winning); strict only KD."""
    hands = {
        3: ["5D", "6D", "JD", "ND", "AD", "7D", "2C", "3C", "4C", "5C"],
        2: ["4D", "2D", "6C", "JC", "NC", "KC", "AC", "7C", "2S", "3S"],
        1: ["KD", "3D", "4S", "5S", "6S", "JS", "NS", "KS", "AS", "7S"],
        0: ["2B", "3B", "4B", "5B", "6B", "JB", "NB", "KB", "AB", "7B"],  # 7B turned up
    }
    default, strict = both(P, hands, ["play 5D"])
    for state in (default, strict):
        assert_legal(state, ["2D", "4D"])  # cannot beat 5D
        state.apply("play 4D")
    assert_legal(default, ["3D", "KD"])
    assert_legal(strict, ["KD"])
    assert_rejects(strict, "3D")


def auction_position(declarer_hands, bids, **options):
    actions = [*bids, "trump S"]
    return both("maniglia-4", declarer_hands, actions, **options)


def test_coalition_partners_under_the_auction():
    """MANIGLIA-GEN-5, MANIGLIA-AUC-5: the declarer (seat 3) leads KD; his opponent must
    beat it; then a coalition player facing his partner's AD need not (strict: must),
    and a void one may discard (strict: must trump)."""
    hands = {
        3: ["KD", "2D", "3D", "4D", "5D", "2C", "3C", "4C", "5C", "6C"],
        2: ["AD", "ND", "JC", "NC", "KC", "3S", "4S", "5S", "6S", "2B"],
        1: ["7D", "6D", "JD", "AC", "7C", "3B", "4B", "5B", "6B", "JB"],
        0: ["2S", "JS", "NS", "KS", "AS", "7S", "NB", "KB", "AB", "7B"],
    }
    default, strict = auction_position(hands, ["bid 20", "pass", "pass", "pass"])
    for state in (default, strict):
        assert state.observation(0)["teams"] == [[3], [0, 1, 2]]
        state.apply("play KD")
        assert_legal(state, ["AD"])
        state.apply("play AD")
    assert_legal(default, ["6D", "JD", "7D"])
    assert_legal(strict, ["7D"])
    for state in (default, strict):
        state.apply("play 7D" if state is strict else "play 6D")
    assert_legal(default, hands[0])
    assert_legal(strict, ["2S", "JS", "NS", "KS", "AS", "7S"])


def test_declarer_must_beat_the_coalition():
    """MANIGLIA-GEN-5, MANIGLIA-AUC-5: every coalition card is an opponent's for the
    declarer (seat 2); a coalition player must beat the declarer's card."""
    hands = {
        3: ["JC", "4C", "5C", "6C", "NC", "7C", "2D", "3D", "4D", "5D"],
        2: ["KC", "3C", "6D", "JD", "ND", "KD", "AD", "7D", "2B", "3B"],
        1: ["AC", "2C", "2S", "3S", "4S", "NB", "KB", "AB", "7B", "6B"],
        0: ["4B", "5B", "JB", "5S", "6S", "JS", "NS", "KS", "AS", "7S"],
    }
    default, strict = auction_position(hands, ["pass", "bid 20", "pass", "pass"])
    for state in (default, strict):
        assert state.current_player() == 3  # MANIGLIA-AUC-5: the dealer's right leads
        state.apply("play JC")
        assert_legal(state, ["KC"])
        state.apply("play KC")
        assert_legal(state, ["AC"])
        state.apply("play AC")
    assert_legal(default, hands[0])
    assert_legal(strict, ["5S", "6S", "JS", "NS", "KS", "AS", "7S"])


def test_play_goes_counter_clockwise():
    """MANIGLIA-GEN-3, MANIGLIA-4P-4: the dealer's right leads, then each right in turn."""
    for dealer in range(4):
        state = games.load(P).new_game(4, dealer=dealer)
        seats = []
        for _ in range(4):
            seats.append(state.current_player())
            state.apply(state.legal_actions()[0])
        assert seats == [(dealer - 1 - i) % 4 for i in range(4)]


def test_played_cards_and_trick_are_public():
    """MANIGLIA-GEN-7: every card played is public; hands stay private."""
    state = games.load(P).new_game(8, dealer=1)
    first, second = state.current_player(), None
    state.apply(state.legal_actions()[0])
    second = state.current_player()
    label = state.legal_actions()[0]
    state.apply(label)
    for seat in range(4):
        obs = state.observation(seat)
        assert obs["trick"][1] == [second, label[5:]]
        assert obs["trick"][0][0] == first
        assert obs["history"][0]["actions"][1] == [second, label]
        assert obs["hand_sizes"] == [10 - (s in (first, second)) for s in range(4)]
    hands = [set(state.observation(s)["hand"]) for s in range(4)]
    assert all(not hands[a] & hands[b] for a in range(4) for b in range(a + 1, 4))


def test_engine_legality_matches_the_pure_rule():
    """MANIGLIA-GEN-5: at every card play of random games, under both options and both
    side structures, the engine's legal list is ``rules.playable`` of the public facts."""

    def mask(cards):
        return sum(1 << LATIN_INDEX[c] for c in cards)

    for variant in ("maniglia-3", "maniglia-5", P):
        for overtake in ("opponent", "strict"):
            for seed in range(3):
                rnd = random.Random(seed)
                state = games.load(variant, maniglia_overtake=overtake).new_game(seed)
                while not state.is_over():
                    seat = state.current_player()
                    obs = state.observation(seat)
                    if obs["phase"] == "play":
                        hand = mask(obs["hand"])
                        if obs["trick"]:
                            win_seat, win = obs["winning"]
                            side = obs["teams"][0]
                            opponent = (seat in side) != (win_seat in side)
                            led = "DCSB".index(obs["trick"][0][1][1])
                            want = playable(
                                hand,
                                led,
                                LATIN_INDEX[win],
                                opponent,
                                "DCSB".index(obs["trump"]),
                                overtake == "strict",
                            )
                        else:
                            want = hand
                        assert mask(legal_cards(state)) == want
                    state.apply(rnd.choice(state.legal_actions()))
