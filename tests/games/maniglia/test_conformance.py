"""The shared engine checks, run on the Maniglia variants with the hidden-card oracle.

MANIGLIA-GEN-7 / COMMON-6 (no observation shows a card its seat may not see),
ACTION-7 (legal lists non-empty, duplicate-free, ascending ids; anything else
rejected with the state unchanged), DESIGN 2 (replay, determinism, JSON-ready
observations, independent clones).
"""

from __future__ import annotations

import json
import random

import pytest

import games
from tests.games.oracles import FAMILIES
from tests.games.oracles import maniglia as oracle_module

CASES = oracle_module.CASES


def test_registered_in_the_oracle_families():
    """MANIGLIA-GEN-7: the maniglia oracle is part of the shared conformance suite."""
    assert FAMILIES["maniglia"] is oracle_module
    variants = {v for v, _ in CASES}
    assert variants == {v for v in games.variants() if v.startswith("maniglia")}


def random_decks(variant, options, rnd):
    decks = []
    for _ in range(oracle_module.MAX_DECKS):
        deck = oracle_module.pack(variant, options)
        rnd.shuffle(deck)
        decks.append(deck)
    return decks


def check_observations(state, oracle, n):
    for seat in range(n):
        obs = state.observation(seat)
        text = json.dumps(obs)
        assert json.loads(text) == obs
        shown = set(oracle_module.TOKEN.findall(text))
        leaked = shown - oracle.visible(seat)
        assert not leaked, f"seat {seat} sees {sorted(leaked)}"


def play_game(variant, options, seed, every=1):
    rnd = random.Random(seed)
    game = games.load(variant, **options)
    n = game.num_players
    decks = random_decks(variant, options, rnd)
    dealer = rnd.randrange(n)
    state = game.new_game(seed, dealer=dealer, decks=decks)
    oracle = oracle_module.Oracle(variant, options, dealer, decks)
    step = 0
    while not state.is_over():
        ids = state.legal_ids()
        labels = state.legal_actions()
        assert ids and ids == sorted(set(ids))
        assert labels == [state.LABELS[i] for i in ids]
        if step % every == 0:
            check_observations(state, oracle, n)
            illegal = next(lab for lab in state.LABELS if lab not in labels)
            before = state.record(), state.observation(state.current_player())
            with pytest.raises(games.IllegalAction):
                state.apply(illegal)
            assert (state.record(), state.observation(state.current_player())) == before
        seat = state.current_player()
        # Pass often in auctions so thrown-in deals and long games occur.
        label = "pass" if "pass" in labels and rnd.random() < 0.6 else rnd.choice(labels)
        state.apply(label)
        oracle.advance(seat, label)
        step += 1
    check_observations(state, oracle, n)
    assert state.legal_ids() == [] and state.current_player() is None
    return state


@pytest.mark.parametrize(("variant", "options"), CASES)
def test_conformance(variant, options):
    """MANIGLIA-GEN-7, ACTION-7, LIMIT-4: random games with explicit decks keep every
    engine contract and never leak a hidden card."""
    for seed in range(4):
        state = play_game(variant, options, seed, every=2)
        record = state.record()
        assert json.loads(json.dumps(record)) == record
        again = games.replay(record)
        assert again.record() == record
        assert again.scores() == state.scores() and again.ranking() == state.ranking()
        n = state.game.num_players
        assert [again.observation(s) for s in range(n)] == [state.observation(s) for s in range(n)]
        ranks = state.ranking()
        assert len(ranks) == n and min(ranks) == 1


def test_oracle_sees_only_own_hand_at_the_start():
    """MANIGLIA-GEN-7, MANIGLIA-4P-2: a seat may see its hand (and the turned card)."""
    for variant, size, extra in (
        ("maniglia-3", 12, 0),
        ("maniglia-5", 8, 0),
        ("maniglia-4-partners", 10, 1),
    ):
        decks = random_decks(variant, {}, random.Random(1))
        oracle = oracle_module.Oracle(variant, {}, 0, decks)
        assert len(oracle.visible(1)) == size + extra
        assert len(oracle.visible(0)) == size  # the dealer holds the turned card


@pytest.mark.parametrize(("variant", "options"), CASES)
def test_same_seed_same_game(variant, options):
    """DESIGN 2: the same seed, with RNG decks and a seeded bot, gives the same record."""
    records = []
    for _ in range(2):
        state = games.load(variant, **options).new_game(77)
        rnd = random.Random(77)
        while not state.is_over():
            state.apply(rnd.choice(state.legal_actions()))
        records.append(state.record())
    assert records[0] == records[1]


@pytest.mark.parametrize("variant", ["maniglia-3", "maniglia-4-partners"])
def test_clone_is_independent(variant):
    """DESIGN 2: a clone plays on without touching the original, and replays alike."""
    state = games.load(variant).new_game(5)
    rnd = random.Random(5)
    for _ in range(23):
        state.apply(rnd.choice(state.legal_actions()))
    before = state.record(), state.observation(0)
    copy = state.clone()
    assert copy.record() == before[0] and copy.observation(0) == before[1]
    while not copy.is_over():
        copy.apply(copy.legal_actions()[0])
    assert (state.record(), state.observation(0)) == before
    assert games.replay(copy.record()).record() == copy.record()
