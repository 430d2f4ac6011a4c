"""The pure engines are mounted in the sandbox: a bot imports ``games``, and cannot change it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bots.builtin import make
from bots.referee import InProcessPlayer, ProcessPlayer, play_match
from bots.sandbox import isolation, resolve, spawn

HERE = Path(__file__).resolve().parent
ENGINE_BOT = HERE / "engine_bot.py"

TAMPER_BOT = r"""
import json, os, sys
targets = ["/opt/cardroom/games/__init__.py", "/opt/cardroom/games/manni/state.py",
           "/opt/cardroom/bots/sdk/__init__.py"]
report = {}
for path in targets:
    tries = {}
    for name, attempt in [
        ("append", lambda p: open(p, "a").write("x")),
        ("chmod", lambda p: os.chmod(p, 0o777)),
        ("unlink", lambda p: os.unlink(p)),
        ("rename", lambda p: os.rename(p, p + ".moved")),
        ("create", lambda p: open(os.path.join(os.path.dirname(p), "planted.py"), "w")),
    ]:
        try:
            attempt(path)
            tries[name] = "done"
        except OSError as error:
            tries[name] = type(error).__name__
    report[path] = tries
import games
report["load"] = games.load("manni-basic").new_game(1).legal_actions()
print(json.dumps(report), flush=True)
"""


def logged(text: str, kind: str) -> list[dict]:
    lines = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    return [line for line in lines if line["kind"] == kind]


@pytest.mark.parametrize("variant", ["manni-basic", "maniglia-4-partners", "money-jordan"])
def test_a_sandboxed_bot_imports_the_engine_loads_its_variant_and_replays(variant):
    import games

    players = games.load(variant).num_players
    bot = ProcessPlayer.from_path(ENGINE_BOT)
    others = [InProcessPlayer(make("random", seed=s)) for s in range(players - 1)]

    result = play_match(variant, [bot, *others], games_count=1, seed=3)

    assert result.games[0].statuses[0]["status"] == "ok", result.logs[0]
    log = result.logs[0]
    [hello] = logged(log, "hello")
    assert hello == {
        "kind": "hello",
        "module": "/opt/cardroom/games/__init__.py",
        "variant": variant,
        "players": players,
        "hello_players": players,
    }
    acts = logged(log, "act")
    assert acts, log
    for line in acts:
        assert line == {
            "kind": "act",
            "variant": True,
            "seat": True,
            "same_keys": True,
            "replayed": True,
        }


def test_a_hostile_bot_cannot_change_the_mounted_engine_or_sdk(tmp_path):
    program = tmp_path / "tamper.py"
    program.write_text(TAMPER_BOT)
    command, bot_dir = resolve(program)

    with spawn(command, bot_dir=bot_dir) as bot:
        report = json.loads(bot.readline(timeout_s=30))

    for path in [
        "/opt/cardroom/games/__init__.py",
        "/opt/cardroom/games/manni/state.py",
        "/opt/cardroom/bots/sdk/__init__.py",
    ]:
        assert set(report[path].values()) <= {"OSError", "PermissionError"}, report[path]
    assert report["load"]  # and the engine still works after the attempts


def test_the_copied_packages_hold_every_module_of_games_and_the_sdk_read_only():
    copies = isolation.packages()

    copied = {str(path.relative_to(copies)) for path in copies.rglob("*") if path.is_file()}
    root = Path(isolation.__file__).resolve().parents[2]
    expected = {
        str(path.relative_to(root))
        for package in ("games", "bots/sdk")
        for path in (root / package).rglob("*.py")
        if "__pycache__" not in path.parts
    }
    assert expected <= copied
    assert (copies / "bots" / "__init__.py").read_text() == ""  # not the Django app's package
    assert not [name for name in copied if "__pycache__" in name or name.endswith(".pyc")]
    assert {(copies / name).stat().st_mode & 0o777 for name in copied} == {0o444}
    assert isolation.packages() == copies  # made once per process
