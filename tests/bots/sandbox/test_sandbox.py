"""The sandbox runs real bot programs under bubblewrap: protocol round trips, resolve, refusal."""

from __future__ import annotations

import json
import logging
import shutil
import statistics
import time
from pathlib import Path

import pytest

from bots.sandbox import (
    BotGone,
    Limits,
    ReadTimeout,
    SandboxUnavailable,
    available,
    describe,
    isolation,
    resolve,
    spawn,
)

from .driver import ECHO_BOT, LEGAL, act, hello

NODE = shutil.which("node", path="/usr/bin")


@pytest.fixture
def running():
    """Spawn bots through this fixture; each is killed (and checked gone) afterwards."""
    bots = []

    def start(command, bot_dir, **kwargs):
        bot = spawn(command, bot_dir=bot_dir, **kwargs)
        bots.append(bot)
        return bot

    yield start
    for bot in bots:
        bot.kill()
        assert bot.survivors() == []


def write_bot(directory: Path, name: str, text: str, mode: int = 0o644) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(text)
    path.chmod(mode)
    return path


def test_the_sandbox_works_on_this_host():
    assert available(), describe()["probe"]


def test_sdk_bot_round_trip_through_the_sandbox(running):
    command, bot_dir = resolve(ECHO_BOT)
    bot = running(command, bot_dir)

    assert hello(bot) is True
    assert act(bot) == {"action": LEGAL[-1]}
    assert act(bot, legal=["x", "y", "z"]) == {"action": "z"}
    bot.send(b'{"type": "bye"}\n')
    with pytest.raises(BotGone):
        bot.readline(timeout_s=10)
    assert bot.stderr_tail() == ""


def test_directory_bot_imports_its_own_modules(tmp_path, running):
    write_bot(tmp_path / "bot", "helper.py", "def choose(legal):\n    return legal[0]\n")
    write_bot(
        tmp_path / "bot",
        "main.py",
        "from bots.sdk import FunctionBot, run\nfrom helper import choose\n"
        "run(FunctionBot(lambda observation, legal: choose(legal)))\n",
    )
    command, bot_dir = resolve(tmp_path / "bot")
    bot = running(command, bot_dir)

    assert hello(bot) is True
    assert act(bot) == {"action": LEGAL[0]}


def test_bot_json_command_runs_with_arguments(tmp_path, running):
    write_bot(tmp_path / "bot", "bot.json", json.dumps({"command": ["sh", "answer.sh", "play"]}))
    write_bot(
        tmp_path / "bot",
        "answer.sh",
        'read hello; echo \'{"ready": true}\'\nread act; echo "{\\"action\\": \\"$1\\"}"\n',
    )
    command, bot_dir = resolve(tmp_path / "bot")
    bot = running(command, bot_dir)

    assert command == ["sh", "answer.sh", "play"]
    assert hello(bot) is True
    assert act(bot) == {"action": "play"}


def test_the_manifest_of_an_upload_runs_its_entry_locally_too(tmp_path, running):
    """The folder an author uploads ({"entry": ...}) is the folder ``manage.py match`` runs."""
    manifest = {"entry": "src/answer.sh", "variants": ["manni-basic"]}
    write_bot(tmp_path / "bot", "bot.json", json.dumps(manifest))
    write_bot(
        tmp_path / "bot" / "src",
        "answer.sh",
        'read hello; echo \'{"ready": true}\'\nread act; echo \'{"action": "entry"}\'\n',
    )
    command, bot_dir = resolve(tmp_path / "bot")
    bot = running(command, bot_dir)

    assert command == ["sh", "/bot/src/answer.sh"]
    assert hello(bot) is True
    assert act(bot) == {"action": "entry"}

    write_bot(tmp_path / "other", "bot.json", json.dumps({"entry": "../bot/src/answer.sh"}))
    with pytest.raises(ValueError, match="names an entry '../bot/src/answer.sh' that is not"):
        resolve(tmp_path / "other")


@pytest.mark.skipif(NODE is None, reason="no /usr/bin/node on this host")
def test_node_bot_runs_in_the_sandbox(tmp_path, running):
    write_bot(
        tmp_path / "bot",
        "bot.js",
        "const rl = require('readline').createInterface({input: process.stdin});\n"
        "rl.on('line', (line) => { const m = JSON.parse(line);\n"
        "  if (m.type === 'hello') console.log(JSON.stringify({ready: true}));\n"
        "  if (m.type === 'act') console.log(JSON.stringify({action: m.legal[0]})); });\n",
    )
    command, bot_dir = resolve(tmp_path / "bot")
    bot = running(command, bot_dir)

    assert command == ["node", "/bot/bot.js"]
    assert hello(bot) is True
    assert act(bot) == {"action": LEGAL[0]}


def test_readline_times_out_and_keeps_a_partial_line(tmp_path, running):
    program = write_bot(
        tmp_path,
        "slow.py",
        "import sys, time\nsys.stdout.write('{\"ready\"'); sys.stdout.flush()\n"
        "time.sleep(0.5)\nprint(': true}', flush=True)\ntime.sleep(60)\n",
    )
    bot = running(*resolve(program))

    with pytest.raises(ReadTimeout):
        bot.readline(timeout_s=0.1)
    assert bot.readline(timeout_s=10) == b'{"ready": true}'
    with pytest.raises(ReadTimeout):
        bot.readline(timeout_s=0.05)
    assert bot.alive()


