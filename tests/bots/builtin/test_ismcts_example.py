"""The sandboxed search example (bots/examples/python-search) samples worlds and searches.

It runs as an uploaded bot would (sandboxed, through ``manage.py match``),
importing only the mounted ``bots.sdk`` and ``games``; its log shows the
worlds and playouts of every searched decision.
"""

from __future__ import annotations

import json

from django.core.management import call_command


def test_search_example_plays_legally_in_the_sandbox_and_searches(tmp_path):
    out = tmp_path / "m.json"
    call_command(
        "match",
        "money-jordan",
        "bots/examples/python-search",
        "builtin:greedy",
        "--games",
        "2",
        "--duplicate",
        "--seed",
        "5",
        "--move-ms",
        "100",
        "--option",
        "money.max_plays=200",
        "--json",
        str(out),
    )
    data = json.loads(out.read_text())
    statuses = [s["status"] for g in data["games"] for s in g["statuses"]]
    assert statuses == ["ok"] * 4
    searched = [line for line in data["logs"][0].splitlines() if " worlds, " in line]
    assert searched, data["logs"][0][-2000:]
    worlds = [int(line.split(": ")[1].split(" worlds")[0]) for line in searched]
    assert min(worlds) >= 1
