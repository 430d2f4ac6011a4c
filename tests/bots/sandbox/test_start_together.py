"""The bots of a match start up side by side, each on its own start-up clock."""

from __future__ import annotations

from pathlib import Path

from bots.builtin import make
from bots.referee import InProcessPlayer, Player, ProcessPlayer, TimeControl, play_match

#: Logs the (system-wide) monotonic clock when it starts and when it is ready; slow to
#: start, as a bot that loads a big model would be.
SLOW_STARTER = """
import json, sys, time
sys.stderr.write(f"started {time.monotonic()}\\n")
time.sleep(0.4)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        sys.stderr.write(f"ready {time.monotonic()}\\n")
        sys.stderr.flush()
        print(json.dumps({"ready": True}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({"action": message["legal"][0]}), flush=True)
    elif message["type"] == "bye":
        break
"""


def _times(log: str, word: str) -> list[float]:
    return [float(line.split()[1]) for line in log.splitlines() if line.startswith(word + " ")]


def test_sandboxed_bots_start_up_side_by_side(tmp_path: Path):
    path = tmp_path / "slow.py"
    path.write_text(SLOW_STARTER)
    bots = [ProcessPlayer.from_path(path) for _ in range(3)]
    result = play_match("manni-basic", bots, games_count=1, seed=5)
    assert {s["status"] for g in result.games for s in g.statuses} == {"ok"}
    started = [_times(bot.log(), "started")[0] for bot in bots]
    ready = [_times(bot.log(), "ready")[0] for bot in bots]
    # Every bot was running before any was ready: their start-ups overlapped.
    assert max(started) < min(ready), (started, ready)


def test_a_bot_too_slow_to_start_is_not_ready_and_the_others_play(tmp_path: Path):
    slow, quick = tmp_path / "slow.py", tmp_path / "quick.py"
    slow.write_text(SLOW_STARTER)
    quick.write_text(SLOW_STARTER.replace("time.sleep(0.4)", ""))
    players = [ProcessPlayer.from_path(quick), ProcessPlayer.from_path(slow)]
    players.append(InProcessPlayer(make("random", seed=1)))
    tc = TimeControl(move_ms=1000, bank_ms=1000, start_ms=200)
    result = play_match("manni-basic", players, games_count=1, seed=5, time_control=tc)
    statuses = result.games[0].statuses
    seats = result.games[0].seats
    assert statuses[seats.index(1)]["status"] == "not-ready"
    assert statuses[seats.index(0)]["status"] == "ok"
    assert statuses[seats.index(2)]["status"] == "ok"


class Logged(Player):
    """Records the referee's start calls."""

    def __init__(self, name: str, calls: list) -> None:
        self.name, self.calls = name, calls
        self.inner = InProcessPlayer(make("random", seed=len(calls)))

    def start_begin(self, hello, timeout_s):
        self.calls.append(("begin", self.name))

    def start_end(self):
        self.calls.append(("end", self.name))

    def act(self, message, timeout_s):
        return self.inner.act(message, timeout_s)

    def notify(self, message):
        pass


def test_the_referee_begins_every_player_before_waiting_for_any():
    calls: list = []
    players = [Logged(name, calls) for name in "abc"]
    play_match("manni-basic", players, games_count=1, seed=5)
    assert calls == [("begin", n) for n in "abc"] + [("end", n) for n in "abc"]
