"""The card table of Maniglia (docs/games/maniglia.md): auction, trump, tricks and teams."""

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
    "variant options players deal max_deals dealer phase current_player hand_sizes trump "
    "trick leader winning tricks_won card_points scores forfeit target declarer contract "
    "bids teams high_bid high_bidder passed min_bid max_bid declarer_total turned_card "
    "turned_card_held turn_up_bonus team_totals game_points".split()
)


def maniglia_table(replay: Replay, view: dict, move: Move, private: list | None) -> dict:
    table = base_table(replay, view, private)
    hand_backs(table, view["hand_sizes"])
    for s, box in enumerate(table["seats"]):
        box["facts"] += [["tricks", view["tricks_won"][s]], ["card points", view["card_points"][s]]]
        if s in (view.get("passed") or []):
            box["badges"].append("passed")
    if view.get("declarer") is not None:
        table["seats"][view["declarer"]]["badges"].append("declarer")
    elif view.get("high_bidder") is not None:
        table["seats"][view["high_bidder"]]["badges"].append("high bidder")
    winning = view["winning"][0] if view.get("winning") else None
    table["centre"] = trick_areas(replay, view, move, winning)
    if view.get("turned_card"):
        held = " (the dealer holds it)" if view.get("turned_card_held") else ""
        table["centre"].append(
            {"label": "turned card", "parts": [cards([view["turned_card"]]), held]}
        )
    deal = f"{view['deal']} (at most {view['max_deals']})"
    table["info"] = [["deal", deal], *table["info"], ["trump", suit_part(view["trump"])]]
    maniglia_contract_facts(table, view)
    table["info"] += [["target", view.get("target")], *forfeit_info(view)]
    table["info"].append(["options", generic(view.get("options") or {}, frozenset())])
    table["bids"] = [[seat(bidder), label] for bidder, label in view.get("bids") or []]
    table["said"] = maniglia_words(view, move, table)
    return table


def maniglia_contract_facts(table: dict[str, Any], view: dict[str, Any]) -> None:
    """The auction and contract (3, 4, 5 players) or the teams (partners)."""
    if view.get("contract") is not None:
        table["info"].append(["contract", [view["contract"], " by ", seat(view["declarer"])]])
        table["info"].append(["declarer's total", view.get("declarer_total")])
    elif view.get("high_bid") is not None:
        table["info"].append(["high bid", [view["high_bid"], " by ", seat(view["high_bidder"])]])
    if view.get("min_bid") is not None:
        table["info"].append(["next bid", f"{view['min_bid']} to {view['max_bid']}"])
    teams = view.get("teams") or []
    if "team_totals" in view:  # partners: seats 0+2 against 1+3 (MANIGLIA-4P-1)
        for t, members in enumerate(teams):
            for s in members:
                table["seats"][s]["badges"].append(f"team {t + 1}")
        table["info"].append(["turn-up bonus", view.get("turn_up_bonus")])
        table["scores"] = [
            ["score", view["scores"]],
            ["team totals (deal)", team_values(view["team_totals"], teams)],
            ["game points", team_values(view["game_points"], teams)],
        ]


def team_values(values: list[int], teams: list[list[int]]) -> list[int]:
    """A per-team list spread over the seats (each seat shows its team's value)."""
    per_seat = [0] * sum(len(members) for members in teams)
    for t, members in enumerate(teams):
        for s in members:
            per_seat[s] = values[t]
    return per_seat


def maniglia_words(view: dict[str, Any], move: Move, table: dict[str, Any]) -> list[Any]:
    label = move.label
    if label is None:
        turned = ["; turned card ", cards([view["turned_card"]])] if view.get("turned_card") else []
        return [*opening_words(view), *turned]
    who = seat(move.actor)
    if label.startswith("play "):
        words = trick_words(move, table)
    elif label.startswith("bid "):
        words = [who, f" bids {label.removeprefix('bid ')}"]
    elif label.startswith("trump "):
        words = [who, " names trump ", suit_part(label.removeprefix("trump "))]
    elif label == "pass":
        words = [who, " passes"]
        if move.before and move.before.get("deal") != view.get("deal"):
            words.append(" · everyone passed: the deal is thrown in")
    else:
        words = fallback_words(move)
    return words + new_deal_words(view, move)
