"""Run one untrusted bot program in an isolated process (see README.md here).

::

    from bots.sandbox import Limits, resolve, spawn

    command, bot_dir = resolve("uploads/bot-42/")
    bot = spawn(command, bot_dir=bot_dir, limits=Limits(cpu_seconds=60))
    try:
        bot.send(b'{"type": "hello", ...}\\n')
        line = bot.readline(timeout_s=1.0)
    finally:
        bot.kill()

Pure Python on top of bubblewrap, prlimit and cgroups; no web or task framework.
"""

from __future__ import annotations

from .description import describe
from .errors import (
    BotGone,
    CpuBudgetExceeded,
    CpuExceeded,
    FileSizeExceeded,
    LimitExceeded,
    LineTooLong,
    MemoryExceeded,
    ReadTimeout,
    SandboxUnavailable,
    WriteTimeout,
)
from .isolation import available
from .launch import spawn
from .limits import Limits
from .process import BotProcess
from .resolve import resolve
from .stderr_archive import FULL_STDERR_BYTES, FullStderr, StderrArchive

__all__ = [
    "FULL_STDERR_BYTES",
    "BotGone",
    "BotProcess",
    "CpuBudgetExceeded",
    "CpuExceeded",
    "FileSizeExceeded",
    "FullStderr",
    "LimitExceeded",
    "Limits",
    "LineTooLong",
    "MemoryExceeded",
    "ReadTimeout",
    "SandboxUnavailable",
    "StderrArchive",
    "WriteTimeout",
    "available",
    "describe",
    "resolve",
    "spawn",
]
