"""Players: what sits at a seat during a match, in-process or in a sandboxed process.

A player answers ``start`` (the ``hello`` handshake), ``act`` (one decision)
and ``notify`` (a ``result``), and raises :class:`BotFault` when the bot
misbehaves. After a fault the player is finished for the rest of the match.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from bots import protocol, sandbox
from bots.referee.encoding import HISTORY_DELTA, HISTORY_DELTA_VERSION, ActEncoder, orjson
from bots.referee.traces import STDERR_DECISION_BYTES
from bots.sdk import Bot

OK, ILLEGAL, TIMEOUT, CRASH, MALFORMED, FLOOD, NOT_READY, OUT_OF_TURN, MEMORY = (
    "ok",
    "illegal",
    "timeout",
    "crash",
    "malformed",
    "flood",
    "not-ready",
    "out-of-turn",
    "memory",
)


#: How a reason starts when a limit stopped the bot (``killed: over its <limit> of <value>``).
KILLED = "killed: "


def over_clock_reason(move_ms: int, bank_ms: int) -> str:
    """The reason of a decision stopped for using more CPU time than its clock had left:
    ``killed: over its time of 2.0 s move + 20.0 s bank``."""
    return f"{KILLED}over its time of {_seconds(move_ms)} s move + {_seconds(bank_ms)} s bank"


def _seconds(ms: int) -> str:
    """``2.0`` for 2,000 ms, ``13.437`` for 13,437 ms: tenths, or as many digits as it has."""
    return f"{ms / 1000:.1f}" if ms % 100 == 0 else f"{ms / 1000:.3f}".rstrip("0")


#: Between the logs of a player's processes (a duplicate match starts one per rotation).
LOG_SEPARATOR = "\n--- next process (a new rotation of the deals) ---\n"


class BotFault(Exception):
    """A bot broke the rules of the protocol (FORFEIT-1): ``status`` says how."""

    def __init__(self, status: str, reason: str) -> None:
        super().__init__(f"{status}: {reason}")
        self.status = status
        self.reason = reason


class Player:
    """One participant of a match. Subclasses implement the four calls."""

    #: Whether its ``act`` messages are paced (``TimeControl.pace_ms``): a built-in of the
    #: platform's is not (it signals to nobody; pacing its instant answers only slowed
    #: every match of house bots and every validation tenfold).
    paced: bool = True

    name = "player"
    wants_observation = True
    #: True when ``act`` only encodes the message before returning (bot programs): the
    #: referee then gives it ``State.shared_observation``, never kept nor changed.
    encodes_observation = False
    fault: BotFault | None = None
    #: What each decision was charged, in ms, in order (see ``TimeControl.charge_ms``).
    charged_ms: list[float]
    #: Set by the referee when it keeps decision traces (``bots.referee.traces``).
    tracing = False
    #: Whether :meth:`decision_log` can say anything (stderr, an answer line with a note).
    logs_decisions = False
    #: What the next decision may be charged, ``(move_ms, bank_ms)`` (the move limit and
    #: the bank left), set by the referee before each ``act``; None: not said. A player
    #: that counts CPU time stops a decision as soon as its CPU time passes their sum
    #: (``timeout``, :func:`over_clock_reason`).
    clock: tuple[int, int] | None = None

    def start(self, hello: dict[str, Any], timeout_s: float) -> None:
        raise NotImplementedError

    def start_begin(self, hello: dict[str, Any], timeout_s: float) -> None:
        """The first half of ``start``: the referee starts every player of a match at
        once, then waits for each (:meth:`start_end`). By default all of ``start``
        happens in :meth:`start_end`."""
        self._starting = (hello, timeout_s)

    def start_end(self) -> None:
        """Wait for the player begun by :meth:`start_begin` to be ready."""
        hello, timeout_s = self._starting
        self.start(hello, timeout_s)

    def act(self, message: dict[str, Any], timeout_s: float) -> str:
        raise NotImplementedError

    def notify(self, message: dict[str, Any]) -> None:
        raise NotImplementedError

    def cpu_time_ns(self) -> int | None:
        """CPU time the bot used so far, or None if it is not counted (wall time is charged)."""
        return None

    def wait_snapshot(self) -> Any:
        """Taken just before a decision, what :meth:`waited_ms` needs to tell how long the
        bot was kept from running by others during it; None where that is not measured."""
        return None

    def waited_ms(self, snapshot: Any) -> float | None:
        """How long, since ``snapshot``, the bot's threads waited for a CPU (the longest
        wait of one thread) plus how long the referee's own thread did; None where that
        is not measured (the bot is then charged by ``TimeControl.UNMEASURED_FACTOR``)."""
        return None

    def note_charge(self, used_ms: float) -> None:
        """Record what the referee charged one decision (``charged_ms``)."""
        if "charged_ms" not in vars(self):
            self.charged_ms = []
        self.charged_ms.append(used_ms)

    def decision_log(self) -> tuple[bytes, bool, bytes]:
        """Of the last ``act``, when ``tracing``: the stderr captured during it (at most
        ``traces.STDERR_DECISION_BYTES``), whether more was written, and the answer line."""
        return b"", False, b""

    def close(self) -> None:
        """Release the bot (idempotent)."""

    def log(self) -> str:
        """The bot's captured stderr (capped), if any."""
        return ""

    def full_stderr(self) -> Any:
        """Once closed, the bot's whole stderr compressed
        (``bots.sandbox.stderr_archive.FullStderr``) if it kept it, else None."""
        return None


