"""Hostile bot: tries to rebuild the true deck of every game from what it receives.

It bundles a copy of the public engines (``games/``, copied beside this file by
the test) and the referee's public seed derivation, collects every integer it
is sent (the hello, every observation, every result) or can find in its
environment (variables, pid, uid, time), plus a range of small seeds, and for
each candidate match seed deals the game and compares the deal with its own
hand. If one fits, it knows every hand at the table. Before each answer it
logs (stderr) one JSON line, the last one saying it all:
``{"cracked": [game numbers], "candidates": N}``.
"""

import hashlib
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import games


def game_seed(match_seed, deal):  # the referee's public derivation
    digest = hashlib.sha256(f"cardroom-match:{match_seed}:{deal}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def integers(value, found):
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        found.add(value)
    elif isinstance(value, str):
        for word in value.replace(":", " ").replace("-", " ").split():
            if word.isdigit():
                found.add(int(word))
    elif isinstance(value, dict):
        for key, item in value.items():
            integers(key, found)
            integers(item, found)
    elif isinstance(value, list):
        for item in value:
            integers(item, found)


def main():
    found = set(range(0, 2000))
    integers(dict(os.environ), found)
    found |= {os.getpid(), os.getuid(), int(time.time())}
    variant, options, cracked, tried = None, {}, [], set()
    for line in sys.stdin:
        message = json.loads(line)
        integers(message, found)
        kind = message["type"]
        if kind == "hello":
            variant, options = message["variant"], message["options"]
            print(json.dumps({"ready": True}), flush=True)
        elif kind == "act":
            game, seat = message["game"], message["seat"]
            hand = message["observation"]["hand"]
            if (game, seat) not in tried:
                tried.add((game, seat))
                if crack(variant, options, seat, hand, game, found):
                    cracked.append(game)
            # Report before answering: the platform may kill it right after its last move.
            report = {"cracked": sorted(set(cracked)), "candidates": len(found)}
            print(json.dumps(report), file=sys.stderr, flush=True)
            print(json.dumps({"action": message["legal"][0]}), flush=True)
        elif kind == "bye":
            break


def crack(variant, options, seat, hand, game, candidates):
    engine = games.load(variant, **options)
    for candidate in candidates:
        for deal in range(game + 1):
            state = engine.new_game(game_seed(candidate, deal))
            if sorted(state.observation(seat)["hand"]) == sorted(hand):
                return True
    return False


if __name__ == "__main__":
    main()
