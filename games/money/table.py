"""A Money game's table: the fields of a state (the stacks, the pile, the banks, the
money under the pile, whose turn and what is to decide) and what a turn and each
purchase do to them (MONEY-JO-4..19, MONEY-EG-*, MONEY-SY-*). :class:`MoneyTable` is
the base of ``games.money.state.MoneyState``, which decides what is legal and applies
an action by calling these; compiled with it by mypyc (``build_engines.py``).
"""

from __future__ import annotations

from collections import deque
from typing import Final

from games.core import Game, State
from games.money.plans import ANY, OPPONENT, STUCK
from games.money.rules import RANK, Ruleset, ground_packet
from games.money.views import PublicHistory

# Final: constants to mypyc (build_engines.py), which then reads them without a lookup.
P_TURN: Final = 0
P_PURCHASE: Final = 1
P_CHANGE: Final = 2
P_CAPTURE: Final = 3
P_OVER: Final = 4


class MoneyTable(State):
    """The fields of a Money state and the changes a turn and the purchases make to them."""

    __slots__ = (
        "banks",
        "compulsory",
        "dealer",
        "deck",
        "end",
        "exchanged",
        "forfeited",
        "game",
        "history",
        "legal",
        "loser",
        "pending",
        "phase",
        "pile",
        "plays",
        "rules",
        "seed",
        "source",
        "stacks",
        "to_move",
        "under",
        "view_cache",
    )
    # The slots' types (declared for mypyc, which compiles this module when it can).
    game: Game
    seed: int
    rules: Ruleset
    dealer: int
    deck: list[int] | None
    stacks: list[deque[int]]
    pile: list[int]
    banks: list[int]
    under: int
    to_move: int
    plays: int
    history: list[int]
    view_cache: PublicHistory | None
    pending: int
    forfeited: tuple[int, str] | None
    loser: int | None
    end: str | None
    compulsory: bool
    exchanged: bool
    source: int
    phase: int
    #: The legal ids of the decision at hand, once asked for (None: not yet known).
    legal: tuple[int, ...] | None

    # -- turn structure -------------------------------------------------------------
    def _start_turn(self) -> None:
        """MONEY-JO-6 step 1, MONEY-JO-16, MONEY-EG-2: what the mover must decide."""
        p = self.to_move
        rules = self.rules
        self.exchanged = False
        if self.stacks[p]:
            self.compulsory = False
            if rules.free_purchases and self.banks[p]:
                self.source = ANY
                self.phase = P_PURCHASE
            else:
                self.phase = P_TURN
            return
        if not self.banks[p]:
            self._finish("loss", loser=p)  # MONEY-JO-16
            return
        self.compulsory = True
        self.phase = P_PURCHASE
        bank, other, under = self.banks[p], self.banks[1 - p], self.under
        g, s = len(self.pile), len(self.stacks[1 - p])
        planner = rules.planner
        if rules.free_purchases:
            found = planner.purchase(bank, other, under, g, s, ANY, True, False)
            self.source = ANY if found else STUCK
        else:
            self.source = planner.jordan_source(bank, other, under, g, s)

    def _finish(self, reason: str, loser: int | None = None) -> None:
        self.phase = P_OVER
        self.end = reason
        self.loser = loser
        self.pending = -1

    def _pass_turn(self, p: int) -> None:
        """MONEY-JO-6 step 4, LIMIT-1: the cap ends the game after the capping play."""
        if self.plays >= self.rules.max_plays:
            self._finish("cap")
            return
        self.to_move = 1 - p
        self._start_turn()

    def _turn(self) -> None:
        """MONEY-JO-6 steps 2-4, MONEY-JO-7, MONEY-EG-7."""
        self.legal = None
        p = self.to_move
        card = self.stacks[p].popleft()
        self.history.append(~(card << 1 | p))  # a turn: negative, with the card turned
        pile = self.pile
        self.plays += 1
        if pile and (RANK[card] == RANK[pile[-1]] or card == self.rules.seven_diamonds):
            pile.append(card)
            if self.rules.capture_choice:
                self.phase = P_CAPTURE
                return
            self._capture(p)
        else:
            pile.append(card)
        self._pass_turn(p)

    def _capture(self, p: int) -> None:
        """MONEY-JO-7, MONEY-JO-4: the pile goes under the stack, oldest card first."""
        self.stacks[p].extend(self.pile)
        self.pile = []
        self.banks[p] += self.under
        self.under = 0

    def _buy_ground(self, p: int, d: int, change: int) -> None:
        """MONEY-JO-11, MONEY-SY-2, MONEY-EG-4, MONEY-JO-14 (stuck: the whole pile)."""
        system = self.rules.system
        paid = system.units[d]
        if self.source == STUCK:
            n = len(self.pile)
        else:
            n = system.values[d] - system.value[change]
        self.banks[p] += change - paid
        self.under += paid - change
        self.stacks[p].extend(ground_packet(self.pile, n, self.rules.ground_top))
        self.phase = P_TURN  # MONEY-JO-19, MONEY-EG-8: a turn follows in the same turn

    def _buy_opponent(self, p: int, d: int) -> None:
        """MONEY-JO-12 (the seller decides next), MONEY-JO-14 (stuck: his whole stack)."""
        paid = self.rules.system.units[d]
        self.banks[p] -= paid
        self.banks[1 - p] += paid
        if self.source == STUCK:
            seller = self.stacks[1 - p]
            self.stacks[p].extend(seller)
            seller.clear()
            self.phase = P_TURN
            return
        self.pending = d
        self.phase = P_CHANGE
        self.to_move = 1 - p

    def _change(self, seller: int, change: int) -> None:
        """MONEY-JO-12 (top of the seller's stack), MONEY-EG-4 (bottom), order kept."""
        system = self.rules.system
        buyer = 1 - seller
        n = system.values[self.pending] - system.value[change]
        self.banks[seller] -= change
        self.banks[buyer] += change
        stack = self.stacks[seller]
        if self.rules.seller_bottom:
            packet = [stack.pop() for _ in range(n)]
            packet.reverse()
        else:
            packet = [stack.popleft() for _ in range(n)]
        self.stacks[buyer].extend(packet)
        self.pending = -1
        self.to_move = buyer
        self.phase = P_TURN

    def _exchange(self, p: int, place: int, give: int, take: int) -> None:
        """MONEY-JO-10: the given cards go to the place the received ones came from."""
        self.banks[p] += take - give
        if place == OPPONENT:
            self.banks[1 - p] += give - take
        else:
            self.under += give - take
        self.exchanged = True  # LIMIT-2, MONEY-EG-8
