"""A bot's files are copied into its sandbox from descriptors: modes, links, caps, no leaks."""

from __future__ import annotations

import os
import resource
from pathlib import Path

import pytest

from bots.sandbox import isolation, resolve, spawn


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def make_bot(directory: Path) -> Path:
    directory.mkdir()
    (directory / "bot").write_text(
        "#!/bin/sh\n"
        "cd /bot\n"
        "[ -x tool ] && [ ! -x data.txt ] && echo modes-ok\n"
        'echo "link $(readlink link)"\n'
        'echo "nested $(cat sub/deeper/note)"\n'
        "echo x > /bot/new 2>/dev/null && echo bot-writable || echo bot-read-only\n"
    )
    (directory / "bot").chmod(0o755)
    (directory / "tool").write_text("#!/bin/sh\n")
    (directory / "tool").chmod(0o700)
    (directory / "data.txt").write_text("data")
    (directory / "sub" / "deeper").mkdir(parents=True)
    (directory / "sub" / "deeper" / "note").write_text("hello")
    (directory / "link").symlink_to("/etc/shadow")
    os.mkfifo(directory / "pipe")
    return directory


def test_a_directory_bot_is_copied_with_its_modes_links_and_subdirectories(tmp_path):
    command, bot_dir = resolve(make_bot(tmp_path / "bot"))

    with spawn(command, bot_dir=bot_dir) as bot:
        lines = [bot.readline(timeout_s=30).decode() for _ in range(4)]

    assert lines == ["modes-ok", "link /etc/shadow", "nested hello", "bot-read-only"]


def test_a_bot_directory_over_the_copy_cap_is_refused_without_leaking(tmp_path, monkeypatch):
    command, bot_dir = resolve(make_bot(tmp_path / "bot"))
    monkeypatch.setattr(isolation, "MAX_COPY_FILES", 3)
    before = open_descriptors()

    with pytest.raises(ValueError, match="more than 3 files"):
        spawn(command, bot_dir=bot_dir)

    assert open_descriptors() == before


def test_spawn_and_kill_leave_no_descriptor_open(tmp_path):
    command, bot_dir = resolve(make_bot(tmp_path / "bot"))
    with spawn(command, bot_dir=bot_dir) as bot:  # the first spawn may cache the filter
        bot.readline(timeout_s=30)
    before = open_descriptors()

    with spawn(command, bot_dir=bot_dir) as bot:
        bot.readline(timeout_s=30)

    assert open_descriptors() == before


def test_a_bot_with_more_files_than_the_soft_descriptor_limit_runs(tmp_path):
    directory = make_bot(tmp_path / "bot")
    for number in range(600):
        (directory / "sub" / f"card{number}.txt").write_text(str(number))
    command, bot_dir = resolve(directory)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 2048:
        pytest.skip(f"hard open-file limit {hard} is too low to test this")
    resource.setrlimit(resource.RLIMIT_NOFILE, (512, hard))
    try:
        with spawn(command, bot_dir=bot_dir) as bot:
            first = bot.readline(timeout_s=30)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    assert first == b"modes-ok"
