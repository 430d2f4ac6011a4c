"""Hostile bot: tries every way it knows to tell a validation from a real match.

A bot that could tell them apart would play clean in its validation and cheat in
every real match (sleep just under its budget, say). This one only looks: it plays
the first legal action, and writes on stderr what it saw, in lines ``TELLS {...}``:
one when its process starts (what stays the same in every game), one at its first
decision of every game (``game``, ``predicted``, ``pace``, ``clock``):

- ``predicted``, per game: whether its hand at its first decision is the hand of a
  deal it dealt itself in advance from the seeds validations used to follow from,
  the SHA-256 of its own bytes (which it reads at ``/bot/<entry>``) and the hash of
  its directory (``manage.py validate``), for every deal number up to the game's;
- ``hello``: the shape and values of its ``hello`` (its keys, the keys of ``match``,
  the variant, options, seats, time control, extensions), and ``seat``, ``player``;
- ``games``: the game numbers this process played (how many a process plays, and
  from where it starts counting);
- the sandbox around it: its resource limits (``/proc/self/limits``), a hash of its
  environment, its host name, working directory, uid, the files of ``/bot`` and
  whether they were written in the last two minutes, ``/proc/uptime``, the boot time,
  the CPU count;
- ``pace``: whether the others answer fast (the median wait between its answer and
  its next turn under 250 ms), which tells in-process built-ins from uploaded bots;
- ``clock``: the time of day (Unix seconds).
"""

import hashlib
import json
import os
import resource
import secrets
import socket
import statistics
import sys
import time

import games

#: A token of this process, so that the lines of each rotation's process can be told apart.
PROCESS = secrets.token_hex(4)
LIMITS = ("RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_NPROC", "RLIMIT_FSIZE", "RLIMIT_NOFILE")


def own_hashes():
    """The hashes the seeds of validations were derived from: the upload's (the bytes of
    a single-file bot) and ``manage.py validate``'s (its files' names and bytes)."""
    me = os.path.abspath(__file__)
    with open(me, "rb") as handle:
        data = handle.read()
    tree = hashlib.sha256(os.path.basename(me).encode() + data).hexdigest()
    return [hashlib.sha256(data).hexdigest(), tree]


def old_validation_seed(sha256, variant):
    digest = hashlib.sha256(f"cardroom-validation:{sha256}:{variant}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def game_seed(match_seed, deal):
    digest = hashlib.sha256(f"cardroom-match:{match_seed}:{deal}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def predicted(hello, game_number, seat, hand):
    """Whether ``hand`` is the seat's hand of a deal dealt from an upload-derived seed."""
    if not hand:
        return False
    variant, options = hello["variant"], hello["options"]
    game = games.load(variant, **options)
    alternate = games.variant_info(variant).dealer_rotation == "alternate"
    for sha256 in own_hashes():
        seed = old_validation_seed(sha256, variant)
        for deal in range(game_number + 1):
            state = game.new_game(game_seed(seed, deal), dealer=deal % 2 if alternate else None)
            dealt = set(state.observation(seat).get("hand") or [])
            if len(dealt & set(hand)) >= len(hand) - 2:
                return True
    return False


def read(path):
    try:
        with open(path) as handle:
            return handle.read()
    except OSError as error:
        return f"unreadable: {error.__class__.__name__}"


def surroundings():
    """What the sandbox shows this process, the same in every game."""
    env = json.dumps(sorted(os.environ.items()))
    me = os.path.abspath(__file__)
    btime = [line for line in read("/proc/stat").splitlines() if line.startswith("btime")]
    return {
        "limits": {name: resource.getrlimit(getattr(resource, name))[0] for name in LIMITS},
        "proc_limits": hashlib.sha256(read("/proc/self/limits").encode()).hexdigest()[:12],
        "env": hashlib.sha256(env.encode()).hexdigest()[:12],
        "host": socket.gethostname(),
        "cwd": os.getcwd(),
        "uid": os.getuid(),
        "files": sorted(os.listdir(os.path.dirname(me))),
        "fresh_files": time.time() - os.stat(me).st_mtime < 120,
        "uptime": read("/proc/uptime").strip(),
        "btime": btime,
        "cpus": os.cpu_count(),
    }


def report(fields):
    fields = {"process": PROCESS, **fields}
    print("TELLS " + json.dumps(fields, separators=(",", ":")), file=sys.stderr, flush=True)


def main():
    seen, waits = set(), []
    answered = None  # when the last answer went out
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            hello = message
            shape = {
                "keys": sorted(hello),
                "match_keys": sorted(hello.get("match", {})),
                "variant": hello["variant"],
                "options": hello["options"],
                "players": hello["players"],
                "time_control": hello["time_control"],
                "extensions": hello.get("extensions"),
            }
            seat, player = hello["seat"], hello.get("match", {}).get("player")
            report({"hello": shape, "seat": seat, "player": player, **surroundings()})
            print(json.dumps({"ready": True}), flush=True)
        elif kind == "act":
            game = message["game"]
            if answered is not None:
                waits.append(time.monotonic() - answered)
            if game not in seen:  # said before answering: the last game's is never lost
                seen.add(game)
                hand = message["observation"].get("hand")
                pace = statistics.median(waits) < 0.25 if waits else None
                report(
                    {
                        "game": game,
                        "predicted": predicted(hello, game, message["seat"], hand),
                        "pace": {True: "fast", False: "slow", None: None}[pace],
                        "clock": int(time.time()),
                    }
                )
            print(json.dumps({"action": message["legal"][0]}), flush=True)
            answered = time.monotonic()
        elif kind == "result":
            answered = None
        elif kind == "bye":
            break


main()
