"""The optional compiled build of the engines (build_engines.py, games/native.py).

When ``build/native/BUILT`` is there, ``import games`` must load every module
it lists from the build, unless ``CARDROOM_PURE_ENGINES`` asks for the pure
source; in every other case every module of ``games`` is the pure source. And
the pure source passes the engine tests while the build sits beside it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import games
from games import native

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import json, sys
import games, games.manni, games.maniglia, games.money  # every family
print(json.dumps({
    "active": list(games.native.MODULES),
    "files": {n: m.__spec__.origin for n, m in sys.modules.items()
              if (n == "games" or n.startswith("games.")) and m.__spec__ is not None},
}))
"""


def expected_native() -> list[str]:
    """The modules that must come from the build here, from BUILT and the environment."""
    if native.pure_forced() or not native.BUILT.exists():
        return []
    return json.loads(native.BUILT.read_text())["modules"]


def loaded_from(module_name: str) -> str:
    return sys.modules[module_name].__spec__.origin


def check_sources(active: list[str], files: dict[str, str], want_native: list[str]) -> None:
    assert active == want_native
    for name, origin in files.items():
        if name in want_native:
            assert Path(origin).parent.is_relative_to(native.ROOT), (name, origin)
            assert origin.endswith(".so") or origin.endswith(".pyd"), (name, origin)
        elif name.endswith("__mypyc"):  # the compiled modules' shared library
            assert want_native, f"{name} is loaded, but the pure source was asked for"
        else:
            assert origin.endswith(".py"), f"{name} is not the pure source: {origin}"
    assert set(want_native) <= set(files), "a compiled module was never imported"


def test_imports_match_the_build():
    """Built and not forced pure: every listed module is compiled; otherwise all pure."""
    want = expected_native()
    if os.environ.get("CARDROOM_EXPECT_NATIVE") == "1":
        assert want, "CARDROOM_EXPECT_NATIVE=1 but there is no compiled build (make install)"
    if want:
        assert native.built() is not None, "BUILT is incomplete, stale or for another Python"
    files = {
        name: loaded_from(name)
        for name in list(sys.modules)
        if (name == "games" or name.startswith("games.")) and sys.modules[name].__spec__
    }
    check_sources(list(games.native.MODULES), files, want)


@pytest.mark.parametrize("pure", ["1", "0", ""])
def test_pure_switch_in_a_fresh_interpreter(pure):
    """``CARDROOM_PURE_ENGINES=1`` gives the pure source; ``0`` or unset, the build if any."""
    env = {**os.environ, "CARDROOM_PURE_ENGINES": pure}
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    probe = json.loads(out.stdout)
    built = native.BUILT.exists()
    want = json.loads(native.BUILT.read_text())["modules"] if built and pure != "1" else []
    check_sources(probe["active"], probe["files"], want)


def test_a_stale_build_is_not_used(tmp_path, monkeypatch):
    """BUILT for another interpreter, with a file missing or an edited source: pure source."""
    monkeypatch.setattr(native, "ROOT", tmp_path)
    monkeypatch.setattr(native, "BUILT", tmp_path / "BUILT")
    digest = native.source_digest("games.tricks")
    marker = {
        "modules": ["games.tricks"],
        "library": "games.native__mypyc",
        "abi": ".other.so",
        "sources": {"games.tricks": digest},
    }
    native.BUILT.write_text(json.dumps(marker))
    assert native.built() is None  # another interpreter's build
    marker["abi"] = native.extension_suffix()
    native.BUILT.write_text(json.dumps(marker))
    assert native.built() is None  # the files are missing
    for name in ("games.tricks", "games.native__mypyc"):
        path = native.module_file(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"")
    assert native.built()["modules"] == ("games.tricks",)
    marker["sources"] = {"games.tricks": "0" * 64}  # games/tricks.py edited since
    native.BUILT.write_text(json.dumps(marker))
    assert native.built() is None


def compiled_families(modules: list[str]) -> set[str]:
    """The game families with a module among the compiled ``modules``."""
    return {name.split(".")[1] for name in modules if name.count(".") >= 2}


def pure_only_deselection(modules: list[str]) -> list[str]:
    """pytest's ``-k`` option leaving out the families none of whose modules is compiled:
    those run the very same pure source in the main run (no option when there are none).
    The shared modules they use (cards, random numbers, tricks) are the other families'
    too, so the pure-source run still covers every compiled module."""
    pure = sorted({games.variant_info(v).family for v in games.variants()})
    pure = [family for family in pure if family not in compiled_families(modules)]
    return ["-k", " and ".join(f"not {family}" for family in pure)] if pure else []


