"""Every rule ID of an implemented variant is cited by at least one test docstring.

The rules specification ships with the project as ``docs/RULES.md``; this test
reads that copy, so it runs on a fresh clone.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

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


def cited_ids() -> set[str]:
    """IDs named in the docstrings of test functions and test classes under tests/."""
    cited: set[str] = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(
                node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
            ) and node.name.lower().startswith("test"):
                cited.update(CITED.findall(ast.get_docstring(node) or ""))
    return cited


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


SHARED = ROOT.parent / "shared" / "RULES.md"


@pytest.mark.skipif(not SHARED.exists(), reason="no shared specification beside this checkout")
def test_rules_copy_matches_the_shared_specification():
    assert RULES.read_text(encoding="utf-8") == SHARED.read_text(
        encoding="utf-8"
    ), "docs/RULES.md is stale: copy ../shared/RULES.md over it"
