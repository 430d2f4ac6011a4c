"""Greedy strategy for the Manni family: manni-basic, manni-hornafjordur, laugavatnsmanni.

Everybody wants tricks, except in Nullo (HORN-4 ``nullo``, LAUG-4 Nullo)
where everybody wants to avoid them (HORN-8, LAUG-10). Card play: win a
trick as cheaply as possible, otherwise throw the lowest card; in Nullo duck
under the winning card and dump high cards when void. Decisions before the
play (Manni keep/take, exchanges, announcements, great calls) compare a
quick estimate of the tricks a hand takes with what an average hand takes.
"""

from __future__ import annotations

from typing import Any

from bots.builtin.greedy.tricks import (
    RankTable,
    beats,
    higher_unseen,
    is_master,
    played_this_deal,
    suit_lengths,
    winning_card,
)

RANK_CHARS = "23456789TJQKA"
ACE_HIGH: RankTable = {r: i for i, r in enumerate(RANK_CHARS)}
ACE_LOW: RankTable = {**ACE_HIGH, "A": -1}  # HORN-3: K Q ... 2 A in Nullo
SUITS = "SHDC"
FULL_PACK = tuple(r + s for s in SUITS for r in RANK_CHARS)
PACK_WITHOUT_TWOS = tuple(c for c in FULL_PACK if c[0] != "2")  # MANNI-BASIC-2
CONTRACT_TRUMP = {"hearts": "H", "spades": "S", "diamonds": "D", "clubs": "C", "grand": None}

#: Average of :func:`estimate_tricks` over random hands is close to a fair share;
#: a Manni-basic hand below this is worse than the unseen Manni (MANNI-BASIC-5).
TAKE_BELOW = 3.6
#: Tricks a great call must be expected to take (it needs 14 of 16, LAUG-6).
GREAT_NEEDS = 13.0


def act(obs: dict[str, Any], legal: list[str], options: dict[str, Any]) -> str:
    """The greedy choice for a Manni-family decision."""
    phase = obs["phase"]
    if phase == "play":
        return play(obs, legal, options)
    if phase == "manni":
        return keep_or_take(obs, legal)
    if phase == "exchange":
        return exchange(obs, legal, options)
    if phase == "announce":
        return announce(obs, legal, options)
    if phase == "great":
        return great_call(obs, legal)
    return legal[0]


# -- what the contract asks for ---------------------------------------------


def is_nullo(obs: dict[str, Any]) -> bool:
    return obs.get("contract") == "nullo"


def rank_table(obs: dict[str, Any], options: dict[str, Any]) -> RankTable:
    """HORN-3 lowers the ace in Nullo; LAUG-2 only with ``laug.nullo_ace_low``."""
    if not is_nullo(obs):
        return ACE_HIGH
    if obs["variant"] == "manni-hornafjordur" or options.get("laug.nullo_ace_low"):
        return ACE_LOW
    return ACE_HIGH


def pack_of(obs: dict[str, Any]) -> tuple[str, ...]:
    return PACK_WITHOUT_TWOS if obs["variant"] == "manni-basic" else FULL_PACK


# -- hand estimates -----------------------------------------------------------


def estimate_tricks(hand: list[str], trump: str | None) -> float:
    """Rough number of tricks ``hand`` takes when everybody wants tricks."""
    total = 0.0
    for suit in SUITS:
        ranks = sorted((ACE_HIGH[c[0]] for c in hand if c[1] == suit), reverse=True)
        total += _suit_tricks(ranks, suit == trump, trump is None)
    return total


def _suit_tricks(ranks: list[int], is_trump: bool, no_trump: bool) -> float:
    length = len(ranks)
    if is_trump:
        honours = sum((1.0, 0.8, 0.6)[12 - r] if r >= 10 else 0.35 for r in ranks)
        return honours + max(0, length - 3) * 0.5
    value = 0.0
    if 12 in ranks:
        value += 0.9
    if 11 in ranks:
        value += 0.6 if length >= 2 else 0.2
    if 10 in ranks:
        value += 0.3 if length >= 3 else 0.05
    if no_trump:
        value += max(0, length - 4) * 0.4
    return value


def estimate_nullo_tricks(hand: list[str], ranks: RankTable) -> float:
    """Rough number of tricks ``hand`` cannot avoid in Nullo."""
    total = 0.0
    for suit in SUITS:
        strengths = sorted(ranks[c[0]] for c in hand if c[1] == suit)
        for i, strength in enumerate(strengths):
            # A high card is dangerous, less so with low cards of its suit to follow with.
            total += max(0.0, (strength - 7) / 5 - 0.12 * i)
    return total


# -- decisions before the play -------------------------------------------------


def keep_or_take(obs: dict[str, Any], legal: list[str]) -> str:
    """MANNI-BASIC-5: take the unseen Manni when the own hand is below average."""
    weak = estimate_tricks(obs["hand"], obs["trump"]) < TAKE_BELOW
    return "take" if weak and "take" in legal else "keep"


def exchange(obs: dict[str, Any], legal: list[str], options: dict[str, Any]) -> str:
    """HORN-6 / LAUG-8: discard one weak card at a time, then ``draw``.

    Trump and Grand deals throw low side cards; Nullo throws high cards.
    Without a ``draw`` (``laug.exchange = skat``) a discard is compulsory.
    """
    ranks = rank_table(obs, options)
    candidates = [label[8:] for label in legal if label.startswith("discard ")]
    if not candidates:
        return legal[0]
    if is_nullo(obs):
        worst = max(candidates, key=lambda c: ranks[c[0]])
        bad = ranks[worst[0]] >= 8
    else:
        trump = obs.get("trump")
        lengths = suit_lengths(obs["hand"])
        worst = min(candidates, key=lambda c: (c[1] == trump, ranks[c[0]], lengths[c[1]]))
        bad = worst[1] != trump and ranks[worst[0]] <= 6
    if bad or "draw" not in legal:
        return "discard " + worst
    return "draw"


