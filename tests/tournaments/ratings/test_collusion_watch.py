"""The collusion watch (the report made sequential), on tables played through the
referee by ``bench.collusion``'s generator (no database)."""

from __future__ import annotations

import pytest

from bench.collusion import Watched
from tournaments.ratings.collusion_watch import combined_p, look_factor, stouffer

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


def test_the_colluders_think_times_share_a_pattern_and_the_greedy_players_do_not():
    watched = Watched(["colluder", "colluder", "greedy", "greedy", "greedy", "greedy"], 6, seed=3)
    watched.play(40)
    rows = {frozenset((r.a, r.b)): r for r in watched.rows()}
    assert rows[frozenset((0, 1))].p_think < 1e-6
    assert all(r.p_think == 1.0 for pair, r in rows.items() if pair != frozenset((0, 1)))


def test_the_think_times_flag_the_colluders_no_later_than_the_watch_without_them():
    field = ["colluder", "colluder", "greedy", "greedy", "greedy", "greedy"]
    with_think, without = Watched(field, 6, seed=3), Watched(field, 6, seed=3)
    without.think = False
    with_think.play(30)
    without.play(30)
    pair = frozenset((0, 1))
    assert with_think.kept_apart[pair] <= without.kept_apart.get(pair, 31)


def test_a_ladder_of_different_honest_built_ins_raises_no_think_time_alarm():
    # The honest twin of the colluder has its beacon: a pattern none of the others shares.
    watched = Watched(["greedy", "random", "ismcts-quick", "honest"], 6, seed=4)
    watched.play(12)
    rows = watched.rows(min_tables=4)
    assert rows and all(r.p_think > 0.01 for r in rows)
    assert not any(r.flagged for r in rows)


def test_a_think_time_p_alone_never_flags():
    assert combined_p(0.5, 0.5, 1e-300) > 0.03
    assert combined_p(1e-4, 1e-4, None) == stouffer(1e-4, 1e-4)
    assert combined_p(1e-4, 1e-4, 1e-9) < stouffer(1e-4, 1e-4)
