"""Hostile bot: on ``act`` fills memory that RLIMIT_AS does not see, then reports.

``hello`` options say how: ``{"how": ..., "mb": N}`` (by default, as in a
match, whose options are the variant's: ``memfd``, 400 MiB) with ``how`` one of

- ``memfd``: one process writes N MiB into ``memfd_create`` files;
- ``tmp`` / ``shm``: writes N MiB of files to ``/tmp`` / ``/dev/shm`` (tmpfs);

Files are 8 MiB each, below the file size limit (``RLIMIT_FSIZE``), which
would stop one big file.
- ``fork``: ``children`` processes each allocate and touch N MiB of their own
  (each below its address-space limit, all together far above the bot's).

It answers ``{"action": ..., "report": {"filled_mb": n, "error": ...}}`` if
it is still alive when done (with ``fork``, once the children have filled
their part and sleep).
"""

import json
import os
import sys
import time

CHUNK = 1024 * 1024


FILE_MB = 8


def fill_files(open_file, mb):
    block = b"x" * CHUNK
    held = []
    for n in range(mb):
        if n % FILE_MB == 0:
            held.append(open_file(n // FILE_MB))
        os.write(held[-1], block)
    return mb


def fill(how, mb, children):
    if how == "memfd":
        return fill_files(lambda n: os.memfd_create(f"fill-{n}"), mb)
    if how in ("tmp", "shm"):
        directory = "/tmp" if how == "tmp" else "/dev/shm"
        flags = os.O_WRONLY | os.O_CREAT
        return fill_files(lambda n: os.open(f"{directory}/fill-{n}", flags, 0o600), mb)
    ready_r, ready_w = os.pipe()
    for _ in range(children):
        if os.fork() == 0:
            data = bytearray(mb * CHUNK)
            for i in range(0, len(data), 4096):
                data[i] = 1
            os.write(ready_w, b"1")
            time.sleep(3600)
            os._exit(0)
    got = 0
    while got < children:
        got += len(os.read(ready_r, children))
    return mb * children


options = {}
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        options = message["options"]
        print(json.dumps({"ready": True, "name": "memory-fill"}), flush=True)
    elif message["type"] == "act":
        try:
            plan = (options.get("how", "memfd"), options.get("mb", 400), options.get("children", 1))
            filled, error = fill(*plan), None
        except OSError as exc:
            filled, error = None, f"{type(exc).__name__}: {exc}"
        report = {"filled_mb": filled, "error": error}
        print(json.dumps({"action": message["legal"][0], "report": report}), flush=True)