def contract_score(hand: list[str], contract: str, options: dict[str, Any]) -> float:
    """Expected LAUG-10 score of declaring ``contract`` with ``hand``."""
    if contract == "nullo":
        ranks = ACE_LOW if options.get("laug.nullo_ace_low") else ACE_HIGH
        return 4 - estimate_nullo_tricks(hand, ranks)
    return estimate_tricks(hand, CONTRACT_TRUMP[contract]) - 8


def announce(obs: dict[str, Any], legal: list[str], options: dict[str, Any]) -> str:
    """LAUG-5: announce the unused contract that fits the hand best."""
    announces = [label for label in legal if label.startswith("announce ")]
    if not announces:
        return legal[0]
    return max(announces, key=lambda label: contract_score(obs["hand"], label[9:], options))


def great_call(obs: dict[str, Any], legal: list[str]) -> str:
    """LAUG-7: pass unless some great call is expected to take 14 tricks.

    The same test answers every turn of the sequence: B's first answer, the
    announcer's keep, and an overcall (D over B, or B over D since step 3 was
    amended). Only the legal calls are weighed, and the legal list already
    holds the rank an overcall must beat, so a strong hand in a type below
    the standing call passes. A B who passed first holds the same hand when
    asked again, so he passes again.
    """
    best, best_tricks = "pass", GREAT_NEEDS
    for label in legal:
        if label.startswith("great "):
            tricks = estimate_tricks(obs["hand"], CONTRACT_TRUMP[label[6:]])
            if tricks >= best_tricks:
                best, best_tricks = label, tricks
    return best if best in legal else legal[0]


# -- card play -----------------------------------------------------------------


def play(obs: dict[str, Any], legal: list[str], options: dict[str, Any]) -> str:
    cards = [label[5:] for label in legal]
    ranks = rank_table(obs, options)
    trump = obs.get("trump")
    trick = [card for _, card in obs["trick"]]
    known = set(obs["hand"]).union(obs.get("out_of_play") or (), played_this_deal(obs["history"]))
    unseen = set(pack_of(obs)).difference(known)
    last = len(trick) == obs["players"] - 1
    if is_nullo(obs):
        card = avoid_play(cards, trick, ranks, unseen, last)
    else:
        card = win_play(cards, trick, trump, ranks, unseen, last)
    return "play " + card


def win_play(
    cards: list[str],
    trick: list[str],
    trump: str | None,
    ranks: RankTable,
    unseen: set[str],
    last: bool,
) -> str:
    """Take the trick as cheaply as possible; otherwise throw the lowest card."""
    if not trick:
        return lead_to_win(cards, trump, ranks, unseen)
    led, best = trick[0][1], winning_card(trick, trump, ranks)
    winners = [c for c in cards if beats(c, best, led, trump, ranks)]
    if winners and not last:
        # Later players may still overtake: prefer a card nobody can beat in its suit.
        sure = [c for c in winners if is_master(c, unseen, ranks)]
        led_winners = [c for c in winners if c[1] == led and c[1] != trump]
        if sure:
            winners = sure
        elif led_winners:
            return max(led_winners, key=lambda c: ranks[c[0]])
    if winners:
        return min(winners, key=lambda c: (c[1] == trump, ranks[c[0]]))
    return lowest_discard(cards, trump, ranks)


def lead_to_win(cards: list[str], trump: str | None, ranks: RankTable, unseen: set[str]) -> str:
    masters = [c for c in cards if is_master(c, unseen, ranks)]
    side = [c for c in masters if c[1] != trump]
    if side:
        return max(side, key=lambda c: ranks[c[0]])
    trumps_out = sum(1 for u in unseen if u[1] == trump)
    my_trumps = [c for c in cards if c[1] == trump]
    if masters and trumps_out and len(my_trumps) >= trumps_out:
        return masters[0]
    plain = [c for c in cards if c[1] != trump] or cards
    lengths = suit_lengths(plain)
    # With trumps, shorten a side suit to ruff it later; without, lead from length.
    if my_trumps:
        return min(plain, key=lambda c: (lengths[c[1]], ranks[c[0]]))
    return min(plain, key=lambda c: (-lengths[c[1]], ranks[c[0]]))


def lowest_discard(cards: list[str], trump: str | None, ranks: RankTable) -> str:
    return min(cards, key=lambda c: (c[1] == trump, ranks[c[0]]))


def avoid_play(
    cards: list[str], trick: list[str], ranks: RankTable, unseen: set[str], last: bool
) -> str:
    """Nullo: duck under the winning card, dump high cards when void."""
    if not trick:
        # Lead the card most likely to be beaten.
        return max(cards, key=lambda c: (higher_unseen(c, unseen, ranks), -ranks[c[0]]))
    led, best = trick[0][1], winning_card(trick, None, ranks)
    under = [c for c in cards if not beats(c, best, led, None, ranks)]
    if under:
        return max(under, key=lambda c: ranks[c[0]])
    if last:
        return max(cards, key=lambda c: ranks[c[0]])
    return min(cards, key=lambda c: ranks[c[0]])
