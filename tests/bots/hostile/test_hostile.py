"""Hostile bot programs (files beside this one) against the real sandbox.

Each test starts one hostile bot, checks what it could and could not do, and
then (fixture ``hostile``) kills it, checks that no process of it survives on
the host, and that a well-behaved bot still runs normally afterwards.
"""

from __future__ import annotations

import hashlib
import socket
import time
import uuid
from pathlib import Path

import pytest

from bots import protocol
from bots.sandbox import (
    BotGone,
    CpuExceeded,
    LimitExceeded,
    Limits,
    LineTooLong,
    ReadTimeout,
    WriteTimeout,
    resolve,
    spawn,
)
from bots.sandbox.resolve import BOT_MOUNT

from ..sandbox.driver import (
    ECHO_BOT,
    HOSTILE,
    LEGAL,
    act,
    hello,
    pids_with_marker,
    pids_with_uid,
    process_uid,
    send_act,
    send_hello,
)

ROOT = Path(__file__).resolve().parents[3]
SDK = ROOT / "bots" / "sdk" / "__init__.py"


@pytest.fixture
def hostile():
    """Start hostile bots by name; afterwards prove they are gone and the sandbox still works."""
    started = []

    def start(name: str, limits: Limits | None = None):
        command, bot_dir = resolve(HOSTILE / f"{name}.py")
        bot = spawn(command, bot_dir=bot_dir, limits=limits or Limits())
        started.append((bot, process_uid(bot.pid)))
        return bot

    yield start
    for bot, uid in started:
        bot.kill()
        assert bot.survivors() == []
        assert not bot.alive()
        if uid not in (None, 0):  # root drops each bot to its own uid: none of them left
            assert pids_with_uid(uid) == []
    command, bot_dir = resolve(ECHO_BOT)
    with spawn(command, bot_dir=bot_dir) as fresh:
        assert hello(fresh) is True
        assert act(fresh) == {"action": LEGAL[-1]}


def test_fork_bomb_is_stopped_at_the_process_limit(hostile):
    bot = hostile("fork_bomb", Limits(processes=32))
    hello(bot)

    report = act(bot, timeout_s=30)["report"]

    assert report["forked"] < 32
    assert "BlockingIOError" in report["error"] or "Resource temporarily" in report["error"]
    assert 20 <= len(bot.survivors()) <= 33  # the sleeping children are there until the kill


def test_memory_hog_is_refused_beyond_the_memory_limit(hostile):
    bot = hostile("memory_hog", Limits(memory_mb=256))
    hello(bot)

    report = act(bot, timeout_s=30)["report"]

    assert report["refused"] is True
    assert 0 < report["allocated_mb"] < 256
    assert bot.alive()  # refused an allocation, not killed: it still answers


def test_endless_cpu_loop_is_killed_at_the_cpu_limit(hostile):
    bot = hostile("cpu_loop", Limits(cpu_seconds=1))
    hello(bot)
    send_act(bot)
    start = time.monotonic()

    with pytest.raises(CpuExceeded, match="^killed: over its CPU limit of 1 CPU seconds$"):
        bot.readline(timeout_s=20)

    assert time.monotonic() - start < 10


def test_a_bot_that_kills_itself_is_gone_but_not_put_down_to_a_limit(tmp_path):
    program = tmp_path / "suicide.py"
    program.write_text("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n")
    command, bot_dir = resolve(program)

    bot = spawn(command, bot_dir=bot_dir, limits=Limits(cpu_seconds=30))
    try:
        with pytest.raises(BotGone) as gone:
            bot.readline(timeout_s=20)
    finally:
        bot.kill()

    assert not isinstance(gone.value, LimitExceeded)
    assert "exit 137" in str(gone.value)


def test_sleeper_times_out_then_kill_leaves_nothing(hostile):
    bot = hostile("sleeper")
    hello(bot)
    send_act(bot)

    with pytest.raises(ReadTimeout):
        bot.readline(timeout_s=0.5)
    assert bot.alive()
    bot.kill()

    assert not bot.alive()
    assert bot.survivors() == []


def test_bot_that_stops_reading_cannot_block_the_referee(hostile):
    bot = hostile("sleeper")
    hello(bot)
    send_act(bot)

    with pytest.raises(WriteTimeout):  # the pipe fills up: send gives up instead of hanging
        bot.send(b"x" * (4 * 1024 * 1024), timeout_s=0.3)


def test_stdout_flood_is_a_line_too_long(hostile):
    bot = hostile("stdout_flood")
    hello(bot)
    send_act(bot)

    with pytest.raises(LineTooLong):
        bot.readline(timeout_s=10, max_bytes=protocol.MAX_LINE_BYTES)