class _OwnSchedstat(threading.local):
    """Per thread: its ``/proc/<tid>/schedstat``, open while the thread lives."""

    fd: int | None = None

    def __del__(self) -> None:
        if self.fd is not None:
            os.close(self.fd)


_own_schedstat = _OwnSchedstat()


def own_run_delay_ns() -> int | None:
    """How long the calling thread has waited on a run queue (``/proc/<tid>/schedstat``,
    kept open per thread), or None where the kernel keeps no such count."""
    try:
        if _own_schedstat.fd is None:
            path = f"/proc/self/task/{threading.get_native_id()}/schedstat"
            _own_schedstat.fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        return int(os.pread(_own_schedstat.fd, 128, 0).split()[1])
    except (OSError, ValueError, IndexError):
        return None


class InProcessPlayer(Player):
    """A trusted bot object (built-ins) called directly: no process, no clock."""

    def __init__(self, bot: Bot, name: str | None = None) -> None:
        self.bot = bot
        self.name = name or bot.name
        self.wants_observation = bot.needs_observation

    def start(self, hello: dict[str, Any], timeout_s: float) -> None:
        self._call(self.bot.start, hello)

    def act(self, message: dict[str, Any], timeout_s: float) -> str:
        label = self._call(self.bot.act, message["observation"], message["legal"])
        if not isinstance(label, str):
            raise BotFault(MALFORMED, f"act returned {type(label).__name__}, not a label")
        return label

    def notify(self, message: dict[str, Any]) -> None:
        self._call(self.bot.game_over, message)

    def _call(self, fn, *args):
        try:
            return fn(*args)
        except Exception as exc:  # a bug in the bot is its own fault, never the referee's
            raise BotFault(CRASH, f"{type(exc).__name__}: {exc}") from exc


#: How long ``bye`` may wait for a bot to read its input before the bot is killed anyway.
BYE_TIMEOUT_S = 0.05

#: Protocol extensions offered to bot programs in ``hello`` (name -> version; PROTOCOL.md).
OFFERED = {HISTORY_DELTA: HISTORY_DELTA_VERSION}


def offered_hello(hello: dict[str, Any]) -> dict[str, Any]:
    """The ``hello`` as a bot program is sent it: with the extensions it is offered."""
    return {**hello, "extensions": OFFERED}


def accepted_extensions(ready_line: bytes) -> dict[str, int]:
    """The extensions a bot accepted in its ``ready`` line (a valid ready reply).

    Absent or empty ``extensions``: none (a version 1 bot). Raises
    ``BotFault`` (``malformed``) naming the problem when ``extensions`` is not
    an object of offered names with their offered versions.
    """
    asked = json.loads(ready_line).get("extensions", {})
    if not isinstance(asked, dict):
        raise BotFault(MALFORMED, f"extensions must be an object, got {asked!r:.80}")
    for name, version in asked.items():
        if name not in OFFERED:
            offered = ", ".join(f"{n} {v}" for n, v in OFFERED.items())
            raise BotFault(
                MALFORMED, f"unknown protocol extension {name!r:.80} (offered: {offered})"
            )
        if type(version) is not int or version != OFFERED[name]:
            raise BotFault(
                MALFORMED,
                f"extension {name} version {version!r:.40} is not offered "
                f"(offered: version {OFFERED[name]})",
            )
    return dict(asked)


def _quick_action(line: bytes) -> str | None:
    """The ``action`` of a well-formed reply, parsed by ``orjson``; None for anything else.

    ``orjson`` reads strictly what ``json`` reads (it refuses NaN, lone
    surrogates and invalid UTF-8, which ``protocol.parse_reply`` then handles),
    so a reply it parses has the same ``action``. Every other case, malformed
    replies and their wording included, is left to ``protocol.parse_reply``.
    """
    if orjson is None or len(line) > protocol.MAX_LINE_BYTES:
        return None
    try:
        message = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    if type(message) is dict:
        action = message.get("action")
        if type(action) is str:
            return action
    return None


