"""What a bot's ``/proc`` shows of the host: the host-wide counters two bots could signal
through are emptied (:data:`EMPTIED`), and the files programs parse (the CPU count, the
memory, the load) are synthetic and frozen (:func:`synthetic`). ``bots.sandbox.isolation``
covers the fresh ``/proc`` with them."""

from __future__ import annotations

import contextlib
import functools
import os
from pathlib import Path

from .limits import Limits

#: Host-wide counters in /proc that two bots could signal through: emptied.
EMPTIED = (
    "vmstat",
    "zoneinfo",
    "buddyinfo",
    "pagetypeinfo",
    "slabinfo",
    "vmallocinfo",
    "interrupts",
    "softirqs",
    "diskstats",
    "schedstat",
    "locks",
    "keys",
    "key-users",
    "timer_list",
    "pressure/cpu",
    "pressure/io",
    "pressure/memory",
    "pressure/irq",
    "sys/fs/file-nr",
    "sys/fs/inode-nr",
    "sys/fs/inode-state",
    "sys/fs/dentry-state",
    "sys/fs/dentry-negative",
    "sys/fs/aio-nr",
    "sys/kernel/pty/nr",
    "sys/kernel/random/boot_id",
)


def synthetic(limits: Limits) -> dict[str, bytes]:
    """Files programs parse (glibc's CPU count, node's os module): plausible and frozen."""
    cpus = os.cpu_count() or 1
    zero = " 0" * 10
    stat_lines = [f"cpu {zero}", *(f"cpu{n}{zero}" for n in range(cpus))]
    stat_lines += ["intr 0", "ctxt 0", f"btime {_boot_time()}", "processes 0"]
    stat_lines += ["procs_running 1", "procs_blocked 0", "softirq 0"]
    kib = limits.memory_mb * 1024
    meminfo = [f"MemTotal: {kib} kB", f"MemFree: {kib} kB", f"MemAvailable: {kib} kB"]
    meminfo += ["Buffers: 0 kB", "Cached: 0 kB", "SwapTotal: 0 kB", "SwapFree: 0 kB"]
    return {
        "loadavg": b"0.00 0.00 0.00 1/1 1\n",
        "stat": ("\n".join(stat_lines) + "\n").encode(),
        "meminfo": ("\n".join(meminfo) + "\n").encode(),
        "uptime": b"0.00 0.00\n",
        "swaps": b"Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n",
        "sys/kernel/random/entropy_avail": b"256\n",
    }


@functools.cache
def _boot_time() -> int:
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/stat").read_text().splitlines():
            if line.startswith("btime "):
                return int(line.split()[1])
    return 0
