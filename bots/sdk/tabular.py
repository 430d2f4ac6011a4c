"""A tabular policy as a bot: information-state string to action probabilities.

The table is what CFR and its Monte Carlo variants compute: for each information
state a seat can be in, a probability for each legal action. Its keys are the
information-state strings of the OpenSpiel games of ``games.envs.openspiel``
(docs/training.md): the engine's ``observation(seat)`` as sorted, compact JSON,
which a bot rebuilds from the ``act`` message's observation, so the table solved
offline is looked up unchanged in a match. Standard library only::

    from bots.sdk import run
    from bots.sdk.policy import TabularBot

    if __name__ == "__main__":
        run(TabularBot.beside(__file__, "policy.json"))

The file is plain JSON (gzip-compressed when its name ends in ``.gz``), written by
:func:`save_tabular`::

    {"format": "cardroom-tabular-1", "variant": "maniglia-4", "options": {...},
     "actions": {"44": "bid 20", ...},
     "states": {"<information state>": [[44, 0.25], [97, 0.75]], ...}}

``actions`` names the label of every action id used, so a file whose ids mean
other labels than the engine's is refused. A state the table does not hold (the
game is bigger than the one solved, another option set) is played by the
fallback: uniform over the legal labels, as OpenSpiel's MCCFR policies do.
"""

from __future__ import annotations

import gzip
import json
import math
import random
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import games
from bots.sdk.bot import Bot

#: The ``format`` entry of the tabular policy files.
TABULAR_FORMAT = "cardroom-tabular-1"


class PolicyError(ValueError):
    """A policy file or callable that cannot be read or does not fit the game."""


def info_state(observation: Mapping[str, Any]) -> str:
    """The information-state string of an observation (OpenSpiel's, docs/training.md)."""
    return json.dumps(observation, sort_keys=True, separators=(",", ":"))


def _pairs(probabilities: Any) -> list[tuple[int, float]]:
    items = probabilities.items() if isinstance(probabilities, Mapping) else probabilities
    return [(int(a), float(p)) for a, p in items]


def _from_openspiel(policy: Any) -> tuple[dict[str, list[tuple[int, float]]], Any]:
    """The rows of an OpenSpiel ``TabularPolicy`` (or MCCFR average policy), and its game."""
    if hasattr(policy, "state_lookup") and hasattr(policy, "action_probability_array"):
        table = {}
        for key, row in policy.state_lookup.items():
            probs = policy.action_probability_array[row]
            legal = policy.legal_actions_mask[row]
            table[key] = [(a, float(probs[a])) for a in range(len(probs)) if legal[a]]
        return table, policy.game
    infostates = getattr(policy, "_infostates", None)  # open_spiel.python.algorithms.mccfr
    if isinstance(infostates, Mapping):
        return _from_mccfr(infostates, policy.game), policy.game
    raise PolicyError(
        f"save_tabular takes an OpenSpiel TabularPolicy, an MCCFR average policy or a "
        f"mapping of information states to action probabilities, not {type(policy).__name__}"
    )


def _from_mccfr(infostates: Mapping[str, Any], game: Any) -> dict[str, list[tuple[int, float]]]:
    """MCCFR keeps the average strategy over the legal actions in order; the legal ids
    of an information state are those of any world consistent with it."""
    engine = _engine_of(game)
    rng, table = random.Random(0), {}
    for key, entry in infostates.items():
        observation = json.loads(key)
        legal = games.sample_world(engine, observation, rng).legal_ids()
        average = [float(x) for x in entry[1]]
        total = sum(average)
        table[key] = [
            (a, x / total if total > 0 else 1 / len(legal))
            for a, x in zip(legal, average, strict=True)
        ]
    return table


def _engine_of(game: Any) -> games.Game:
    """The engine game of an OpenSpiel game of ``games.envs.openspiel``."""
    engine = getattr(game, "cardroom", None)
    if not isinstance(engine, games.Game):
        raise PolicyError(f"{game} is not a Cardroom game of games.envs.openspiel")
    return engine


