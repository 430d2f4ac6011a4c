"""The import contracts of ``[tool.importlinter]`` in pyproject.toml (DESIGN.md section 1).

The pure packages import no web or task framework and no models; ``tournaments``
reads as layers (doors, execution and the web tier, services, reads, models) with
no import cycle, lazy or not; the live events are a leaf. ``make test`` and ``make
lint`` run ``lint-imports``; these tests run it too, and show that the contracts
catch the imports the old top-level-name check missed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from importlinter import configuration
from importlinter.application import use_cases

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

PURE = "Pure packages import no web or task framework, and no models"
GAMES = "The engines import nothing of ours but games"
LEAF = "Live events are a leaf: the write path's notifications import no model, read or write"
LAYERS = "tournaments is layered: doors, then execution / the web tier, services, reads, models"
ACYCLIC = "No import cycles between the modules of tournaments"
SERVICES = (
    "The services are layered: lifecycle and recording over rounds and results, over the "
    "settings, the queue and the notifications"
)


def test_lint_imports_keeps_every_contract():
    run = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


@pytest.fixture
def broken_with(monkeypatch):
    """The names of the contracts broken if the tree also held the given imports."""
    configuration.configure()
    use_cases._register_built_in_contract_types()
    build = use_cases._build_graph

    def check(*imports: tuple[str, str]) -> set[str]:
        def with_imports(*args, **kwargs):
            graph = build(*args, **{**kwargs, "cache_dir": None})
            for importer, imported in imports:
                graph.add_import(importer=importer, imported=imported)
            return graph

        monkeypatch.setattr(use_cases, "_build_graph", with_imports)
        options = use_cases.read_user_options(str(ROOT / "pyproject.toml"))
        report = use_cases.create_report(options, cache_dir=None)
        return {
            contract.name
            for contract, result in report.get_contracts_and_checks()
            if not result.kept
        }

    return check


def test_the_tree_as_it_is_breaks_no_contract(broken_with):
    assert broken_with() == set()


def test_a_models_import_in_the_archive_reader_is_caught(broken_with):
    # The old check read only top-level names: ``bots.models`` passed as ``bots``.
    assert broken_with(("bots.archive", "bots.models")) == {PURE}


def test_a_framework_import_deep_in_a_pure_package_is_caught(broken_with):
    assert broken_with(("tournaments.ratings.skill", "django.db")) == {PURE}
    assert broken_with(("games.money.state", "tournaments.models")) >= {PURE, GAMES}


def test_a_read_that_calls_back_into_the_services_is_caught(broken_with):
    """A lazy import that breaks a cycle is still an import: the layers and the cycle
    check both see it."""
    # (the services' own layers too: their leagues read the standings, which would
    # then reach the lifecycle above them)
    assert broken_with(("tournaments.selectors", "tournaments.services")) == {
        LAYERS,
        ACYCLIC,
        SERVICES,
    }


def test_the_live_events_may_not_read_the_database(broken_with):
    assert LEAF in broken_with(("tournaments.events", "tournaments.models"))


def test_the_worker_tier_may_not_build_the_web_tiers_events(broken_with):
    broken = broken_with(("tournaments.execution", "tournaments.fanout"))
    assert LAYERS in broken


ENVS = "The training wrappers are a leaf of games: nothing else in games imports games.envs"


def test_the_engines_never_import_the_training_wrappers_or_their_libraries(broken_with):
    assert broken_with(("games.tricks", "games.envs.pettingzoo")) == {ENVS}
    assert broken_with(("games.manni.state", "numpy")) == {ENVS}
    assert broken_with(("games.envs.openspiel", "django")) == {PURE}


def test_the_queue_reaching_up_into_the_competition_settings_is_caught(broken_with):
    # The services' queue sits under everything that queues: not a cycle, still caught.
    assert broken_with(("tournaments.services.queue", "tournaments.services.competitions")) == {
        SERVICES
    }
