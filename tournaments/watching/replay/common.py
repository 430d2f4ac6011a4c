"""What every family's table shares: parts, seats, tricks and the move in words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.cards import FRENCH_INDEX, FRENCH_SUITS, LATIN_INDEX, LATIN_SUITS
from games.maniglia.rules import trick_winner as maniglia_trick_winner
from games.manni.rules import NO_TRUMP
from games.manni.rules import trick_winner as manni_trick_winner
from tournaments.watching.words import status_words


@dataclass(frozen=True)
class Replay:
    """What shaping every step needs to know about the game."""

    variant: str
    family: str
    options: dict[str, Any]
    players: int
    full: bool
    #: Seats whose private cards are shown without the full view (a seat's owner).
    shown: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Move:
    """The action that led to a step and the public view before it (none at step 0).

    ``last_event`` is the newest entry of the public history after the action;
    only Money's is read (its history is the same for every seat, MONEY-JO-15).
    """

    actor: int | None
    label: str | None
    before: dict[str, Any] | None
    last_event: Any = None


def generic(value: Any, labels: frozenset[str]) -> Any:
    """Any JSON value as parts: card labels become cards, lists items, dicts fields."""
    if isinstance(value, str) and value in labels:
        return {"cards": [value]}
    if isinstance(value, list):
        if value and all(isinstance(v, str) and v in labels for v in value):
            return {"cards": value}
        return {"items": [generic(v, labels) for v in value]}
    if isinstance(value, dict):
        return {"fields": [[str(k), generic(v, labels)] for k, v in value.items()]}
    return value


def cards(labels: list[str]) -> dict[str, list[str]]:
    return {"cards": list(labels)}


def seat(number: int | None) -> dict[str, int | None]:
    return {"seat": number}


def base_table(replay: Replay, view: dict[str, Any], private: list | None) -> dict[str, Any]:
    """Seats (with the dealer and, in the full view, their cards), scores and the move."""
    seats = []
    for s in range(replay.players):
        areas = [
            {"label": k, "parts": cards(v)} for k, v in (private[s] if private else {}).items()
        ]
        badges = ["dealer"] if view.get("dealer") == s else []
        seats.append({"badges": badges, "facts": [], "areas": areas})
    return {
        "turn": view.get("current_player"),
        "seats": seats,
        "centre": [],
        "info": [["phase", view.get("phase")]],
        "bids": [],
        "scores": [["score", view.get("scores")]],
        "said": [],
    }


def forfeit_info(view: dict[str, Any]) -> list[list[Any]]:
    forfeit = view.get("forfeit")
    if not forfeit:
        return []
    reason = status_words(forfeit.get("reason", ""))
    return [["forfeit", [seat(forfeit.get("seat")), f" ({reason})"]]]


def opening_words(view: dict[str, Any]) -> list[Any]:
    return ["the deal: ", seat(view.get("dealer")), " deals"]


def fallback_words(move: Move) -> list[Any]:
    if move.label.startswith("forfeit"):
        return [seat(move.actor), " forfeits (", status_words(move.label.split(": ", 1)[-1]), ")"]
    return [seat(move.actor), ": ", move.label]


def trick_areas(replay: Replay, view: dict[str, Any], move: Move, winning: int | None) -> list:
    """The trick on the table; at the step that completes a trick, that trick and its taker."""
    label = move.label or ""
    if label.startswith("play ") and move.before is not None and not view["trick"]:
        plays = [*move.before["trick"], [move.actor, label.removeprefix("play ")]]
        taker = trick_taker(replay, move.before, view, plays)
        return [{"label": "trick", "plays": plays, "winner": taker, "complete": True}]
    if view["trick"]:
        return [{"label": "trick", "plays": view["trick"], "winner": winning, "complete": False}]
    return []


def trick_taker(replay: Replay, before: dict, after: dict, plays: list) -> int:
    """Who took the trick ``plays``: the seat whose trick count grew, or by the rules
    (COMMON-5) when the trick ended the deal and the counts started again."""
    if after.get("deal") == before.get("deal"):
        grew = [
            s for s in range(replay.players) if after["tricks_won"][s] > before["tricks_won"][s]
        ]
        if len(grew) == 1:
            return grew[0]
    return plays[rules_trick_winner(replay, before, [card for _, card in plays])][0]


def rules_trick_winner(replay: Replay, before: dict[str, Any], trick: list[str]) -> int:
    """Index in ``trick`` of the winning card, with ``before``'s trump and contract."""
    trump = before.get("trump")
    if replay.family == "maniglia":
        return maniglia_trick_winner([LATIN_INDEX[c] for c in trick], LATIN_SUITS.index(trump))
    ace_low = before.get("contract") == "nullo" and (  # HORN-3, laug.nullo_ace_low
        replay.variant == "manni-hornafjordur" or bool(replay.options.get("laug.nullo_ace_low"))
    )
    suit = NO_TRUMP if trump is None else FRENCH_SUITS.index(trump)
    return manni_trick_winner([FRENCH_INDEX[c] for c in trick], suit, ace_low)


def trick_words(move: Move, table: dict[str, Any]) -> list[Any]:
    words = [seat(move.actor), " plays ", cards([move.label.removeprefix("play ")])]
    done = [a for a in table["centre"] if a.get("complete")]
    if done:
        words += [" · ", seat(done[0]["winner"]), " takes the trick"]
    return words


def new_deal_words(view: dict[str, Any], move: Move) -> list[Any]:
    before = move.before
    if before is None or before.get("deal") == view.get("deal") or view.get("phase") == "over":
        return []
    return [" · deal ", view["deal"], " begins: ", seat(view.get("dealer")), " deals"]


def hand_backs(table: dict[str, Any], sizes: list[int], label: str = "hand") -> None:
    """Face-down hands in the public view (the full view shows the cards)."""
    for s, size in enumerate(sizes):
        areas = table["seats"][s]["areas"]
        if not any(a["label"] == label for a in areas):
            areas.insert(0, {"label": label, "parts": {"backs": size}})


def suit_part(letter: str | None) -> Any:
    return "no trump" if letter is None else {"suit": letter}
