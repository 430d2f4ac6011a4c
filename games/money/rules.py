"""Pure rule helpers of the Money family: numerals, decks, capture, packet orientation.

Cards are numbered as in ``games.cards`` (French ``suit * 13 + rank``, rank 0
the two); the jokers are 52 (``X1``) and 53 (``X2``). Stacks and packets are
written top card first, the pile bottom card first.

Orientation (MONEY-JO-4): a run of pile cards turned face down puts its
lowest (oldest) card on top, so a pile run ``pile[i:j]`` *is* the packet in
stack order, and every packet is put under the receiving stack.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from games.cards import FRENCH_INDEX, FRENCH_NAMES, FRENCH_RANKS
from games.money.plans import ActionTable, Planner
from games.money.sets import MoneySystem, egypt_money, jordan_money, syria_money

JOKERS = (52, 53)
NAMES: tuple[str, ...] = (*FRENCH_NAMES, "X1", "X2")
INDEX: dict[str, int] = {name: i for i, name in enumerate(NAMES)}
SEVEN_OF_DIAMONDS = FRENCH_INDEX["7D"]
NO_CARD = -1

_NUMBER = {"A": 1, "T": 10, **{str(n): n for n in range(2, 10)}}
JOKER_RANK = 11
#: MONEY-JO-2, MONEY-JO-17: the number a numeral card shows (A = 1, T = 10, jokers 11);
#: picture cards are money and have no number (0).
RANK: tuple[int, ...] = (
    *(_NUMBER.get(FRENCH_RANKS[c % 13], 0) for c in range(52)),
    JOKER_RANK,
    JOKER_RANK,
)

JORDAN, EGYPT, SYRIA = "jordan", "egypt", "syria"


def matches(card: int, top: int, seven_diamonds: int = NO_CARD) -> bool:
    """MONEY-JO-6 step 3, MONEY-JO-17, MONEY-EG-7: does ``card`` capture a pile whose
    top numeral is ``top``? ``seven_diamonds`` is the 7D when MONEY-EG-7 is on."""
    return RANK[card] == RANK[top] or card == seven_diamonds


def numerals(kind: str, jokers: bool, aces_money: bool) -> list[int]:
    """The numeral cards shuffled into the stacks (MONEY-JO-3, -17, MONEY-EG-6)."""
    cards = [c for c in range(52) if RANK[c] and not (aces_money and RANK[c] == 1)]
    if jokers and kind != SYRIA:
        cards += JOKERS
    return cards


def deal(deck: Sequence[int], dealer: int) -> tuple[list[int], list[int]]:
    """MONEY-JO-3: one at a time, non-dealer first; the first card received is on top.

    Returns the two stacks by seat, top card first.
    """
    first, second = list(deck[0::2]), list(deck[1::2])
    return (second, first) if dealer == 0 else (first, second)


def ground_packet(pile: list[int], n: int, from_top: bool) -> list[int]:
    """MONEY-JO-11 / MONEY-SY-2: remove ``n`` numerals from the pile and return them
    as a packet in stack order (top first). Jordan and Egypt take the bottom
    ``n`` (the former bottom card comes first); Syria takes the top ``n`` (the
    lowest of them comes first)."""
    if from_top:
        packet = pile[len(pile) - n :]
        del pile[len(pile) - n :]
    else:
        packet = pile[:n]
        del pile[:n]
    return packet


def check_deck(deck: object, kind: str, jokers: bool, aces_money: bool) -> None:
    """Name the first card of ``deck`` that is not a numeral of this game.

    Count and duplicates are checked by ``games.cards.parse_deck`` afterwards.
    Raises ``ValueError``.
    """
    if not isinstance(deck, list | tuple):
        raise ValueError(f"deck 0 must be a list of card labels, got {type(deck).__name__}")
    for label in deck:
        c = INDEX.get(label) if isinstance(label, str) else None
        if c is None:
            raise ValueError(f"deck 0 holds {label!r}, which is not a card")
        if c in JOKERS and (kind == SYRIA or not jokers):
            why = "jokers are money in money-syria" if kind == SYRIA else "money.jokers is off"
            raise ValueError(f"deck 0 holds {label!r}: {why}; a deck lists only the numerals")
        if c < 52 and (RANK[c] == 0 or (aces_money and RANK[c] == 1)):
            raise ValueError(
                f"deck 0 holds {label!r}, a money card; a Money deck lists only "
                f"the numerals (money cards go to the banks)"
            )


@dataclass(frozen=True)
class Ruleset:
    """Everything a game's options decide, computed once per configuration."""

    kind: str
    system: MoneySystem
    planner: Planner
    table: ActionTable
    numerals: tuple[int, ...]
    jokers: bool
    aces_money: bool
    capture_choice: bool
    seven_diamonds: int
    max_plays: int

    @property
    def free_purchases(self) -> bool:
        """MONEY-EG-2, MONEY-EG-3: purchases at the start of any turn, from either source."""
        return self.kind == EGYPT

    @property
    def seller_bottom(self) -> bool:
        """MONEY-EG-4: an opponent sells from the bottom of his stack."""
        return self.kind == EGYPT

    @property
    def ground_top(self) -> bool:
        """MONEY-SY-2: ground purchases take the top of the pile."""
        return self.kind == SYRIA


@cache
def planner_for(system_key: tuple) -> Planner:
    kind, values, aces = system_key
    if kind == JORDAN:
        return Planner(jordan_money())
    if kind == SYRIA:
        return Planner(syria_money())
    return Planner(egypt_money(values, aces))


def ruleset(kind: str, options: dict) -> Ruleset:
    """The :class:`Ruleset` of variant ``kind`` with resolved ``options``."""
    key = (kind, tuple(sorted(options.items())))
    found = _RULESETS.get(key)
    if found is None:
        jokers = bool(options.get("money.jokers", False)) and kind != SYRIA
        aces = bool(options.get("money.eg_aces_money", False))
        values = options.get("money.eg_values", "5-10-15")
        planner = planner_for((kind, values if kind == EGYPT else "", aces))
        found = Ruleset(
            kind=kind,
            system=planner.system,
            planner=planner,
            table=planner.table,
            numerals=tuple(numerals(kind, jokers, aces)),
            jokers=jokers,
            aces_money=aces,
            capture_choice=options.get("money.capture", "auto") == "choice",
            seven_diamonds=SEVEN_OF_DIAMONDS if options.get("money.eg_seven_diamonds") else NO_CARD,
            max_plays=options["money.max_plays"],
        )
        _RULESETS[key] = found
    return found


_RULESETS: dict[tuple, Ruleset] = {}
