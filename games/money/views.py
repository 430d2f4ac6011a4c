"""What a Money state shows: the public history, a seat's observation and the record.

Functions of a :class:`games.money.state.MoneyState`, which calls them from
its methods of the same names (``history_entries``, ``observation``,
``shared_observation``, ``record``); fields in ``docs/games/money.md``.
"""

from __future__ import annotations

from typing import Any

from games.core import RECORD_FORMAT
from games.money.plans import PLACE_NAMES
from games.money.rules import NAMES

#: A ``games.money.state.MoneyState`` (not imported: the state imports this module).
MoneyState = Any

#: The phases by number (``games.money.state.P_*``).
PHASE_NAMES = ("turn", "purchase", "change", "capture", "over")
P_PURCHASE, P_CHANGE, P_OVER = 1, 2, 4


class PublicHistory:
    """The public history entries of one state (``MoneyState._public_history``)."""

    __slots__ = ("entries", "owner")

    def __init__(self, owner: list[int]) -> None:
        self.owner = owner  # the state's history list this view follows
        self.entries: list[list[Any]] = []


def action_labels(state: MoneyState) -> list[str]:
    """Every applied label in order, forced ones included."""
    labels = state.rules.table.labels
    return ["turn" if e < 0 else labels[e >> 1] for e in state.history]


def entries(state: MoneyState, history: list[int]) -> list[list[Any]]:
    """``[seat, label]`` per action; a ``turn`` adds the card it turned face up."""
    labels = state.rules.table.labels
    out: list[list[Any]] = []
    for e in history:
        if e < 0:
            e = ~e
            out.append([e & 1, "turn", NAMES[e >> 1]])
        else:
            out.append([e & 1, labels[e >> 1]])
    return out


def public_history(state: MoneyState) -> list[list[Any]]:
    """``history_entries()``, kept in ``view_cache`` and extended in place (shared).

    The entries of the actions applied since the last call are added, the
    others are never made again. The cache belongs to the state's ``history``
    list: a clone (whose history is a copy) builds its own on first use. The
    list returned is new; its entries are the cache's: read-only.
    """
    view = state.view_cache
    if view is None or view.owner is not state.history:
        view = state.view_cache = PublicHistory(state.history)
    known = view.entries
    if len(known) < len(state.history):
        known += entries(state, state.history[len(known) :])
    return known[:]


def view(state: MoneyState, seat: int, history: list[list[Any]]) -> dict[str, Any]:
    """What ``seat`` sees (MONEY-JO-3, MONEY-JO-15, COMMON-6; fields in
    docs/games/money.md): everything is public but the order of the face-down
    stacks, which nobody sees, the owner included: the banks, the pile in order,
    the money under it, stack sizes and the full ``history`` (each ``turn`` with
    the card it turned face up), never a stack's contents."""
    system = state.rules.system
    label = system.label
    phase = state.phase
    purchase = None
    if phase == P_PURCHASE:
        purchase = {
            "compulsory": state.compulsory,
            "exchanged": state.exchanged,
            "source": PLACE_NAMES[state.source],
        }
    pending = None
    if phase == P_CHANGE:
        d = state.pending
        pending = {
            "buyer": 1 - state.to_move,
            "seller": state.to_move,
            "paid": system.letters[d],
            "value": system.values[d],
        }
    result = None
    if phase == P_OVER:
        result = {"reason": state.end, "loser": state.loser, "ranking": state.ranking()}
    return {
        "variant": state.game.id,
        "seat": seat,
        "players": 2,
        "dealer": state.dealer,
        "phase": PHASE_NAMES[phase],
        "current_player": state.current_player(),
        "money_values": system.describe(),
        "banks": [label[state.banks[0]], label[state.banks[1]]],
        "under_pile": label[state.under],
        "pile": [NAMES[c] for c in state.pile],
        "stack_sizes": [len(state.stacks[0]), len(state.stacks[1])],
        "plays": state.plays,
        "max_plays": state.rules.max_plays,
        "capture_mode": "choice" if state.rules.capture_choice else "auto",
        "purchase": purchase,
        "pending_purchase": pending,
        "scores": state.scores(),
        "forfeit": None
        if state.forfeited is None
        else {"seat": state.forfeited[0], "reason": state.forfeited[1]},
        "result": result,
        "history": history,
    }


def record(state: MoneyState) -> dict[str, Any]:
    """The game's record (``State.record``): a position's has no deck and ``position``."""
    rec: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "variant": state.game.id,
        "options": dict(state.game.options),
        "seed": state.seed,
        "dealer": state.dealer,
        "decks": [] if state.deck is None else [[NAMES[c] for c in state.deck]],
        "actions": action_labels(state),
    }
    if state.deck is None:
        rec["position"] = True
    if state.forfeited is not None:
        rec["forfeit"] = {"seat": state.forfeited[0], "reason": state.forfeited[1]}
    return rec
