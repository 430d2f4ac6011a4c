"""Every rule ID of an implemented variant is cited by the docstring of at least one test
that checks something (an ``assert``, ``pytest.raises``, or a helper that does).

The rules specification ships with the project as ``docs/RULES.md``; this test
reads that copy, so it runs on a fresh clone.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import games

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "RULES.md"
DEFINED = re.compile(r"\*\*((?:[A-Z][A-Z0-9]*-)+\d+)\b")
CITED = re.compile(r"\b((?:[A-Z][A-Z0-9]*-)+\d+)\b")

#: Rule IDs each game family owns (prefixes end with "-", single IDs are exact).
FAMILY_RULES = {
    "manni": [
        "MANNI-BASIC-",
        "HORN-",
        "LAUG-",
        "EX-MANNI-",
        "EX-HORN-",
        "EX-LAUG-",
        "COMMON-",
        "LIMIT-3",
        "LIMIT-5",
        "FORFEIT-1",
        "FORFEIT-2",
        "ACTION-1",
        "ACTION-2",
        "ACTION-3",
        "ACTION-4",
        "ACTION-7",
    ],
    "maniglia": [
        "MANIGLIA-GEN-",
        "MANIGLIA-4P-",
        "MANIGLIA-AUC-",
        "EX-MANI-",
        "LIMIT-4",
        "ACTION-5",
        "COMMON-",
        "FORFEIT-1",
        "FORFEIT-2",
        "ACTION-1",
        "ACTION-7",
    ],
    "money": [
        "MONEY-JO-",
        "MONEY-EG-",
        "MONEY-SY-",
        "EX-MONEY-",
        "LIMIT-1",
        "LIMIT-2",
        "ACTION-6",
        "COMMON-",
        "FORFEIT-1",
        "FORFEIT-2",
        "ACTION-7",
    ],
}


def defined_ids() -> list[str]:
    return DEFINED.findall(RULES.read_text(encoding="utf-8"))


def owned(rule: str, patterns: list[str]) -> bool:
    return any(rule.startswith(p) if p.endswith("-") else rule == p for p in patterns)


@functools.cache
def cited_ids() -> frozenset[str]:
    """IDs named in the docstrings of the tests under tests/ that check something."""
    cited: set[str] = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        cited |= cited_in(path.read_text(encoding="utf-8"), imported_checks(path))
    return frozenset(cited)


def cited_in(source: str, imported: frozenset[str] = frozenset()) -> set[str]:
    """IDs named in the docstrings of the test functions and test classes of ``source``
    that check something (:func:`checks`); ``imported``: the names of checking helpers
    the module imports."""
    tree = ast.parse(source)
    checking = checking_functions(tree) | imported
    cited: set[str] = set()
    for node in ast.walk(tree):
        test = isinstance(node, FUNCTIONS | ast.ClassDef) and node.name.lower().startswith("test")
        if test and checks(node, checking):
            cited.update(CITED.findall(ast.get_docstring(node) or ""))
    return cited


FUNCTIONS = ast.FunctionDef | ast.AsyncFunctionDef
#: ``pytest.raises(...)``, ``pytest.warns(...)``, ``pytest.fail(...)``: checks.
PYTEST_CHECKS = {"raises", "warns", "fail"}


def checks(node: ast.AST, checking: set[str] | frozenset[str]) -> bool:
    """Whether ``node`` checks something: an ``assert``, a ``pytest.raises``/``warns``/
    ``fail``, or a call of a function named in ``checking``."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Assert):
            return True
        if isinstance(inner, ast.Call):
            func = inner.func
            if isinstance(func, ast.Attribute) and func.attr in PYTEST_CHECKS:
                return True
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name in checking:
                return True
    return False


def checking_functions(tree: ast.Module) -> set[str]:
    """The module-level functions (and methods) of ``tree`` that check something, directly
    or through another one of them."""
    functions = {n.name: n for n in ast.walk(tree) if isinstance(n, FUNCTIONS)}
    checking: set[str] = set()
    while True:
        more = {
            name for name, f in functions.items() if name not in checking and checks(f, checking)
        }
        if not more:
            return checking
        checking |= more


def imported_checks(path: Path) -> frozenset[str]:
    """The names a test module imports from the suite's support modules (``tests/*.py``
    that are not tests) that check something."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tests."):
            checking = helper_checks(ROOT.joinpath(*node.module.split(".")).with_suffix(".py"))
            names |= {a.asname or a.name for a in node.names if a.name in checking}
    return frozenset(names)


@functools.cache
def helper_checks(helper: Path) -> frozenset[str]:
    """:func:`checking_functions` of the support module ``helper`` (none if it is missing)."""
    if not helper.exists():
        return frozenset()
    return frozenset(checking_functions(ast.parse(helper.read_text(encoding="utf-8"))))


def required_ids() -> set[str]:
    families = {games.variant_info(v).family for v in games.variants()}
    patterns = [p for f in families for p in FAMILY_RULES[f]]
    return {rule for rule in defined_ids() if owned(rule, patterns)}


def test_rules_copy_defines_ids():
    ids = defined_ids()
    assert len(ids) > 100 and len(ids) == len(set(ids)), "rule IDs missing or repeated"
    assert "MANNI-BASIC-1" in ids and "EX-MANI-7" in ids


def test_every_rule_of_an_implemented_variant_is_cited_by_a_test():
    missing = sorted(required_ids() - cited_ids())
    assert not missing, f"rule IDs no test cites: {missing}"


def test_tests_cite_only_rules_that_exist():
    known = set(defined_ids())
    prefixes = {rule.rsplit("-", 1)[0] for rule in known}
    unknown = sorted(r for r in cited_ids() if r.rsplit("-", 1)[0] in prefixes and r not in known)
    assert not unknown, f"tests cite rule IDs that RULES.md does not define: {unknown}"


def test_a_test_that_checks_nothing_cites_no_rule():
    """A docstring alone counts for nothing: the test must assert, expect an error, or call a
    helper that does."""
    source = """
import pytest
from tests.games.money.support import position


def check_turn(state):
    assert state


def play_and_check(state):
    check_turn(state)


def test_only_prints():
    \"""MONEY-JO-1: looks at the state.\"""
    print(position())


def test_asserts():
    \"""MONEY-JO-2.\"""
    assert position()


def test_expects_an_error():
    \"""MONEY-JO-3.\"""
    with pytest.raises(ValueError):
        position()


def test_through_a_helper():
    \"""MONEY-JO-4.\"""
    play_and_check(position())


def test_through_an_imported_helper():
    \"""MONEY-JO-5.\"""
    imported_check(position())


class TestGroup:
    \"""MONEY-JO-6: a class counts when one of its tests checks.\"""

    def test_one(self):
        assert True
"""
    cited = cited_in(source, frozenset({"imported_check"}))
    assert cited == {f"MONEY-JO-{n}" for n in (2, 3, 4, 5, 6)}
