"""manni-basic: three players, 48 cards, a 12-card Manni, trump by deal number.

Rules MANNI-BASIC-1..9 and LIMIT-3 of the rules specification.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.cards import packet_masks
from games.core import Option
from games.manni.rules import BASIC_TRUMPS, PACK_WITHOUT_TWOS, basic_game_over
from games.manni.state import KEEP, P_CHOICE, TAKE, ManniState

MAX_DEALS = 100  # LIMIT-3
TARGET = 10  # MANNI-BASIC-8

OPTIONS = (
    Option(
        "manni.tie",
        "share",
        ("share", "play-on"),
        doc="MANNI-BASIC-8: tied leaders share rank 1 (share) or dealing goes on "
        "until one player alone leads (play-on).",
    ),
)


class ManniBasicState(ManniState):
    """State of a manni-basic game."""

    PACK = PACK_WITHOUT_TWOS
    __slots__ = ("asked", "manni", "taker")
    asked: int
    manni: int
    taker: int | None

    def _deal_cards(self, deck: list[int]) -> None:
        # MANNI-BASIC-4: three rounds of 4-card packets to L, R, D; 12 left are the Manni.
        left = (self.dealer + 1) % 3
        dealt = packet_masks(deck, 4, 3, 36)
        for i in range(3):
            self.hands[(left + i) % 3] = dealt[i]
        self.manni = self.PACK & ~(dealt[0] | dealt[1] | dealt[2])  # the 12 cards left
        self.taker = None
        self.asked = 0
        self.phase = P_CHOICE
        self.to_move = left  # MANNI-BASIC-5: L, then R, then D

    def _legal_other(self) -> list[int]:
        return [KEEP, TAKE]

    def _apply_other(self, seat: int, action: int) -> None:
        if action == TAKE:
            # MANNI-BASIC-5: the taker's 12 cards leave play; the phase ends at once.
            self.out[seat] = self.hands[seat]
            self.hands[seat] = self.manni
            self.manni = 0
            self.taker = seat
        else:
            self.asked += 1
        if action == TAKE or self.asked == 3:
            trump = BASIC_TRUMPS[(self.deal - 1) % 4]  # MANNI-BASIC-3
            self._start_play((self.dealer + 1) % 3, trump)  # MANNI-BASIC-6: L leads
        else:
            self.to_move = (seat + 1) % 3

    def _play_out_choice(self, random: Callable[[], float]) -> None:
        """MANNI-BASIC-5 at random: ``keep`` or ``take`` (the legal list) until one takes."""
        append = self.history.append
        while self.phase == P_CHOICE:
            seat = self.to_move
            action = KEEP + int(random() * 2)  # KEEP, TAKE
            append(seat << 8 | action)
            self._apply_other(seat, action)

    def _score_deal(self) -> bool:
        totals = self.totals
        for seat in range(3):
            totals[seat] += self.won[seat] - 4  # MANNI-BASIC-7
        if self.deal >= MAX_DEALS:  # LIMIT-3
            return True
        return basic_game_over(totals, self.game.options["manni.tie"], TARGET)

    def _observe_variant(self, seat: int, obs: dict[str, Any]) -> None:
        obs["trump"] = "SHDC"[BASIC_TRUMPS[(self.deal - 1) % 4]]  # public before any decision
        obs["manni_taker"] = self.taker
        obs["manni_size"] = self.manni.bit_count()
        obs["totals"] = list(self.totals)
