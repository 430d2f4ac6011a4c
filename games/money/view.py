"""What a seat sees of a Money game (MONEY-JO-3, MONEY-JO-15, COMMON-6).

Everything in Money is public except the order of the face-down stacks,
which nobody sees, the owner included: an observation gives the banks, the
pile in order, the money under it, stack sizes and the full history (each
``turn`` with the card it turned face up), never a stack's contents.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from games.money.plans import PLACE_NAMES
from games.money.rules import NAMES

if TYPE_CHECKING:
    from games.money.state import MoneyState


def observation(
    state: MoneyState, seat: int, history: list[list[Any]] | None = None
) -> dict[str, Any]:
    """The JSON-ready observation of ``state`` for ``seat`` (fields in docs/games/money.md).

    ``history``: its ``history`` list if already made (``MoneyState.shared_observation``),
    else a fresh ``state.history_entries()``.
    """
    from games.money.state import P_CHANGE, P_OVER, P_PURCHASE, PHASE_NAMES

    rules = state.rules
    system = rules.system
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
        "max_plays": rules.max_plays,
        "capture_mode": "choice" if rules.capture_choice else "auto",
        "purchase": purchase,
        "pending_purchase": pending,
        "scores": state.scores(),
        "forfeit": None
        if state.forfeited is None
        else {"seat": state.forfeited[0], "reason": state.forfeited[1]},
        "result": result,
        "history": state.history_entries() if history is None else history,
    }
