"""A worker's local cache of bot uploads, keyed by SHA-256, capped in size (LRU).

Pure Python (no web or task framework): the caller passes a function that
fetches an upload's bytes from the bot store.

::

    cache = BotCache(Path("/var/cache/cardroom/bots"), max_bytes=1 << 30)
    tree = cache.tree(sha256, "mybot.zip", fetch=lambda: store_bytes(sha256))
    ProcessPlayer.from_path(tree)

Layout under the cache's root (private to the worker)::

    blobs/<sha256>              the upload as stored (checked against its name)
    trees/<key>/                the upload unpacked by bots.archive (run from here)
    trees/<key>.json            the stamp: tree digest, bytes, last use (its mtime)
    locks/<key>                 one builder at a time per key on this machine

``<key>`` is the hash plus a short hash of the upload's file name (a single
program file unpacks under its own name). Before a tree is handed out, the
tree is hashed again and compared with its stamp, whose digest was computed
when it was unpacked from a blob that matched its SHA-256; a cached blob is
checked against its hash before it is unpacked. Anything that does not match
is thrown away and rebuilt (from the store if the blob is bad): a damaged file
is never run.

The cache evicts the least recently used entries once their total size
exceeds ``max_bytes``, except entries used in the last ``keep_s`` seconds (a
match of another process of this worker may be running them).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from bots.archive import DEFAULT_LIMITS, UploadLimits, extract_upload

log = logging.getLogger(__name__)

Fetch = Callable[[], bytes]


class CacheCorrupt(OSError):
    """Fetched bytes do not hash to the SHA-256 they were fetched for."""


class BotCache:
    """A size-capped cache of uploads and their unpacked trees under ``root``."""

    def __init__(
        self,
        root: Path,
        *,
        max_bytes: int,
        keep_s: float = 3600.0,
        limits: UploadLimits = DEFAULT_LIMITS,
    ) -> None:
        if max_bytes < 1:
            raise ValueError(f"max_bytes must be positive, got {max_bytes!r}")
        self.root, self.max_bytes, self.keep_s, self.limits = Path(root), max_bytes, keep_s, limits
        self.fetches = 0  # uploads fetched from the store by this object (for tests, logs)

    # -- public ----------------------------------------------------------------------

    def tree(self, sha256: str, filename: str, *, fetch: Fetch) -> Path:
        """The verified unpacked tree of the upload ``sha256`` named ``filename``.

        ``fetch()`` is called only when the cache has no good copy of the upload;
        its bytes must hash to ``sha256`` (:class:`CacheCorrupt` otherwise, nothing
        kept). Errors of ``fetch`` propagate. ``ArchiveError`` if the upload does
        not unpack (it did when it was accepted, so that is the platform's problem).
        """
        key = self._key(sha256, filename)
        tree, stamp = self._trees / key, self._trees / f"{key}.json"
        with self._lock(key):
            if self._tree_ok(tree, stamp, sha256):
                os.utime(stamp)
                return tree
            self._build(sha256, filename, tree, stamp, fetch)
        self.evict(keep=key)
        return tree

    def evict(self, *, keep: str = "") -> list[str]:
        """Drop least recently used entries until the total fits ``max_bytes``; their keys."""
        entries = []
        for stamp in self._trees.glob("*.json"):
            with contextlib.suppress(OSError, ValueError):
                entries.append(
                    (stamp.stat().st_mtime, json.loads(stamp.read_text())["bytes"], stamp)
                )
        total = sum(size for _, size, _ in entries)
        dropped, now = [], time.time()
        for used, size, stamp in sorted(entries, key=lambda e: e[0]):
            if total <= self.max_bytes:
                break
            key = stamp.name.removesuffix(".json")
            if key == keep or now - used < self.keep_s:
                continue
            with self._lock(key):
                self._drop(key)
            total -= size
            dropped.append(key)
        return dropped

    def total_bytes(self) -> int:
        """Bytes held by the cache's entries (blobs and trees), as counted in the stamps."""
        total = 0
        for stamp in self._trees.glob("*.json"):
            with contextlib.suppress(OSError, ValueError):
                total += json.loads(stamp.read_text())["bytes"]
        return total

    # -- building ----------------------------------------------------------------------

    def _build(self, sha256: str, filename: str, tree: Path, stamp: Path, fetch: Fetch) -> None:
        content = self._blob(sha256, fetch)
        staging = Path(tempfile.mkdtemp(prefix=".unpack-", dir=self._trees))
        try:
            extract_upload(filename, content, staging, limits=self.limits)
            os.chmod(staging, 0o755)  # readable by the sandbox's unprivileged user
            digest, size = tree_digest(staging, sha256)
            with contextlib.suppress(FileNotFoundError):
                stamp.unlink()
            _remove(tree)
            staging.rename(tree)
        except BaseException:
            _remove(staging)
            raise
        _write_atomic(stamp, json.dumps({"digest": digest, "bytes": size + len(content)}).encode())

    def _blob(self, sha256: str, fetch: Fetch) -> bytes:
        """The upload's bytes: the cached blob if it still hashes right, else fetched."""
        path = self._blobs / sha256
        with contextlib.suppress(FileNotFoundError):
            content = path.read_bytes()
            if hashlib.sha256(content).hexdigest() == sha256:
                return content
            log.warning("cached upload %s no longer matches its hash: fetching it again", sha256)
            path.unlink()
        content = fetch()
        self.fetches += 1
        actual = hashlib.sha256(content).hexdigest()
        if actual != sha256:
            raise CacheCorrupt(f"fetched upload {sha256} hashes to {actual}: not kept")
        _write_atomic(path, content)
        return content

    def _tree_ok(self, tree: Path, stamp: Path, sha256: str) -> bool:
        try:
            expected = json.loads(stamp.read_text())["digest"]
        except (OSError, ValueError, KeyError, TypeError):
            return False
        if not tree.is_dir():
            return False
        if tree_digest(tree, sha256)[0] == expected:
            return True
        log.warning("cached tree %s no longer matches its digest: unpacking it again", tree.name)
        return False

    def _drop(self, key: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            (self._trees / f"{key}.json").unlink()
        _remove(self._trees / key)
        sha256 = key.split("-", 1)[0]
        if not any(self._trees.glob(f"{sha256}-*.json")):
            with contextlib.suppress(FileNotFoundError):
                (self._blobs / sha256).unlink()

    # -- places ----------------------------------------------------------------------

    @property
    def _trees(self) -> Path:
        return self._dir("trees")

    @property
    def _blobs(self) -> Path:
        return self._dir("blobs")

    def _dir(self, name: str) -> Path:
        # Private to the worker's user; only a tree itself is readable by the sandbox's
        # user (the sandbox mounts it, so the user never walks these directories).
        path = self.root / name
        if not path.is_dir():
            path.mkdir(mode=0o700, parents=True, exist_ok=True)
        return path

    @staticmethod
    def _key(sha256: str, filename: str) -> str:
        return f"{sha256}-{hashlib.sha256(filename.encode()).hexdigest()[:12]}"

    @contextlib.contextmanager
    def _lock(self, key: str) -> Iterator[None]:
        locks = self._dir("locks")
        with open(locks / key, "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


def tree_digest(root: Path, sha256: str) -> tuple[str, int]:
    """(SHA-256 over every path, mode and file content under ``root``, bound to the
    upload's ``sha256``; total bytes of the files)."""
    digest, size = hashlib.sha256(sha256.encode()), 0
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        digest.update(f"{path.relative_to(root).as_posix()}\0{info.st_mode:o}\0".encode())
        if path.is_file() and not path.is_symlink():
            with open(path, "rb") as handle:
                for chunk in iter(lambda: handle.read(1 << 16), b""):
                    digest.update(chunk)
            size += info.st_size
        digest.update(b"\0")
    return digest.hexdigest(), size


def _write_atomic(path: Path, content: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
