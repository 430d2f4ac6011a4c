"""maniglia-3, maniglia-4, maniglia-5: everyone for himself, an auction for the trump call.

Rules MANIGLIA-GEN-1..7, MANIGLIA-AUC-1..8 and LIMIT-4. Each deal starts with
an auction from the dealer's right; the highest bidder (the declarer) names
trump and plays alone against a coalition of all the others. He scores his
bid if his card points + tricks reach it; otherwise every other player scores
it. The first player to the target (the value of one deal) ends the game.
The small deck (the ``maniglia.ranks`` option, not a rule of the real game,
docs/games/maniglia.md) keeps
fewer ranks per suit, for methods that need a small game: the hands, the value of a
deal, the highest bid and the target's default follow the smaller pack.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, Final

from games.core import Game, Option, parse_int
from games.maniglia.rules import (
    AUCTION_RANKS,
    OPPONENT,
    PACK_WITHOUT_TWOS,
    STRICT,
    auction_deal_points,
    auction_pack,
    deal_value,
)
from games.maniglia.state import (
    BID,
    LABELS,
    MIN_BID,
    P_AUCTION,
    P_TRUMP,
    PASS,
    TRUMP,
    ManigliaState,
)
from games.tricks import FLOATS

REDEAL: Final = "redeal"
DEALER_FORCED: Final = "dealer-forced"
TRUMP_IDS: Final = [TRUMP, TRUMP + 1, TRUMP + 2, TRUMP + 3]
TRUMP_LABELS: Final = [LABELS[a] for a in TRUMP_IDS]


def options_for(players: int) -> tuple[Option, ...]:
    """The options of the auction variant for ``players`` (its target default is MAX,
    the value of one deal of the pack in use)."""
    ranks = AUCTION_RANKS[players]
    return (
        Option(
            "maniglia.overtake",
            OPPONENT,
            (OPPONENT, STRICT),
            doc="MANIGLIA-GEN-5: must beat W only when an opponent holds it (opponent), "
            "or always, trumping whenever void (strict).",
        ),
        Option(
            "maniglia.all_pass",
            REDEAL,
            (REDEAL, DEALER_FORCED),
            doc="MANIGLIA-AUC-3: when all pass, throw the deal in (redeal) or make "
            "the dealer, last to speak, bid 20 (dealer-forced).",
        ),
        Option(
            "maniglia.ranks",
            ranks[-1],
            ranks,
            doc="Small deck, not a rule of the real game: the ranks per suit kept, "
            f"the highest; fewer make a small game for tabular methods ({ranks[-1]}: the "
            "real pack).",
        ),
        Option(
            "maniglia.target",
            deal_value(players),
            parse=parse_int("maniglia.target", 1, 10_000),
            doc="MANIGLIA-AUC-7: points a player needs to end the game (default: the "
            "value of one deal, MAX).",
            derived=partial(_target_of, players),
        ),
    )


def _target_of(players: int, values: dict[str, Any]) -> int:
    """MANIGLIA-AUC-7: the target's default, the value of one deal of the pack in use.

    A module function (bound with ``partial``): options stay copyable, compiled too.
    """
    return deal_value(players, values["maniglia.ranks"])


class AuctionState(ManigliaState):
    """State of a maniglia-3/-4/-5 game; subclasses fix the number of players."""

    __slots__ = ("contract", "declarer", "high_bid", "high_bidder", "max_bid", "passed", "totals")
    max_bid: int

    @classmethod
    def _pack_of(cls, game: Game) -> int:
        return auction_pack(game.options["maniglia.ranks"])  # MANIGLIA-GEN-1, or a small deck

    def _init_game(self) -> None:
        self.totals = [0] * self.n
        # MANIGLIA-AUC-2: MAX is the value of one deal (of the pack in use).
        self.max_bid = deal_value(self.n, self.game.options["maniglia.ranks"])

    def _begin_deal(self) -> None:
        self.phase = P_AUCTION
        self.to_move = (self.dealer - 1) % self.n  # MANIGLIA-AUC-2: dealer's right first
        self.high_bid = 0
        self.high_bidder = -1
        self.passed = 0  # bitmask of seats that have passed (a pass is final)
        self.declarer = -1
        self.contract = 0

    # -- legal actions -----------------------------------------------------------
    def _forced(self) -> bool:
        """MANIGLIA-AUC-3 ``dealer-forced``: all others passed, the dealer must bid 20."""
        return (
            self.high_bidder < 0
            and self.to_move == self.dealer
            and self.passed == ((1 << self.n) - 1) ^ (1 << self.dealer)
            and self.game.options["maniglia.all_pass"] == DEALER_FORCED
        )

    def min_bid(self) -> int:
        return max(MIN_BID, self.high_bid + 1)

    def _legal_other(self) -> list[int]:
        if self.phase == P_TRUMP:
            return list(TRUMP_IDS)  # MANIGLIA-AUC-4
        if self._forced():
            return [BID]
        # MANIGLIA-AUC-2: bid max(20, highest + 1) .. MAX, or pass.
        return [*range(BID + self.min_bid() - MIN_BID, BID + self.max_bid - MIN_BID + 1), PASS]

    def _legal_other_labels(self) -> list[str]:
        if self.phase == P_TRUMP:
            return list(TRUMP_LABELS)
        if self._forced():
            return [LABELS[BID]]
        return [*LABELS[BID + self.min_bid() - MIN_BID : BID + self.max_bid - MIN_BID + 1], "pass"]

    def _is_legal_other(self, action: int) -> bool:
        if self.phase == P_TRUMP:
            return TRUMP <= action < TRUMP + 4
        if self._forced():
            return action == BID
        if action == PASS:
            return True
        return BID + self.min_bid() - MIN_BID <= action <= BID + self.max_bid - MIN_BID

    def _play_out_other(self, random: Callable[[], float]) -> None:
        """The auction and trump call at random, without building the legal lists.

        Entry ``int(random() * len(legal))`` of ``_legal_other()``: bids from the
        minimum up to MAX, then pass (MANIGLIA-AUC-2); a forced bid (AUC-3); a suit.
        """
        deal = self.deal
        while self.phase == P_AUCTION and self.deal == deal:  # a deal thrown in ends it
            if self._forced():
                random()  # the only legal action still costs one draw, as in the step loop
                action = BID
            else:
                first = BID + self.min_bid() - MIN_BID
                count = self.max_bid - MIN_BID + BID - first + 1  # the bids, then pass
                k = int(random() * FLOATS[count + 1])
                action = first + k if k < count else PASS
            seat = self.to_move
            self.history.append(seat << 8 | action)
            self._apply_other(seat, action)
        if self.phase == P_TRUMP and self.deal == deal:
            action = TRUMP + int(random() * 4.0)  # MANIGLIA-AUC-4
            seat = self.to_move
            self.history.append(seat << 8 | action)
            self._apply_other(seat, action)

    def _apply_other(self, seat: int, action: int) -> None:
        if self.phase == P_TRUMP:
            side = tuple(int(s == seat) for s in range(self.n))  # MANIGLIA-AUC-5
            self._start_play(action - TRUMP, side)
            return
        everyone = (1 << self.n) - 1
        if action == PASS:
            self.passed |= 1 << seat
        else:
            self.high_bid = action - BID + MIN_BID
            self.high_bidder = seat
        bidder = self.high_bidder
        if self.high_bid == self.max_bid or (
            bidder >= 0 and self.passed == everyone ^ (1 << bidder)
        ):
            self._declare()
        elif self.passed == everyone:
            self._finish_deal()  # MANIGLIA-AUC-3: thrown in, the deal passes right
        else:
            nxt = (seat - 1) % self.n
            while self.passed >> nxt & 1:
                nxt = (nxt - 1) % self.n
            self.to_move = nxt

    def _declare(self) -> None:
        self.declarer = self.to_move = self.high_bidder
        self.contract = self.high_bid
        self.phase = P_TRUMP

    # -- scoring -------------------------------------------------------------------
    def _score_deal(self) -> bool:
        if self.declarer < 0:
            self._log_deal({"thrown_in": True})
            return False
        d = self.declarer
        total = self.points[d] + self.won[d]
        gained = auction_deal_points(self.n, d, self.contract, total)  # MANIGLIA-AUC-6
        for seat in range(self.n):
            self.totals[seat] += gained[seat]
        self._log_deal(
            {
                "thrown_in": False,
                "declarer": d,
                "bid": self.contract,
                "trump": "DCSB"[self.trump],
                "card_points": list(self.points),
                "tricks": list(self.won),
                "declarer_total": total,
                "made": total >= self.contract,
                "points": gained,
            }
        )
        return max(self.totals) >= self.game.options["maniglia.target"]  # MANIGLIA-AUC-7

    def scores(self) -> list[int]:
        return list(self.totals)

    def _auction_view(self) -> list[list[Any]]:
        start = self.deal_starts[-1]
        return [[e >> 8, LABELS[e & 0xFF]] for e in self.history[start:] if e & 0xFF >= BID]

    def _observe_variant(self, seat: int, obs: dict[str, Any]) -> None:
        d = self.declarer
        obs["bids"] = self._auction_view()
        obs["high_bid"] = self.high_bid or None
        obs["high_bidder"] = self.high_bidder if self.high_bidder >= 0 else None
        obs["passed"] = [s for s in range(self.n) if self.passed >> s & 1]
        obs["min_bid"] = self.min_bid() if self.phase == P_AUCTION else None
        obs["max_bid"] = self.max_bid
        obs["declarer"] = d if d >= 0 else None
        obs["contract"] = self.contract or None
        obs["teams"] = None if d < 0 else [[d], [s for s in range(self.n) if s != d]]
        obs["declarer_total"] = self.points[d] + self.won[d] if d >= 0 else None
        obs["target"] = self.game.options["maniglia.target"]


class Maniglia3State(AuctionState):
    """maniglia-3: 36 cards (no 2s), 12 each, MAX 72 (MANIGLIA-GEN-1, -4, AUC-2)."""

    PLAYERS = 3
    PACK = PACK_WITHOUT_TWOS
    __slots__ = ()


class Maniglia4State(AuctionState):
    """maniglia-4: 40 cards, 10 each, MAX 70."""

    PLAYERS = 4
    __slots__ = ()


class Maniglia5State(AuctionState):
    """maniglia-5: 40 cards, 8 each, MAX 68."""

    PLAYERS = 5
    __slots__ = ()
