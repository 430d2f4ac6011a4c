"""The card table of Money (docs/games/money.md): stacks, banks, the pile, captures, buys."""

from __future__ import annotations

from typing import Any

from tournaments.watching.replay.common import (
    Move,
    Replay,
    base_table,
    cards,
    fallback_words,
    forfeit_info,
    generic,
    hand_backs,
    opening_words,
    seat,
)

SHOWN = frozenset(
    "variant players dealer phase current_player money_values banks under_pile pile "
    "stack_sizes plays max_plays capture_mode purchase pending_purchase scores forfeit "
    "result".split()
)


def money(label: str, values: dict[str, int]) -> Any:
    """A money label (``"Q+Q+J"``, ``"none"``) as money cards."""
    if not label or label == "none":
        return "none"
    return {"money": [[letter, values.get(letter)] for letter in label.split("+")]}


def money_table(replay: Replay, view: dict, move: Move, private: list | None) -> dict:
    table = base_table(replay, view, private)
    values = view["money_values"]
    hand_backs(table, view["stack_sizes"], "stack")
    for s, box in enumerate(table["seats"]):
        box["facts"].append(["wealth", view["scores"][s]])
        box["areas"].append({"label": "bank", "parts": money(view["banks"][s], values)})
    table["centre"] = [
        {
            "label": "pile (bottom card first)",
            "parts": cards(view["pile"]) if view["pile"] else "empty",
        },
        {"label": "money under the pile", "parts": money(view["under_pile"], values)},
    ]
    captured = money_capture(view, move)
    if captured is not None:
        table["centre"].insert(0, {"label": "captured", "parts": captured})
    table["scores"] = [["wealth", view["scores"]]]
    table["info"] += [
        ["plays", f"{view['plays']} of at most {view['max_plays']}"],
        ["capture", view.get("capture_mode")],
        ["money", ", ".join(f"{k} = {v}" for k, v in values.items())],
    ]
    for key in ("purchase", "pending_purchase"):
        if view.get(key):
            table["info"].append([key.replace("_", " "), generic(view[key], frozenset())])
    if view.get("result"):
        table["info"].append(["result", result_words(view["result"])])
    table["info"] += forfeit_info(view)
    table["said"] = money_words(view, move, captured)
    if move.label == "turn" and turned_card(move):  # the move list shows the card turned up
        table["move"] = f"turn {turned_card(move)}" + (" and capture" if captured else "")
    return table


def result_words(result: dict[str, Any]) -> Any:
    """How a Money game ended, in words, with the seat that lost named (MONEY-JO-16,
    LIMIT-1, FORFEIT-2)."""
    reason, loser = result.get("reason"), result.get("loser")
    if reason == "loss" and loser is not None:
        return [seat(loser), " had to act with no numeral and no money left and lost (MONEY-JO-16)"]
    if reason == "forfeit" and loser is not None:
        return [seat(loser), " forfeited and lost (FORFEIT-2)"]
    if reason == "cap":
        return "the play limit was reached: the greater wealth wins (LIMIT-1)"
    return generic(result, frozenset())


def turned_card(move: Move) -> str | None:
    event = move.last_event
    if isinstance(event, list) and len(event) == 3 and event[1] == "turn":
        return event[2]
    return None


def money_capture(view: dict[str, Any], move: Move) -> list[Any] | None:
    """The cards and money a turn (or a ``capture``) just took from the pile (MONEY-JO-4)."""
    before = move.before
    if move.label not in ("turn", "capture") or not before or not before["pile"] or view["pile"]:
        return None
    taken = list(before["pile"])
    if move.label == "turn" and turned_card(move):
        taken.append(turned_card(move))
    under = before["under_pile"]
    return [
        cards(taken),
        *([" and ", money(under, view["money_values"])] if under != "none" else []),
    ]


def money_words(view: dict[str, Any], move: Move, captured: list | None) -> list[Any]:
    label, who = move.label, seat(move.actor)
    if label is None:
        sizes = view["stack_sizes"]
        return [*opening_words(view), f"; {sizes[0]} and {sizes[1]} cards face down"]
    if label == "turn":
        card = turned_card(move)
        words = [who, " turns up ", cards([card]) if card else "a card"]
        return words + ([" and captures ", captured] if captured else [])
    if label in ("capture", "decline"):
        return [who, " captures ", captured] if captured else [who, " leaves the pile"]
    if label.startswith(("buy ", "change ", "exchange ")):
        return [who, *purchase_words(view, move)]
    return fallback_words(move)


def purchase_words(view: dict[str, Any], move: Move) -> list[Any]:
    """A buy, the seller's change or an exchange (MONEY-JO-8..14), in words."""
    label, values, before = move.label, view["money_values"], move.before or {}
    other = seat(1 - move.actor)
    if label.startswith("buy ") and " at ground" in label:
        paid, _, change = label.removeprefix("buy ").partition(" at ground change ")
        taken = [c for c in before.get("pile", []) if c not in set(view["pile"])]
        words = [" pays ", money(paid, values), " at the ground"]
        if change != "none":
            words += [", takes change ", money(change, values)]
        return [*words, " and takes ", cards(taken) if taken else "nothing"]
    if label.startswith("buy "):
        return [" pays ", money(label.split()[1], values), " to buy cards from ", other]
    if label.startswith("change "):
        handed = before.get("stack_sizes", [0, 0])[move.actor] - view["stack_sizes"][move.actor]
        change = money(label.removeprefix("change "), values)
        return [" gives change ", change, f" and hands over {handed} cards"]
    give, _, rest = label.removeprefix("exchange ").partition(" for ")
    take, _, place = rest.partition(" at ")
    where = [" with ", other] if place == "opponent" else [" at the ground"]
    return [" exchanges ", money(give, values), " for ", money(take, values), *where]
