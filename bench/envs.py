"""Steps per CPU second of the training wrappers against the engine's own step.

``python -m bench.envs [--seconds S] [--variants a,b] [--json]`` (needs the ``rl``
extra). Per variant the same seeded random games (the same choice index into the
legal list at every decision) are played through five paths, each for ``S`` CPU
seconds (``time.process_time``: the machine's other load counts less):

- ``engine``: the engine's fast path, ``legal_ids()`` + ``apply_id(id)``: the baseline;
- ``label``: the engine's public label API, ``legal_actions()`` + ``apply(label)``;
- ``pettingzoo``: ``games.envs.pettingzoo.env``: ``last()`` (the observation vector and
  mask of the agent to act) + ``step(action)``;
- ``openspiel``: ``games.envs.openspiel``: ``legal_actions()`` + ``apply_action(action)``
  (the chance nodes of each deal are applied too, and not counted as steps);
- ``gymnasium``: ``games.envs.gymnasium.env`` with ``random`` opponents: ``step(action)``
  returning the agent's observation; its steps count every decision of the game (the
  agent's and the opponents'), so the figure compares with the others.

Each wrapper's figure is also given as a ratio to ``engine`` (target: PettingZoo at
least 0.25).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable

import games

#: Money games are capped (``money.max_plays``) so that a measurement holds many games.
MONEY = {"money.max_plays": 300}
PATHS = ("engine", "label", "pettingzoo", "openspiel", "gymnasium")


def options_of(variant: str) -> dict:
    return dict(MONEY) if variant.startswith("money") else {}


def _keywords(variant: str) -> dict:
    return {k.replace(".", "_"): v for k, v in options_of(variant).items()}


def engine_game(variant: str, seed: int, cache: dict) -> int:
    game = cache.get(variant) or cache.setdefault(
        variant, games.load(variant, **options_of(variant))
    )
    state = game.new_game(seed)
    rnd = random.Random(seed)
    steps = 0
    while not state.is_over():
        legal = state.legal_ids()
        state.apply_id(legal[int(rnd.random() * len(legal))])
        steps += 1
    return steps


def label_game(variant: str, seed: int, cache: dict) -> int:
    game = cache.get(variant) or cache.setdefault(
        variant, games.load(variant, **options_of(variant))
    )
    state = game.new_game(seed)
    rnd = random.Random(seed)
    steps = 0
    while not state.is_over():
        legal = state.legal_actions()
        state.apply(legal[int(rnd.random() * len(legal))])
        steps += 1
    return steps


def pettingzoo_game(variant: str, seed: int, cache: dict) -> int:
    import numpy as np

    from games.envs.pettingzoo import env

    e = cache.get(variant) or cache.setdefault(variant, env(variant, **_keywords(variant)))
    e.reset(seed=seed)
    rnd = random.Random(seed)
    steps = 0
    for _agent in e.agent_iter():
        obs, _reward, termination, truncation, _info = e.last()
        if termination or truncation:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[int(rnd.random() * len(legal))]))
        steps += 1
    return steps


def openspiel_game(variant: str, seed: int, cache: dict) -> int:
    import pyspiel

    import games.envs.openspiel as spiel

    game = cache.get(variant)
    if game is None:
        game = cache[variant] = pyspiel.load_game(spiel.game_name(variant), _keywords(variant))
    state = game.new_initial_state()
    rnd = random.Random(seed)
    steps = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[int(rnd.random() * len(outcomes))][0])
            continue
        legal = state.legal_actions()
        state.apply_action(legal[int(rnd.random() * len(legal))])
        steps += 1
    return steps


def gymnasium_game(variant: str, seed: int, cache: dict) -> int:
    import numpy as np

    from games.envs.gymnasium import env

    e = cache.get(variant) or cache.setdefault(
        variant, env(variant, opponents="random", **_keywords(variant))
    )
    obs, _ = e.reset(seed=seed)
    rnd = random.Random(seed)
    done = False
    while not done:
        legal = np.flatnonzero(obs["action_mask"])
        obs, _reward, done, _truncated, _info = e.step(int(legal[int(rnd.random() * len(legal))]))
    return len(e.state.record()["actions"])  # every decision, the opponents' too


GAMES: dict[str, Callable[[str, int, dict], int]] = {
    "engine": engine_game,
    "label": label_game,
    "pettingzoo": pettingzoo_game,
    "openspiel": openspiel_game,
    "gymnasium": gymnasium_game,
}


def measure(play: Callable[[int], int], seconds: float) -> dict:
    play(1023)  # warm up: imports, environment construction
    steps = played = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        steps += play(played)
        played += 1
    elapsed = time.process_time() - start
    return {"games": played, "steps": steps, "cpu_s": elapsed, "steps_per_s": steps / elapsed}


def run(variants: list[str], seconds: float) -> dict:
    out: dict = {}
    caches: dict[str, dict] = {path: {} for path in PATHS}
    for variant in variants:
        row = {
            path: measure(lambda s, v=variant, p=path: GAMES[p](v, s, caches[p]), seconds)
            for path in PATHS
        }
        base = row["engine"]["steps_per_s"]
        for path in PATHS[1:]:
            row[f"{path}_vs_engine"] = row[path]["steps_per_s"] / base
        out[variant] = row
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--variants", default=",".join(games.variants()))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    variants = [v for v in args.variants.split(",") if v]
    for v in variants:
        games.variant_info(v)  # names an unknown variant
    result = run(variants, args.seconds)
    if args.json:
        print(json.dumps({"variants": result}, indent=2))
        return
    print("steps per CPU second, and the ratio of each to the engine's step")
    head = f"{'variant':20} {'engine/s':>9}"
    for path in PATHS[1:]:
        head += f" {path[:5] + '/s':>9} {'ratio':>6}"
    print(head)
    for v, r in result.items():
        line = f"{v:20} {r['engine']['steps_per_s']:9.0f}"
        for path in PATHS[1:]:
            line += f" {r[path]['steps_per_s']:9.0f} {r[path + '_vs_engine']:6.3f}"
        print(line)


if __name__ == "__main__":
    main()