def save_tabular(
    policy: Any,
    path: str | Path,
    variant: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> int:
    """Write ``policy`` as a tabular policy file; returns the number of states written.

    ``policy`` is an OpenSpiel ``TabularPolicy`` (``cfr.CFRSolver(...).average_policy()``),
    the average policy of OpenSpiel's MCCFR solvers, or a mapping of information-state
    strings to ``{action id: probability}``. The variant and options are read from the
    OpenSpiel game, or given (``variant``, ``options``) for a mapping. The file is
    checked as :func:`load_tabular` checks it before it is written."""
    if isinstance(policy, Mapping):
        table = {str(k): _pairs(v) for k, v in policy.items()}
        if variant is None:
            raise PolicyError("save_tabular of a mapping needs the variant it was solved for")
    else:
        table, game = _from_openspiel(policy)
        if variant is None:
            engine = _engine_of(game)
            variant, options = engine.variant.id, dict(engine.options)
    engine = games.load(variant, **dict(options or {}))
    labels = games_labels(engine)
    used = sorted({a for pairs in table.values() for a, _ in pairs})
    data = {
        "format": TABULAR_FORMAT,
        "variant": variant,
        "options": dict(engine.options),
        "actions": {str(a): labels[a] if 0 <= a < len(labels) else "?" for a in used},
        "states": {k: [[a, p] for a, p in pairs] for k, pairs in table.items()},
    }
    check_tabular(data, str(path))
    text = json.dumps(data, separators=(",", ":"))
    if str(path).endswith(".gz"):
        Path(path).write_bytes(gzip.compress(text.encode(), mtime=0))
    else:
        Path(path).write_text(text)
    return len(table)


def games_labels(game: games.Game) -> list[str]:
    """The label of each action id of ``game`` (``State.legal_ids`` numbers them), as
    ``games.envs.encoding.action_labels`` gives them, without numpy."""
    state = game.new_game(0)
    labels = type(state).LABELS or state.rules.table.labels  # Money: a table per ruleset
    return list(labels)


def load_tabular(path: str | Path) -> dict[str, Any]:
    """The checked contents of a tabular policy file (see the module's docstring)."""
    name = Path(path).name
    try:
        raw = Path(path).read_bytes()
        if str(path).endswith(".gz"):
            raw = gzip.decompress(raw)
        data = json.loads(raw)
    except (OSError, ValueError, EOFError) as exc:
        raise PolicyError(f"cannot read the tabular policy file {name}: {exc}") from None
    check_tabular(data, name)
    return data


def check_tabular(data: Any, name: str) -> None:
    """Raise :class:`PolicyError` naming the first thing in ``data`` that does not fit."""
    if not isinstance(data, dict) or data.get("format") != TABULAR_FORMAT:
        raise PolicyError(f"{name} is not a {TABULAR_FORMAT} file (its 'format' entry)")
    variant = data.get("variant")
    try:
        engine = games.load(variant, **dict(data.get("options") or {}))
    except (ValueError, TypeError) as exc:
        message = f"{name}: variant {variant!r} and its options do not load: {exc}"
        raise PolicyError(message) from None
    labels = games_labels(engine)
    for key, label in dict(data.get("actions") or {}).items():
        if not key.isdigit() or int(key) >= len(labels) or labels[int(key)] != label:
            raise PolicyError(
                f"{name}: action id {key} ({label}) is not an action of {variant} "
                f"(ids 0..{len(labels) - 1}, engine labels)"
            )
    states = data.get("states")
    if not isinstance(states, dict):
        raise PolicyError(f"{name} has no 'states' table")
    options = dict(engine.options)
    for key, pairs in states.items():
        _check_state(name, key, pairs, variant, options, len(labels))


def _check_state(
    name: str, key: str, pairs: Any, variant: str, options: dict[str, Any], actions: int
) -> None:
    short = key if len(key) <= 60 else key[:57] + "..."
    try:
        observation = json.loads(key)
    except ValueError:
        observation = None
    if not isinstance(observation, dict) or observation.get("variant") != variant:
        seen = observation.get("variant") if isinstance(observation, dict) else None
        raise PolicyError(
            f"{name}: information state {short!r} is not one of {variant}"
            + (f" (it is of {seen})" if seen else " (not an observation of its game)")
        )
    if observation.get("options", options) != options:
        raise PolicyError(
            f"{name}: information state {short!r} has options {observation.get('options')}, "
            f"the file {options}"
        )
    if not isinstance(pairs, list) or not pairs:
        raise PolicyError(f"{name}: information state {short!r} has no action probabilities")
    for pair in pairs:
        ok = isinstance(pair, list) and len(pair) == 2 and type(pair[0]) is int
        if not ok or not 0 <= pair[0] < actions:
            raise PolicyError(
                f"{name}: information state {short!r}: action {pair!r} is not an action id "
                f"of {variant} (0..{actions - 1})"
            )
        p = pair[1]
        if not isinstance(p, int | float) or not math.isfinite(p) or p < 0:
            raise PolicyError(
                f"{name}: information state {short!r}: probability {p!r} of action "
                f"{pair[0]} is not a number >= 0"
            )


class TabularBot(Bot):
    """Draws the label of each decision from its information state's row of the table."""

    name = "tabular"

    def __init__(self, path: str | Path, seed: int = 0, fallback: Bot | None = None) -> None:
        self.path = Path(path)
        data = load_tabular(self.path)
        self.variant, self.options = data["variant"], data["options"]
        self.table: dict[str, list[list[Any]]] = data["states"]
        self.seed, self.fallback = seed, fallback
        self.rng = random.Random(seed)
        self.labels: list[str] = []
        self.missed = 0

    @classmethod
    def beside(cls, script: str, filename: str, **kwargs: Any) -> TabularBot:
        """The bot whose table lies next to ``script`` (a bot's ``__file__``)."""
        return cls(Path(script).resolve().parent / filename, **kwargs)

    def start(self, hello: dict[str, Any]) -> None:
        variant = hello.get("variant")
        if variant != self.variant:
            message = (
                f"{self.path.name} does not fit {variant}: it is a table of {self.variant} "
                f"information states"
            )
            print(message, file=sys.stderr, flush=True)
            raise PolicyError(message)
        game = games.load(variant, **dict(hello.get("options") or {}))
        self.labels = games_labels(game)
        if dict(game.options) != self.options:
            print(
                f"{self.path.name} was solved for {variant} with {self.options}; this match "
                f"plays {dict(game.options)}: states not in the table are played uniformly",
                file=sys.stderr,
                flush=True,
            )
        self.rng.seed(f"tabular/{self.seed}/{hello.get('seat', 0)}")
        if self.fallback is not None:
            self.fallback.start(hello)

    def act(self, observation: dict[str, Any] | None, legal: list[str]) -> str:
        if len(legal) == 1 or observation is None:
            return legal[0]
        row = self.table.get(info_state(observation))
        if row is None:
            self.missed += 1
            if self.fallback is not None:
                return self.fallback.act(observation, legal)
            return legal[int(self.rng.random() * len(legal))]
        return draw(row, self.labels, legal, self.rng)


def draw(row: Iterable[list[Any]], labels: list[str], legal: list[str], rng: random.Random) -> str:
    """A legal label drawn from ``row``'s ``[action id, probability]`` pairs."""
    allowed = set(legal)
    choices = [(labels[a], p) for a, p in row if labels[a] in allowed and p > 0]
    total = sum(p for _, p in choices)
    if total <= 0:
        return legal[int(rng.random() * len(legal))]
    x = rng.random() * total
    for label, p in choices:
        x -= p
        if x < 0:
            return label
    return choices[-1][0]
