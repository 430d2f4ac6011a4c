"""Hostile bot pair: a sender tries to pass a hand of cards to a receiver in another sandbox.

One program, two roles, chosen by the hello ``options``:

- ``{"role": "receive"}``: at hello it watches the card files (inotify) and
  notes their access times; on ``act`` it looks at every channel it knows and
  reports, per channel, what it saw for each card, without deciding anything.
- ``{"role": "send", "hand": [card, ...]}``: at hello it holds, for each card
  in its hand, every kind of lock and lease on that card's file, adds the
  hand to its user keyring, and (option ``drop``: only in a sandbox!) tries
  to leave a file on the shared runtime;
  it then keeps reading its cards' files (inotify, atime) until it is killed.
  Its hello reply says how each attempt went.

Card ``n`` is the ``n``-th regular file of ``CARD_DIRECTORY`` (sorted): a
world-readable file of the read-only ``/usr`` that both sandboxes share.
"""

import ctypes
import errno
import fcntl
import json
import os
import select
import struct
import sys
import threading
import time

CARD_DIRECTORY = "/usr/share/zoneinfo/America"
CARDS = 52
#: Where a sandboxed sender tries to leave its hand (the receiver has a /tmp of its own).
DROP_FILES = ["/usr/cardroom-hand", "/bot/cardroom-hand", "/opt/cardroom/cardroom-hand"]
DROP_FILES += ["/tmp/cardroom-hand"]
KEY_DESCRIPTION = b"cardroom-hand"
KEY_SPEC_USER_KEYRING = -4
SYS_ADD_KEY, SYS_KEYCTL = 248, 250
KEYCTL_SET_TIMEOUT, KEYCTL_SEARCH, KEYCTL_READ = 15, 10, 11
IN_OPEN, IN_ACCESS = 0x20, 0x01
LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long


def card_files():
    names = sorted(os.listdir(CARD_DIRECTORY))
    paths = [os.path.join(CARD_DIRECTORY, name) for name in names]
    return [path for path in paths if os.path.isfile(path) and not os.path.islink(path)][:CARDS]


def outcome(action):
    """ "ok", the result, or the errno name of ``action()``."""
    try:
        result = action()
    except OSError as error:
        return errno.errorcode.get(error.errno, str(error.errno))
    return result if isinstance(result, str) else "ok"


def libc_error():
    return OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


def flock_struct(kind):
    return struct.pack("hhqqi", kind, 0, 0, 0, 0)


def lock_holder(fd, command):
    """F_GETLK-style query: the lock type some other process holds (2 = none)."""
    answer = fcntl.fcntl(fd, command, flock_struct(fcntl.F_WRLCK))
    return str(struct.unpack("hhqqi", answer)[0])


class Sender:
    def __init__(self, hand, drop):
        self.files = card_files()
        self.hand = hand
        self.drop_files = DROP_FILES if drop else []
        self.fds = []  # kept open: the locks and leases live as long as they do
        self.report = {}

    def signal(self):
        for card in self.hand:
            path = self.files[card]
            for name, make in [
                ("flock", lambda fd: fcntl.flock(fd, fcntl.LOCK_SH)),
                ("posix lock", lambda fd: fcntl.fcntl(fd, fcntl.F_SETLK, flock_struct(0))),
                ("ofd lock", lambda fd: fcntl.fcntl(fd, fcntl.F_OFD_SETLK, flock_struct(0))),
                ("lease", lambda fd: fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK)),
            ]:
                fd = os.open(path, os.O_RDONLY)
                self.fds.append(fd)
                self.report.setdefault(name, set()).add(outcome(lambda make=make, fd=fd: make(fd)))
        self.report["keyring"] = {outcome(self.add_key)}
        for path in self.drop_files:
            self.report[f"drop {path}"] = {outcome(lambda path=path: self.drop(path))}
        threading.Thread(target=self.keep_reading, daemon=True).start()
        return {name: sorted(results) for name, results in self.report.items()}

    def add_key(self):
        data = json.dumps(self.hand).encode()
        key = LIBC.syscall(
            SYS_ADD_KEY, b"user", KEY_DESCRIPTION, data, len(data), KEY_SPEC_USER_KEYRING
        )
        if key < 0:
            raise libc_error()
        LIBC.syscall(SYS_KEYCTL, KEYCTL_SET_TIMEOUT, key, 120)  # never outlive the test

    def drop(self, path):
        with open(path, "w") as handle:
            handle.write(json.dumps(self.hand))

    def keep_reading(self):
        while True:
            for card in self.hand:
                with open(self.files[card], "rb") as handle:
                    handle.read()
            time.sleep(0.01)


