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
