"""Which limit killed a bot (``bots.sandbox.deaths``): named on evidence of that limit,
never because a bot merely died. Pure: no sandbox."""

from __future__ import annotations

import signal

import pytest

from bots.sandbox.deaths import CPU, FILE_SIZE, MEMORY, Death, limit_that_killed

PYTHON_MEMORY_ERROR = (
    "Traceback (most recent call last):\n"
    '  File "/bot/bot.py", line 9, in <module>\n'
    "    chunks.append(bytearray(16 * 1024 * 1024))\n"
    "MemoryError\n"
)
NUMPY_MEMORY_ERROR = (
    "Traceback (most recent call last):\n"
    "numpy.core._exceptions._ArrayMemoryError: Unable to allocate 8.00 GiB for an array "
    "with shape (1073741824,) and data type float64\n"
)
PYTHON_EFBIG = (
    "Traceback (most recent call last):\n"
    '  File "/bot/bot.py", line 9, in <module>\n'
    "OSError: [Errno 27] File too large\n"
)
NODE_EFBIG = (
    "node:internal/fs/utils:351\n    throw err;\n    ^\n\n"
    "Error: EFBIG: file too large, write\n"
    "    at Object.writeSync (node:fs:933:3)\n"
    "    at Interface.<anonymous> (/bot/bot.js:9:38) {\n"
    "  errno: -27,\n  syscall: 'write',\n  code: 'EFBIG'\n}\n\nNode.js v20.20.2\n"
)
KEY_ERROR = "Traceback (most recent call last):\n  File \"/bot/bot.py\"\nKeyError: 'x'\n"


@pytest.mark.parametrize(
    ("death", "limit"),
    [
        (Death(None, oom_kills=1), MEMORY),  # the group's OOM killer
        (Death(1, stderr=PYTHON_MEMORY_ERROR), MEMORY),  # one process, RLIMIT_AS
        (Death(1, stderr=NUMPY_MEMORY_ERROR), MEMORY),
        (Death(128 + signal.SIGABRT, memory_hits=3), MEMORY),  # aborted at the group's limit
        (Death(1, memory_hits=1, stderr="fatal: Cannot allocate memory\n"), MEMORY),
        (Death(128 + signal.SIGKILL, cpu_used_up=True), CPU),
        (Death(128 + signal.SIGXCPU, cpu_used_up=True), CPU),
        (Death(128 + signal.SIGXFSZ), FILE_SIZE),
        (Death(-signal.SIGXFSZ), FILE_SIZE),  # a plain subprocess's signal
        (Death(1, stderr=PYTHON_EFBIG), FILE_SIZE),
        (Death(1, stderr=NODE_EFBIG), FILE_SIZE),
    ],
    ids=[
        "oom-kill",
        "memory-error",
        "numpy-memory-error",
        "abort-at-the-limit",
        "enomem-at-the-limit",
        "sigkill-cpu-used-up",
        "sigxcpu",
        "sigxfsz",
        "sigxfsz-unsandboxed",
        "python-efbig",
        "node-efbig",
    ],
)
def test_a_death_that_shows_its_limit_is_put_down_to_it(death, limit):
    assert limit_that_killed(death) == limit


@pytest.mark.parametrize(
    "death",
    [
        Death(1, stderr=KEY_ERROR),  # a bug
        Death(1, stderr=PYTHON_MEMORY_ERROR + "caught it, going on\n" + KEY_ERROR),
        Death(1, stderr="logged earlier: File too large\n" + KEY_ERROR),
        Death(128 + signal.SIGKILL),  # it killed itself, its CPU time not used up
        Death(128 + signal.SIGABRT),  # an abort with the group below its limit
        Death(1, stderr="fatal: Cannot allocate memory\n"),  # ENOMEM not from its limit
        Death(0, stderr=PYTHON_MEMORY_ERROR),  # it exited cleanly
        Death(None, stderr=PYTHON_MEMORY_ERROR),  # we killed it
    ],
    ids=[
        "bug",
        "memory-error-caught-earlier",
        "efbig-logged-earlier",
        "own-sigkill",
        "abort-below-the-limit",
        "enomem-below-the-limit",
        "clean-exit",
        "killed-by-us",
    ],
)
def test_a_death_without_evidence_of_a_limit_is_put_down_to_none(death):
    assert limit_that_killed(death) is None
