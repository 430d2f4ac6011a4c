"""Bots in the sandbox get the compiled engine (bots/sandbox/engine.py), and it plays the
same games as the pure source: the referee's records, whichever engine a bot uses.

The build is what ``make install`` made for the platform (build/native); the sandbox's
Python is Debian's /usr/bin/python3. Where the build fits it, a bot must load it;
where nothing fits, every bot gets the pure source and the platform says why.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
from pathlib import Path

import games
from bots.sandbox import description, engine, isolation, resolve, spawn
from games import native

#: Seeds of every variant whose records a bot and the referee compare.
SEEDS = range(24)  # from 0: DIGEST_BOT plays range(STOP)

ENGINE_PROBE = """
import json, sys
import games, games.native
tricks = sys.modules["games.tricks"]
print(json.dumps({
    "built": games.native.built() is not None,
    "modules": list(games.native.MODULES),
    "tricks": tricks.__spec__.origin,
}), flush=True)
"""


def records_digest(variant: str) -> str:
    """SHA-256 of the records of :data:`SEEDS`, each played out by ``random.Random(seed)``."""
    game = games.load(variant)
    records = []
    for seed in SEEDS:
        state = game.new_game(seed)
        state.playout(random.Random(seed))
        records.append(state.record())
    return hashlib.sha256(json.dumps(records, sort_keys=True).encode()).hexdigest()


DIGEST_BOT = """
import hashlib, json, os, random
if ASK_PURE:
    os.environ["CARDROOM_PURE_ENGINES"] = "1"  # a bot may ask for the pure source
import games, games.native
SEEDS = range(STOP)
def records_digest(variant):
    game = games.load(variant)
    records = []
    for seed in SEEDS:
        state = game.new_game(seed)
        state.playout(random.Random(seed))
        records.append(state.record())
    return hashlib.sha256(json.dumps(records, sort_keys=True).encode()).hexdigest()
out = {"modules": list(games.native.MODULES)}
out.update((variant, records_digest(variant)) for variant in games.variants())
print(json.dumps(out), flush=True)
"""


def digest_bot(*, pure: bool) -> str:
    return DIGEST_BOT.replace("ASK_PURE", str(pure)).replace("STOP", str(SEEDS.stop))


def run_bot(tmp_path: Path, name: str, source: str) -> dict:
    program = tmp_path / name
    program.write_text(source)
    command, bot_dir = resolve(program)
    with spawn(command, bot_dir=bot_dir) as bot:
        return json.loads(bot.readline(timeout_s=120))


def expected_modules() -> list[str]:
    """What bots must load: the platform's build when the sandbox's Python shares its
    extension suffix (as on every supported host), else nothing."""
    if native.pure_forced() or native.built() is None:
        return []
    runtime = engine.runtime(isolation.RUNTIMES["python3"])
    assert runtime is not None, "the sandbox's python3 does not run"
    return list(native.built()["modules"]) if runtime[1] == native.extension_suffix() else []


def test_a_bot_in_the_sandbox_reads_the_compiled_build(tmp_path):
    if os.environ.get("CARDROOM_EXPECT_NATIVE") == "1":
        assert native.built() is not None, "CARDROOM_EXPECT_NATIVE=1 but no build (make install)"
    want = expected_modules()

    probe = run_bot(tmp_path, "probe.py", ENGINE_PROBE)

    assert probe["modules"] == want
    assert probe["built"] is bool(want)
    assert probe["tricks"].startswith("/opt/cardroom/")
    assert probe["tricks"].endswith(".so" if want else "/games/tricks.py"), probe
    assert isolation.bots_engine().modules == tuple(want)
    assert ("compiled" if want else "pure source") in description.describe()["engine"]


def test_every_record_is_the_referees_whichever_engine_a_bot_uses(tmp_path):
    """Every variant, the same seeded playouts: the referee's records (its own engine),
    a sandboxed bot's with the engine it gets, and with the pure source it may ask for."""
    referee = {variant: records_digest(variant) for variant in games.variants()}

    given = run_bot(tmp_path, "given.py", digest_bot(pure=False))
    pure = run_bot(tmp_path, "pure.py", digest_bot(pure=True))

    assert given.pop("modules") == expected_modules()
    assert pure.pop("modules") == []
    assert given == referee
    assert pure == referee


def test_without_a_fitting_build_bots_get_the_pure_source_with_a_warning(
    tmp_path, monkeypatch, caplog
):
    caplog.set_level(logging.WARNING, logger="bots.sandbox.engine")
    monkeypatch.delenv(native.PURE_VARIABLE, raising=False)

    missing = engine.install(tmp_path / "a", python=str(tmp_path / "no-python"))
    monkeypatch.setattr(engine, "BUILDS", (tmp_path / "no-build",))
    unbuilt = engine.install(tmp_path / "b")

    assert not missing.compiled and "does not run" in missing.reason
    assert not unbuilt.compiled and "make install" in unbuilt.reason
    assert not (tmp_path / "b" / "build").exists()
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warned == [
        f"bots get the pure source of the engines: {missing.reason}",
        f"bots get the pure source of the engines: {unbuilt.reason}",
    ]


def test_a_build_the_sandbox_python_cannot_load_is_not_given_to_bots(tmp_path, monkeypatch, caplog):
    """A complete, current marker over a library that is not one: checked, then left out."""
    monkeypatch.delenv(native.PURE_VARIABLE, raising=False)
    suffix = engine.runtime()[1]
    broken = tmp_path / "native"
    marker = {
        "modules": ["games.tricks"],
        "library": "games.native__mypyc",
        "abi": suffix,
        "sources": {"games.tricks": native.source_digest("games.tricks")},
    }
    for name in ("games.tricks", "games.native__mypyc"):
        path = native.module_file(name, broken, suffix)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"not an ELF file")
    (broken / "BUILT").write_text(json.dumps(marker))
    assert native.built(broken, suffix) is not None  # it looks like a build that fits
    copies = tmp_path / "copies"
    isolation._copy_package(native.PACKAGE, copies / "games")
    monkeypatch.setattr(engine, "BUILDS", (broken,))
    caplog.set_level(logging.WARNING, logger="bots.sandbox.engine")

    got = engine.install(copies)

    assert not got.compiled and "did not load the build" in got.reason
    assert not (copies / "build").exists()
    assert [r.getMessage() for r in caplog.records] == [
        f"bots get the pure source of the engines: {got.reason}"
    ]
