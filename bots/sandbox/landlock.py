"""What a bot may read under ``/proc``: Landlock, set up inside the sandbox.

Two bots of one match that map the same page of a shared runtime file (``/usr``)
could tell each other so through the kernel's count of who maps it: a process's own
``/proc/<pid>/pagemap`` says whether a page it maps is mapped by anyone else
("exclusively mapped", bit 56), and ``smaps``, ``smaps_rollup`` and ``numa_maps``
say the same in other words. That is a silent, reusable channel (a hand of cards a
move), and no mount can hide per-process files whose paths depend on the pid.

So before the bot's command runs, a small launcher (:data:`LAUNCHER`, run by the
sandbox's ``/usr/bin/python3`` between bwrap and ``prlimit``) restricts itself and
everything it starts with a Landlock ruleset that handles reading files and
directories: everything outside ``/proc`` stays readable (each entry of the root is
allowed), the synthetic and harmless files at the top of ``/proc`` too, and of the
per-process files only the bot's first process's ``status``, ``stat``, ``statm``,
``cmdline``, ``comm``, ``maps`` and ``limits`` (glibc and language runtimes read
them) and its ``fd`` directory. Nothing else of ``/proc/<pid>``: no ``pagemap``,
``smaps``, ``numa_maps``, ``cgroup`` (it names the worker's host pid), ``mounts``,
``net`` (host-wide socket counters); nor ``/proc/cgroups``. Writing and executing
are not handled: they stay as the mounts make them.

A kernel without Landlock (``ABI`` 0) runs the bot without it; ``python -m
bots.sandbox`` says so.
"""

from __future__ import annotations

import ctypes
import functools

PYTHON = "/usr/bin/python3"

#: Run as ``python3 -I -S -c LAUNCHER COMMAND...``: sets up Landlock, then execs COMMAND.
LAUNCHER = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
READ_FILE, READ_DIR = 1 << 2, 1 << 3
class Attr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64)]
class Beneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]
def fail(what):
    err = ctypes.get_errno()
    sys.stderr.write("sandbox: landlock %s: %s\n" % (what, os.strerror(err)))
    sys.exit(125)
if libc.syscall(444, None, 0, 1) >= 1:
    attr = Attr(READ_FILE | READ_DIR)
    ruleset = libc.syscall(444, ctypes.byref(attr), ctypes.sizeof(attr), 0)
    if ruleset < 0:
        fail("create_ruleset")
    def allow(path):
        if os.path.islink(path) or not os.path.exists(path):
            return
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        access = READ_FILE | READ_DIR if os.path.isdir(path) else READ_FILE
        if libc.syscall(445, ruleset, 1, ctypes.byref(Beneath(access, fd)), 0) != 0:
            fail("add_rule " + path)
        os.close(fd)
    for name in os.listdir("/"):
        if name != "proc":
            allow("/" + name)
    rule = Beneath(READ_DIR, os.open("/proc", os.O_PATH | os.O_CLOEXEC))
    if libc.syscall(445, ruleset, 1, ctypes.byref(rule), 0) != 0:
        fail("add_rule /proc")
    for name in os.listdir("/proc"):
        if not name.isdigit() and name not in HIDDEN:
            allow("/proc/" + name)
    own = "/proc/%d/" % os.getpid()
    for name in OWN:
        allow(own + name)
    if libc.prctl(38, 1, 0, 0, 0) != 0:
        fail("no_new_privs")
    if libc.syscall(446, ruleset, 0) != 0:
        fail("restrict_self")
    os.close(ruleset)
os.execv(sys.argv[1], sys.argv[1:])
"""

#: Entries at the top of /proc that stay unreadable (besides every pid directory).
HIDDEN = ("self", "thread-self", "net", "mounts", "cgroups")
#: The files of the bot's first process that it may read (``fd``: a directory).
OWN = ("status", "stat", "statm", "cmdline", "comm", "maps", "limits", "fd")


def launcher() -> list[str]:
    """The argv prefix that runs a command under the ruleset (empty without Landlock)."""
    if abi() < 1:
        return []
    code = f"HIDDEN = {HIDDEN!r}\nOWN = {OWN!r}\n{LAUNCHER}"
    return [PYTHON, "-I", "-S", "-c", code]


@functools.cache
def abi() -> int:
    """The kernel's Landlock ABI version; 0 without Landlock."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        version = libc.syscall(444, None, 0, 1)  # LANDLOCK_CREATE_RULESET_VERSION
    except (OSError, AttributeError):
        return 0
    return max(0, int(version))
