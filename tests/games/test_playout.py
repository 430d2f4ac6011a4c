"""The fast path: ``State.playout`` plays what the ``legal_ids`` / ``apply_id`` loop plays.

A playout draws ``ids[int(rng.random() * len(ids))]`` at every decision; the
engines inline card play for speed, so these tests replay the same draws one
decision at a time and compare everything a user can see.
"""

from __future__ import annotations

import random

import pytest

import games

VARIANTS = games.variants()


def step_loop(state, rnd: random.Random, *, deal_only: bool = False) -> None:
    """The reference: one decision at a time through the public fast path."""
    deal = state.deal_number()
    while not state.is_over() and not (deal_only and state.deal_number() != deal):
        ids = state.legal_ids()
        state.apply_id(ids[int(rnd.random() * len(ids))])


def advanced(variant: str, seed: int, steps: int, **options):
    """A fresh game a few random decisions in (mid-trick starts included)."""
    state = games.load(variant, **options).new_game(seed)
    rnd = random.Random(-seed)
    for _ in range(steps):
        if state.is_over():
            break
        ids = state.legal_ids()
        state.apply_id(ids[rnd.randrange(len(ids))])
    return state


def same_view(a, b) -> None:
    assert a.record() == b.record()
    assert a.scores() == b.scores() and a.is_over() == b.is_over()
    assert a.legal_actions() == b.legal_actions()
    for seat in range(a.game.num_players):
        assert a.observation(seat) == b.observation(seat)


@pytest.mark.parametrize("variant", VARIANTS)
def test_playout_to_the_end_plays_the_step_loop_game(variant):
    for seed in range(4):
        playout = advanced(variant, seed, 5 * seed)
        reference = playout.clone()
        playout.playout(random.Random(seed))
        step_loop(reference, random.Random(seed))
        assert playout.is_over()
        same_view(playout, reference)
        assert playout.ranking() == reference.ranking()


@pytest.mark.parametrize("variant", VARIANTS)
def test_playout_of_one_deal_stops_before_the_next_deals_first_decision(variant):
    for seed in range(4):
        playout = advanced(variant, seed, 3 * seed + 1)
        reference = playout.clone()
        deal = playout.deal_number()
        playout.playout(random.Random(seed), deal_only=True)
        step_loop(reference, random.Random(seed), deal_only=True)
        same_view(playout, reference)
        assert playout.is_over() or playout.deal_number() == deal + 1


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("laugavatnsmanni", {"laug_exchange": "skat", "laug_nullo_ace_low": True}),
        ("manni-hornafjordur", {"horn_cut_table": "alt"}),
        ("maniglia-4", {"maniglia_overtake": "strict", "maniglia_all_pass": "dealer-forced"}),
        ("maniglia-4-partners", {"maniglia_overtake": "strict"}),
    ],
)
def test_playout_follows_the_options(variant, options):
    for seed in range(3):
        playout = advanced(variant, seed, seed, **options)
        reference = playout.clone()
        playout.playout(random.Random(seed))
        step_loop(reference, random.Random(seed))
        same_view(playout, reference)


def test_playout_leaves_its_source_state_alone_and_replays():
    state = advanced("manni-basic", 7, 10)
    before = state.record()
    twin = state.clone()
    twin.playout(random.Random(1))
    assert state.record() == before
    assert games.replay(twin.record()).record() == twin.record()


def test_playout_of_a_finished_game_changes_nothing():
    state = advanced("maniglia-3", 2, 0)
    state.playout(random.Random(0))
    record = state.record()
    state.playout(random.Random(5))
    assert state.record() == record


class PassingSource:
    """Draws near 1 seven times in ten: the last legal entry, ``pass`` in an auction."""

    def __init__(self, seed: int) -> None:
        self.rnd = random.Random(seed)

    def random(self) -> float:
        x = self.rnd.random()
        return 0.999999 if x < 0.7 else x


@pytest.mark.parametrize("all_pass", ["redeal", "dealer-forced"])
def test_playout_through_thrown_in_and_forced_auctions(all_pass):
    """MANIGLIA-AUC-3: a deal thrown in (or the dealer's forced bid) plays as one step at a time."""
    thrown_in = 0
    for seed in range(12):
        for deal_only in (False, True):
            playout = games.load("maniglia-4", maniglia_all_pass=all_pass).new_game(seed)
            reference = playout.clone()
            playout.playout(PassingSource(seed), deal_only=deal_only)
            step_loop(reference, PassingSource(seed), deal_only=deal_only)
            same_view(playout, reference)
            thrown_in += sum(1 for d in playout.deal_log if d["result"].get("thrown_in"))
    assert (thrown_in > 0) == (all_pass == "redeal")
