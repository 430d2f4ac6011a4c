"""A bot's whole stderr kept compressed as it is read, with a hard cap a match."""

from __future__ import annotations

import gzip
import random
from pathlib import Path

import pytest

from bots.sandbox import StderrArchive, available, resolve, spawn

from .driver import act, hello

pytestmark = pytest.mark.skipif(not available(), reason="needs the bot sandbox")

#: Writes 24 MiB of bytes that do not compress (seeded: the test knows them) to stderr
#: when asked for its first decision, then answers as any bot.
FLOOD_BOT = """\
import json, random, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True}), flush=True)
    elif message["type"] == "act":
        noise = random.Random(7)
        for _ in range(24):
            sys.stderr.buffer.write(noise.randbytes(1024 * 1024))
        sys.stderr.flush()
        print(json.dumps({"action": message["legal"][0]}), flush=True)
"""
MIB = 1024 * 1024


def test_a_flood_of_stderr_keeps_only_the_first_cap_bytes_compressed(tmp_path: Path):
    program = tmp_path / "flood.py"
    program.write_text(FLOOD_BOT)
    archive = StderrArchive(2 * MIB)
    command, bot_dir = resolve(program)
    bot = spawn(command, bot_dir=bot_dir, stderr_archive=archive)
    try:
        hello(bot)
        answer = act(bot, timeout_s=60)
    finally:
        bot.kill()
    kept = archive.finish()

    assert answer == {"action": "pass"}  # the bot was never held up by its stderr
    noise = random.Random(7)
    written = b"".join(noise.randbytes(MIB) for _ in range(24))
    assert kept.written == len(written) and kept.kept == 2 * MIB and kept.cut
    assert gzip.decompress(kept.data) == written[: 2 * MIB]  # the first 2 MiB, in order
    assert len(kept.data) < 2 * MIB + 64 * 1024  # what it costs in memory: about the cap
    archive.feed(b"late")
    assert archive.finish() == kept  # finished: nothing more is kept


def test_two_archives_read_back_as_one_log_in_order():
    first, second = StderrArchive(100), StderrArchive(100)
    first.feed(b"one\n")
    second.feed(b"two\n" * 40)

    joined = first.finish() + second.finish()

    assert gzip.decompress(joined.data) == b"one\n" + (b"two\n" * 40)[:100]
    assert (joined.kept, joined.written, joined.cut) == (104, 164, True)
