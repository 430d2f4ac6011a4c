"""Trick-taking helpers shared by the Manni and Maniglia strategies.

Cards are the labels of COMMON-4 (rank character then suit character, e.g.
``"TH"``, ``"7D"``). A *rank table* maps a rank character to its strength in
its suit (higher is stronger); the strategies build one per contract, so the
same helpers serve the ace-low Nullo of HORN-3 and the Latin order of
MANIGLIA-GEN-1.
"""

from __future__ import annotations

from collections.abc import Iterable

RankTable = dict[str, int]


def trick_key(card: str, led: str, trump: str | None, ranks: RankTable) -> int:
    """How strongly ``card`` stands in a trick led with suit ``led`` (COMMON-5)."""
    suit = card[1]
    if suit == trump:
        return 200 + ranks[card[0]]
    if suit == led:
        return 100 + ranks[card[0]]
    return ranks[card[0]] - 100


def winning_card(trick: list[str], trump: str | None, ranks: RankTable) -> str:
    """The card that currently wins ``trick`` (play order, leader first)."""
    led = trick[0][1]
    return max(trick, key=lambda c: trick_key(c, led, trump, ranks))


def beats(card: str, best: str, led: str, trump: str | None, ranks: RankTable) -> bool:
    return trick_key(card, led, trump, ranks) > trick_key(best, led, trump, ranks)


def unseen_cards(pack: Iterable[str], known: Iterable[str]) -> set[str]:
    """Cards of ``pack`` neither in ``known`` (own hand, played, own discards)."""
    return set(pack).difference(known)


def is_master(card: str, unseen: set[str], ranks: RankTable) -> bool:
    """No unseen card of ``card``'s suit outranks it (it wins if its suit is followed)."""
    suit, strength = card[1], ranks[card[0]]
    return not any(u[1] == suit and ranks[u[0]] > strength for u in unseen)


def higher_unseen(card: str, unseen: set[str], ranks: RankTable) -> int:
    """How many unseen cards of ``card``'s suit outrank it."""
    suit, strength = card[1], ranks[card[0]]
    return sum(1 for u in unseen if u[1] == suit and ranks[u[0]] > strength)


def suit_lengths(cards: Iterable[str]) -> dict[str, int]:
    lengths: dict[str, int] = {}
    for c in cards:
        lengths[c[1]] = lengths.get(c[1], 0) + 1
    return lengths


def played_this_deal(history: list, family_actions: str = "actions") -> list[str]:
    """Cards played so far in the current deal, from the observation's history."""
    if not history:
        return []
    actions = history[-1].get(family_actions, [])
    out = []
    for action in actions:
        label = action[-1] if isinstance(action, list) else action
        if label.startswith("play "):
            out.append(label[5:])
    return out
