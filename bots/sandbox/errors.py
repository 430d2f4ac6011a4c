"""What can go wrong when running a bot program, as exceptions the referee catches."""

from __future__ import annotations


class SandboxUnavailable(RuntimeError):
    """No working sandbox on this host; uploaded bots must not run here."""


class BotGone(Exception):
    """The bot's process exited or closed its pipes (a crash, for the referee)."""


class LimitExceeded(BotGone):
    """The bot was killed by one of its limits (``Limits``); the message says which,
    with its value, as ``killed: over its <limit> of <value>``.

    A subclass of :class:`BotGone`: the bot's process is gone.
    """


class MemoryExceeded(LimitExceeded):
    """A process of the bot died of its memory limit: the kernel killed it for going over
    the group's limit, or it ended on a ``MemoryError`` (the address-space limit of one
    process), or it died on a failed allocation after the group reached its limit
    (``bots.sandbox.deaths``).

    A subclass of :class:`BotGone`: the bot is killed as soon as this is seen.
    """


class CpuExceeded(LimitExceeded):
    """A process of the bot used up its CPU seconds (``RLIMIT_CPU``) and was killed."""


class FileSizeExceeded(LimitExceeded):
    """A process of the bot wrote past its file size limit (``RLIMIT_FSIZE``) and died of
    it: killed by ``SIGXFSZ``, or ended on the ``EFBIG`` error ("File too large") its
    runtime got instead (Python and node ignore the signal)."""


class ReadTimeout(Exception):
    """The bot did not produce a full line within the time allowed."""


class CpuBudgetExceeded(ReadTimeout):
    """The bot used more CPU time while its line was awaited than the read allowed
    (``BotProcess.readline``'s ``cpu_until_ns``), measured while it ran.

    A subclass of :class:`ReadTimeout`: no answer within the time allowed, counted in
    CPU time. The bot still runs; the caller kills it. ``used_ns`` is the bot's CPU
    count (its cgroup's) when it was stopped.
    """

    def __init__(self, message: str, *, used_ns: int) -> None:
        super().__init__(message)
        self.used_ns = used_ns


class WriteTimeout(ReadTimeout):
    """The bot stopped reading its input, so a message could not be delivered in time.

    A subclass of :class:`ReadTimeout`: for the referee both are the bot's timeout.
    """


class LineTooLong(Exception):
    """The bot wrote a stdout line longer than allowed (a flood)."""
