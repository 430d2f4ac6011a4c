"""How each variant deals a deck: who gets which deck position, and what order matters.

A *deal* is what a shuffle decides: the dealer of the game's first deal and, for every
deal, which cards each hand, the Manni, a face-up card or a stack receives. The order of
the cards inside a hand, or inside Manni Basic's Manni, changes nothing in the game;
the order of Laugavatn's or Hornafjordur's Manni, which is drawn from its top, or of a
Money stack does. :func:`deal_groups` lists, for a game and a dealer, the groups of
deck positions (``State`` decks, top card first) whose cards may be exchanged without
changing the game: a hand is one group, every position of an ordered pile is its own.
Two decks give the same game exactly when every group holds the same cards.

The number of deals of a pack with ``N`` cards is therefore
``N! / (product of group sizes!)`` for each deal's dealer, and a uniform shuffle gives
each the same probability. ``games.envs.openspiel`` deals them card by card at its
chance nodes (each group's cards in ascending order, so that every deal is one path).
"""

from __future__ import annotations

from games.cards import FRENCH_NAMES, LATIN_NAMES, packet_size
from games.core import Game

#: A group: its name (in chance action strings) and its deck positions, top first.
Group = tuple[str, tuple[int, ...]]


def deck_size(game: Game) -> int:
    """How many cards one deck of ``game`` holds (a small deck keeps fewer)."""
    cls = game.variant.state_class
    if game.variant.family == "money":
        return len(cls._rules(game).numerals)  # type: ignore[attr-defined]
    return int(cls._pack_of(game).bit_count())  # type: ignore[attr-defined]


def card_names(game: Game) -> tuple[str, ...]:
    """The label of each card number of ``game``'s pack (Money: with its jokers)."""
    if game.variant.family == "money":
        from games.money.rules import NAMES

        return tuple(NAMES)
    return tuple(FRENCH_NAMES if game.variant.pack == "french" else LATIN_NAMES)


def pack_cards(game: Game) -> tuple[int, ...]:
    """The card numbers of one deck of ``game``, ascending."""
    cls = game.variant.state_class
    if game.variant.family == "money":
        return tuple(sorted(cls._rules(game).numerals))  # type: ignore[attr-defined]
    pack = cls._pack_of(game)  # type: ignore[attr-defined]
    return tuple(c for c in range(pack.bit_length()) if pack >> c & 1)


def _packets(size: int, hands: int, count: int) -> list[list[int]]:
    """The deck positions of each hand dealt in packets of ``size`` (``cards.packet_masks``)."""
    positions: list[list[int]] = [[] for _ in range(hands)]
    for packet, start in enumerate(range(0, count, size)):
        positions[packet % hands].extend(range(start, min(start + size, count)))
    return positions


def _seat(seat: int) -> str:
    return f"seat {seat}"


