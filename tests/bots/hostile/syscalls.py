"""Hostile bot: on ``act`` makes raw system calls and reports what each returned.

The hello ``options`` carry ``calls``: ``{label: [number, arg, ...]}``. Each
call runs in a forked child (so one that succeeds changes nothing here), and
the report says ``"ok"``, the errno name (``"EPERM"``), or ``"signal N"``
when the child was killed. An argument ``"FD"`` is replaced by a descriptor
open on this file. The report also covers ordinary things (threads, fork,
subprocesses, files, /tmp) and system calls of foreign architectures (i386
``int 0x80``, x32) under ``"arch"``.
"""

import ctypes
import errno
import json
import mmap
import os
import subprocess
import sys
import threading

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
X32_BIT = 0x40000000
GETPID_X86_64 = 39
#: mov eax, 20 (getpid on i386); int 0x80; ret
I386_GETPID = bytes([0xB8, 20, 0, 0, 0, 0xCD, 0x80, 0xC3])


def in_child(work):
    """Run ``work()`` (returning a short string) in a forked child; its result or fate."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        try:
            result = work()
        except BaseException as error:  # report, never fall back into the parent's loop
            result = "raised " + type(error).__name__
        os.write(write_end, result.encode()[:200])
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        result = pipe.read().decode()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return f"signal {os.WTERMSIG(status)}"
    return result


def raw_call(number, args, fd):
    def work():
        values = [ctypes.c_long(fd if arg == "FD" else arg) for arg in args]
        result = LIBC.syscall(ctypes.c_long(number), *values)
        if result == 0 and number in (56, 435):  # a clone that worked: this is its child
            os._exit(0)
        if result < 0:
            return errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
        return "ok"

    return in_child(work)


def i386_call():
    page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(I386_GETPID)
    address = ctypes.addressof(ctypes.c_char.from_buffer(page))
    result = ctypes.CFUNCTYPE(ctypes.c_int)(address)()
    return "ok" if result > 0 else f"returned {result}"


def x32_call():
    result = LIBC.syscall(ctypes.c_long(X32_BIT | GETPID_X86_64))
    return "ok" if result > 0 else errno.errorcode.get(ctypes.get_errno(), "?")


def ordinary():
    """Things every bot may do; each "ok" or what went wrong."""
    found = {}
    box = []
    thread = threading.Thread(target=lambda: box.append("ok"))
    thread.start()
    thread.join()
    found["thread"] = box[0] if box else "no result"
    pid = os.fork()
    if pid == 0:
        os._exit(7)
    found["fork"] = "ok" if os.waitpid(pid, 0)[1] >> 8 == 7 else "bad status"
    done = subprocess.run(["/bin/sh", "-c", "echo hi"], capture_output=True, text=True)
    found["subprocess"] = "ok" if done.stdout == "hi\n" else repr(done)
    with open(__file__, "rb") as handle:
        found["read own file"] = "ok" if handle.read(3) == b'"""' else "bad"
    with open("/tmp/scratch", "w") as handle:
        handle.write("x" * 1000)
    found["write /tmp"] = "ok" if os.path.getsize("/tmp/scratch") == 1000 else "bad"
    found["listdir /usr/lib"] = "ok" if os.listdir("/usr/lib") else "empty"
    return found


calls = {}
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        calls = message.get("options", {}).get("calls", {})
        print(json.dumps({"ready": True, "name": "syscalls"}), flush=True)
    elif message["type"] == "act":
        fd = os.open(__file__, os.O_RDONLY)
        report = {label: raw_call(spec[0], spec[1:], fd) for label, spec in calls.items()}
        # Closed before reading this file again: where F_SETLEASE worked (outside the
        # sandbox), a child left a write lease on the descriptor, and opening the file would
        # wait for it to be given up (the kernel's lease-break-time: 45 s).
        os.close(fd)
        report["ordinary"] = ordinary()
        report["arch"] = {"i386": in_child(i386_call), "x32": in_child(x32_call)}
        with open("/proc/self/status") as status:
            report["seccomp"] = [row for row in status if row.startswith("Seccomp")]
        print(json.dumps({"action": message["legal"][0], "report": report}), flush=True)