class ProcessPlayer(Player):
    """A bot program run by ``bots.sandbox`` and spoken to in JSON lines."""

    encodes_observation = True
    logs_decisions = True

    def __init__(
        self,
        command: list[str],
        bot_dir: Path,
        *,
        name: str,
        limits: Any = None,
        sandboxed: bool = True,
        spawn_options: dict[str, Any] | None = None,
        stderr_archive_bytes: int = 0,
    ) -> None:
        self.command = command
        self.bot_dir = Path(bot_dir)
        self.name = name
        self.limits = limits
        self.sandboxed = sandboxed
        #: More keywords for ``sandbox.spawn`` (the benchmark turns controls off with them).
        self.spawn_options = dict(spawn_options or {})
        self.process = None
        self._past_logs: list[str] = []
        self.encoder = ActEncoder()
        #: The protocol extensions the running process accepted in its ``ready``.
        self.extensions: dict[str, int] = {}
        self._reply = b""  # the last line read from the bot
        self._decision_stderr: tuple[bytes, bool] = (b"", False)  # of the last act (tracing)
        #: Every byte of its stderr over the match, compressed, up to so many (0: not kept).
        self._archive = (
            sandbox.StderrArchive(stderr_archive_bytes) if stderr_archive_bytes else None
        )

    @classmethod
    def from_path(
        cls,
        path: str | Path,
        *,
        limits: Any = None,
        sandboxed: bool = True,
        spawn_options: dict[str, Any] | None = None,
        stderr_archive_bytes: int = 0,
    ) -> ProcessPlayer:
        command, bot_dir = sandbox.resolve(path)
        return cls(
            command,
            bot_dir,
            name=Path(path).name,
            limits=limits,
            sandboxed=sandboxed,
            spawn_options=spawn_options,
            stderr_archive_bytes=stderr_archive_bytes,
        )

    def start(self, hello: dict[str, Any], timeout_s: float) -> None:
        self.start_begin(hello, timeout_s)
        self.start_end()

    def start_begin(self, hello: dict[str, Any], timeout_s: float) -> None:
        """Spawn the bot and write its ``hello``; :meth:`start_end` reads its ``ready``.

        The bot's ``timeout_s`` runs from here: bots begun together start up side
        by side, each on its own clock."""
        kwargs = {"bot_dir": self.bot_dir, "sandboxed": self.sandboxed, **self.spawn_options}
        if self.limits is not None:
            kwargs["limits"] = self.limits
        if self.process is not None:  # a new rotation: keep the last process's log
            self.process.kill()
            self._past_logs.append(self.process.stderr_tail())
            if self._archive is not None:
                self._archive.feed(LOG_SEPARATOR.encode())
        if self._archive is not None:
            kwargs["stderr_archive"] = self._archive
        self.process = sandbox.spawn(self.command, **kwargs)
        self._ready_by = time.monotonic() + timeout_s
        self._starting_fault: BotFault | None = None
        try:
            self._send(protocol.encode(offered_hello(hello)))
        except BotFault as fault:
            self._starting_fault = fault  # said by start_end, as a late ready would be

    def start_end(self) -> None:
        try:
            if self._starting_fault is not None:
                raise self._starting_fault
            remaining = max(0.0, self._ready_by - time.monotonic())
            self._receive(remaining, "ready")
            self.extensions = accepted_extensions(self._reply)
            self.process.set_deciding(False)  # until its first turn
        except BotFault as fault:
            if fault.status == MEMORY:  # said as it is, whenever it happens
                raise
            raise BotFault(NOT_READY, fault.reason) from None
        self.encoder = ActEncoder(delta=HISTORY_DELTA in self.extensions)

    def act(self, message: dict[str, Any], timeout_s: float) -> str:
        self._reply, self._decision_stderr = b"", (b"", False)  # nothing of an earlier one
        if self.process.pending():
            raise BotFault(OUT_OF_TURN, "the bot wrote output before it was asked to act")
        # Its turn: full CPU weight, so that no other bot's load slows it down.
        self.process.set_deciding(True)
        if self.tracing:
            self.process.stderr_capture_begin(STDERR_DECISION_BYTES)
        cpu_until_ns = self._cpu_until_ns()
        try:
            return self._exchange(self.encoder.encode(message), timeout_s, "action", cpu_until_ns)
        finally:
            self.process.set_deciding(False)
            if self.tracing:
                self._decision_stderr = self.process.stderr_capture_end()

    def _cpu_until_ns(self) -> int | None:
        """The bot's CPU count at which this decision has used all its ``clock`` allows
        (None: no clock, or no CPU count)."""
        used_ns = self.process.cpu_time_ns() if self.clock is not None else None
        if used_ns is None:
            return None
        move_ms, bank_ms = self.clock
        return used_ns + (move_ms + max(0, bank_ms)) * 1_000_000

    def decision_log(self) -> tuple[bytes, bool, bytes]:
        stderr, cut = self._decision_stderr
        return stderr, cut, self._reply

    def cpu_time_ns(self) -> int | None:
        """The CPU time of the bot's process tree, from its cgroup (None without one)."""
        return self.process.cpu_time_ns() if self.process is not None else None

    def wait_snapshot(self) -> tuple[dict[int, int], int] | None:
        delays = self.process.run_delays_ns() if self.process is not None else None
        own = own_run_delay_ns()
        return None if delays is None or own is None else (delays, own)

    def waited_ms(self, snapshot: tuple[dict[int, int], int] | None) -> float | None:
        if snapshot is None or self.process is None:
            return None
        delays, own = self.process.run_delays_ns(), own_run_delay_ns()
        if delays is None or own is None:
            return None
        before, own_before = snapshot
        bot = max((d - before.get(tid, 0) for tid, d in delays.items()), default=0)
        return (max(bot, 0) + max(own - own_before, 0)) / 1e6

    def notify(self, message: dict[str, Any]) -> None:
        """Send ``message``; a bot that stopped reading its input is out (``timeout``).

        A dead bot is noticed at its next decision."""
        try:
            self._send(protocol.encode(message))
        except BotFault as fault:
            if fault.status == TIMEOUT:
                raise

    def _exchange(
        self, line: bytes, timeout_s: float, key: str, cpu_until_ns: int | None = None
    ) -> Any:
        self._send(line)
        return self._receive(timeout_s, key, cpu_until_ns)

    def _send(self, line: bytes) -> None:
        try:
            self.process.send(line)
        except sandbox.ReadTimeout:  # WriteTimeout: it stopped reading its input
            raise BotFault(TIMEOUT, "the bot stopped reading its input") from None
        except sandbox.MemoryExceeded as exc:  # before BotGone, its base class
            raise BotFault(MEMORY, str(exc)) from None
        except sandbox.LimitExceeded as exc:  # "killed: over its CPU limit of ..."
            raise BotFault(CRASH, str(exc)) from None
        except sandbox.BotGone as exc:
            raise BotFault(CRASH, f"the bot exited or closed its pipe ({exc})") from None

    def _receive(self, timeout_s: float, key: str, cpu_until_ns: int | None = None) -> Any:
        try:
            line = self.process.readline(
                timeout_s, protocol.MAX_LINE_BYTES, cpu_until_ns=cpu_until_ns
            )
            self._reply = line
            if key == "action":
                action = _quick_action(line)
                if action is not None:
                    return action
            return protocol.parse_reply(line, key)
        except sandbox.CpuBudgetExceeded:  # before ReadTimeout, its base class
            raise BotFault(TIMEOUT, over_clock_reason(*self.clock)) from None
        except sandbox.ReadTimeout:
            raise BotFault(TIMEOUT, f"no answer within {timeout_s:.3f} s") from None
        except sandbox.MemoryExceeded as exc:  # before BotGone, its base class
            raise BotFault(MEMORY, str(exc)) from None
        except sandbox.LimitExceeded as exc:  # "killed: over its CPU limit of ..."
            raise BotFault(CRASH, str(exc)) from None
        except sandbox.BotGone as exc:
            raise BotFault(CRASH, f"the bot exited or closed its pipe ({exc})") from None
        except sandbox.LineTooLong:
            raise BotFault(FLOOD, f"a line longer than {protocol.MAX_LINE_BYTES} bytes") from None
        except protocol.ProtocolError as exc:
            raise BotFault(MALFORMED, str(exc)) from None

    def close(self) -> None:
        """Say ``bye`` if the bot still reads its input (without waiting for one that
        does not), then kill its processes, whatever happened."""
        if self.process is None:
            return
        try:
            with contextlib.suppress(sandbox.BotGone, sandbox.ReadTimeout):
                self.process.send(protocol.encode(protocol.bye()), timeout_s=BYE_TIMEOUT_S)
        finally:
            self.process.kill()

    def log(self) -> str:
        """Every process's stderr tail in order, separated by a line naming the restart."""
        logs = [*self._past_logs]
        if self.process is not None:
            logs.append(self.process.stderr_tail())
        # A NUL is no character a text column (PostgreSQL) or a page can hold.
        return LOG_SEPARATOR.join(logs).replace("\x00", "\N{REPLACEMENT CHARACTER}")

    def full_stderr(self) -> sandbox.FullStderr | None:
        """Every byte the bot's processes wrote to stderr, compressed, up to
        ``stderr_archive_bytes`` (None if not kept); ends the archive: call it once the
        player is closed."""
        return None if self._archive is None else self._archive.finish()
