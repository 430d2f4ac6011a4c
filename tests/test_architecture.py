"""The pure packages import no web or task framework (DESIGN.md section 1)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PURE = [
    "games",
    "bots/protocol",
    "bots/sdk",
    "bots/builtin",
    "bots/referee",
    "bots/sandbox",
    "tournaments/formats",
    "tournaments/ratings",
]
FORBIDDEN = {"django", "rest_framework", "celery", "channels", "kombu", "daphne", "uvicorn"}


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize("package", [p for p in PURE if (ROOT / p).is_dir()])
def test_pure_package_imports_no_framework(package):
    offenders = {}
    for path in (ROOT / package).rglob("*.py"):
        bad = imported_roots(path) & FORBIDDEN
        if bad:
            offenders[str(path.relative_to(ROOT))] = sorted(bad)
    assert not offenders, f"framework imports in pure code: {offenders}"


def test_games_imports_nothing_of_ours_but_games():
    for path in (ROOT / "games").rglob("*.py"):
        assert not imported_roots(path) & {"bots", "tournaments", "config"}, path


def test_the_check_detects_a_framework_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from django.db import models\n")
    assert imported_roots(bad) & FORBIDDEN == {"django"}
