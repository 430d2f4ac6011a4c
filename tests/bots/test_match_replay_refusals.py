"""``manage.py match --replay`` refuses what is not a transcript it can replay.

Every refusal is exit status 2 and one line on stderr saying why: never a traceback,
and never a replay that starts before the file was found to be a transcript.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parents[2]

Lines = list[dict]


@pytest.fixture(scope="module")
def transcript_lines(tmp_path_factory) -> Lines:
    """The lines of a real transcript (money-jordan, greedy's seat): header, hello, then
    an act and its answer, ... , result, bye."""
    folder = tmp_path_factory.mktemp("transcripts")
    call_command(
        "match", "money-jordan", "builtin:greedy", "builtin:random", "--games", "1",
        "--seed", "5", "--transcripts", str(folder),
    )  # fmt: skip
    text = (folder / "game-0-player-0.jsonl").read_text()
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines[1]["sent"]["type"] == "hello" and lines[2]["sent"]["type"] == "act"
    assert "answered" in lines[3]
    return lines


def replay(path: Path, *, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*prefix, sys.executable, "manage.py", "match", "--replay", str(path), "builtin:greedy"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def assert_refused(done: subprocess.CompletedProcess, path: Path, reason: str) -> None:
    """Exit status 2, nothing on stdout, one line on stderr naming the file and ``reason``."""
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"CommandError: {path}: ") and reason in line, line


def nested(depth: int) -> object:
    value: object = "deep"
    for _ in range(depth):
        value = [value]
    return value


def changed(change: Callable[[Lines], object]) -> Callable[[Lines], bytes]:
    """A transcript file: the real lines after ``change`` edits them in place."""

    def make(lines: Lines) -> bytes:
        lines = json.loads(json.dumps(lines))  # a copy: the fixture is shared
        change(lines)
        return "".join(json.dumps(line) + "\n" for line in lines).encode()

    return make


def _set(line: int, *keys_and_value) -> Callable[[Lines], None]:
    *keys, last, value = keys_and_value

    def change(lines: Lines) -> None:
        target = lines[line]
        for key in keys:
            target = target[key]
        target[last] = value

    return change


def _both_variants(name: str) -> Callable[[Lines], None]:
    def change(lines: Lines) -> None:
        lines[0]["variant"] = lines[1]["sent"]["variant"] = name

    return change


def _both_options(options: dict) -> Callable[[Lines], None]:
    def change(lines: Lines) -> None:
        lines[0]["options"] = lines[1]["sent"]["options"] = options

    return change


CONTENTS = {
    "empty file": (lambda lines: b"", "the file is empty"),
    "binary garbage": (lambda lines: bytes(range(256)) * 8, "the file is not UTF-8 text"),
    "binary zeros": (lambda lines: b"\0" * 64, "line 1 is not JSON"),
    "not JSON": (lambda lines: b"a transcript, honest\n", "line 1 is not JSON"),
    "JSON 100,000 deep": (
        lambda lines: b"[" * 100_000 + b"]" * 100_000,
        "line 1 nests deeper than 32 levels",
    ),
    "an object 100,000 deep": (
        lambda lines: b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
        "line 1 nests deeper than 32 levels",
    ),
    "a note 500 deep in a transcript": (
        changed(_set(3, "answered", "note", nested(500))),
        "line 4 nests deeper than 32 levels",
    ),
    "unknown variant": (
        changed(_both_variants("money-atlantis")),
        "line 1: unknown variant 'money-atlantis'",
    ),
    "unknown option": (
        changed(_both_options({"money.gravity": 2})),
        "line 1: unknown option 'money.gravity'",
    ),
    "variant not a name": (
        changed(_set(0, "variant", 7)),
        "the header needs variant, a name, and options, an object",
    ),
    "missing variant": (
        changed(lambda lines: lines[0].pop("variant")),
        "the header needs variant, a name, and options, an object",
    ),
    "missing time control": (
        changed(lambda lines: lines[0].pop("time_control")),
        "line 1: time_control needs positive integers",
    ),
    "seat a string": (
        changed(_set(0, "seat", "0")),
        "line 1: the header needs seat, an integer 0 or more",
    ),
    "seat beyond the table": (
        changed(_set(0, "seat", 5)),
        "line 1: seat 5 of a 2-player variant",
    ),
    "hello of another seat": (
        changed(_set(1, "sent", "seat", 1)),
        "line 2: the hello's seat 1 is not the header's 0",
    ),
    "time left a string": (
        changed(_set(2, "sent", "time_left_ms", "soon")),
        "line 3: an act needs time_left_ms, an integer",
    ),
    "missing legal labels": (
        changed(lambda lines: lines[2]["sent"].pop("legal")),
        "line 3: an act needs legal, a list of labels",
    ),
    "answer not an object": (
        changed(_set(3, "answered", "bid 30")),
        'line 4: "answered" needs an "action" label',
    ),
    "decision a string": (
        changed(_set(3, "decision", "first")),
        "line 4: an answer's decision is an integer 0 or more",
    ),
    "illegal action": (
        changed(_set(3, "answered", "action", "take the whole pile")),
        "line 4: the answer 'take the whole pile' is not one of the act's legal labels",
    ),
    "a message the referee never sends": (
        changed(lambda lines: lines.insert(2, {"sent": {"type": "reboot"}})),
        "line 3: 'reboot' is not a message the referee sends",
    ),
    "missing answer": (
        changed(lambda lines: lines.pop(3)),
        "line 4: the act before it has no answer",
    ),
}


@pytest.mark.parametrize("case", list(CONTENTS))
def test_a_malformed_transcript_is_refused_in_one_line_with_status_2(
    case, transcript_lines, tmp_path
):
    make, reason = CONTENTS[case]
    path = tmp_path / "transcript.jsonl"
    path.write_bytes(make(transcript_lines))

    done = replay(path)

    assert_refused(done, path, reason)


def test_the_unchanged_transcript_replays_the_same(transcript_lines, tmp_path):
    # The cases above change one thing each of a transcript that is accepted.
    path = tmp_path / "transcript.jsonl"
    path.write_bytes(changed(lambda lines: None)(transcript_lines))

    done = replay(path)

    assert done.returncode == 0, done.stderr
    assert "same answers at every decision" in done.stdout


def test_an_empty_directory_is_refused(tmp_path):
    assert_refused(replay(tmp_path), tmp_path, "it holds no file to replay")


def test_a_missing_file_is_refused(tmp_path):
    path = tmp_path / "nowhere.jsonl"
    assert_refused(replay(path), path, "cannot open it: No such file or directory")


def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path):
    path = tmp_path / "pipe.jsonl"
    os.mkfifo(path)
    assert_refused(replay(path), path, "it is a device, pipe or socket, not a transcript file")


def test_a_file_that_cannot_be_read_is_refused():
    # Opened, but reading it fails (even as root): the replaying process's own memory
    # at address 0.
    path = Path("/proc/self/mem")
    assert_refused(replay(path), path, "cannot read it: Input/output error")


#: Root reads a file of mode 000 through its capabilities: as root, the command runs
#: without them (util-linux's setpriv drops them from the bounding set before the exec).
AS_A_USER = (
    ("setpriv", "--bounding-set=-dac_override,-dac_read_search", "--") if os.geteuid() == 0 else ()
)


def test_a_file_without_read_permission_is_refused(tmp_path):
    path = tmp_path / "secret.jsonl"
    path.write_text("{}\n")
    path.chmod(0)
    assert_refused(replay(path, prefix=AS_A_USER), path, "cannot open it: Permission denied")


def test_a_note_holding_a_line_separator_reads_back_as_written(transcript_lines):
    # Transcript.dumps keeps non-ASCII as it is: U+2028 inside a note is no line end.
    from bots.referee.transcript import Transcript, parse_transcript

    written = Transcript(transcript_lines[0], json.loads(json.dumps(transcript_lines[1:])))
    written.lines[2]["answered"]["note"] = "first\u2028second\x85third"

    again = parse_transcript(written.dumps())

    assert again.lines == written.lines