def deal_groups(game: Game, dealer: int) -> list[Group]:
    """The exchangeable groups of deck positions of a deal of ``game`` dealt by ``dealer``.

    Every position of the deck is in exactly one group.
    """
    variant, n = game.variant.id, game.num_players
    size = deck_size(game)
    if variant == "manni-basic":  # MANNI-BASIC-4: packets to L, R, D; the rest is the Manni
        hand = size // 4
        hands = _packets(packet_size(hand, 4), 3, 3 * hand)
        groups = [(_seat((dealer + 1 + i) % 3), tuple(p)) for i, p in enumerate(hands)]
        return [*groups, ("the Manni", tuple(range(3 * hand, size)))]
    if variant == "laugavatnsmanni":  # LAUG-3: packets of 4; the Manni is drawn from its top
        hands = _packets(4, 3, 48)
        groups = [(_seat((dealer + 1 + i) % 3), tuple(p)) for i, p in enumerate(hands)]
        return [*groups, *((f"the Manni (position {p})", (p,)) for p in range(48, 52))]
    if variant == "manni-hornafjordur":  # HORN-4, HORN-5
        from games.manni.hornafjordur import HAND_SLOTS

        groups = []
        for i, slots in enumerate(HAND_SLOTS):
            seat = (dealer + 1 + i) % 3
            kept = tuple(p for p in slots if p != 51)
            groups.append((_seat(seat), kept))
        manni = sorted(set(range(52)) - {p for slots in HAND_SLOTS for p in slots})
        groups += [(f"the Manni (position {p})", (p,)) for p in manni]
        return [*groups, (f"the contract card (seat {dealer})", (51,))]
    if game.variant.family == "maniglia":  # MANIGLIA-GEN-4: from the dealer's right
        from games.maniglia.rules import PACKET_SIZES, deal_order

        hands = _packets(packet_size(size // n, PACKET_SIZES[n]), n, size)
        groups = []
        for i, seat in enumerate(deal_order(dealer, n)):
            positions = tuple(hands[i])
            if variant == "maniglia-4-partners" and seat == dealer:  # MANIGLIA-4P-2
                groups.append((_seat(seat), positions[:-1]))
                groups.append((f"the turn-up (seat {seat})", positions[-1:]))
            else:
                groups.append((_seat(seat), positions))
        return groups
    if game.variant.family == "money":  # MONEY-JO-3: one at a time, non-dealer first
        first = 1 - dealer
        return [
            (f"seat {(first + p) % 2}'s stack (card {p // 2 + 1} from the top)", (p,))
            for p in range(size)
        ]
    raise ValueError(f"no deal layout for variant {variant!r}")


def deal_count(game: Game, first: bool = True) -> int:
    """How many deals of ``game`` there are: the dealer (``first``) times the ways to fill
    the groups (every dealer's groups have the same sizes)."""
    from math import factorial

    total = factorial(deck_size(game))
    for _, positions in deal_groups(game, 0):
        total //= factorial(len(positions))
    return total * (game.num_players if first else 1)


class Dealing:
    """One deal in progress, dealt card by card: every deal of the groups is one path.

    Positions are filled group by group (in :func:`deal_groups` order), each group's
    cards in ascending order, so a path names a deal once. At each step :meth:`outcomes`
    gives the cards that may come next with the probability that a uniformly shuffled
    deck puts them there: for a group with ``k`` places left, among the ``m`` cards
    still free that are above the group's last card, the ``j``-th lowest comes next
    with probability ``C(m-1-j, k-1) / C(m, k)`` (the group is a uniform ``k``-subset
    and this card is its lowest). A deal of ``N`` cards in groups of sizes ``g1, g2, ...``
    thus gets ``N! / (g1! g2! ...)`` paths, each of probability one over that.
    """

    __slots__ = ("deck", "ends", "free", "groups", "index", "last", "order", "slot")

    def __init__(self, groups: list[Group], cards: tuple[int, ...]) -> None:
        self.groups = groups
        #: ``order[i]``: the deck position filled at step ``i``; ``slot[i]``: its group;
        #: ``ends[g]``: the step after group ``g``'s last.
        self.order = [p for _, positions in groups for p in positions]
        self.slot = [g for g, (_, positions) in enumerate(groups) for _ in positions]
        self.ends = []
        step = 0
        for _, positions in groups:
            step += len(positions)
            self.ends.append(step)
        self.free = sorted(cards)  # the cards not dealt yet, ascending
        self.deck: list[int] = [-1] * len(self.order)
        self.index = 0  # the next step
        self.last = -1  # the last card dealt to the current group (-1: none yet)

    def copy(self) -> Dealing:
        other = Dealing.__new__(Dealing)
        other.groups, other.order, other.slot, other.ends = (
            self.groups,
            self.order,
            self.slot,
            self.ends,
        )
        other.free, other.deck = self.free[:], self.deck[:]
        other.index, other.last = self.index, self.last
        return other

    @property
    def complete(self) -> bool:
        return self.index == len(self.order)

    def group_name(self) -> str:
        """The name of the group the next card goes to."""
        return self.groups[self.slot[self.index]][0]

    def _places(self) -> int:
        return self.ends[self.slot[self.index]] - self.index

    def outcomes(self) -> list[tuple[int, float]]:
        """``(card, probability)`` of every card that may come next, ascending."""
        from math import comb

        k = self._places()
        above = [c for c in self.free if c > self.last]
        m = len(above)
        total = comb(m, k)
        return [(c, comb(m - 1 - j, k - 1) / total) for j, c in enumerate(above[: m - k + 1])]

    def deal(self, card: int) -> None:
        """Deal ``card`` next; ``ValueError`` naming it when it is not an outcome now."""
        from bisect import bisect_left

        if self.complete:
            raise ValueError("the deal is complete: no card comes next")
        free = self.free
        i = bisect_left(free, card) if type(card) is int else len(free)
        k = self._places()
        if i == len(free) or free[i] != card or card <= self.last or len(free) - i < k:
            raise ValueError(
                f"card {card!r} cannot come next (to {self.group_name()}): "
                f"the outcomes are {[c for c, _ in self.outcomes()]}"
            )
        del free[i]
        self.deck[self.order[self.index]] = card
        self.index += 1
        self.last = -1 if k == 1 else card
