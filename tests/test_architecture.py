"""The import contracts of ``[tool.importlinter]`` in pyproject.toml (docs/architecture.md).

The house reads as layers by package (the composition root of ``config``, the doors
``web`` and ``api``, then ``tournaments``, ``bots``, ``games``; ``config``'s plumbing
imports none of them), so a module nobody names is held by its folder; no door imports
another door's views and the pages import nothing of the REST framework; the pure
packages import no web or task framework and no models; ``tournaments`` and ``bots``
read as layers inside (their own doors, services, reads, models); no package has an
import cycle between its modules, lazy or not; the live events are a leaf. ``make test``
and ``make lint`` run ``lint-imports``; these tests run it too, and show that the
contracts catch the imports the old top-level-name check missed and the cycles that
were removed.

import-linter's ``acyclic_siblings`` compares the siblings of each package; a cycle
through a package's own ``__init__`` (``bots.sdk`` importing ``bots.sdk.tracking``,
which imports ``bots.sdk``) or across the top-level packages' modules is not
between siblings, so :func:`module_cycles` looks at single modules with grimp.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp
import pytest
from importlinter import configuration
from importlinter.application import use_cases

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

HOUSE = "The house is layered: the composition root, the doors (web, api), tournaments, bots, games"
PLUMBING = (
    "config's plumbing, under every package, imports none of them: only its composition "
    "root (urls, asgi, celery, wsgi) does"
)
VIEWS = "No door imports another door's views"
PURE = "Pure packages import no web or task framework, and no models"
GAMES = "The engines import nothing of ours but games"
LEAF = "Live events are a leaf: the write path's notifications import no model, read or write"
LAYERS = (
    "tournaments is layered: its commands and admin, its two tiers (the sockets, the worker), "
    "services, what watchers see, reads, models, the live events"
)
ACYCLIC = "No import cycles between the modules of any package"
SERVICES = (
    "The services are layered: recording over the lifecycle (the last result of a challenge "
    "closes it), over rounds and results, over the settings, the queue and the notifications"
)
BOTS = (
    "bots is layered: its own doors (tasks, commands, admin), services, reads and rules, "
    "models, then the pure parts"
)
PAGES = (
    "The HTML pages import nothing of the REST framework: permissions and checks come "
    "from framework-neutral modules"
)
ROOTS = ("games", "bots", "tournaments", "config", "web", "api")


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
    # bots' layers put the models above the pure parts: that contract sees it too.
    assert broken_with(("bots.archive", "bots.models")) == {PURE, BOTS}


def test_a_framework_import_deep_in_a_pure_package_is_caught(broken_with):
    assert broken_with(("tournaments.ratings.skill", "django.db")) == {PURE}
    assert broken_with(("games.money.state", "tournaments.models")) >= {PURE, HOUSE}
    assert broken_with(("games.money.state", "config.settings")) >= {PURE, GAMES}


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
    assert LEAF in broken_with(("tournaments.live.events", "tournaments.models"))


def test_the_worker_tier_may_not_build_the_web_tiers_events(broken_with):
    broken = broken_with(("tournaments.worker.execution", "tournaments.sockets.fanout"))
    assert LAYERS in broken


ENVS = "The training wrappers are a leaf of games: nothing else in games imports games.envs"


def test_the_engines_never_import_the_training_wrappers_or_their_libraries(broken_with):
    # (and it would close a cycle: games.envs.opponents seats bots.builtin, which
    # searches with games.tricks)
    assert broken_with(("games.tricks", "games.envs.pettingzoo")) == {ENVS, ACYCLIC}
    assert broken_with(("games.manni.state", "numpy")) == {ENVS}
    assert broken_with(("games.envs.openspiel", "django")) == {PURE}


def test_only_the_opponents_of_the_training_environment_seat_the_built_in_players(broken_with):
    """``games.envs.opponents -> bots.builtin`` is the one import of bots from games (the
    house's layers put bots over games)."""
    assert broken_with(("games.envs.gymnasium", "bots.builtin")) == {HOUSE}
    assert broken_with(("games.envs.opponents", "bots.referee")) == {HOUSE}
    assert broken_with(("games.envs.opponents", "bots.models")) >= {PURE, HOUSE}


# -- cycles ---------------------------------------------------------------------------------


def module_cycles(graph: grimp.ImportGraph) -> list[tuple[str, ...]]:
    """Each import between two modules of ours that closes a cycle, as that cycle
    (importer, imported, ..., importer): a package's ``__init__`` counts as a module."""
    ours = {m for m in graph.modules if m.split(".")[0] in ROOTS}
    cycles = []
    for importer in sorted(ours):
        for imported in sorted(graph.find_modules_directly_imported_by(importer) & ours):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back:
                cycles.append((importer, *back))
    return cycles


@pytest.fixture
def tree() -> grimp.ImportGraph:
    """The import graph of the four packages as they are."""
    return grimp.build_graph(*ROOTS, cache_dir=None)


def test_no_module_of_ours_takes_part_in_an_import_cycle(tree):
    assert module_cycles(tree) == []


@pytest.mark.parametrize(
    "importer, imported",
    [
        ("api.defaults", "api.bots.urls"),  # the root router back beside the API's plumbing
        ("games.sampling", "games.money.sampling"),  # a family sampler named by its family
        ("bots.services", "bots.tasks"),
        ("games.money.rules", "games.money.state"),
        ("bots.builtin.greedy", "bots.builtin"),  # a built-in registering itself
        ("bots.sdk.tracking", "bots.sdk"),
    ],
)
def test_each_removed_cycle_would_be_found_again(tree, importer, imported):
    tree.add_import(importer=importer, imported=imported)
    assert (importer, imported) in {cycle[:2] for cycle in module_cycles(tree)}


def test_a_cycle_between_sibling_modules_breaks_the_acyclic_contract(broken_with):
    assert broken_with(("games.sampling", "games.money.sampling")) == {ACYCLIC}
    assert broken_with(("bots.services", "bots.tasks")) == {ACYCLIC, BOTS}
    assert ACYCLIC in broken_with(("api.defaults", "api.urls"))


# -- bots, the doors and the house -------------------------------------------------------------


def test_a_read_or_a_model_of_bots_calling_up_into_the_services_is_caught(broken_with):
    assert BOTS in broken_with(("bots.selectors", "bots.services"))
    assert BOTS in broken_with(("bots.models", "bots.accounts"))


def test_the_pure_parts_of_bots_never_reach_up_to_the_referee(broken_with):
    assert BOTS in broken_with(("bots.sdk.bot", "bots.referee"))


def test_an_app_reaching_up_into_a_door_or_a_lower_app_up_into_a_higher_is_caught(broken_with):
    assert HOUSE in broken_with(("tournaments.services.play", "web.dashboard.pages"))
    assert HOUSE in broken_with(("tournaments.selectors", "api.tournaments.serializers"))
    assert HOUSE in broken_with(("bots.services", "tournaments.models"))
    assert HOUSE in broken_with(("tournaments.models", "config.urls"))


def test_an_html_page_asking_the_apis_permissions_or_the_rest_framework_is_caught(broken_with):
    assert broken_with(("web.organise.views", "api.tournaments.permissions")) == {HOUSE, PAGES}
    assert HOUSE in broken_with(("web.site.forms", "api.accounts"))
    assert broken_with(("web.bots.views", "rest_framework")) == {PAGES}


def test_a_door_importing_another_doors_views_is_caught(broken_with):
    assert broken_with(("web.bots.views", "web.organise.views")) == {VIEWS}
    assert VIEWS in broken_with(("api.tournaments.views", "web.bots.views"))


def test_configs_plumbing_importing_an_app_is_caught(broken_with):
    assert PLUMBING in broken_with(("config.throttles", "tournaments.models"))
    assert PLUMBING in broken_with(("config.settings", "web.forms"))


@pytest.mark.parametrize(
    "importer, imported, broken",
    [
        # A module nobody names is held by the package it is in: each of these
        # modules is new, and no contract lists it.
        ("tournaments.newly_added", "web.dashboard.views", HOUSE),
        ("tournaments.newly_added.deep.inside", "api.urls", HOUSE),
        ("bots.newly_added", "tournaments.selectors", HOUSE),
        ("games.newly_added", "bots.models", HOUSE),
        ("config.newly_added", "bots.services", PLUMBING),
        ("web.newly_added", "rest_framework.views", PAGES),
        ("web.newly_added", "api.bots.serializers", HOUSE),
        ("api.newly_added.views", "web.bots.views", VIEWS),
    ],
)
def test_a_new_module_is_constrained_without_being_named(broken_with, importer, imported, broken):
    text = (ROOT / "pyproject.toml").read_text()
    assert importer not in text
    assert broken in broken_with((importer, imported))


def test_a_new_module_in_a_cycle_is_caught_without_being_named(broken_with, tree):
    assert ACYCLIC in broken_with(
        ("tournaments.newly_added", "tournaments.services"),
        ("tournaments.services.queue", "tournaments.newly_added"),
    )
    tree.add_import(importer="web.newly_added", imported="web.forms")
    tree.add_import(importer="web.forms", imported="web.newly_added")
    assert ("web.forms", "web.newly_added") in {cycle[:2] for cycle in module_cycles(tree)}


def test_the_queue_reaching_up_into_the_competition_settings_is_caught(broken_with):
    # The services' queue sits under everything that queues: not a cycle, still caught.
    assert broken_with(("tournaments.services.queue", "tournaments.services.competitions")) == {
        SERVICES
    }