def test_stderr_flood_is_capped_and_never_blocks(hostile):
    bot = hostile("stderr_flood", Limits(stderr_bytes=4096))
    hello(bot)

    reply = act(bot, timeout_s=30)
    time.sleep(0.2)  # let the drain thread catch the last bytes
    tail = bot.stderr_tail()

    assert reply == {"action": LEGAL[0]}
    assert len(tail.encode()) <= 4096
    assert tail.endswith("END-OF-FLOOD\n")


def test_garbage_and_half_a_line(hostile):
    bot = hostile("garbage")
    send_hello(bot)

    with pytest.raises(protocol.ProtocolError):
        protocol.parse_reply(bot.readline(timeout_s=10), "ready")
    send_act(bot)
    with pytest.raises(BotGone):  # half a line, then exit: the fragment is dropped
        bot.readline(timeout_s=10)


def test_network_is_unreachable(hostile):
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    port = listener.getsockname()[1]
    bot = hostile("network")
    hello(bot, {"ports": [port]})

    report = act(bot, timeout_s=30)["report"]

    for target in ("127.0.0.1:6379", "127.0.0.1:5432", "192.0.2.1:80", f"127.0.0.1:{port}"):
        assert report[target].startswith("failed"), (target, report[target])
    assert report["interfaces"] == ["lo"]
    with pytest.raises(BlockingIOError):
        listener.accept()  # nobody ever reached the host's listener
    listener.close()


def test_host_files_other_bots_and_secrets_are_invisible(hostile, tmp_path, monkeypatch):
    database = tmp_path / "cardroom.sqlite3"
    database.write_text("SECRET ROWS")
    monkeypatch.setenv("DATABASE_URL", "postgres://cardroom:hunter2@127.0.0.1/cardroom")
    others = [
        str(database),
        str(ECHO_BOT),
        str(ECHO_BOT.parent),
        str(HOSTILE / "writer.py"),
        str(SDK),
        "/work/main/config/settings/__init__.py",
        f"{BOT_MOUNT}/writer.py",
    ]
    bot = hostile("snoop")
    hello(bot, {"paths": others})

    report = act(bot, timeout_s=30)["report"]

    for path in [
        *others,
        "/etc/shadow",
        "/root",
        "/home",
        "/work",
        "/work/main/pyproject.toml",
        "/var/lib/postgresql",
    ]:
        assert report[path] == "missing", (path, report[path])
    assert "root:" not in report["/etc/passwd"]
    assert "hunter2" not in str(report)
    assert "DATABASE_URL" not in report["environ"]
    assert report["environ"]["HOME"] == "/tmp"
    assert report["uid"] == [65534, 65534, []]
    assert len(report["pids"]) <= 3  # its own PID namespace: bwrap's init and itself


@pytest.mark.parametrize(
    ("limits", "expected_error", "ceiling_mb"),
    [
        (Limits(scratch_mb=8, file_size_mb=64), "No space left", 8),
        (Limits(scratch_mb=64, file_size_mb=4), "File too large", 4),
    ],
)
def test_writes_outside_scratch_fail_and_scratch_is_capped(
    hostile, tmp_path, limits, expected_error, ceiling_mb
):
    host_file = tmp_path / "host-file"
    host_file.write_text("unchanged")
    untouched = {path: digest(path) for path in (HOSTILE / "writer.py", SDK, host_file)}
    targets = [str(host_file), str(tmp_path / "new-file"), str(ROOT / "planted.txt")]
    bot = hostile("writer", limits)
    hello(bot, {"paths": targets, "big_mb": 100})

    report = act(bot, timeout_s=30)["report"]

    for path in [p for p in report if p.startswith("/") and p != "/tmp/ok"]:
        assert report[path].startswith("failed"), (path, report[path])
    assert report["/tmp/ok"] == report["home"] == "written"
    assert report["big"]["written_mb"] <= ceiling_mb
    assert expected_error in report["big"]["error"]
    assert {path: digest(path) for path in untouched} == untouched
    assert not (tmp_path / "new-file").exists()
    assert not (ROOT / "planted.txt").exists()


def test_background_processes_die_with_the_bot(hostile):
    marker = f"cardroom-hostile-{uuid.uuid4().hex}"
    bot = hostile("daemon")
    hello(bot, {"marker": marker})

    assert act(bot, timeout_s=30) == {"action": LEGAL[0]}
    assert len(pids_with_marker(marker)) == 2  # the session daemon and the orphan run
    bot.kill()

    assert pids_with_marker(marker) == []


def test_killing_its_parent_harms_only_the_bot(hostile):
    bot = hostile("parent_killer")
    hello(bot)

    reply = act(bot, timeout_s=30)
    with pytest.raises(BotGone):
        bot.readline(timeout_s=10)

    assert reply["report"]["parent"] == 1  # its parent is the sandbox's init, not us
    assert reply["report"]["parent_alive"] is True


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
