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
    """The kernel killed a process of the bot for going over its memory limit.

    A subclass of :class:`BotGone`: the bot is killed as soon as this is seen.
    """


class CpuExceeded(LimitExceeded):
    """A process of the bot used up its CPU seconds (``RLIMIT_CPU``) and was killed."""


class FileSizeExceeded(LimitExceeded):
    """A process of the bot wrote past its file size limit (``RLIMIT_FSIZE``) and was
    killed by ``SIGXFSZ`` (it did not handle the signal)."""


class ReadTimeout(Exception):
    """The bot did not produce a full line within the time allowed."""


class WriteTimeout(ReadTimeout):
    """The bot stopped reading its input, so a message could not be delivered in time.

    A subclass of :class:`ReadTimeout`: for the referee both are the bot's timeout.
    """


class LineTooLong(Exception):
    """The bot wrote a stdout line longer than allowed (a flood)."""
