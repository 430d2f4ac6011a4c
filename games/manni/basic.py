"""manni-basic: three players, 48 cards, a 12-card Manni, trump by deal number.

Rules MANNI-BASIC-1..9 and LIMIT-3 of the rules specification. The small deck (the
``manni.ranks`` option, not a rule of the real game, docs/games/manni.md) keeps fewer
ranks per suit, for methods that need a small game: hands, the Manni, the trick par
and the target scale with it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from games.cards import packet_masks, packet_size
from games.core import Game, Option
from games.manni.rules import (
    BASIC_RANKS,
    BASIC_TRUMPS,
    PACK_WITHOUT_TWOS,
    basic_game_over,
    basic_pack,
    basic_par,
    basic_target,
)
from games.manni.state import KEEP, P_CHOICE, TAKE, ManniState

MAX_DEALS: Final = 100  # LIMIT-3
TARGET: Final = 10  # MANNI-BASIC-8

OPTIONS = (
    Option(
        "manni.tie",
        "share",
        ("share", "play-on"),
        doc="MANNI-BASIC-8: tied leaders share rank 1 (share) or dealing goes on "
        "until one player alone leads (play-on).",
    ),
    Option(
        "manni.ranks",
        12,
        BASIC_RANKS,
        doc="Small deck, not a rule of the real game: the ranks per suit kept, the "
        "highest; fewer make a small game for tabular methods (12: the real 48-card pack).",
    ),
)


class ManniBasicState(ManniState):
    """State of a manni-basic game."""

    PACK = PACK_WITHOUT_TWOS
    __slots__ = ("asked", "manni", "par", "taker", "target")
    asked: int
    manni: int
    par: int
    target: int
    taker: int | None

    @classmethod
    def _pack_of(cls, game: Game) -> int:
        return basic_pack(game.options["manni.ranks"])  # MANNI-BASIC-2, or a small deck

    def _init_game(self) -> None:
        ranks = self.game.options["manni.ranks"]
        self.par = basic_par(ranks)  # MANNI-BASIC-7: 4, a third of the tricks
        self.target = basic_target(ranks, TARGET)  # MANNI-BASIC-8: 10, scaled to the tricks

    def _deal_cards(self, deck: list[int]) -> None:
        # MANNI-BASIC-4: packets of 4 to L, R, D until each has 12; 12 left are the Manni.
        # A small deck: a quarter each, in packets of 3 when 4 do not fit.
        left = (self.dealer + 1) % 3
        hand = len(deck) // 4
        dealt = packet_masks(deck, packet_size(hand, 4), 3, 3 * hand)
        for i in range(3):
            self.hands[(left + i) % 3] = dealt[i]
        self.manni = self.pack_mask & ~(dealt[0] | dealt[1] | dealt[2])  # the cards left
        self.taker = None
        self.asked = 0
        self.phase = P_CHOICE
        self.to_move = left  # MANNI-BASIC-5: L, then R, then D

    def _legal_other(self) -> list[int]:
        return [KEEP, TAKE]

    def _apply_other(self, seat: int, action: int) -> None:
        if action == TAKE:
            # MANNI-BASIC-5: the taker's hand leaves play; the phase ends at once.
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
        history = self.history
        while self.phase == P_CHOICE:
            seat = self.to_move
            action = KEEP + int(random() * 2.0)  # KEEP, TAKE
            history.append(seat << 8 | action)
            self._apply_other(seat, action)

    def _score_deal(self) -> bool:
        totals = self.totals
        par = self.par
        for seat in range(3):
            totals[seat] += self.won[seat] - par  # MANNI-BASIC-7: tricks - 4
        if self.deal >= MAX_DEALS:  # LIMIT-3
            return True
        return basic_game_over(totals, self.game.options["manni.tie"], self.target)

    def _observe_variant(self, seat: int, obs: dict[str, Any]) -> None:
        obs["trump"] = "SHDC"[BASIC_TRUMPS[(self.deal - 1) % 4]]  # public before any decision
        obs["manni_taker"] = self.taker
        obs["manni_size"] = self.manni.bit_count()
        obs["totals"] = list(self.totals)
