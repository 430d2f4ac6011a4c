"""``manage.py match --transcripts DIR`` and ``manage.py match --replay TRANSCRIPT BOT``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from bots import sandbox
from bots.referee.transcript import parse_transcript
from tests.factories import raw_bot

needs_sandbox = pytest.mark.skipif(not sandbox.available(), reason="needs the bot sandbox")


def local_match(tmp_path: Path, *bots: str) -> Path:
    folder = tmp_path / "transcripts"
    call_command(
        "match", "money-jordan", *bots, "--games", "2", "--seed", "5",
        "--transcripts", str(folder),
    )  # fmt: skip
    return folder


def test_a_local_match_writes_a_transcript_per_player_and_game(tmp_path, capsys):
    folder = local_match(tmp_path, "builtin:greedy", "builtin:random")

    out = capsys.readouterr().out
    assert "4 transcripts, one per player and game" in out and "--replay" in out
    names = sorted(p.name for p in folder.iterdir())
    assert names == [f"game-{g}-player-{p}.jsonl" for g in (0, 1) for p in (0, 1)]
    transcript = parse_transcript((folder / "game-1-player-1.jsonl").read_bytes())
    assert transcript.header["bot"] == "builtin:random" and transcript.header["game"] == 1
    assert transcript.header["player"] == 1 and transcript.decisions()


def test_a_built_in_replays_its_own_transcript_the_same(tmp_path, capsys):
    folder = local_match(tmp_path, "builtin:greedy", "builtin:random")
    capsys.readouterr()

    call_command("match", "--replay", str(folder / "game-0-player-0.jsonl"), "builtin:greedy")

    out = capsys.readouterr().out
    assert "replayed builtin:greedy on money-jordan game 0, seat 0" in out
    assert out.rstrip().endswith("same answers at every decision")


@needs_sandbox
def test_a_changed_bot_prints_the_first_difference_and_exits_1(tmp_path, capsys):
    bot = raw_bot(tmp_path / "first-legal")  # the first legal label every time
    folder = local_match(tmp_path, str(bot), "builtin:random")
    changed = raw_bot(tmp_path / "changed", "other-choice", at=2)  # the last, at its 2nd
    transcript = folder / "game-1-player-0.jsonl"
    capsys.readouterr()

    call_command("match", "--replay", str(transcript), str(bot))
    same = capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_:
        call_command("match", "--replay", str(transcript), str(changed))
    out = capsys.readouterr().out

    assert "same answers at every decision" in same
    assert exit_.value.code == 1
    assert "first difference at decision 1, ply" in out and "observation: {" in out
    assert "answered in the transcript: '" in out and "answered now:" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "the file is empty"),
        (b"\x7fELF\x02\x01\x01\x00\x00\xff", "not UTF-8"),
        (b"just some text\n", "line 1 is not JSON"),
        (json.dumps({"games": [], "standings": []}, indent=1).encode(), "match result"),
        (b'{"transcript": 2}\n', "version 2 is not one this platform reads"),
    ],
)
def test_a_file_that_is_not_a_transcript_is_a_clear_error_with_status_2(tmp_path, content, message):
    path = tmp_path / "file.jsonl"
    path.write_bytes(content)

    with pytest.raises(CommandError, match=message) as error:
        call_command("match", "--replay", str(path), "builtin:random")

    assert error.value.returncode == 2 and str(path) in str(error.value)


def test_a_missing_transcript_or_a_second_bot_is_a_clear_error(tmp_path):
    with pytest.raises(CommandError, match="No such file") as error:
        call_command("match", "--replay", str(tmp_path / "nothing.jsonl"), "builtin:random")
    assert error.value.returncode == 2
    with pytest.raises(CommandError, match="--replay takes one bot"):
        call_command("match", "--replay", "t.jsonl", "builtin:random", "builtin:greedy")
