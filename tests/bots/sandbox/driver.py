"""Drive a BotProcess through the protocol by hand, and look for its leftovers on the host."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from bots import protocol
from bots.sandbox import BotProcess

LEGAL = ["pass", "play"]
HERE = Path(__file__).resolve().parent
ECHO_BOT = HERE / "echo_bot.py"
HOSTILE = HERE.parent / "hostile"


def send_hello(bot: BotProcess, options: dict[str, Any] | None = None) -> None:
    message = protocol.hello(
        variant="test", options=options or {}, seat=0, players=2, match={}, time_control={}
    )
    bot.send(protocol.encode(message))


def hello(bot: BotProcess, options: dict[str, Any] | None = None, timeout_s: float = 10.0) -> Any:
    """Greet the bot; the value of ``ready`` in its reply."""
    send_hello(bot, options)
    return protocol.parse_reply(bot.readline(timeout_s), "ready")


def send_act(bot: BotProcess, legal: list[str] = LEGAL) -> None:
    message = protocol.act(
        game=0,
        observation={"filler": "x" * 900},
        legal=legal,
        time_left_ms=1000,
        move_limit_ms=1000,
    )
    bot.send(protocol.encode(message))


def act(bot: BotProcess, timeout_s: float = 10.0, legal: list[str] = LEGAL) -> dict[str, Any]:
    """Ask for an action; the whole reply object (hostile bots add a ``report``)."""
    send_act(bot, legal)
    line = bot.readline(timeout_s)
    protocol.parse_reply(line, "action")
    return json.loads(line)


def process_uid(pid: int) -> int | None:
    """The real uid of a host process, or None if it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    line = next(line for line in status.splitlines() if line.startswith("Uid:"))
    return int(line.split()[1])


def pids_with_uid(uid: int) -> list[int]:
    """Running processes of ``uid`` (zombies, already dead, are left to their reaper)."""
    return [pid for pid in _all_pids() if process_uid(pid) == uid and not _zombie(pid)]


def pids_with_marker(marker: str) -> list[int]:
    found = []
    for pid in _all_pids():
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline and pid != os.getpid() and not _zombie(pid):
            found.append(pid)
    return found


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in "ZX"
    except (OSError, IndexError):
        return True


def _all_pids() -> list[int]:
    return [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]
