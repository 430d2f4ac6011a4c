"""Two copies in one match try to pass a hand through the kernel's count of who maps a
page of a shared runtime file.

The first seat (the sender) maps one page of a ``/usr`` file for each card of its
hand, plus a marker page. The other (the receiver) maps the same pages and asks its
own ``/proc/self/pagemap`` whether each is mapped by anyone else (bit 56, "exclusively
mapped", clear), or its ``smaps`` (``Shared_Clean``). It logs the hand it decoded, or
why it could not read the count."""

import json
import mmap
import os
import struct
import sys

FILE = "/usr/lib/python3.11/pydoc_data/topics.py"
CARDS = [rank + suit for suit in "SHDC" for rank in "23456789TJQKA"]
BASE = 64
MARK = BASE + 52
fd = os.open(FILE, os.O_RDONLY)
held: dict[int, mmap.mmap] = {}


def hold(pages):
    for page in list(held):
        if page not in pages:
            held.pop(page).close()
    for page in pages:
        if page not in held:
            held[page] = mmap.mmap(fd, 4096, mmap.MAP_SHARED, mmap.PROT_READ, offset=page * 4096)
            held[page][0]


def mapped_by_another(page: int) -> bool:
    mapping = mmap.mmap(fd, 4096, mmap.MAP_SHARED, mmap.PROT_READ, offset=page * 4096)
    mapping[0]
    try:
        offset, start = f"{page * 4096:08x}", None
        with open("/proc/self/maps") as maps:
            for line in maps:
                fields = line.split()
                if len(fields) >= 6 and fields[5] == FILE and fields[2] == offset:
                    start = int(fields[0].split("-")[0], 16)
        with open("/proc/self/pagemap", "rb") as pagemap:
            pagemap.seek(start // 4096 * 8)
            entry = struct.unpack("<Q", pagemap.read(8))[0]
        return not (entry >> 56) & 1
    finally:
        mapping.close()


role = None
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        role = "sender" if message["seat"] == 0 else "receiver"
        print(json.dumps({"ready": True}), flush=True)
    elif message["type"] == "act":
        hand = message["observation"]["hand"]
        if role == "sender":
            hold({BASE + CARDS.index(card) for card in hand} | {MARK})
            sys.stderr.write(f"sent {' '.join(sorted(hand))}\n")
        else:
            try:
                if mapped_by_another(MARK):
                    got = sorted(c for i, c in enumerate(CARDS) if mapped_by_another(BASE + i))
                    sys.stderr.write(f"received {' '.join(got)}\n")
            except OSError as error:
                sys.stderr.write(f"no count: {error.strerror}\n")
        sys.stderr.flush()
        print(json.dumps({"action": message["legal"][0]}), flush=True)
    elif message["type"] == "bye":
        break