def test_the_pure_source_run_leaves_out_only_families_that_are_never_compiled():
    modules = ["games.rng", "games.tricks", "games.manni.state", "games.maniglia.rules"]
    assert compiled_families(modules) == {"manni", "maniglia"}
    assert pure_only_deselection(modules) == ["-k", "not money"]
    assert pure_only_deselection([*modules, "games.money.state"]) == []


@pytest.mark.slow
def test_pure_source_passes_the_engine_tests_beside_the_build():
    """The conformance suite, golden records and fast-path equivalence on the pure source,
    for every family with a compiled module (the training libraries' wrappers, which add
    no engine code, run on the build in the main run only)."""
    if not native.BUILT.exists():
        pytest.skip("no compiled build here: the main run already tested the pure source")
    modules = json.loads(native.BUILT.read_text())["modules"]
    env = {**os.environ, "CARDROOM_PURE_ENGINES": "1"}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-m",
            "not slow",
            *pure_only_deselection(modules),
            "--ignore=tests/games/envs",
            "tests/games",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert " passed" in out.stdout.splitlines()[-1]


def test_the_sandbox_copy_of_games_is_the_pure_source(tmp_path):
    """A copy of ``games/`` alone, without a build beside it, is the pure source: what bots
    get where no build fits their Python (bots/sandbox/engine.py, which copies the build
    that fits: tests/bots/sandbox/test_sandbox_engine.py)."""
    from bots.sandbox import isolation

    isolation._copy_package(ROOT / "games", tmp_path / "games")
    env = {k: v for k, v in os.environ.items() if k != "CARDROOM_PURE_ENGINES"}
    out = subprocess.run(  # run in tmp_path: the copy comes first on sys.path
        [sys.executable, "-c", PROBE], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    probe = json.loads(out.stdout)
    assert all(origin.startswith(str(tmp_path)) for origin in probe["files"].values())
    check_sources(probe["active"], probe["files"], [])


#: Played by both engines: every variant, and the Money options that change its money,
#: captures or the seven of diamonds. Money games stop at 300 plays (LIMIT-1): a random
#: Egypt game runs to the cap, 10,000 plays by default.
SHORT = {"money.max_plays": 300}
CONFIGURATIONS = [
    *((v, SHORT if games.variant_info(v).family == "money" else {}) for v in games.variants()),
    ("money-jordan", {**SHORT, "money.capture": "choice", "money.jokers": True}),
    ("money-egypt", {**SHORT, "money.eg_aces_money": True, "money.eg_seven_diamonds": True}),
    ("money-egypt", {**SHORT, "money.eg_values": "10-15-20", "money.jokers": True}),
]
DIGEST = """
import hashlib, json, random, sys
import games

def digest(variant, options, seeds):
    game = games.load(variant, **options)
    h = hashlib.sha256()
    for seed in range(seeds):
        state, draw = game.new_game(seed), random.Random(seed)
        if seed % 2:  # the fast path
            state.playout(draw)
        else:  # the step path, its legal lists, and an observation now and then
            while not state.is_over():
                ids = state.legal_ids()
                h.update(repr(ids).encode())
                if len(ids) > 1 and draw.random() < 0.1:
                    h.update(json.dumps(state.observation(state.current_player())).encode())
                state.apply_id(ids[int(draw.random() * len(ids))])
        h.update(json.dumps([state.record(), state.ranking(), state.scores()]).encode())
    return h.hexdigest()

configurations, seeds = json.loads(sys.argv[1]), int(sys.argv[2])
print(json.dumps({"modules": list(games.native.MODULES),
                  "digests": [digest(v, o, seeds) for v, o in configurations]}))
"""


def engine_digests(pure: bool, seeds: int) -> dict:
    env = {k: v for k, v in os.environ.items() if k != native.PURE_VARIABLE}
    if pure:
        env[native.PURE_VARIABLE] = "1"
    out = subprocess.run(
        [sys.executable, "-c", DIGEST, json.dumps(CONFIGURATIONS), str(seeds)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout)


def test_the_build_plays_every_game_as_the_pure_source():
    """Every variant (Money's option sets too) over many seeds, on the fast path and the
    step path: the same legal lists, observations, records, rankings and scores."""
    compiled = engine_digests(pure=False, seeds=40)
    pure = engine_digests(pure=True, seeds=40)

    build = native.built()  # whether this run itself is asked to be pure or not
    assert compiled["modules"] == (list(build["modules"]) if build else [])
    assert pure["modules"] == []
    assert compiled["digests"] == pure["digests"]
