"""Resource limits for one sandboxed bot process (one match)."""

from __future__ import annotations

from dataclasses import dataclass, fields

MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Caps applied to a bot for the whole match.

    ``memory_mb`` caps the whole bot's memory (its cgroup's memory limit:
    every process, ``memfd`` and tmpfs page counts) and also each process's
    address space (``RLIMIT_AS``, so that one process that allocates too much
    usually gets a clean ``MemoryError`` first). ``processes`` caps the
    processes and threads alive at once (the cgroup's ``pids.max`` and
    ``RLIMIT_NPROC``); ``cpu_cores`` is the bot's CPU bandwidth (its cgroup's
    quota, in cores). ``cpu_seconds``, ``file_size_mb`` and ``open_files``
    apply to each process; ``scratch_mb`` is the size of its private writable
    ``/tmp``; ``stderr_bytes`` is how much of its log the platform keeps (the
    last bytes).
    """

    cpu_seconds: int = 600
    memory_mb: int = 1024
    processes: int = 64
    file_size_mb: int = 16
    open_files: int = 128
    stderr_bytes: int = 64 * 1024
    scratch_mb: int = 64
    cpu_cores: float = 1.0

    def __post_init__(self) -> None:
        cores = self.cpu_cores
        if isinstance(cores, bool) or not isinstance(cores, int | float) or not 0.01 <= cores <= 64:
            raise ValueError(f"Limits.cpu_cores must be a number in [0.01, 64], got {cores!r}")
        for field in fields(self):
            if field.name == "cpu_cores":
                continue
            value = getattr(self, field.name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"Limits.{field.name} must be a positive int, got {value!r}")
        if self.open_files < 16:
            raise ValueError(f"Limits.open_files must be at least 16, got {self.open_files}")

    def prlimit_args(self) -> list[str]:
        """The limits as ``prlimit`` options (soft = hard, so a bot cannot raise them)."""
        return [
            f"--cpu={self.cpu_seconds}",
            f"--as={self.memory_mb * MIB}",
            f"--nproc={self.processes}",
            f"--fsize={self.file_size_mb * MIB}",
            f"--nofile={self.open_files}",
            "--core=0",
        ]
