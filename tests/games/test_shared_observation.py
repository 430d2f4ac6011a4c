"""Incremental public histories: ``shared_observation`` and ``observation`` against a rebuild.

The engines keep each viewer's public history and extend it as actions are
applied (``_public_history``); ``observation`` copies it, ``shared_observation``
hands it out as it is. Here both are compared, at every step of random games
of every variant and for every seat, with the history rebuilt from nothing
the way the engines built it before (from the raw action list), as values and
as JSON text (key order included). Fresh observations must stay as they were
when the game goes on, and clones that play on must leave the original's
views alone.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from games.maniglia.state import LABELS as MANIGLIA_LABELS
from games.maniglia.state import _copy


def rebuilt_history(state, viewer: int) -> list:
    """The public history of ``state`` for ``viewer``, made from the raw history list."""
    family = games.variant_info(state.game.id).family
    if family == "money":
        return state._entries(state.history)
    bounds = [*state.deal_starts, len(state.history)]
    deals = []
    for i in range(len(state.deal_starts)):
        entries = state.history[bounds[i] : bounds[i + 1]]
        if family == "manni":
            deals.append(
                {
                    "deal": i + 1,
                    "seats": [e >> 8 for e in entries],
                    "actions": [state._public_label(e, viewer) for e in entries],
                }
            )
            continue
        entry = state._deal_head(i)
        entry["actions"] = [[e >> 8, MANIGLIA_LABELS[e & 0xFF]] for e in entries]
        if i < len(state.deal_log):
            entry["result"] = _copy(state.deal_log[i]["result"])
        deals.append(entry)
    return deals


def text(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def check_views(state, kept: list) -> None:
    """Every seat's observations against the rebuild; ``kept`` collects fresh ones."""
    for seat in range(state.game.num_players):
        fresh = state.observation(seat)
        shared = state.shared_observation(seat)
        expected = rebuilt_history(state, seat)
        assert fresh["history"] == expected
        assert shared == fresh
        assert text(shared) == text(fresh)  # the same bytes, key order included
        kept.append((fresh, text(fresh)))


def play(variant: str, seed: int, choices: list[int], clone_at: set[int], limit=300) -> int:
    game = games.load(variant)
    state = game.new_game(seed)
    kept: list = []
    picks = iter(choices)
    steps = 0
    while not state.is_over() and steps < limit:
        check_views(state, kept)
        legal = state.legal_actions()
        if steps in clone_at:  # a clone that plays on must not touch our views
            other = state.clone()
            for _ in range(5):
                if other.is_over():
                    break
                options = other.legal_actions()
                other.apply(options[-1 if len(options) > 1 else 0])
                check_views(other, [])
        state.apply(legal[next(picks, 0) % len(legal)])
        steps += 1
    check_views(state, kept)
    # Mutating a fresh observation reaches nothing else, and nothing changed them.
    for fresh, was in kept:
        assert text(fresh) == was
    for fresh, _ in kept[-game.num_players :]:
        for deal in fresh["history"]:
            if isinstance(deal, dict):
                deal.get("actions", []).append("tampered")
            else:
                deal.append("tampered")
    check_views(state, [])
    return state


@pytest.mark.parametrize("variant", games.variants())
@settings(max_examples=4, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    choices=st.lists(st.integers(0, 60), min_size=20, max_size=400),
    clone_at=st.sets(st.integers(0, 200), max_size=4),
)
def test_incremental_histories_equal_the_rebuilt_ones(variant, seed, choices, clone_at):
    assert play(variant, seed, choices, clone_at).history


@pytest.mark.parametrize("variant", games.variants())
def test_a_whole_random_game_and_a_forfeit(variant):
    """A game to its end (every deal), then one that ends by a forfeit in trick play."""
    rnd = random.Random(variant)
    choices = [rnd.randrange(60) for _ in range(5000)]
    state = play(variant, rnd.randrange(2**32), choices, {3, 40}, limit=5000)
    assert state.is_over()
    state = games.load(variant).new_game(7)
    for step in range(200):
        state.apply(state.legal_actions()[0])
        phase = state.observation(0)["phase"]
        if state.is_over() or (phase == "play" if "manni" in variant else step > 12):
            break
    if not state.is_over():
        state.forfeit(state.current_player(), "illegal")
    check_views(state, [])


def test_a_view_follows_its_own_state_only():
    """A state whose history list is replaced rebuilds its views (the cache's owner)."""
    state = games.load("manni-basic").new_game(3)
    for _ in range(10):
        state.apply(state.legal_actions()[0])
    before = state.shared_observation(0)
    other = state.clone()
    assert other.view_cache[0].owner is state.history
    assert other.shared_observation(0) == before
    assert other.view_cache[0].owner is other.history  # its own, made on first use
    assert state.view_cache[0].owner is state.history
