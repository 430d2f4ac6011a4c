"""A bot's whole stderr over a match, gzip-compressed as it is read, up to a hard cap.

The platform keeps the last ``Limits.stderr_bytes`` of a bot's stderr as its log and
some of each decision's in the traces; a :class:`StderrArchive` keeps all of it for the
bot's owner: every byte the bot writes, in order, compressed as it arrives, up to
``cap`` bytes (uncompressed) a match. Past the cap the bytes are counted, not kept,
so that what a bot writes costs at most ``cap`` of the host's memory (the compressed
bytes, never more than the raw ones and a few bytes of framing) and the compressor's
own few hundred KiB, and at most ``cap`` bytes of compression work. The bytes are a gzip
file (RFC 1952), which ``gunzip`` and every browser read as they are.

Thread-safe: a bot's stderr is drained on a thread of its own (``stderr_tail.StderrTail``),
which feeds the archive outside the lock the referee waits on.
"""

from __future__ import annotations

import threading
import zlib
from dataclasses import dataclass

from .limits import MIB

#: The most stderr bytes one bot's archive keeps of a match (uncompressed).
FULL_STDERR_BYTES = 8 * MIB
#: zlib's window bits for a gzip header and trailer.
GZIP_WBITS = 16 + zlib.MAX_WBITS
#: Fast compression: the archive is written on the host that referees the match.
COMPRESS_LEVEL = 3


@dataclass(frozen=True)
class FullStderr:
    """A finished archive: ``data`` (gzip) holds the first ``kept`` bytes of the
    ``written`` bytes a bot wrote to stderr (all of them unless ``cut``)."""

    data: bytes
    kept: int
    written: int

    @property
    def cut(self) -> bool:
        return self.written > self.kept

    def __add__(self, other: FullStderr) -> FullStderr:
        """Two archives as one: a gzip file may hold several members, read in order."""
        return FullStderr(
            self.data + other.data, self.kept + other.kept, self.written + other.written
        )


class StderrArchive:
    """Compress what :meth:`feed` is given, up to ``cap`` bytes; :meth:`finish` ends it."""

    def __init__(self, cap: int = FULL_STDERR_BYTES, *, level: int = COMPRESS_LEVEL) -> None:
        if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
            raise ValueError(f"cap must be a positive int, got {cap!r}")
        self.cap = cap
        self._compressor = zlib.compressobj(level, zlib.DEFLATED, GZIP_WBITS)
        self._out = bytearray()
        self._kept = 0
        self._written = 0
        self._finished: FullStderr | None = None
        self._lock = threading.Lock()

    def feed(self, chunk: bytes) -> None:
        """Add what the bot wrote next (ignored once finished)."""
        with self._lock:
            if self._finished is not None:
                return
            self._written += len(chunk)
            room = self.cap - self._kept
            if room <= 0 or not chunk:
                return
            kept = chunk[:room]
            self._kept += len(kept)
            self._out += self._compressor.compress(kept)

    def finish(self) -> FullStderr:
        """The archive so far, ended (idempotent: later calls return the same)."""
        with self._lock:
            if self._finished is None:
                self._out += self._compressor.flush()
                self._finished = FullStderr(bytes(self._out), self._kept, self._written)
                self._out = bytearray()
            return self._finished