class Receiver:
    def __init__(self):
        self.files = card_files()
        self.atimes = [os.stat(path).st_atime_ns for path in self.files]
        self.watches = {}
        self.inotify = LIBC.inotify_init1(os.O_NONBLOCK)
        self.inotify_setup = "ok" if self.inotify >= 0 else errno.errorcode[ctypes.get_errno()]
        if self.inotify >= 0:
            for card, path in enumerate(self.files):
                watch = LIBC.inotify_add_watch(self.inotify, path.encode(), IN_OPEN | IN_ACCESS)
                self.watches[watch] = card

    def look(self):
        """Per channel, one observation per card (the same for every card = nothing)."""
        seen = {"inotify setup": self.inotify_setup, "inotify": self.inotify_cards()}
        for name, probe in [
            ("flock", lambda fd: fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)),
            ("posix lock", lambda fd: lock_holder(fd, fcntl.F_GETLK)),
            ("ofd lock", lambda fd: lock_holder(fd, fcntl.F_OFD_GETLK)),
            ("lease", lambda fd: str(fcntl.fcntl(fd, fcntl.F_GETLEASE))),
        ]:
            row = []
            for path in self.files:
                fd = os.open(path, os.O_RDONLY)
                row.append(outcome(lambda probe=probe, fd=fd: probe(fd)))
                os.close(fd)
            seen[name] = row
        seen["atime"] = [
            str(os.stat(path).st_atime_ns != before)
            for path, before in zip(self.files, self.atimes, strict=True)
        ]
        seen["keyring"] = outcome(self.find_key)
        seen["dropped"] = [path for path in DROP_FILES if os.path.exists(path)]
        return seen

    def inotify_cards(self):
        if self.inotify < 0:
            return []
        cards = set()
        deadline = time.monotonic() + 1.0
        while (remaining := deadline - time.monotonic()) > 0:
            select.select([self.inotify], [], [], remaining)
            try:
                data = os.read(self.inotify, 65536)
            except BlockingIOError:
                continue
            for offset in range(0, len(data), 16):
                watch = struct.unpack_from("i", data, offset)[0]
                if watch in self.watches:
                    cards.add(self.watches[watch])
        return sorted(cards)

    def find_key(self):
        key = LIBC.syscall(
            SYS_KEYCTL, KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, b"user", KEY_DESCRIPTION, 0
        )
        if key < 0:
            raise libc_error()
        buffer = ctypes.create_string_buffer(256)
        size = LIBC.syscall(SYS_KEYCTL, KEYCTL_READ, key, buffer, 256)
        return buffer.raw[: max(size, 0)].decode(errors="replace")


role = None
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        options = message.get("options", {})
        if options.get("role") == "send":
            role = Sender(options["hand"], options.get("drop", False))
            attempts = role.signal()
        else:
            role = Receiver()
            attempts = {}
        print(json.dumps({"ready": True, "name": "channel", "attempts": attempts}), flush=True)
    elif message["type"] == "act":
        report = role.look() if isinstance(role, Receiver) else {}
        print(json.dumps({"action": message["legal"][0], "report": report}), flush=True)
