"""``manage.py match --replay PATH BOT`` over a folder or a zip: a regression run."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from bots import sandbox
from tests.factories import raw_bot

needs_sandbox = pytest.mark.skipif(not sandbox.available(), reason="needs the bot sandbox")


def local_match(folder: Path, *bots: str, games: int = 3) -> Path:
    call_command(
        "match", "money-jordan", *bots, "--games", str(games), "--seed", "11",
        "--transcripts", str(folder),
    )  # fmt: skip
    return folder


def second_legal(transcript: Path) -> list[str]:
    """The legal labels of the second decision the transcript's seat was asked for."""
    acts = [
        json.loads(line)["sent"]
        for line in transcript.read_text().splitlines()
        if json.loads(line).get("sent", {}).get("type") == "act"
    ]
    return acts[1]["legal"]


def run(path: Path, bot: str) -> int:
    try:
        call_command("match", "--replay", str(path), bot)
    except SystemExit as exit_:
        return exit_.code
    except CommandError as error:
        return error.returncode
    return 0


@needs_sandbox
def test_a_regression_run_names_each_game_and_decision_where_the_changed_bot_differs(
    tmp_path, capsys
):
    bot = raw_bot(tmp_path / "first-legal")
    runs = tmp_path / "runs"
    local_match(runs / "monday", str(bot), "builtin:random")
    local_match(runs / "tuesday" / "late", str(bot), "builtin:greedy", games=2)
    for theirs in runs.rglob("*-player-1.jsonl"):  # the bot's own, as the site gives them
        theirs.unlink()
    (runs / "notes.txt").write_text("what changed on Wednesday\n")
    changed = raw_bot(tmp_path / "changed", "other-choice", at=2)  # the last label, 2nd time
    capsys.readouterr()

    status = run(runs, str(changed))
    captured = capsys.readouterr()
    lines = captured.out.splitlines()

    ours = sorted(runs.rglob("*-player-0.jsonl"))
    assert len(ours) == 5
    differing = 0
    for transcript in ours:
        header = json.loads(transcript.read_text().splitlines()[0])
        (line,) = [x for x in lines if f"({transcript}):" in x]
        assert line.startswith(f"game {header['game']}, player 0 ")
        legal = second_legal(transcript)
        if len(legal) > 1:  # the changed bot answers the last label at its second decision
            differing += 1
            assert "1 answered differently; first at decision 1 (ply " in line, line
            assert line.endswith(f"expected {legal[0]!r}, got {legal[-1]!r}"), line
        else:
            assert line.endswith("all answered the same"), line
    assert differing >= 2  # the seed gives choices: the run has something to find
    assert f"skipped {runs / 'notes.txt'}: line 1 is not JSON" in captured.err
    summary = lines[-1]
    assert summary.startswith(f"replayed {changed} on 5 games under {runs}: ")
    assert summary.endswith(
        f", {differing} answered differently (in {differing} games), 1 file skipped"
    )
    assert status == 1


@needs_sandbox
def test_the_same_bot_replays_a_folder_and_a_zip_of_it_with_no_difference(tmp_path, capsys):
    bot = raw_bot(tmp_path / "first-legal")
    folder = local_match(tmp_path / "match", str(bot), "builtin:random", games=2)
    ours = sorted(folder.glob("*-player-0.jsonl"))
    archive = tmp_path / "match.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for transcript in ours:
            zf.write(transcript, f"match-1/{transcript.name}")
    decisions = sum(1 for t in ours for line in t.read_text().splitlines() if '"answered"' in line)
    capsys.readouterr()

    assert run(archive, str(bot)) == 0
    out = capsys.readouterr().out

    assert f"{archive}:match-1/game-1-player-0.jsonl" in out
    assert out.splitlines()[-1] == (
        f"replayed {bot} on 2 games under {archive}: {decisions} decisions compared, "
        "0 answered differently (in 0 games), 0 files skipped"
    )


def test_a_folder_without_transcripts_is_exit_status_2_naming_what_was_skipped(tmp_path, capsys):
    folder = tmp_path / "downloads"
    (folder / "deep").mkdir(parents=True)
    (folder / "deep" / "game.jsonl").write_bytes(b"")
    (folder / "broken.zip").write_bytes(b"PK\x03\x04 not really")

    status = run(folder, "builtin:random")
    err = capsys.readouterr().err

    assert status == 2
    assert f"skipped {folder / 'deep' / 'game.jsonl'}: not a transcript: the file is empty" in err
    assert re.search(rf"skipped {re.escape(str(folder / 'broken.zip'))}: ", err)


def test_an_empty_folder_is_refused_in_one_line(tmp_path, capsys):
    with pytest.raises(CommandError, match="it holds no file to replay") as error:
        call_command("match", "--replay", str(tmp_path), "builtin:random")

    assert error.value.returncode == 2 and str(tmp_path) in str(error.value)
    assert capsys.readouterr().out == ""
