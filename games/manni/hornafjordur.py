"""manni-hornafjordur: 52 cards, a 16-card Manni, a contract set by the cut card.

Rules HORN-1..10 and LIMIT-3. Each player keeps plus and minus tallies; the
game ends after a deal in which someone has 10 or more plus points.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from games.cards import FRENCH_NAMES, Dealing
from games.core import Option
from games.manni.rules import FULL_PACK, NULLO, horn_contract, horn_tally
from games.manni.state import DISCARD, DRAW, P_EXCHANGE, ManniState, discard_ids, hand_cards
from games.tricks import FLOATS

MAX_DEALS: Final = 100  # LIMIT-3
TARGET: Final = 10  # HORN-9
EXCHANGE_LIMITS: Final = (7, 5)  # HORN-6: L, R; the dealer's limit depends on the Manni left
#: HORN-5: the deck positions of L's, R's and D's cards (four cycles of 4 to the Manni,
#: then 3 to each).
HAND_SLOTS = tuple(
    tuple(p for start in range(4 + 3 * i, 52, 13) for p in range(start, start + 3))
    for i in range(3)
)
#: HORN-5 as a :class:`Dealing`: deck position ``p`` goes to hand ``i`` (L, R, D) when ``p``
#: is one of ``HAND_SLOTS[i]``, else to the Manni.
HAND_DEALING: Final = Dealing(
    [next((i for i, slots in enumerate(HAND_SLOTS) if p in slots), -1) for p in range(52)], 3
)

OPTIONS = (
    Option(
        "horn.cut_table",
        "standard",
        ("standard", "alt"),
        doc="HORN-4: contract bands of the cut card: standard 2-5 Nullo, 6-9 suit, "
        "T-A no-trump; alt 2-6 Nullo, 7-T suit, J-A no-trump.",
    ),
)


class HornState(ManniState):
    """State of a manni-hornafjordur game."""

    PACK = FULL_PACK
    __slots__ = (
        "contract",
        "contract_card",
        "contract_trump",
        "discards",
        "exchanges",
        "limit",
        "manni",
        "minus",
        "plus",
    )

    def _init_game(self) -> None:
        self.plus = [0, 0, 0]
        self.minus = [0, 0, 0]

    def _deal_cards(self, deck: list[int]) -> None:
        # HORN-4: the last card of the deck sets the contract; it goes to the dealer.
        self.contract_card = deck[51]
        table = self.game.options["horn.cut_table"]
        self.contract, self.contract_trump = horn_contract(self.contract_card, table)
        # HORN-5: four cycles of 4 to the Manni, then 3 to L, 3 to R, 3 to D.
        left = (self.dealer + 1) % 3
        dealt = HAND_DEALING.masks(deck)
        for i in range(3):
            self.hands[(left + i) % 3] = dealt[i]
        # Drawn from its top: the last card dealt comes first.
        self.manni = [*deck[42:38:-1], *deck[29:25:-1], *deck[16:12:-1], *deck[3::-1]]
        self.exchanges: list[int] = []
        self.phase = P_EXCHANGE
        self._begin_exchange(left)

    def _begin_exchange(self, seat: int) -> None:
        order = len(self.exchanges)
        self.limit = EXCHANGE_LIMITS[order] if order < 2 else min(12, len(self.manni))
        self.discards = 0
        self.to_move = seat

    def _legal_other(self) -> list[int]:
        # HORN-6 / ACTION-3: discard cards one at a time while the limit allows, then draw.
        if self.discards < self.limit:
            return [*discard_ids(self.hands[self.to_move]), DRAW]
        return [DRAW]

    def _is_legal_other(self, action: object) -> bool:
        return self._discard_legal(action, self.discards < self.limit)

    def _apply_other(self, seat: int, action: int) -> None:
        if action != DRAW:
            card = action - DISCARD
            self.hands[seat] = self.hands[seat] ^ 1 << card
            self.out[seat] = self.out[seat] | 1 << card
            self.discards += 1
            return
        hand = self.hands[seat]  # a local int: compiled, no int object made per card
        for card in self.manni[: self.discards]:
            hand |= 1 << card
        self.hands[seat] = hand
        del self.manni[: self.discards]
        self.exchanges.append(self.discards)
        if len(self.exchanges) < 3:
            self._begin_exchange((seat + 1) % 3)
        else:
            ace_low = self.contract == NULLO  # HORN-3
            self._start_play((self.dealer + 1) % 3, self.contract_trump, ace_low)  # HORN-7

    def _play_out_exchange(self, random: Callable[[], float]) -> None:
        """HORN-6 at random for every seat still to exchange (the draws of ``playout``).

        The legal list is the seat's discards in card order, then ``draw``: the hand's
        list is kept and each discard taken out of it (the order stays), and a discard
        is applied here as ``_apply_other`` applies it."""
        history = self.history
        while self.phase == P_EXCHANGE:
            seat = self.to_move
            cards = hand_cards(self.hands[seat])
            hand, out, discards, limit = self.hands[seat], self.out[seat], self.discards, self.limit
            while discards < limit:
                k = int(random() * FLOATS[len(cards) + 1])  # the discards, then draw
                if k == len(cards):
                    break
                card = cards.pop(k)
                history.append(seat << 8 | (DISCARD + card))
                hand ^= 1 << card
                out |= 1 << card
                discards += 1
            else:
                random()  # at the limit the legal list is [draw]: its draw still counts
            self.hands[seat], self.out[seat], self.discards = hand, out, discards
            history.append(seat << 8 | DRAW)
            self._apply_other(seat, DRAW)

    def _score_deal(self) -> bool:
        plus, minus, won = self.plus, self.minus, self.won
        for seat in range(3):
            gained, lost = horn_tally(self.contract, won[seat])  # HORN-8
            plus[seat] = plus[seat] + gained
            minus[seat] = minus[seat] + lost
        self.totals = [plus[0] - minus[0], plus[1] - minus[1], plus[2] - minus[2]]
        return self.deal >= MAX_DEALS or max(plus) >= TARGET  # HORN-9, LIMIT-3

    def _observe_variant(self, seat: int, obs: dict[str, Any]) -> None:
        obs["contract_card"] = FRENCH_NAMES[self.contract_card]
        obs["contract"] = self.contract
        obs["trump"] = None if self.contract_trump < 0 else "SHDC"[self.contract_trump]
        obs["manni_size"] = len(self.manni)
        obs["exchanged"] = list(self.exchanges)
        obs["exchange_limit"] = self.limit if self.phase == P_EXCHANGE else None
        obs["plus"] = list(self.plus)
        obs["minus"] = list(self.minus)
        # HORN-5: everybody knows the dealer holds the contract card until he plays it.
        obs["contract_card_holder"] = (
            self.dealer if self.hands[self.dealer] >> self.contract_card & 1 else None
        )
