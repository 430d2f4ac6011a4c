"""Conformance checks for the Money variants, in the spirit of the shared suite.

Seeded random games with explicit decks for every case of the Money oracle:
legal lists, rejection of illegal labels, replay, determinism, JSON
observations and hidden cards (the oracle decides what may be seen).
"""

from __future__ import annotations

import json
import random

import pytest

import games
from games import IllegalAction
from tests.games.oracles import money as oracle_mod

CASES = oracle_mod.CASES


def _play(variant_id: str, options: dict, seed: int, *, check_every: int = 1):
    game = games.load(variant_id, **options)
    deck = oracle_mod.pack(variant_id, options)
    random.Random(seed).shuffle(deck)
    state = game.new_game(seed, dealer=seed % 2, decks=[deck])
    oracle = oracle_mod.Oracle(variant_id, options, seed % 2, [deck])
    rnd = random.Random(seed + 1)
    step = 0
    while not state.is_over():
        legal = state.legal_actions()
        ids = state.legal_ids()
        assert legal, "a live game has a legal action"
        assert len(set(ids)) == len(ids) and ids == sorted(ids)
        assert legal == [state.rules.table.labels[a] for a in ids]
        if step % check_every == 0:
            _check_observations(state, oracle)
        seat = state.current_player()
        label = legal[rnd.randrange(len(legal))]
        state.apply(label)
        oracle.advance(seat, label)
        step += 1
        if state.rules.max_plays == 10_000 and step > 1200:
            break
    _check_observations(state, oracle)
    return state, oracle, deck


def _check_observations(state, oracle) -> None:
    for seat in (0, 1):
        obs = state.observation(seat)
        text = json.dumps(obs)
        assert json.loads(text) == obs
        shown = set(oracle_mod.TOKEN.findall(text))
        assert shown <= oracle.visible(seat), shown - oracle.visible(seat)
    obs = state.observation(0)
    assert obs["pile"] == oracle.pile
    assert obs["stack_sizes"] == [len(s) for s in oracle.stacks]


@pytest.mark.parametrize(("variant_id", "options"), CASES)
def test_random_games_replay_and_hide_stacks(variant_id, options):
    """ACTION-6, ACTION-7, MONEY-JO-3, MONEY-JO-15: legal lists are complete, ordered and
    replayable; observations are JSON and never show a face-down stack card."""
    for seed in range(2):
        state, oracle, deck = _play(variant_id, options, seed, check_every=15)
        rec = state.record()
        assert json.loads(json.dumps(rec)) == rec
        assert rec["decks"] == [deck]
        again = games.replay(rec)
        assert again.record() == rec
        assert again.observation(1) == state.observation(1)
        assert again.scores() == state.scores()
        # Card by card, the engine agrees with the oracle's own moves.
        assert oracle.stacks == [[_name(c) for c in s] for s in state.stacks]


def _name(card: int) -> str:
    from games.money.rules import NAMES

    return NAMES[card]


@pytest.mark.parametrize(("variant_id", "options"), CASES)
def test_same_seed_same_game(variant_id, options):
    """COMMON-3: the same seed (no decks given) gives an identical record."""
    game = games.load(variant_id, **options)
    records = []
    for _ in range(2):
        state = game.new_game(11)
        rnd = random.Random(5)
        for _ in range(400):
            if state.is_over():
                break
            ids = state.legal_ids()
            state.apply_id(ids[rnd.randrange(len(ids))])
        records.append(state.record())
    assert records[0] == records[1]


@pytest.mark.parametrize(("variant_id", "options"), CASES)
def test_illegal_labels_leave_state_unchanged(variant_id, options):
    """ACTION-7, FORFEIT-1: anything outside the legal list is refused, state unchanged."""
    game = games.load(variant_id, **options)
    state = game.new_game(3)
    rnd = random.Random(3)
    labels = state.rules.table.labels
    for _ in range(300):
        if state.is_over():
            break
        legal = set(state.legal_actions())
        before = state.record(), state.observation(0)
        for bad in [*rnd.sample(labels, 8), "nonsense", None, 7, "turn "]:
            if bad in legal:
                continue
            with pytest.raises(IllegalAction):
                state.apply(bad)
            assert (state.record(), state.observation(0)) == before
        with pytest.raises(IllegalAction):
            state.apply_id(len(labels) + 5)
        state.apply(rnd.choice(sorted(legal)))


def test_clone_is_independent():
    """DESIGN 2: clone() copies; playing on the copy leaves the original as it was."""
    state = games.load("money-egypt").new_game(4)
    rnd = random.Random(0)
    for _ in range(50):
        ids = state.legal_ids()
        state.apply_id(ids[rnd.randrange(len(ids))])
    before = state.record(), state.observation(0)
    copy = state.clone()
    while not copy.is_over():
        copy.apply_id(copy.legal_ids()[-1])
    assert (state.record(), state.observation(0)) == before
    assert copy.record()["actions"][: len(before[0]["actions"])] == before[0]["actions"]
