"""A bot's stderr, drained as it is written: its last bytes, one decision's first bytes.

A daemon thread per bot reads the pipe without end, so a log flood blocks neither the
bot nor the referee; it keeps the end of the log (``Limits.stderr_bytes``) for the
referee and the bot's author, and, while the referee asks for one decision, that
decision's first bytes (its trace). Every byte may also go to a ``StderrArchive``.
"""

from __future__ import annotations

import os
import select
import threading
import time

from .stderr_archive import StderrArchive

#: Most bytes read from a bot's pipe at once (its stdout and its stderr).
READ_CHUNK = 64 * 1024
#: Most stderr chunks read at once under the log's lock (1 MiB).
STDERR_READS_AT_ONCE = 16
#: Longest wait of a capture for the stderr a bot wrote before it answered to be read.
STDERR_SETTLE_S = 0.05


class StderrTail:
    """Drain a pipe on a daemon thread, keeping only its last ``cap`` bytes.

    Between :meth:`capture_begin` and :meth:`capture_end` it also keeps the first
    bytes written meanwhile (one decision's stderr). Every read of the pipe happens
    under the lock and without blocking, so a capture that ends reads first what the
    bot wrote before it answered: nothing is left in flight on the draining thread.
    """

    def __init__(self, pipe, cap: int, archive: StderrArchive | None = None) -> None:
        self._fd = pipe.fileno()
        self._pipe = pipe
        self._cap = cap
        #: Fed every byte read, in order, by the draining thread alone, outside the lock.
        self._archive = archive
        self._unarchived: list[bytes] = []
        self._data = bytearray()
        self._capture: bytearray | None = None
        self._capture_cap = 0
        self._capture_cut = False
        self._closed = False
        self._lock = threading.Lock()
        self._drained = threading.Condition(self._lock)
        self._pending = select.poll()
        self._pending.register(self._fd, select.POLLIN)
        os.set_blocking(self._fd, False)
        self._thread = threading.Thread(target=self._drain, name="bot-stderr", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        ready = select.poll()
        ready.register(self._fd, select.POLLIN)
        while True:
            try:
                ready.poll()
            except OSError:
                return
            with self._lock:
                more = self._read_available()
                self._drained.notify_all()
                read, self._unarchived = self._unarchived, []
            if self._archive is not None:  # compressed off the lock the referee waits on
                for chunk in read:
                    self._archive.feed(chunk)
            if not more:
                return

    def _read_available(self) -> bool:
        """Read what the pipe holds now (lock held), at most :data:`STDERR_READS_AT_ONCE`
        chunks (a bot that writes without end cannot keep the lock); False at its end."""
        for _ in range(STDERR_READS_AT_ONCE):
            if self._closed:  # a closed pipe's number may be another file's now
                return False
            try:
                chunk = os.read(self._fd, READ_CHUNK)
            except BlockingIOError:
                return True
            except OSError:
                return False
            if not chunk:
                return False
            if self._archive is not None:
                self._unarchived.append(chunk)
            self._data += chunk
            if len(self._data) > self._cap:
                del self._data[: len(self._data) - self._cap]
            if self._capture is not None:
                room = self._capture_cap - len(self._capture)
                self._capture += chunk[: max(0, room)]
                self._capture_cut = self._capture_cut or len(chunk) > room
        return True

    def text(self) -> str:
        with self._lock:
            return self._data.decode("utf-8", errors="replace")

    def _settled(self) -> None:
        """Wait (lock held) until the draining thread has read what the pipe holds now
        (at most :data:`STDERR_SETTLE_S`): the thread reads, this one never competes."""
        deadline = None
        while not self._closed and self._pending.poll(0):
            if deadline is None:
                deadline = time.monotonic() + STDERR_SETTLE_S
            left = deadline - time.monotonic()
            if left <= 0 or not self._thread.is_alive():
                return
            self._drained.wait(left)

    def settle(self) -> None:
        """Wait (briefly) until what the pipe holds now has been read: before the end of
        the log is read for why the bot died."""
        with self._lock:
            self._settled()

    def capture_begin(self, cap: int) -> None:
        """Start keeping the first ``cap`` bytes written from now on."""
        with self._lock:
            self._settled()
            self._capture, self._capture_cap, self._capture_cut = bytearray(), cap, False

    def capture_end(self) -> tuple[bytes, bool]:
        """What was written since :meth:`capture_begin` (at most its ``cap`` bytes) and
        whether more was written; ``(b"", False)`` without a capture."""
        with self._lock:
            self._settled()
            captured, cut = bytes(self._capture or b""), self._capture_cut
            self._capture, self._capture_cut = None, False
            return captured, cut

    def close(self, timeout_s: float = 2.0) -> None:
        self._thread.join(timeout_s)
        if not self._thread.is_alive():
            with self._lock:
                self._closed = True
                self._pipe.close()