def test_kill_is_idempotent_and_final(running):
    bot = running(*resolve(ECHO_BOT))
    hello(bot)

    bot.kill()
    bot.kill()

    assert not bot.alive()
    assert bot.survivors() == []
    with pytest.raises(BotGone):
        bot.send(b'{"type": "bye"}\n')
    with pytest.raises(BotGone):
        bot.readline(timeout_s=1)


def test_crash_is_bot_gone_with_its_log(tmp_path, running):
    program = write_bot(tmp_path, "crash.py", "raise SystemExit('bad things happened')\n")
    bot = running(*resolve(program))

    with pytest.raises(BotGone):
        bot.readline(timeout_s=10)
    bot.kill()
    assert "bad things happened" in bot.stderr_tail()


def test_spawn_refuses_when_no_sandbox_is_available(monkeypatch):
    monkeypatch.setattr(isolation, "_probe", lambda: isolation.Probe(False, "no bwrap here"))

    command, bot_dir = resolve(ECHO_BOT)

    assert not available()
    with pytest.raises(SandboxUnavailable, match="no bwrap here"):
        spawn(command, bot_dir=bot_dir)


def test_unsandboxed_development_mode_warns_and_runs(caplog, running):
    command, bot_dir = resolve(ECHO_BOT)
    with caplog.at_level(logging.WARNING, logger="bots.sandbox"):
        bot = running(command, bot_dir, sandboxed=False)

    assert "WITHOUT A SANDBOX" in caplog.text
    assert hello(bot) is True
    assert act(bot) == {"action": LEGAL[-1]}


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (
            {"bot.json": '{"command": ["python3", "-u", "x.py"]}', "bot.py": ""},
            ["python3", "-u", "x.py"],
        ),
        ({"bot.py": "", "main.py": "", "bot.js": ""}, ["python3", "/bot/bot.py"]),
        ({"main.py": "", "bot.js": ""}, ["python3", "/bot/main.py"]),
        ({"bot.js": "", "main.js": ""}, ["node", "/bot/bot.js"]),
        ({"main.js": ""}, ["node", "/bot/main.js"]),
        ({"bot": "#!/bin/sh\n"}, ["/bot/bot"]),
    ],
)
def test_resolve_a_directory(tmp_path, files, expected):
    for name, text in files.items():
        write_bot(tmp_path, name, text, 0o755 if name == "bot" else 0o644)

    assert resolve(tmp_path) == (expected, tmp_path)


@pytest.mark.parametrize(
    ("name", "mode", "expected"),
    [
        ("player.py", 0o644, ["python3", "/bot/player.py"]),
        ("player.js", 0o644, ["node", "/bot/player.js"]),
        ("player.sh", 0o644, ["sh", "/bot/player.sh"]),
        ("player", 0o755, ["/bot/player"]),
    ],
)
def test_resolve_a_file_mounts_only_that_file(tmp_path, name, mode, expected):
    program = write_bot(tmp_path, name, "", mode)

    assert resolve(program) == (expected, program)


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({}, "has no bot.json"),
        ({"bot": "not executable"}, "has no bot.json"),
        ({"bot.json": "{not json"}, "not valid JSON"),
        ({"bot.json": '{"command": "python3 bot.py"}'}, "non-empty list"),
        ({"bot.json": '{"command": []}'}, "non-empty list"),
        ({"bot.json": '{"command": ["python3", 3]}'}, "non-empty list"),
        ({"bot.json": '["python3"]'}, "non-empty list"),
    ],
)
def test_resolve_rejects_a_directory_it_cannot_run(tmp_path, files, message):
    for name, text in files.items():
        write_bot(tmp_path, name, text)

    with pytest.raises(ValueError, match=message):
        resolve(tmp_path)


def test_resolve_rejects_unknown_files_and_missing_paths(tmp_path):
    data = write_bot(tmp_path, "weights.bin", "")

    with pytest.raises(ValueError, match="unknown extension '.bin'"):
        resolve(data)
    with pytest.raises(ValueError, match="neither a file nor a directory"):
        resolve(tmp_path / "nowhere")


@pytest.mark.parametrize("field", ["cpu_seconds", "memory_mb", "processes", "scratch_mb"])
def test_limits_must_be_positive(field):
    with pytest.raises(ValueError, match=field):
        Limits(**{field: 0})


def test_describe_says_what_is_enforced():
    report = describe()

    assert report["available"] is True
    assert "RLIMIT_NPROC" in report["limits"]["processes"]
    assert report["limits"]["defaults"]["processes"] == Limits().processes
    assert report["runtimes"]["python3"].startswith("/usr/bin/python3")


def round_trip_us(bot, line: bytes, rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        bot.send(line)
        bot.readline(timeout_s=5)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e6


@pytest.mark.serial
def test_round_trip_of_a_1kb_line_sandboxed_vs_plain_subprocess(tmp_path, running, capsys):
    echo = write_bot(
        tmp_path,
        "cat.py",
        "import sys\nfor line in sys.stdin.buffer:\n"
        "    sys.stdout.buffer.write(line); sys.stdout.buffer.flush()\n",
    )
    line = b"x" * 1023 + b"\n"
    figures = {}
    for sandboxed in (True, False):
        bot = running(*resolve(echo), sandboxed=sandboxed)
        round_trip_us(bot, line, 200)  # warm up
        figures[sandboxed] = round_trip_us(bot, line, 2000)

    with capsys.disabled():
        print(
            f"\n1 KB line round trip (median): sandboxed {figures[True]:.1f} us, "
            f"plain subprocess {figures[False]:.1f} us"
        )
    assert figures[True] < 2000
