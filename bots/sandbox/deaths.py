"""Which limit killed a bot, from how its process ended, its cgroup's counts and the
end of its stderr.

Pure: ``BotProcess`` gathers the facts (:class:`Death`), :func:`limit_that_killed`
names the limit. A limit is named only on evidence of it, never because a bot merely
died:

- **memory**: the kernel OOM-killed one of its processes (v2 ``memory.events``
  ``oom_kill``, v1 ``memory.oom_control`` ``oom_kill``); or its stderr ends with a
  Python ``MemoryError`` (numpy's ``_ArrayMemoryError`` too: the address-space limit,
  ``RLIMIT_AS``, refused one process an allocation); or its group reached its memory
  limit (v2 ``memory.events`` ``oom``, v1 ``memory.failcnt``) and it then died of
  ``SIGABRT``, ``SIGSEGV``, ``SIGBUS`` or ``SIGKILL``, or on an error saying that no
  memory could be allocated (``ENOMEM``, ``out of memory``, ``std::bad_alloc``);
- **CPU**: it died of ``SIGKILL`` or ``SIGXCPU`` (``RLIMIT_CPU``) with its CPU time
  used up;
- **file size**: it died of ``SIGXFSZ`` (``RLIMIT_FSIZE``), or ended on the
  ``EFBIG`` error that runtimes ignoring the signal get instead (Python's
  ``OSError: [Errno 27] File too large``, node's ``code: 'EFBIG'``).
"""

from __future__ import annotations

import re
import signal
from dataclasses import dataclass

MEMORY, CPU, FILE_SIZE = "memory", "CPU", "file size"

#: Python's last line for an uncaught ``MemoryError`` or a subclass of it.
MEMORY_ERROR = re.compile(r"^(?:[\w.]+\.)?\w*MemoryError\b")
#: An error saying an allocation failed (trusted only when the group hit its limit).
NO_MEMORY = re.compile(r"Cannot allocate memory|\bENOMEM\b|out of memory|bad_alloc", re.I)
#: ``EFBIG`` as Python and C (``strerror``) word it.
FILE_TOO_LARGE = re.compile(r"File too large", re.I)
#: ``EFBIG`` as node reports an uncaught error, in the object closing its report.
NODE_EFBIG = "code: 'EFBIG'"
#: How many of the last non-empty stderr lines hold node's closing object.
NODE_TAIL_LINES = 6
#: Signals a runtime dies of when an allocation fails (abort, a NULL dereference...).
ALLOCATION_DEATHS = frozenset({signal.SIGABRT, signal.SIGSEGV, signal.SIGBUS, signal.SIGKILL})


@dataclass(frozen=True)
class Death:
    """What is known of how a bot's process ended.

    ``status`` is the exit status of the process we started (bwrap reports a signal
    as 128 + its number; a plain process's negative number is the signal), None if it
    still runs or we killed it. ``oom_kills`` and ``memory_hits`` are its cgroup's
    counts (OOM kills; times it reached its memory limit), ``cpu_used_up`` whether its
    CPU time reached its limit, ``stderr`` the end of its log.
    """

    status: int | None
    oom_kills: int = 0
    memory_hits: int = 0
    cpu_used_up: bool = False
    stderr: str = ""

    @property
    def signal(self) -> int | None:
        """The signal it died of, or None (it exited, still runs, or we killed it)."""
        if self.status is None:
            return None
        if self.status < 0:
            return -self.status
        return self.status - 128 if self.status > 128 else None


def limit_that_killed(death: Death) -> str | None:
    """:data:`MEMORY`, :data:`CPU` or :data:`FILE_SIZE`: the limit ``death`` shows the bot
    died of (the module docstring says on what evidence), or None for any other end."""
    if death.oom_kills:
        return MEMORY
    killed_by = death.signal
    if killed_by in (signal.SIGKILL, signal.SIGXCPU) and death.cpu_used_up:
        return CPU
    if killed_by == signal.SIGXFSZ:
        return FILE_SIZE
    if not death.status:  # exited cleanly, still runs, or we killed it
        return None
    lines = [line for line in death.stderr.splitlines() if line.strip()]
    last = lines[-1].strip() if lines else ""
    if MEMORY_ERROR.match(last):
        return MEMORY
    if death.memory_hits and (killed_by in ALLOCATION_DEATHS or NO_MEMORY.search(last)):
        return MEMORY
    if FILE_TOO_LARGE.search(last) or any(NODE_EFBIG in line for line in lines[-NODE_TAIL_LINES:]):
        return FILE_SIZE
    return None
