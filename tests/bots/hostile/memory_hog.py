"""Hostile bot: on ``act`` allocates (and touches) memory until refused, then reports."""

import json
import sys

CHUNK_MB = 16


def hog(ceiling_mb=64 * 1024):
    chunks = []
    while len(chunks) * CHUNK_MB < ceiling_mb:
        try:
            chunks.append(bytearray(CHUNK_MB * 1024 * 1024))
        except MemoryError:
            break
    return {"allocated_mb": len(chunks) * CHUNK_MB, "refused": len(chunks) * CHUNK_MB < ceiling_mb}


hogged = False
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True, "name": "memory-hog"}), flush=True)
    elif message["type"] == "act":
        report, hogged = (hog(), True) if not hogged else ({}, True)  # once per process
        print(json.dumps({"action": message["legal"][0], "report": report}), flush=True)
