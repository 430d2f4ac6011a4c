"""Cardroom game engines: pure Python, no framework.

The public API (DESIGN.md section 2)::

    game = games.load("manni-basic", manni_tie="play-on")
    state = game.new_game(seed=7)
    while not state.is_over():
        state.apply(state.legal_actions()[0])
    state.ranking(); games.replay(state.record())
"""

# First: the compiled build of some modules, if there is one (games/native.py).
from games import native  # noqa: F401  isort: skip
from games.core import Game, IllegalAction, Option, State, Variant
from games.registry import (
    load,
    reduce_game,
    reduce_state,
    reduce_variant,
    replay,
    variant_info,
    variants,
)
from games.sampling import SamplingError, WorldSampler, sample_world, state_sample_world

# Registration: importing a family registers its variants.
from games import manni  # noqa: F401  isort: skip
from games import maniglia  # noqa: F401  isort: skip
from games import money  # noqa: F401  isort: skip

# ``State.sample_world(seat, rng)``: a world built from ``observation(seat)`` alone.
State.sample_world = state_sample_world  # type: ignore[attr-defined]
# Pickling: a variant as its id, a game as its options, a state as its record.
Variant.__reduce__ = reduce_variant  # type: ignore[method-assign,assignment]
Game.__reduce__ = reduce_game  # type: ignore[method-assign,assignment]
State.__reduce__ = reduce_state  # type: ignore[method-assign,assignment]

__all__ = [
    "Game",
    "IllegalAction",
    "Option",
    "SamplingError",
    "State",
    "Variant",
    "WorldSampler",
    "load",
    "replay",
    "sample_world",
    "variant_info",
    "variants",
]
