"""The state of one Money game (money-jordan, money-egypt, money-syria).

Representation: each stack is a ``deque`` of card numbers, top card at the
left; the pile is a list, bottom card first; banks and the money under the
pile are packed money sets (``games.money.sets``). Action ids index the
variant's :class:`games.money.plans.ActionTable`; legal lists are ascending
ids, so their order is the table's order (documented in ``games.money.plans``).

Decisions (``phase``):

- ``turn``: only ``turn`` is legal (a non-empty stack in Jordan and Syria,
  or after a buy).
- ``purchase``: exchanges and buys (MONEY-JO-8..14); in Egypt also at the
  start of a turn with cards left, where ``turn`` is legal too (MONEY-EG-2).
- ``change``: the seller chooses his change (MONEY-JO-12).
- ``capture``: ``capture`` or ``decline`` (``money.capture = choice``).

The engine never applies an action by itself, forced or not: every action
is chosen through ``apply``/``apply_id`` and recorded, so ``games.replay``
rebuilds any game. :meth:`MoneyState.play_forced` applies forced actions in
a loop for callers that do not need to see them.
"""

from __future__ import annotations

from collections import deque
from typing import Any, ClassVar, Final, cast

from games import rng
from games.cards import parse_deck
from games.core import Game, IllegalAction, RandomSource, competition_ranks
from games.money import views
from games.money.plans import (
    ANY,
    CAPTURE,
    GROUND,
    K_CAPTURE,
    K_CHANGE,
    K_DECLINE,
    K_EXCHANGE,
    K_GROUND,
    K_OPPONENT,
    K_TURN,
    PLACE_NAMES,
    STUCK,
    TURN,
)
from games.money.rules import INDEX, Ruleset, check_deck, deal
from games.money.table import (
    P_CAPTURE,
    P_CHANGE,
    P_OVER,
    P_PURCHASE,
    P_TURN,
    MoneyTable,
)
from games.money.views import PHASE_NAMES

# Final: constants to mypyc (build_engines.py), which then reads them without a lookup.
_TURN_ONLY: Final = (TURN,)
_CAPTURE_OR_DECLINE: Final = (CAPTURE, CAPTURE + 1)
_NONE: Final[tuple[int, ...]] = ()


