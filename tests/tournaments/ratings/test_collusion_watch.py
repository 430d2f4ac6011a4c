"""The collusion watch (the report made sequential), on tables played through the
referee by ``bench.collusion``'s generator (no database)."""

from __future__ import annotations

import pytest

from bench.collusion import Watched
from tournaments.ratings.collusion_watch import look_factor, stouffer

#: Tables the sybils of bench.collusion shared before the watch flagged them: 8 (its
#: first look) in the measured runs; the bound leaves room for a loaded host, whose
#: timing beacon finds the partner later.
FLAGGED_WITHIN = 30


def test_the_watch_flags_the_colluding_pair_of_bench_collusion_early():
    watched = Watched(["colluder", "colluder", "greedy", "greedy", "greedy", "greedy"], 6, seed=3)
    watched.play(160)
    assert frozenset((0, 1)) in watched.kept_apart
    assert watched.kept_apart[frozenset((0, 1))] <= FLAGGED_WITHIN
    assert list(watched.kept_apart) == [frozenset((0, 1))]  # no greedy pair flagged


def test_the_watch_raises_no_flag_in_an_honest_field_of_built_ins():
    watched = Watched(["greedy", "greedy", "greedy", "random", "random", "random"], 6, seed=2)
    watched.play(300)
    assert watched.kept_apart == {}


def test_a_look_spends_less_alpha_the_later_it_comes():
    assert look_factor(8) == pytest.approx(9)
    assert sum(1 / look_factor(n) for n in range(8, 100_000)) == pytest.approx(1, abs=1e-3)
    with pytest.raises(ValueError, match="look 3"):
        look_factor(3)


def test_stouffer_needs_both_signals():
    assert stouffer(0.5, 0.5) == pytest.approx(0.5)
    assert stouffer(1e-10, 0.5) > 1e-10
    assert stouffer(0.01, 0.01) < 0.01
