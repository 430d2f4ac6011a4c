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
from typing import Any, ClassVar

from games import rng
from games.cards import parse_deck
from games.core import RECORD_FORMAT, Game, IllegalAction, State, competition_ranks
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
    OPPONENT,
    PLACE_NAMES,
    STUCK,
    TURN,
)
from games.money.rules import INDEX, NAMES, RANK, Ruleset, check_deck, deal, ground_packet

P_TURN, P_PURCHASE, P_CHANGE, P_CAPTURE, P_OVER = range(5)
PHASE_NAMES = ("turn", "purchase", "change", "capture", "over")
_TURN_ONLY = (TURN,)


class PublicHistory:
    """The public history entries of one state (``MoneyState._public_history``)."""

    __slots__ = ("entries", "owner")

    def __init__(self, owner: list[int]) -> None:
        self.owner = owner  # the state's history list this view follows
        self.entries: list[list[Any]] = []


class MoneyState(State):
    """A Money game for two players. Subclasses only name their variant kind."""

    KIND: ClassVar[str] = ""

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
        self.history: list[int] = []
        self.view_cache: PublicHistory | None = None  # see _public_history
        self.pending: int | None = None
        self.forfeited: tuple[int, str] | None = None
        self.loser: int | None = None
        self.end: str | None = None
        self.compulsory = self.exchanged = False
        self.source = ANY
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
        self.pending = None

    def _pass_turn(self, p: int) -> None:
        """MONEY-JO-6 step 4, LIMIT-1: the cap ends the game after the capping play."""
        if self.plays >= self.rules.max_plays:
            self._finish("cap")
            return
        self.to_move = 1 - p
        self._start_turn()

    # -- queries ----------------------------------------------------------------
    def current_player(self) -> int | None:
        return None if self.phase == P_OVER else self.to_move

    def is_over(self) -> bool:
        return self.phase == P_OVER

    def legal_ids(self) -> list[int]:
        phase = self.phase
        if phase == P_TURN:
            return [TURN]
        if phase == P_PURCHASE:
            return list(self._purchase_ids())
        if phase == P_CHANGE:
            seller = self.to_move
            full = self.rules.system.values[self.pending]
            return list(
                self.rules.planner.changes(self.banks[seller], full, len(self.stacks[seller]))
            )
        if phase == P_CAPTURE:
            return [CAPTURE, CAPTURE + 1]
        return []

    def _purchase_ids(self) -> tuple[int, ...]:
        p = self.to_move
        planner = self.rules.planner
        g, s = len(self.pile), len(self.stacks[1 - p])
        if self.source == STUCK:
            return (planner.stuck_action(self.banks[p], g, s),)
        ids = planner.purchase(
            self.banks[p],
            self.banks[1 - p],
            self.under,
            g,
            s,
            self.source,
            self.compulsory,
            self.exchanged,
        )
        return ids if self.compulsory else (TURN, *ids)

    def legal_actions(self) -> list[str]:
        labels = self.rules.table.labels
        return [labels[a] for a in self.legal_ids()]

    # -- moves --------------------------------------------------------------------
    def apply(self, label: str) -> None:
        """Apply the action ``label``; raises :class:`IllegalAction` (state unchanged)."""
        action = self.rules.table.ids.get(label) if isinstance(label, str) else None
        if action is None:
            self._reject(label)
        self.apply_id(action)

    def apply_id(self, action: int) -> None:
        phase = self.phase
        if phase == P_TURN and type(action) is int and action == TURN:
            self._turn()
            return
        if phase == P_OVER or type(action) is not int or action not in self.legal_ids():
            self._reject_id(action)
        table = self.rules.table
        kind, args = table.kind[action], table.args[action]
        if kind == K_TURN:
            self._turn()
            return
        p = self.to_move
        self.history.append(action << 1 | p)
        if kind == K_GROUND:
            self._buy_ground(p, *args)
        elif kind == K_OPPONENT:
            self._buy_opponent(p, *args)
        elif kind == K_EXCHANGE:
            self._exchange(p, *args)
        elif kind == K_CHANGE:
            self._change(p, *args)
        elif kind == K_CAPTURE:
            self._capture(p)
            self._pass_turn(p)
        elif kind == K_DECLINE:
            self._pass_turn(p)  # MONEY-JO-7: a decline is final

    def _reject_id(self, action: object) -> None:
        labels = self.rules.table.labels
        ok = type(action) is int and 0 <= action < len(labels)
        self._reject(labels[action] if ok else action)

    def _turn(self) -> None:
        """MONEY-JO-6 steps 2-4, MONEY-JO-7, MONEY-EG-7."""
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
        self.pending = None
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

    def play_forced(self) -> int:
        """Apply actions while exactly one is legal; return how many were applied."""
        count = 0
        while self.phase != P_OVER:
            legal = self.legal_ids()
            if len(legal) != 1:
                break
            self.apply_id(legal[0])
            count += 1
        return count

    def forfeit(self, seat: int, reason: str = "illegal") -> None:
        """FORFEIT-2: the offender loses, the opponent wins."""
        self._check_seat(seat)
        if self.phase == P_OVER:
            raise IllegalAction("the game is already over")
        self.forfeited = (seat, str(reason))
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

    # -- views ----------------------------------------------------------------------
    def action_labels(self) -> list[str]:
        """Every applied label in order, forced ones included."""
        labels = self.rules.table.labels
        return ["turn" if e < 0 else labels[e >> 1] for e in self.history]

    def history_entries(self) -> list[list[Any]]:
        """Every applied action as ``[seat, label]``; a ``turn`` adds the card it
        turned face up (public, MONEY-JO-15): ``[seat, "turn", "7H"]``."""
        return self._entries(self.history)

    def _entries(self, history: list[int]) -> list[list[Any]]:
        labels = self.rules.table.labels
        out: list[list[Any]] = []
        for e in history:
            if e < 0:
                e = ~e
                out.append([e & 1, "turn", NAMES[e >> 1]])
            else:
                out.append([e & 1, labels[e >> 1]])
        return out

    def _public_history(self) -> list[list[Any]]:
        """``history_entries()``, kept in ``view_cache`` and extended in place (shared).

        The entries of the actions applied since the last call are added, the
        others are never made again. The cache belongs to this state's
        ``history`` list: a clone (whose history is a copy) builds its own on
        first use. The list returned is new; its entries are the cache's:
        read-only.
        """
        view = self.view_cache
        if view is None or view.owner is not self.history:
            view = self.view_cache = PublicHistory(self.history)
        entries = view.entries
        if len(entries) < len(self.history):
            entries += self._entries(self.history[len(entries) :])
        return entries[:]

    def observation(self, seat: int) -> dict[str, Any]:
        """Public information only (MONEY-JO-15): stack contents are never shown."""
        self._check_seat(seat)
        return self._view(seat, self.history_entries())

    def shared_observation(self, seat: int) -> dict[str, Any]:
        """``observation(seat)`` whose history entries are the state's own (``State``)."""
        self._check_seat(seat)
        return self._view(seat, self._public_history())

    def _view(self, seat: int, history: list[list[Any]]) -> dict[str, Any]:
        """What ``seat`` sees (MONEY-JO-3, MONEY-JO-15, COMMON-6; fields in
        docs/games/money.md): everything is public but the order of the face-down
        stacks, which nobody sees, the owner included: the banks, the pile in order,
        the money under it, stack sizes and the full ``history`` (each ``turn`` with
        the card it turned face up), never a stack's contents."""
        system = self.rules.system
        label = system.label
        phase = self.phase
        purchase = None
        if phase == P_PURCHASE:
            purchase = {
                "compulsory": self.compulsory,
                "exchanged": self.exchanged,
                "source": PLACE_NAMES[self.source],
            }
        pending = None
        if phase == P_CHANGE:
            d = self.pending
            pending = {
                "buyer": 1 - self.to_move,
                "seller": self.to_move,
                "paid": system.letters[d],
                "value": system.values[d],
            }
        result = None
        if phase == P_OVER:
            result = {"reason": self.end, "loser": self.loser, "ranking": self.ranking()}
        return {
            "variant": self.game.id,
            "seat": seat,
            "players": 2,
            "dealer": self.dealer,
            "phase": PHASE_NAMES[phase],
            "current_player": self.current_player(),
            "money_values": system.describe(),
            "banks": [label[self.banks[0]], label[self.banks[1]]],
            "under_pile": label[self.under],
            "pile": [NAMES[c] for c in self.pile],
            "stack_sizes": [len(self.stacks[0]), len(self.stacks[1])],
            "plays": self.plays,
            "max_plays": self.rules.max_plays,
            "capture_mode": "choice" if self.rules.capture_choice else "auto",
            "purchase": purchase,
            "pending_purchase": pending,
            "scores": self.scores(),
            "forfeit": None
            if self.forfeited is None
            else {"seat": self.forfeited[0], "reason": self.forfeited[1]},
            "result": result,
            "history": history,
        }

    def record(self) -> dict[str, Any]:
        rec: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "variant": self.game.id,
            "options": dict(self.game.options),
            "seed": self.seed,
            "dealer": self.dealer,
            "decks": [] if self.deck is None else [[NAMES[c] for c in self.deck]],
            "actions": self.action_labels(),
        }
        if self.deck is None:
            rec["position"] = True
        if self.forfeited is not None:
            rec["forfeit"] = {"seat": self.forfeited[0], "reason": self.forfeited[1]}
        return rec

    def clone(self) -> MoneyState:
        other = object.__new__(type(self))
        for name in MoneyState.__slots__:
            setattr(other, name, getattr(self, name))
        other.stacks = [self.stacks[0].copy(), self.stacks[1].copy()]
        other.pile = self.pile.copy()
        other.banks = self.banks.copy()
        other.history = self.history.copy()
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
    "EgyptState",
    "JordanState",
    "MoneyState",
    "SyriaState",
]
