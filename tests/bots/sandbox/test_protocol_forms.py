"""Both forms of the history reach sandboxed bots whole; bad extension requests are refused.

A version 1 bot (no SDK, never asks for anything), a bot written from
PROTOCOL.md that accepts ``history_delta`` and puts the history back itself,
and an SDK bot (which accepts it) play a real sandboxed match. Each hashes
every observation it gets; the hashes must be those of the observations the
referee built, as an in-process bot playing the same moves sees them.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from bots.referee import InProcessPlayer, ProcessPlayer, play_match
from bots.sdk import Bot

DIGEST = """
import hashlib, json, sys
def digest(observation):
    return hashlib.sha256(json.dumps(observation, sort_keys=True).encode()).hexdigest()[:16]
def log(game, count, running):
    sys.stderr.write(f"game {game}: {count} {running}\\n")
    sys.stderr.flush()
"""

VERSION_1_BOT = (
    DIGEST
    + """
running, count = "", 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        assert message["extensions"] == {"history_delta": 1}
        print(json.dumps({"ready": True}), flush=True)
    elif message["type"] == "act":
        assert "history_from" not in message
        running, count = digest([running, message["observation"]]), count + 1
        log(message["game"], count, running)
        print(json.dumps({"action": message["legal"][0]}), flush=True)
    elif message["type"] == "result":
        running, count = "", 0
    elif message["type"] == "bye":
        break
"""
)

DELTA_BOT = (
    DIGEST
    + """
running, count, history = "", 0, []
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True, "extensions": {"history_delta": 1}}), flush=True)
    elif message["type"] == "act":
        observation = message["observation"]
        history = history[: message["history_from"]] + observation["history"]
        observation["history"] = history
        running, count = digest([running, observation]), count + 1
        log(message["game"], count, running)
        print(json.dumps({"action": message["legal"][0]}), flush=True)
    elif message["type"] == "result":
        running, count, history = "", 0, []
    elif message["type"] == "bye":
        break
"""
)

SDK_BOT = (
    DIGEST
    + """
from bots.sdk import Bot, run

class Hashing(Bot):
    history_delta = {accept}

    def start(self, hello):
        self.running, self.count, self.game = "", 0, 0

    def act(self, observation, legal):
        self.running, self.count = digest([self.running, observation]), self.count + 1
        log(self.game, self.count, self.running)
        return legal[0]

    def game_over(self, result):
        self.running, self.count, self.game = "", 0, result["game"] + 1

run(Hashing())
"""
)


def last_per_game(log: str) -> list[str]:
    """The last ``game N: count hash`` line of each game in a bot's log.

    Bots log after every observation, not at the game's end: the result of
    the last game may reach a bot after the platform has stopped it.
    """
    last: dict[str, str] = {}
    for line in log.splitlines():
        last[line.split(":")[0]] = line
    return list(last.values())


def digest(observation) -> str:
    return hashlib.sha256(json.dumps(observation, sort_keys=True).encode()).hexdigest()[:16]


class Hashing(Bot):
    """The bots' logic in-process: what the referee's observations hash to."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.running, self.count = "", 0

    def act(self, observation, legal):
        self.running, self.count = digest([self.running, observation]), self.count + 1
        return legal[0]

    def game_over(self, result):
        self.lines.append(f"game {result['game']}: {self.count} {self.running}")
        self.running, self.count = "", 0


def program(directory: Path, name: str, text: str) -> ProcessPlayer:
    path = directory / f"{name}.py"
    path.write_text(text)
    return ProcessPlayer.from_path(path)


@pytest.mark.parametrize("variant", ["manni-basic", "maniglia-4-partners"])
def test_version_1_and_since_last_move_bots_see_the_referees_observations(tmp_path, variant):
    bots = [
        program(tmp_path, "version1", VERSION_1_BOT),
        program(tmp_path, "delta", DELTA_BOT),
        program(tmp_path, "sdk", SDK_BOT.replace("{accept}", "True")),
        program(tmp_path, "sdk_declines", SDK_BOT.replace("{accept}", "False")),
    ][: 3 if variant.startswith("manni") else 4]
    expected = [Hashing() for _ in bots]

    played = play_match(variant, bots, games_count=2, seed=5)
    play_match(variant, [InProcessPlayer(bot) for bot in expected], games_count=2, seed=5)

    assert [[s["status"] for s in g.statuses] for g in played.games] == [["ok"] * len(bots)] * 2
    assert bots[0].extensions == {} and bots[1].extensions == {"history_delta": 1}
    assert bots[2].extensions == {"history_delta": 1}
    if len(bots) == 4:
        assert bots[3].extensions == {}
    for bot, log, reference in zip(bots, played.logs, expected, strict=True):
        assert last_per_game(log) == reference.lines, bot.name
    assert all(int(line.split()[2]) > 5 for line in expected[0].lines)


@pytest.mark.parametrize(
    ("ready", "reason"),
    [
        ({"ready": True, "extensions": {"history_deltas": 1}}, "unknown protocol extension"),
        ({"ready": True, "extensions": {"history_delta": 2}}, "version 2 is not offered"),
        ({"ready": True, "extensions": {"history_delta": True}}, "version True is not offered"),
        ({"ready": True, "extensions": ["history_delta"]}, "extensions must be an object"),
    ],
)
def test_a_bad_or_unknown_extension_request_is_refused_with_the_reason(tmp_path, ready, reason):
    text = (
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    message = json.loads(line)\n"
        f"    if message['type'] == 'hello': print(json.dumps({ready!r}), flush=True)\n"
        "    elif message['type'] == 'act':\n"
        "        print(json.dumps({'action': message['legal'][0]}), flush=True)\n"
    )
    bot = program(tmp_path, "asks", text)
    others = [InProcessPlayer(Hashing()) for _ in range(2)]

    result = play_match("manni-basic", [bot, *others], games_count=1, seed=5)

    status = result.games[0].statuses[0]
    assert status["status"] == "not-ready"
    assert reason in status["reason"]
    assert [s["status"] for s in result.games[0].statuses[1:]] == ["ok", "ok"]
