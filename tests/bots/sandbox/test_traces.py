"""Decision traces of a real sandboxed bot: its stderr per decision, its notes, the caps.

The bot writes a known line to stderr at each decision and answers with a
note naming its decision and action; some decisions send bad notes (not a
string, too long, with control characters) or flood stderr. The traces in the
game's record must hold exactly what each decision wrote and said.
"""

from __future__ import annotations

from pathlib import Path

from bots.builtin import make
from bots.referee import InProcessPlayer, ProcessPlayer, play_match
from bots.referee.traces import NOTE_CHARS, STDERR_DECISION_BYTES, STDERR_MATCH_BYTES

NOTING_BOT = """
import json, sys
n = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True}), flush=True)
    elif message["type"] == "act":
        n += 1
        action = message["legal"][-1]
        sys.stderr.write(f"thinking about decision {n}\\n")
        sys.stderr.flush()
        note = f"{n} {action}"
        if n == 2:
            note = {"not": "a string"}
        elif n == 3:
            note = "y" * (NOTE_CHARS + 50)
        elif n == 4:
            note = "line one\\nline two\\x07"
        print(json.dumps({"action": action, "note": note}), flush=True)
    elif message["type"] == "bye":
        break
"""

FLOODING_BOT = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True}), flush=True)
    elif message["type"] == "act":
        sys.stderr.write("x" * 3000)
        sys.stderr.flush()
        print(json.dumps({"action": message["legal"][0]}), flush=True)
    elif message["type"] == "bye":
        break
"""


def program(directory: Path, name: str, text: str) -> ProcessPlayer:
    path = directory / name / "bot.py"
    path.parent.mkdir()
    path.write_text(text.replace("NOTE_CHARS", str(NOTE_CHARS)))
    return ProcessPlayer.from_path(path)


def randoms(n):
    return [InProcessPlayer(make("random", seed=i)) for i in range(n)]


def test_each_decision_keeps_its_own_stderr_and_note(tmp_path):
    bot = program(tmp_path, "noting", NOTING_BOT)
    result = play_match("maniglia-4", [bot, *randoms(3)], games_count=2, seed=3)

    assert [s["status"] for g in result.games for s in g.statuses] == ["ok"] * 8
    mine = [
        (game.record, trace)
        for game in result.games
        for trace in game.record["traces"]
        if trace["seat"] == 0
    ]
    assert len(mine) > 4
    for n, (record, trace) in enumerate(mine, start=1):
        assert trace["stderr"] == f"thinking about decision {n}\n"
        assert "stderr_cut" not in trace
        assert trace["cpu_ms"] is not None and trace["charged_ms"] >= 0
        assert trace["bank_ms"] == 20_000  # TimeControl's default bank, untouched
        if n > 4:
            # ply: where in the record's actions the chosen action stands.
            number, action = trace["note"].split(" ", 1)
            assert int(number) == n and record["actions"][trace["ply"]] == action
            assert "note_mark" not in trace
    assert "note" not in mine[1][1] and "must be a string" in mine[1][1]["note_mark"]
    assert mine[2][1]["note"] == "y" * NOTE_CHARS and "cut" in mine[2][1]["note_mark"]
    assert mine[3][1]["note"] == "line one line two " and "control" in mine[3][1]["note_mark"]
    # The built-ins are traced too, with times only.
    theirs = [t for t in result.games[0].record["traces"] if t["seat"] != 0]
    assert theirs and all(t["cpu_ms"] is None and "stderr" not in t for t in theirs)
    # Every game's traces run in the order of their plies.
    for game in result.games:
        plies = [t["ply"] for t in game.record["traces"]]
        assert plies == sorted(plies) and len(set(plies)) == len(plies)


def test_stderr_is_capped_per_decision_and_per_match(tmp_path):
    bot = program(tmp_path, "flooding", FLOODING_BOT)
    result = play_match("manni-basic", [bot, *randoms(2)], games_count=1, seed=2)

    mine = [t for t in result.games[0].record["traces"] if t["seat"] == 0]
    assert len(mine) > STDERR_MATCH_BYTES // STDERR_DECISION_BYTES + 1
    assert all(t["stderr_cut"] for t in mine)
    kept = [len(t.get("stderr", "")) for t in mine]
    assert kept[0] == STDERR_DECISION_BYTES
    assert sum(kept) == STDERR_MATCH_BYTES
    assert kept[-1] == 0  # the match's share is spent: only the mark is left
    # The whole log is still the sandbox's tail, apart from the traces.
    assert result.logs[0].endswith("x" * 1000)


def test_traces_off_records_none(tmp_path):
    bot = program(tmp_path, "noting", NOTING_BOT)
    result = play_match("maniglia-4", [bot, *randoms(3)], games_count=1, seed=3, traces=False)
    assert "traces" not in result.games[0].record
