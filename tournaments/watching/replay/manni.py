"""The card table of Manni (docs/games/manni.md): tricks, the Manni, contracts and calls."""

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
    new_deal_words,
    opening_words,
    seat,
    suit_part,
    trick_areas,
    trick_words,
)

SHOWN = frozenset(
    "variant players deal dealer phase current_player hand_sizes trump trick leader "
    "tricks_won scores forfeit manni_taker manni_size totals contract_card contract "
    "contract_card_holder exchanged exchange_limit plus minus announcer announced "
    "great_calls declarer great unused_contracts great_available".split()
)


def manni_table(replay: Replay, view: dict, move: Move, private: list | None) -> dict:
    table = base_table(replay, view, private)
    hand_backs(table, view["hand_sizes"])
    for s, box in enumerate(table["seats"]):
        box["facts"].append(["tricks", view["tricks_won"][s]])
        if view.get("leader") == s and view["phase"] == "play":
            box["badges"].append("leads")
    table["centre"] = trick_areas(replay, view, move, None)
    if view.get("manni_size"):
        table["centre"].append({"label": "the Manni", "parts": {"backs": view["manni_size"]}})
    if view.get("contract_card"):
        table["centre"].append({"label": "contract card", "parts": cards([view["contract_card"]])})
    table["info"] = [["deal", view["deal"]], *table["info"], ["trump", suit_part(view["trump"])]]
    manni_variant_facts(table, view)
    table["info"] += forfeit_info(view)
    table["said"] = manni_words(replay, view, move, table)
    return table


def manni_variant_facts(table: dict[str, Any], view: dict[str, Any]) -> None:
    """The facts only one Manni variant has: the Manni taker, the contract, great calls."""
    boxes = table["seats"]
    for name in ("plus", "minus"):  # "totals" always equals "scores"
        if name in view:
            table["scores"].append([name, view[name]])
    for key, badge in (
        ("manni_taker", "took the Manni"),
        ("contract_card_holder", "holds the contract card"),
        ("announcer", "announcer"),
        ("declarer", "declarer"),
    ):
        if view.get(key) is not None:
            boxes[view[key]]["badges"].append(badge)
    if view.get("contract") is not None:
        great = " (great)" if view.get("great") else ""
        table["info"].append(["contract", f"{view['contract']}{great}"])
    for key in ("announced", "exchanged", "exchange_limit"):
        if view.get(key) not in (None, []):
            table["info"].append([key.replace("_", " "), generic(view[key], frozenset())])
    for s, left in enumerate(view.get("unused_contracts") or []):
        boxes[s]["facts"].append(["contracts left", ", ".join(left) or "none"])
    for s, available in enumerate(view.get("great_available") or []):
        boxes[s]["facts"].append(["great call", "available" if available else "used"])
    if view.get("announced") and view.get("announcer") is not None:
        table["bids"].append([seat(view["announcer"]), f"announces {view['announced']}"])
    for caller, kind in view.get("great_calls") or []:
        table["bids"].append([seat(caller), f"great {kind}"])


def manni_words(replay: Replay, view: dict, move: Move, table: dict) -> list[Any]:
    label = move.label
    if label is None:
        trump = ["; trump ", suit_part(view["trump"])] if view.get("trump") else []
        return [*opening_words(view), *trump]
    who = seat(move.actor)
    if label.startswith("play "):
        words = trick_words(move, table)
    elif label.startswith("discard "):
        # Another seat's discard is face down: spectators see that there was one.
        shown = cards([label.removeprefix("discard ")]) if replay.full else "a card face down"
        words = [who, " discards ", shown]
    elif label == "draw":
        drawn = (move.before or {}).get("manni_size", 0) - (view.get("manni_size") or 0)
        words = [who, f" draws {drawn} from the Manni"]
    elif label in ("keep", "take"):
        words = [who, " keeps the hand" if label == "keep" else " takes the Manni"]
    elif label.startswith("announce "):
        words = [who, f" announces {label.removeprefix('announce ')}"]
    elif label.startswith("great "):
        words = [who, *great_call_words(move, label.removeprefix("great "))]
    elif label == "pass":
        words = [who, " passes"]
    else:
        words = fallback_words(move)
    return words + declared_words(view, move) + new_deal_words(view, move)


def great_call_words(move: Move, kind: str) -> list[Any]:
    """LAUG-7: a first great call, the announcer keeping, or an overcall of the standing call."""
    before = move.before or {}
    standing = before.get("great_calls") or []
    if not standing:
        return [f" calls great {kind}"]
    if move.actor == before.get("announcer"):
        return [f" keeps the deal with great {kind}"]
    # D over B (step 2) or, since the 2026-12-01 amendment, B over D (step 3).
    return [f" overcalls great {standing[-1][1]} with great {kind}"]


def declared_words(view: dict[str, Any], move: Move) -> list[Any]:
    """Who declares what, said on the answer that ends the great calls (LAUG-7)."""
    if (move.before or {}).get("phase") != "great" or view.get("phase") != "exchange":
        return []
    great = "great " if view.get("great") else ""
    return [" · ", seat(view.get("declarer")), f" declares {great}{view.get('contract')}"]
