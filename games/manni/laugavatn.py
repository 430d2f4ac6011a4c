"""laugavatnsmanni: 52 cards, 16 each, a 4-card Manni, announced contracts and great calls.

Rules LAUG-1..13 and LIMIT-5. The game has exactly 18 deals: the player on
the dealer's left announces one of his unused contracts each deal, then the
great-call sequence of LAUG-7 may make another player the declarer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from games.cards import packet_masks
from games.core import Option, parse_bool, parse_int
from games.manni.rules import (
    FULL_PACK,
    LAUG_CONTRACTS,
    LAUG_GRAND,
    LAUG_NULLO,
    LAUG_RANK,
    LAUG_TRUMP,
    laug_deal_scores,
)
from games.manni.state import (
    ANNOUNCE,
    DISCARD,
    DRAW,
    GREAT,
    P_ANNOUNCE,
    P_EXCHANGE,
    P_GREAT,
    PASS,
    ManniState,
    discard_ids,
    hand_cards,
)
from games.tricks import FLOATS

DEALS: Final = 18  # LAUG-5, LIMIT-5
GREAT_TYPES: Final = tuple(range(LAUG_GRAND, 6))

OPTIONS = (
    Option(
        "laug.nullo_ace_low",
        False,
        parse=parse_bool("laug.nullo_ace_low"),
        doc="LAUG-2: the ace ranks lowest in Nullo.",
    ),
    Option(
        "laug.exchange",
        "draw",
        ("draw", "skat"),
        doc="LAUG-8: declarer discards then draws (draw), or takes the 4 Manni cards "
        "and discards 4 (skat).",
    ),
    Option(
        "laug.first_lead",
        "declarer-left",
        ("declarer-left", "dealer-left"),
        doc="LAUG-9: who leads the first trick.",
    ),
    Option(
        "laug.stop_at",
        None,
        parse=parse_int("laug.stop_at", 1, 10_000, allow_none=True),
        doc="LAUG-11: end after the first deal in which a total reaches this number.",
    ),
)

# Steps of the great-call sequence (LAUG-7): who answers, and after what.
B_FIRST: Final = 0
A_AFTER_B: Final = 1
D_OVER_B: Final = 2
D_FIRST: Final = 3
A_AFTER_D: Final = 4
B_OVER_D: Final = 5
#: Steps where the answer must outrank the great call standing (LAUG-7 steps 2 and 3).
OVERCALL_STEPS: Final = (D_OVER_B, B_OVER_D)


class LaugState(ManniState):
    """State of a laugavatnsmanni game."""

    PACK = FULL_PACK
    TRICKS = 16
    __slots__ = (
        "announced",
        "calls",
        "contract",
        "declarer",
        "discards",
        "great",
        "great_used",
        "manni",
        "skat",
        "step",
        "used",
    )
    skat: bool

    def _init_game(self) -> None:
        self.skat = self.game.options["laug.exchange"] == "skat"  # LAUG-8
        self.used = [0, 0, 0]  # bitmask of contracts each player has announced (LAUG-5)
        self.great_used = [False, False, False]  # LAUG-6: one great call per game

    def _deal_cards(self, deck: list[int]) -> None:
        # LAUG-3: four rounds of 4-card packets to L, R, D; the last 4 are the Manni.
        left = (self.dealer + 1) % 3
        dealt = packet_masks(deck, 4, 3, 48)
        for i in range(3):
            self.hands[(left + i) % 3] = dealt[i]
        self.manni = deck[48:52][::-1]  # top = last card dealt
        self.announced = -1
        self.calls: list[tuple[int, int]] = []  # (seat, great type), in call order
        self.declarer = -1
        self.contract = -1
        self.great = False
        self.discards = 0
        self.phase = P_ANNOUNCE
        self.to_move = left  # LAUG-5: the announcer is the dealer's left

    # -- roles ---------------------------------------------------------------
    @property
    def announcer(self) -> int:
        return (self.dealer + 1) % 3

    def _eligible(self, seat: int, above: int = 0) -> list[int]:
        """LAUG-6: great types ``seat`` may call, ranked above ``above``."""
        if self.great_used[seat]:
            return []
        used = self.used[seat]
        if seat == self.announcer:
            used &= ~(1 << self.announced)  # LAUG-7: A may keep in the type he just named
        return [t for t in GREAT_TYPES if not used >> t & 1 and LAUG_RANK[t] > above]

    # -- legal actions -----------------------------------------------------------
    def _legal_other(self) -> list[int]:
        seat = self.to_move
        if self.phase == P_ANNOUNCE:
            return [ANNOUNCE + c for c in range(6) if not self.used[seat] >> c & 1]
        if self.phase == P_GREAT:
            above = self._rank_standing() if self.step in OVERCALL_STEPS else 0
            return [GREAT + t - 1 for t in self._eligible(seat, above)] + [PASS]
        # LAUG-8 / ACTION-3: the declarer's exchange.
        if self.skat:
            return discard_ids(self.hands[seat])
        return [*discard_ids(self.hands[seat]), DRAW] if self.discards < 4 else [DRAW]

    def _is_legal_other(self, action: object) -> bool:
        if self.phase != P_EXCHANGE:
            return action in self._legal_other()
        if self.skat:
            return action != DRAW and self._discard_legal(action, True)
        return self._discard_legal(action, self.discards < 4)

    def _apply_other(self, seat: int, action: int) -> None:
        if self.phase == P_ANNOUNCE:
            self._announce(seat, action - ANNOUNCE)
        elif self.phase == P_GREAT:
            self._great_step(seat, None if action == PASS else action - GREAT + 1)
        else:
            self._exchange(seat, action)

    def _announce(self, seat: int, contract: int) -> None:
        self.used[seat] |= 1 << contract  # LAUG-5: used whatever happens afterwards
        self.announced = contract
        if contract == LAUG_NULLO:
            self._declare(seat, contract, great=False)  # EX-LAUG-5: no great calls
            return
        self.phase = P_GREAT
        self.step = B_FIRST
        self.to_move = (seat + 1) % 3

    def _great_step(self, seat: int, call: int | None) -> None:
        """LAUG-7, one answer at a time; ``call`` is a great type or None for pass."""
        if call is not None:
            self.great_used[seat] = True
            self.calls.append((seat, call))
        a, d = self.announcer, self.dealer
        step = self.step
        if step == B_FIRST:
            self.step, self.to_move = (A_AFTER_B, a) if call is not None else (D_FIRST, d)
        elif step in (A_AFTER_B, A_AFTER_D) and call is not None:
            self._declare(a, call, great=True)  # A keeps
        elif step == A_AFTER_B:
            self.step, self.to_move = D_OVER_B, d
        elif step == D_FIRST and call is not None:
            self.step, self.to_move = A_AFTER_D, a
        elif step == D_FIRST:
            self._declare(a, self.announced, great=False)
        elif step == A_AFTER_D and self._eligible(b := (a + 1) % 3, self._rank_standing()):
            # LAUG-7 step 3 (amended): B, who passed first, may still outrank D's
            # call; he is asked only when he has such a type (EX-LAUG-6).
            self.step, self.to_move = B_OVER_D, b
        elif step in OVERCALL_STEPS and call is not None:
            self._declare(seat, call, great=True)  # D over B (step 2), B over D (step 3)
        else:  # nobody kept or overcalled: the standing great call is declared
            caller, kind = self.calls[-1]
            self._declare(caller, kind, great=True)

    def _rank_standing(self) -> int:
        """LAUG-4 rank of the latest great call, the one an overcall must beat."""
        return LAUG_RANK[self.calls[-1][1]]

    def _declare(self, seat: int, contract: int, *, great: bool) -> None:
        self.declarer = seat
        self.contract = contract
        self.great = great
        self.phase = P_EXCHANGE
        self.to_move = seat
        self.discards = 0
        if self.skat:
            hand = self.hands[seat]  # a local int: compiled, no int object made per card
            for card in self.manni:
                hand |= 1 << card
            self.hands[seat] = hand
            self.manni = []

    def _exchange(self, seat: int, action: int) -> None:
        if action == DRAW:
            hand = self.hands[seat]
            for card in self.manni[: self.discards]:
                hand |= 1 << card
            self.hands[seat] = hand
            del self.manni[: self.discards]
            self._begin_play()
            return
        card = action - DISCARD
        self.hands[seat] = self.hands[seat] ^ 1 << card
        self.out[seat] = self.out[seat] | 1 << card
        self.discards += 1
        if self.discards == 4 and self.skat:
            self._begin_play()

    def _play_out_exchange(self, random: Callable[[], float]) -> None:
        """LAUG-8 at random: the declarer's whole exchange (the draws of ``playout``)."""
        seat, skat, history = self.to_move, self.skat, self.history
        cards = hand_cards(self.hands[seat])  # a discard is taken out of it (the order stays)
        while self.phase == P_EXCHANGE:
            if not skat and self.discards >= 4:
                cards = []
            # The legal list: the discards, then draw (never in skat).
            k = int(random() * FLOATS[len(cards) if skat else len(cards) + 1])
            action = DISCARD + cards.pop(k) if k < len(cards) else DRAW
            history.append(seat << 8 | action)
            self._exchange(seat, action)

    def _begin_play(self) -> None:
        opts = self.game.options
        base = self.declarer if opts["laug.first_lead"] == "declarer-left" else self.dealer
        ace_low = self.contract == LAUG_NULLO and opts["laug.nullo_ace_low"]
        self._start_play((base + 1) % 3, LAUG_TRUMP[self.contract], ace_low)  # LAUG-9

    # -- scoring -------------------------------------------------------------------
    def _score_deal(self) -> bool:
        deal = laug_deal_scores(self.won, self.declarer, self.contract, self.great)
        for seat in range(3):
            self.totals[seat] += deal[seat]
        stop_at = self.game.options["laug.stop_at"]
        if stop_at is not None and max(self.totals) >= stop_at:  # LAUG-11 option
            return True
        return self.deal >= DEALS  # LAUG-11, LIMIT-5

    def _observe_variant(self, seat: int, obs: dict[str, Any]) -> None:
        contract = LAUG_CONTRACTS[self.contract] if self.contract >= 0 else None
        obs["announcer"] = self.announcer
        obs["announced"] = LAUG_CONTRACTS[self.announced] if self.announced >= 0 else None
        obs["great_calls"] = [[s, LAUG_CONTRACTS[t]] for s, t in self.calls]
        obs["declarer"] = self.declarer if self.declarer >= 0 else None
        obs["contract"] = contract
        if self.contract >= 0 and LAUG_TRUMP[self.contract] >= 0:
            obs["trump"] = "SHDC"[LAUG_TRUMP[self.contract]]  # public once declared
        obs["great"] = self.great
        obs["manni_size"] = len(self.manni)
        obs["exchanged"] = self.discards if self.phase != P_ANNOUNCE else None
        # LAUG-12: unused contract types and whether each great call is still available.
        obs["unused_contracts"] = [
            [c for i, c in enumerate(LAUG_CONTRACTS) if not u >> i & 1] for u in self.used
        ]
        obs["great_available"] = [not g for g in self.great_used]
        obs["totals"] = list(self.totals)