class MoneyState(MoneyTable):
    """A Money game for two players. Subclasses only name their variant kind.

    Its fields, and what a turn and a purchase do to them, are :class:`MoneyTable`'s
    (``games.money.table``); this class adds the decisions, the moves' dispatch,
    the results, the views and the copy."""

    KIND: ClassVar[str] = ""

    __slots__ = ()

    # -- construction -------------------------------------------------------------
    @classmethod
    def new(cls, game: Game, seed: int, dealer: int | None, decks: Any) -> MoneyState:
        rules = cls._rules(game)
        if decks:
            if len(decks) > 1:
                raise ValueError(
                    f"Money has one deal per game: decks must hold one deck, " f"got {len(decks)}"
                )
            check_deck(decks[0], rules.kind, rules.jokers, rules.aces_money)
            expected = sum(1 << c for c in rules.numerals)
            deck = parse_deck(decks[0], INDEX, expected, "deck 0")
        else:
            deck = rng.shuffled(rules.numerals, seed, "deck/1")
        first = rng.draw(2, seed, "dealer") if dealer is None else dealer
        stacks = deal(deck, first)
        system = rules.system
        return cls._build(
            game,
            rules,
            seed,
            first,
            deck,
            [list(s) for s in stacks],
            [],
            [system.initial_bank, system.initial_bank],
            0,
            1 - first,
            0,
        )

    @classmethod
    def _rules(cls, game: Game) -> Ruleset:
        from games.money.rules import ruleset

        return ruleset(cls.KIND, game.options)

    @classmethod
    def _build(
        cls,
        game: Game,
        rules: Ruleset,
        seed: int,
        dealer: int,
        deck: list[int] | None,
        stacks: list[list[int]],
        pile: list[int],
        banks: list[int],
        under: int,
        to_move: int,
        plays: int,
    ) -> MoneyState:
        self = cls.__new__(cls)
        self.game = game
        self.rules = rules
        self.seed = seed
        self.dealer = dealer
        self.deck = deck
        self.stacks = [deque(stacks[0]), deque(stacks[1])]
        self.pile = list(pile)
        self.banks = list(banks)
        self.under = under
        self.to_move = to_move
        self.plays = plays
        self.history = []
        self.view_cache = None  # see views.public_history
        self.pending = -1  # the denomination an opponent buy paid, while its change is due
        self.forfeited = None
        self.loser = None
        self.end = None
        self.compulsory = self.exchanged = False
        self.source = ANY
        self.phase = P_TURN
        self.legal = None
        self._start_turn()  # MONEY-JO-5: the non-dealer plays first
        return self

    @classmethod
    def from_position(cls, game: Game, **position: Any) -> MoneyState:
        """Test support: a game from an explicit position instead of a deal.

        Keyword arguments and errors as in :func:`games.money.position.parse_position`.
        The record of such a state has ``"decks": []`` and ``"position": true``
        and cannot be replayed by ``games.replay``.
        """
        from games.money.position import parse_position

        rules = cls._rules(game)
        dealer, stacks, pile, banks, under, to_move, plays = parse_position(rules, **position)
        return cls._build(game, rules, 0, dealer, None, stacks, pile, banks, under, to_move, plays)

    # -- queries ----------------------------------------------------------------
    def current_player(self) -> int | None:
        return None if self.phase == P_OVER else self.to_move

    def is_over(self) -> bool:
        return self.phase == P_OVER

    def legal_ids(self) -> list[int]:
        return list(self._legal())

    def _legal(self) -> tuple[int, ...]:
        """The legal ids, kept in ``legal`` until the next action."""
        legal = self.legal
        if legal is None:
            legal = self.legal = self._find_legal()
        return legal

    def _find_legal(self) -> tuple[int, ...]:
        phase = self.phase
        if phase == P_TURN:
            return _TURN_ONLY
        if phase == P_PURCHASE:
            return self._purchase_ids()
        if phase == P_CHANGE:
            seller = self.to_move
            full = self.rules.system.values[self.pending]
            return self.rules.planner.changes(self.banks[seller], full, len(self.stacks[seller]))
        if phase == P_CAPTURE:
            return _CAPTURE_OR_DECLINE
        return _NONE

    def _purchase_ids(self) -> tuple[int, ...]:
        p = self.to_move
        planner = self.rules.planner
        g, s = len(self.pile), len(self.stacks[1 - p])
        if self.source == STUCK:
            return (planner.stuck_action(self.banks[p], g, s),)
        banks = self.banks
        if self.compulsory:
            return planner.purchase(
                banks[p], banks[1 - p], self.under, g, s, self.source, True, self.exchanged
            )
        # MONEY-EG-2: a free purchase, or the turn.
        return planner.free_purchase(banks[p], banks[1 - p], self.under, g, s, self.exchanged)

    def legal_actions(self) -> list[str]:
        labels = self.rules.table.labels
        return [labels[a] for a in self.legal_ids()]

    # -- moves --------------------------------------------------------------------
    def apply(self, label: str) -> None:
        """Apply the action ``label``; raises :class:`IllegalAction` (state unchanged)."""
        action = self.rules.table.ids.get(label) if isinstance(label, str) else None
        if action is None:
            self._reject(label)
            return
        self.apply_id(action)

    def apply_id(self, action: int) -> None:
        if self.phase == P_TURN and type(action) is int and action == TURN:
            self._turn()
            return
        if self.phase == P_OVER or type(action) is not int or action not in self._legal():
            self._reject_id(action)
        self._apply(action)

    def _apply(self, action: int) -> None:
        """Apply the legal id ``action`` (checked by the caller)."""
        self.legal = None
        table = self.rules.table
        kind, args = table.kind[action], table.args[action]
        if kind == K_TURN:
            self._turn()
            return
        p = self.to_move
        self.history.append(action << 1 | p)
        if kind == K_GROUND:
            self._buy_ground(p, args[0], args[1])
        elif kind == K_OPPONENT:
            self._buy_opponent(p, args[0])
        elif kind == K_EXCHANGE:
            self._exchange(p, args[0], args[1], args[2])
        elif kind == K_CHANGE:
            self._change(p, args[0])
        elif kind == K_CAPTURE:
            self._capture(p)
            self._pass_turn(p)
        elif kind == K_DECLINE:
            self._pass_turn(p)  # MONEY-JO-7: a decline is final

    def playout(self, rng: RandomSource, *, deal_only: bool = False) -> None:
        """``State.playout`` (one deal per game: ``deal_only`` changes nothing), with the
        legal ids found once a decision and a lone ``turn`` applied at once (its draw
        still made): the very same actions and draws as the loop over ``legal_ids``."""
        random = rng.random
        while True:
            phase = self.phase
            if phase == P_TURN:
                random()
                self._turn()
            elif phase == P_OVER:
                return
            else:
                legal = self._legal()
                self._apply(legal[int(random() * len(legal))])

    def _reject_id(self, action: object) -> None:
        labels = self.rules.table.labels
        ok = type(action) is int and 0 <= cast(int, action) < len(labels)
        self._reject(labels[cast(int, action)] if ok else action)

    def play_forced(self) -> int:
        """Apply actions while exactly one is legal; return how many were applied."""
        count = 0
        while self.phase != P_OVER:
            legal = self._legal()
            if len(legal) != 1:
                break
            self._apply(legal[0])
            count += 1
        return count

    def forfeit(self, seat: int, reason: str = "illegal") -> None:
        """FORFEIT-2: the offender loses, the opponent wins."""
        self._check_seat(seat)
        if self.phase == P_OVER:
            raise IllegalAction("the game is already over")
        self.forfeited = (seat, str(reason))
        self.legal = None
        self._finish("forfeit", loser=seat)

    # -- results ------------------------------------------------------------------
    def scores(self) -> list[int]:
        """LIMIT-1: wealth = numerals in the stack + face value of the bank."""
        value = self.rules.system.value
        return [len(self.stacks[p]) + value[self.banks[p]] for p in (0, 1)]

    def ranking(self) -> list[int]:
        """MONEY-JO-16 and FORFEIT-2: the loser is 2nd; at the cap, by wealth (LIMIT-1)."""
        if self.phase != P_OVER:
            raise ValueError("ranking() is only defined once the game is over")
        if self.loser is not None:
            return [2 if p == self.loser else 1 for p in (0, 1)]
        return competition_ranks(self.scores())

    # -- views (games/money/views.py) --------------------------------------------------
    def action_labels(self) -> list[str]:
        """Every applied label in order, forced ones included."""
        return views.action_labels(self)

    def history_entries(self) -> list[list[Any]]:
        """Every applied action as ``[seat, label]``; a ``turn`` adds the card it
        turned face up (public, MONEY-JO-15): ``[seat, "turn", "7H"]``."""
        return views.entries(self, self.history)

    def _entries(self, history: list[int]) -> list[list[Any]]:
        return views.entries(self, history)

    def _public_history(self) -> list[list[Any]]:
        return views.public_history(self)

    def observation(self, seat: int) -> dict[str, Any]:
        """Public information only (MONEY-JO-15): stack contents are never shown."""
        self._check_seat(seat)
        return views.view(self, seat, self.history_entries())

    def shared_observation(self, seat: int) -> dict[str, Any]:
        """``observation(seat)`` whose history entries are the state's own (``State``)."""
        self._check_seat(seat)
        return views.view(self, seat, views.public_history(self))

    def record(self) -> dict[str, Any]:
        return views.record(self)

    def clone(self) -> MoneyState:
        """An independent copy (every field; the stacks, pile, banks and history copied)."""
        other = type(self).__new__(type(self))
        other.game, other.rules, other.seed, other.dealer = (
            self.game,
            self.rules,
            self.seed,
            self.dealer,
        )
        other.deck, other.under, other.to_move, other.plays = (
            self.deck,
            self.under,
            self.to_move,
            self.plays,
        )
        other.stacks = [self.stacks[0].copy(), self.stacks[1].copy()]
        other.pile, other.banks = self.pile.copy(), self.banks.copy()
        other.history, other.view_cache = self.history.copy(), self.view_cache
        other.pending, other.forfeited, other.loser, other.end = (
            self.pending,
            self.forfeited,
            self.loser,
            self.end,
        )
        other.compulsory, other.exchanged, other.source = (
            self.compulsory,
            self.exchanged,
            self.source,
        )
        other.phase, other.legal = self.phase, self.legal
        return other


class JordanState(MoneyState):
    KIND = "jordan"
    __slots__ = ()


class EgyptState(MoneyState):
    KIND = "egypt"
    __slots__ = ()


class SyriaState(MoneyState):
    KIND = "syria"
    __slots__ = ()


__all__ = [
    "GROUND",
    "PHASE_NAMES",
    "PLACE_NAMES",
    "P_CAPTURE",
    "P_CHANGE",
    "P_OVER",
    "P_PURCHASE",
    "P_TURN",
    "EgyptState",
    "JordanState",
    "MoneyState",
    "MoneyTable",
    "SyriaState",
]
