"""Steps per second of the training wrappers against the engine's label API.

``python -m bench.envs [--seconds S] [--variants a,b] [--json]`` (needs the ``rl``
extra). Per variant the same seeded random games (the same choice index into the
legal list at every step) are played through three paths:

- ``label``: the engine's public API, ``legal_actions()`` + ``apply(label)``;
- ``pettingzoo``: ``games.envs.pettingzoo.env``: ``last()`` (the observation vector and
  mask of the agent to act) + ``step(action)``;
- ``openspiel``: ``games.envs.openspiel``: ``legal_actions()`` + ``apply_action(action)``.

Each wrapper's figure is also given as a ratio to ``label`` (target: PettingZoo at
least 0.5).
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


def options_of(variant: str) -> dict:
    return dict(MONEY) if variant.startswith("money") else {}


def label_game(variant: str, seed: int) -> int:
    state = games.load(variant, **options_of(variant)).new_game(seed)
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
        params = {k.replace(".", "_"): v for k, v in options_of(variant).items()}
        game = cache[variant] = pyspiel.load_game(spiel.game_name(variant), params)
    state = game.new_initial_state()
    state.apply_action(seed % spiel.DEAL_SEEDS)
    rnd = random.Random(seed)
    steps = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[int(rnd.random() * len(legal))])
        steps += 1
    return steps


def _keywords(variant: str) -> dict:
    return {k.replace(".", "_"): v for k, v in options_of(variant).items()}


def measure(play: Callable[[int], int], seconds: float) -> dict:
    play(1023)  # warm up: imports, environment construction
    steps = played = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += play(played)
        played += 1
    elapsed = time.perf_counter() - start
    return {"games": played, "steps": steps, "seconds": elapsed, "steps_per_s": steps / elapsed}


def run(variants: list[str], seconds: float) -> dict:
    out: dict = {}
    cache_pz: dict = {}
    cache_os: dict = {}
    for variant in variants:
        # The seeds of OpenSpiel's deal node are 0..DEAL_SEEDS-1: keep every path below it.
        label = measure(lambda s, v=variant: label_game(v, s % 1024), seconds)
        pz = measure(lambda s, v=variant: pettingzoo_game(v, s % 1024, cache_pz), seconds)
        ops = measure(lambda s, v=variant: openspiel_game(v, s % 1024, cache_os), seconds)
        out[variant] = {
            "label": label,
            "pettingzoo": pz,
            "openspiel": ops,
            "pettingzoo_vs_label": pz["steps_per_s"] / label["steps_per_s"],
            "openspiel_vs_label": ops["steps_per_s"] / label["steps_per_s"],
        }
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
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
    print(f"{'variant':22} {'label/s':>9} {'pz/s':>9} {'pz/label':>9} {'os/s':>9} {'os/label':>9}")
    for v, r in result.items():
        print(
            f"{v:22} {r['label']['steps_per_s']:9.0f} {r['pettingzoo']['steps_per_s']:9.0f} "
            f"{r['pettingzoo_vs_label']:9.2f} {r['openspiel']['steps_per_s']:9.0f} "
            f"{r['openspiel_vs_label']:9.2f}"
        )


if __name__ == "__main__":
    main()
