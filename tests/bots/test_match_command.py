"""``manage.py match``: a local match from the command line, no database needed."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

import games


def test_match_between_builtins_prints_a_table_and_writes_records(tmp_path, capsys):
    out = tmp_path / "match.json"
    call_command(
        "match",
        "manni-hornafjordur",
        "builtin:random",
        "builtin:random",
        "builtin:random",
        "--games",
        "6",
        "--seed",
        "3",
        "--duplicate",
        "--option",
        "horn.cut_table=alt",
        "--json",
        str(out),
    )
    text = capsys.readouterr().out
    assert "manni-hornafjordur  6 games  seed 3  duplicate" in text and "games/s" in text
    assert text.count("builtin:random") == 3 and "ok 6" in text
    data = json.loads(out.read_text())
    assert data["options"]["horn.cut_table"] == "alt" and len(data["games"]) == 6
    assert [row["games"] for row in data["standings"]] == [6, 6, 6]
    first = data["games"][0]
    assert games.replay(first["record"]).scores() == first["scores"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["manni-basic", "builtin:random", "builtin:random"], "needs 3 players"),
        (["manni-basic", "builtin:random", "builtin:random", "builtin:nobody"], "unknown built-in"),
        (["manni-basic", "builtin:random", "builtin:random", "/no/such/bot"], "no such file"),
        (["no-game", "builtin:random"], "unknown variant"),
        (
            ["manni-basic", "builtin:random", "builtin:random", "builtin:random", "--option", "x"],
            "name=value",
        ),
        (
            [
                "manni-basic",
                "builtin:random",
                "builtin:random",
                "builtin:random",
                "--games",
                "2",
                "--duplicate",
            ],
            "multiple of 3",
        ),
    ],
)
def test_bad_arguments_are_reported_clearly(args, message):
    with pytest.raises(CommandError, match=message):
        call_command("match", *args)


def test_example_bots_play_in_the_sandbox(tmp_path, capsys):
    """The Python (SDK) and Node.js examples run sandboxed through the command."""
    out = tmp_path / "m.json"
    call_command(
        "match",
        "manni-basic",
        "bots/examples/python",
        "bots/examples/node",
        "builtin:greedy",
        "--games",
        "3",
        "--duplicate",
        "--json",
        str(out),
    )
    data = json.loads(out.read_text())
    statuses = [s["status"] for g in data["games"] for s in g["statuses"]]
    assert statuses == ["ok"] * 9
    assert [row["name"] for row in data["standings"]] == ["python", "node", "builtin:greedy"]


NOTING_BOT = """
import json, sys
n = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True}), flush=True)
    elif message["type"] == "act":
        n += 1
        sys.stderr.write(f"pondering {n}\\n")
        sys.stderr.flush()
        print(json.dumps({"action": message["legal"][0], "note": f"reason {n}"}), flush=True)
    elif message["type"] == "bye":
        break
"""


def test_the_command_says_where_stderr_and_traces_went_and_prints_them(tmp_path, capsys):
    bot = tmp_path / "noting.py"
    bot.write_text(NOTING_BOT)
    seats = [str(bot), "builtin:random", "builtin:random", "builtin:random"]
    call_command("match", "maniglia-4", *seats, "--games", "1", "--seed", "2")
    text = capsys.readouterr().out
    assert "--stderr prints them" in text and "decisions" in text and "slowest" in text

    out = tmp_path / "m.json"
    call_command(
        "match", "maniglia-4", *seats, "--games", "1", "--seed", "2", "--stderr", "--json", str(out)
    )
    text = capsys.readouterr().out
    assert f"logs[] of {out}" in text and "games[].record.traces" in text
    assert "--- stderr of 0 noting.py ---\npondering 1\npondering 2\n" in text
    assert "  note: reason 1\n  stderr: pondering 1\n" in text
    traces = json.loads(out.read_text())["games"][0]["record"]["traces"]
    mine = [t for t in traces if t["seat"] == 0]
    assert [t["note"] for t in mine] == [f"reason {n}" for n in range(1, len(mine) + 1)]
