"""Money cards and sets of money cards (MONEY-JO-2, MONEY-EG-5, MONEY-EG-6, MONEY-SY-1).

Money cards of one denomination are interchangeable, so a set of money cards
(a bank, the money under the pile, what a player gives or receives) is a
count per denomination. It is stored as a *packed int*: four bits per
denomination, denomination 0 (the highest value, first in labels) in the
lowest bits. A count never exceeds 4, so adding or removing sets with ``+``
and ``-`` never carries between denominations, and bit 3 of each digit is
free to serve as a guard for subset tests (:meth:`MoneySystem.contains`).

Labels follow ACTION-6: the letters of the cards joined by ``+``, highest
value first, ties by letter; ``none`` for the empty set.
"""

from __future__ import annotations

from itertools import product

_DIGIT = 4
_MASK = 0xF


class MoneySystem:
    """The money of one variant: denominations, values, pack totals, starting bank.

    ``denominations`` maps a letter to ``(value, cards in the pack, cards in
    each starting bank)``. Denominations are numbered in label order.
    """

    def __init__(self, name: str, denominations: dict[str, tuple[int, int, int]]) -> None:
        order = sorted(denominations, key=lambda letter: (-denominations[letter][0], letter))
        self.name = name
        self.letters: tuple[str, ...] = tuple(order)
        self.values: tuple[int, ...] = tuple(denominations[x][0] for x in order)
        self.totals: tuple[int, ...] = tuple(denominations[x][1] for x in order)
        self.count = len(order)
        self.units: tuple[int, ...] = tuple(1 << (_DIGIT * d) for d in range(self.count))
        self.guard = sum(8 << (_DIGIT * d) for d in range(self.count))
        self.full = self.pack(self.totals)
        self.initial_bank = self.pack(tuple(denominations[x][2] for x in order))
        self.max_value = max(self.values)
        #: The lowest denomination (the last in label order).
        self.lowest = self.count - 1
        sets = [self.pack(c) for c in product(*(range(t + 1) for t in self.totals))]
        self.value: dict[int, int] = {m: self._value(m) for m in sets}
        self.label: dict[int, str] = {m: self._label(m) for m in sets}
        #: Every set the pack allows, in *set order*: by value, then by label.
        self.sets: tuple[int, ...] = tuple(
            sorted(sets, key=lambda m: (self.value[m], self.label[m]))
        )
        self.rank: dict[int, int] = {m: i for i, m in enumerate(self.sets)}
        self.by_label: dict[str, int] = {self.label[m]: m for m in sets}
        #: Bitmask of the denominations present in each set.
        self.support: dict[int, int] = {
            m: sum(1 << d for d in range(self.count) if self.counts(m)[d]) for m in sets
        }
        self._subsets: dict[int, tuple[int, ...]] = {}

    # -- packing ----------------------------------------------------------------
    def pack(self, counts: tuple[int, ...] | list[int]) -> int:
        return sum(c << (_DIGIT * d) for d, c in enumerate(counts))

    def counts(self, packed: int) -> tuple[int, ...]:
        return tuple((packed >> (_DIGIT * d)) & _MASK for d in range(self.count))

    def _value(self, packed: int) -> int:
        return sum(c * v for c, v in zip(self.counts(packed), self.values, strict=True))

    def _label(self, packed: int) -> str:
        parts = [
            letter
            for letter, c in zip(self.letters, self.counts(packed), strict=True)
            for _ in range(c)
        ]
        return "+".join(parts) if parts else "none"

    # -- queries ------------------------------------------------------------------
    def contains(self, whole: int, part: int) -> bool:
        """True when every count of ``part`` is at most that of ``whole``."""
        guard = self.guard
        return ((whole | guard) - part) & guard == guard

    def subsets(self, whole: int) -> tuple[int, ...]:
        """Every subset of ``whole`` (the empty set included), in set order."""
        found = self._subsets.get(whole)
        if found is None:
            found = tuple(m for m in self.sets if self.contains(whole, m))
            self._subsets[whole] = found
        return found

    def parse(self, text: str) -> int:
        """The packed set of a label such as ``Q+J+K`` (any letter order) or ``none``.

        Raises ``ValueError`` for an unknown letter or more cards than the pack holds.
        """
        if text == "none":
            return 0
        counts = [0] * self.count
        for letter in text.split("+"):
            if letter not in self.letters:
                raise ValueError(
                    f"{letter!r} is not a money card of {self.name} "
                    f"(money: {', '.join(self.letters)})"
                )
            counts[self.letters.index(letter)] += 1
        if any(c > t for c, t in zip(counts, self.totals, strict=True)):
            raise ValueError(f"{text!r} holds more money cards than the pack")
        return self.pack(counts)

    def describe(self) -> dict[str, int]:
        """Letter -> value, in label order (JSON-ready)."""
        return dict(zip(self.letters, self.values, strict=True))


def jordan_money() -> MoneySystem:
    """MONEY-JO-2, MONEY-JO-3: K = 5, J = 10, Q = 15; two of each per bank."""
    return MoneySystem("money-jordan", {"K": (5, 4, 2), "J": (10, 4, 2), "Q": (15, 4, 2)})


def egypt_money(values: str, aces: bool) -> MoneySystem:
    """MONEY-EG-5, MONEY-EG-6: Q < K < J, by the value table; aces worth 30 as an option."""
    q, k, j = (5, 10, 15) if values == "5-10-15" else (10, 15, 20)
    denominations = {"Q": (q, 4, 2), "K": (k, 4, 2), "J": (j, 4, 2)}
    if aces:
        denominations["A"] = (30, 4, 2)
    return MoneySystem(f"money-egypt {values}{' aces' if aces else ''}", denominations)


def syria_money() -> MoneySystem:
    """MONEY-SY-1: jokers (X) 5, J 10, Q 15, K 20; bank X + 2 J + 2 Q + 2 K."""
    return MoneySystem(
        "money-syria", {"X": (5, 2, 1), "J": (10, 4, 2), "Q": (15, 4, 2), "K": (20, 4, 2)}
    )
