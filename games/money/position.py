"""Explicit Money positions, for tests and analysis tools.

A position names every card where it lies instead of dealing a deck; it need
not hold the whole pack. Used by ``MoneyState.from_position``.
"""

from __future__ import annotations

from games.money.rules import INDEX, Ruleset


def parse_position(
    rules: Ruleset,
    *,
    stacks: list[list[str]],
    pile: list[str],
    banks: list[str],
    under: str = "none",
    to_move: int = 0,
    dealer: int | None = None,
    plays: int = 0,
) -> tuple[int, list[list[int]], list[int], list[int], int, int, int]:
    """Check a position and return ``(dealer, stacks, pile, banks, under, to_move, plays)``
    with cards as numbers and money as packed sets.

    ``stacks`` per seat, top card first; ``pile`` bottom card first; ``banks``
    and ``under`` as money labels (``"Q+J+K"``, ``"none"``); ``to_move`` starts
    a turn (the MONEY-JO-16 check and purchase decisions apply); ``plays``
    counts the turns already made (LIMIT-1); ``dealer`` defaults to the seat
    not moving. Raises ``ValueError`` for unknown, money or repeated cards,
    impossible money, no numeral at all, or a bad seat or play count.
    """
    system = rules.system
    allowed = set(rules.numerals)
    seen: set[int] = set()
    cards: list[list[int]] = []
    for part in (*stacks, pile):
        row = []
        for label in part:
            c = INDEX.get(label, -1) if isinstance(label, str) else -1
            if c not in allowed or c in seen:
                raise ValueError(f"position card {label!r} is unknown, money or repeated")
            seen.add(c)
            row.append(c)
        cards.append(row)
    if len(cards) != 3:
        raise ValueError(f"a position has two stacks, got {len(stacks)}")
    money = [system.parse(b) for b in banks] + [system.parse(under)]
    if len(money) != 3 or not system.contains(system.full, sum(money)):
        raise ValueError("position needs two banks and at most the pack's money cards")
    if not seen:
        raise ValueError("position holds no numeral card")
    if to_move not in (0, 1) or not 0 <= plays < rules.max_plays:
        raise ValueError(f"bad to_move {to_move!r} or plays {plays!r}")
    dealer = 1 - to_move if dealer is None else dealer
    return dealer, cards[:2], cards[2], money[:2], money[2], to_move, plays
