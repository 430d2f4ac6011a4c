"""Hostile bot: remembers every deal it plays, in memory and in ``/tmp``.

A bot that met a deal again in another seat would know the other hands: the
cards each seat played in the first meeting are the hands of the second. So it
keeps, for every deal it finished, the cards each other seat played; at the
first decision of every deal it compares its own hand with them. A hand that
is mostly cards one seat played in a remembered deal is a repeat. Before each
answer it logs one JSON line on stderr (the last one says it all):
``{"games": [...], "deals": N, "repeats": N, "memory_found": bool}``.
"""

import json
import sys

MEMORY = "/tmp/cardroom-deal-memory.json"


def played_by_seat(history_entry):
    """Cards each seat played in one deal of the public history."""
    cards = {}
    seats, actions = history_entry.get("seats", []), history_entry.get("actions", [])
    for seat, action in zip(seats, actions, strict=False):
        if isinstance(action, str) and action.startswith("play "):
            cards.setdefault(str(seat), []).append(action.split(" ", 1)[1])
    return cards


def main():
    try:
        with open(MEMORY) as handle:
            remembered = json.load(handle)
        found = True
    except (OSError, ValueError):
        remembered, found = [], False
    games, deals_seen, repeats, checked = [], 0, 0, set()
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            print(json.dumps({"ready": True}), flush=True)
        elif kind == "act":
            observation = message["observation"]
            game, deal = message["game"], observation.get("deal")
            if game not in games:
                games.append(game)
            if (game, deal) not in checked:
                checked.add((game, deal))
                deals_seen += 1
                hand = set(observation["hand"])
                for cards in remembered:
                    if len(hand) >= 8 and len(hand & set(cards)) >= len(hand) - 2:
                        repeats += 1
                        break
            remember(remembered, game, observation)
            with open(MEMORY, "w") as handle:
                json.dump(remembered, handle)
            # Report before answering: the platform may kill it right after its last move.
            report = {"games": games, "deals": deals_seen, "repeats": repeats}
            report["memory_found"] = found
            print(json.dumps(report), file=sys.stderr, flush=True)
            print(json.dumps({"action": message["legal"][0]}), flush=True)
        elif kind == "bye":
            break


def remember(remembered, game, observation):
    """Add the played cards of every finished deal of ``game`` not yet remembered."""
    seat = observation["seat"]
    done = remember.done
    for entry in observation.get("history", [])[:-1]:
        key = (game, entry.get("deal"))
        if key in done:
            continue
        done.add(key)
        for who, cards in played_by_seat(entry).items():
            if who != str(seat):
                remembered.append(cards)


remember.done = set()  # (game, deal) pairs already remembered

if __name__ == "__main__":
    main()
