"""How sure a ranking is: intervals, P(stronger), exact tests and the SPRT."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from tournaments.ratings import Rating, TableResult
from tournaments.ratings.confidence import (
    Z95,
    PairRecord,
    Sprt,
    binomial_test,
    compare_text,
    elo_to_score,
    interval,
    normal_cdf,
    p_stronger,
    p_wins,
    pair_records,
    percent,
    score_counts,
    score_to_elo,
    sign_test,
    trinomial,
    with_confidence,
)

ratings_st = st.builds(Rating, mu=st.floats(-20, 60), sigma=st.floats(0.05, 9))


def test_normal_cdf_matches_known_values():
    assert normal_cdf(0) == 0.5
    assert normal_cdf(Z95) == pytest.approx(0.975, abs=1e-12)
    assert normal_cdf(-1) == pytest.approx(0.15865525393145707, abs=1e-15)
    assert normal_cdf(3) == pytest.approx(0.9986501019683699, abs=1e-15)


@given(rating=ratings_st)
def test_interval_contains_mu_and_the_display_lies_below_it(rating):
    low, high = interval(rating)
    assert low < rating.mu < high
    assert high - low == pytest.approx(2 * Z95 * rating.sigma)
    assert rating.display < low


@given(mu=st.floats(-20, 60), sigma=st.floats(0.05, 8), more=st.floats(0.01, 3))
def test_interval_widens_with_sigma(mu, sigma, more):
    narrow, wide = interval(Rating(mu, sigma)), interval(Rating(mu, sigma + more))
    assert wide[0] < narrow[0] and wide[1] > narrow[1]


@given(a=ratings_st)
def test_equal_ratings_are_even(a):
    assert p_stronger(a, a) == 0.5
    assert p_wins(a, a) == 0.5


@given(a=ratings_st, b=ratings_st)
def test_p_stronger_is_symmetric_and_favours_the_higher_mu(a, b):
    assert p_stronger(a, b) + p_stronger(b, a) == pytest.approx(1.0, abs=1e-12)
    if a.mu > b.mu + 1e-9:
        assert p_stronger(a, b) > 0.5
        assert p_stronger(a, b) >= p_wins(a, b) > 0.5  # one game is noisier than skill


def test_p_stronger_known_value():
    # mu 30 +- 3 against 26 +- 4: the difference is N(4, 5**2), P(> 0) = Phi(0.8).
    assert p_stronger(Rating(30, 3), Rating(26, 4)) == pytest.approx(0.7881446014166034)


@given(a=ratings_st, b=ratings_st)
def test_p_wins_is_openskills_predict_win_for_two_players(a, b):
    model = PlackettLuce()
    expected = model.predict_win(
        [[model.rating(mu=a.mu, sigma=a.sigma)], [model.rating(mu=b.mu, sigma=b.sigma)]]
    )
    assert p_wins(a, b) == pytest.approx(expected[0], abs=1e-9)


def test_standings_rows_get_interval_and_probability_against_the_next_row():
    rows = [
        {"entry": 1, "mu": 30.0, "sigma": 2.0},
        {"entry": 2, "mu": 25.0, "sigma": 3.0},
        {"entry": 3, "mu": 25.0, "sigma": 3.0},
    ]
    out = with_confidence(rows)
    assert [r["entry"] for r in out] == [1, 2, 3]
    assert out[0]["rating_low"] == pytest.approx(30 - Z95 * 2)
    assert out[0]["rating_high"] == pytest.approx(30 + Z95 * 2)
    assert out[0]["p_above_next"] == pytest.approx(normal_cdf(5 / math.sqrt(13)))
    assert out[1]["p_above_next"] == 0.5
    assert out[2]["p_above_next"] is None
    assert "rating_low" not in rows[0]  # the input is left alone
    assert with_confidence([]) == []


def reference_binomial_test(k: int, n: int, p: Fraction) -> Fraction:
    """Exact rational two-sided test: the sum of the outcomes no more likely than ``k``."""
    pmf = [math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(n + 1)]
    return sum((q for q in pmf if q <= pmf[k]), Fraction(0))


def test_binomial_test_known_values():
    assert binomial_test(14, 20) == pytest.approx(0.11531829833984375, rel=1e-12)  # 14-6
    assert binomial_test(15, 20) == pytest.approx(0.04138946533203125, rel=1e-12)  # 15-5
    assert binomial_test(10, 20) == 1.0
    assert binomial_test(0, 0) == 1.0
    assert binomial_test(20, 20) == pytest.approx(2 / 2**20)
    assert binomial_test(3, 10, 0.1) == pytest.approx(0.0701908264, rel=1e-9)  # scipy's binomtest


@given(n=st.integers(1, 60), data=st.data())
def test_binomial_test_equals_the_exact_rational_sum(n, data):
    k = data.draw(st.integers(0, n))
    p = data.draw(
        st.sampled_from([Fraction(1, 2), Fraction(1, 3), Fraction(1, 10), Fraction(7, 8)])
    )
    assert binomial_test(k, n, float(p)) == pytest.approx(
        float(reference_binomial_test(k, n, p)), rel=1e-9
    )


@given(wins=st.integers(0, 400), losses=st.integers(0, 400))
def test_sign_test_is_symmetric_and_a_probability(wins, losses):
    value = sign_test(wins, losses)
    assert 0 < value <= 1
    assert value == pytest.approx(sign_test(losses, wins), rel=1e-12)


def test_large_counts_do_not_underflow():
    assert sign_test(5_000, 5_000) == pytest.approx(1.0)
    assert 0 < sign_test(5_300, 4_700) < 1e-8


@pytest.mark.parametrize("bad", [(-1, 3, 0.5), (4, 3, 0.5), (1, 3, 0.0), (1, 3, 1.0)])
def test_binomial_test_refuses_bad_input(bad):
    with pytest.raises(ValueError):
        binomial_test(*bad)


def test_elo_and_score_are_inverse():
    for elo in (-300, -5, 0, 5, 50, 400):
        assert score_to_elo(elo_to_score(elo)) == pytest.approx(elo)
    assert elo_to_score(400) == pytest.approx(10 / 11)
    assert score_to_elo(1.0) == math.inf and score_to_elo(0.0) == -math.inf


def test_sprt_bounds_follow_alpha_and_beta():
    test = Sprt(elo0=0, elo1=5, alpha=0.05, beta=0.05)
    assert test.lower == pytest.approx(math.log(0.05 / 0.95))
    assert test.upper == pytest.approx(math.log(0.95 / 0.05))


@pytest.mark.parametrize(
    "bad", [{"elo0": 5, "elo1": 5}, {"alpha": 0}, {"beta": 1}, {"alpha": 0.6, "beta": 0.5}]
)
def test_sprt_refuses_bad_parameters(bad):
    with pytest.raises(ValueError):
        Sprt(**bad)


def normal_approximation(counts, elo0, elo1):
    """fishtest's documented approximation of the GSPRT's LLR, for small effects."""
    n = sum(counts.values())
    mean = sum(v * c for v, c in counts.items()) / n
    var = sum(c * (v - mean) ** 2 for v, c in counts.items()) / n
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)


@pytest.mark.parametrize(
    "counts",
    [
        trinomial(1_000, 1_000, 950),
        trinomial(4_000, 2_000, 4_100),
        {0.0: 50, 0.25: 600, 0.5: 1_500, 0.75: 640, 1.0: 60},
    ],
)
def test_sprt_llr_agrees_with_the_normal_approximation_for_small_effects(counts):
    llr = Sprt(elo0=0, elo1=5).llr(counts)
    assert llr == pytest.approx(normal_approximation(counts, 0, 5), rel=0.02, abs=0.02)


def test_sprt_llr_is_zero_without_trials_and_signs_follow_the_evidence():
    test = Sprt(elo0=0, elo1=20)
    assert test.llr(trinomial(0, 0, 0)) == 0.0
    assert test.llr(trinomial(60, 20, 20)) > 0
    assert test.llr(trinomial(20, 20, 60)) < 0
    assert test.test(trinomial(0, 0, 0)).decision is None


def stream(p_win: float, p_draw: float, seed: int):
    rng = random.Random(seed)
    while True:
        x = rng.random()
        yield 1.0 if x < p_win else 0.5 if x < p_win + p_draw else 0.0


def test_sprt_accepts_h1_for_a_clearly_stronger_player_and_stops():
    results = list(Sprt(elo0=0, elo1=20).sequence(stream(0.6, 0.2, seed=7), steps=2))
    last = results[-1]
    assert last.decision == "H1" and last.llr >= last.upper
    assert all(r.decision is None for r in results[:-1])
    assert last.trials == len(results) < 2_000


def test_sprt_accepts_h0_for_an_equal_player_and_stops():
    last = list(Sprt(elo0=0, elo1=20).sequence(stream(0.4, 0.2, seed=1), steps=2))[-1]
    assert last.decision == "H0" and last.llr <= last.lower
    assert last.trials < 20_000


def test_sprt_decides_for_most_seeds_with_error_rates_near_alpha_and_beta():
    test = Sprt(elo0=0, elo1=40, alpha=0.1, beta=0.1)
    equal = [list(test.sequence(stream(0.4, 0.2, s), steps=2))[-1].decision for s in range(60)]
    assert equal.count("H1") <= 12  # alpha = 0.1 of 60, with room for chance


def test_sprt_stops_at_the_cap_undecided():
    results = list(
        Sprt(elo0=0, elo1=5).sequence(itertools.cycle([1.0, 0.0]), steps=2, max_trials=50)
    )
    assert len(results) == 50 and results[-1].decision is None


def test_sprt_counts_duplicate_pairs_on_the_pentanomial_grid():
    assert score_counts([0.25, 0.75, 0.75, 1.0], steps=4) == {
        0.0: 0,
        0.25: 1,
        0.5: 0,
        0.75: 2,
        1.0: 1,
    }
    with pytest.raises(ValueError):
        score_counts([0.3], steps=4)
    pairs = itertools.cycle([0.75, 0.75, 0.5, 1.0, 0.25])  # mean 0.65: clearly stronger
    last = list(Sprt(elo0=0, elo1=20).sequence(pairs, steps=4))[-1]
    assert last.decision == "H1" and last.score > 0.6


def game(table, ranks):
    return TableResult(tuple(table), tuple(ranks))


def test_a_duplicate_deal_is_one_trial_won_by_more_than_half_its_points():
    # Deal 0: A ahead in both rotations; deal 1: one each (level); deal 2: B ahead twice.
    match = game("AB", (1, 2))
    games = [
        (0, game("AB", (1, 2))),
        (1, game("AB", (1, 2))),
        (2, game("AB", (2, 1))),
        (0, game("BA", (2, 1))),
        (1, game("BA", (1, 2))),
        (2, game("BA", (1, 2))),
    ]
    records = pair_records([(match, games)], by_deal=True)
    a, b = records[("A", "B")], records[("B", "A")]
    assert (a.games, a.score) == (6, 3.0)
    assert (a.won, a.lost, a.level) == (1, 1, 1)
    assert (b.won, b.lost, b.level) == (1, 1, 1)
    assert a.p_value == 1.0


def test_without_duplicate_a_match_is_one_trial_and_play_offs_form_none():
    match = game("ABC", (1, 2, 3))
    games = [(0, game("ABC", (2, 1, 3))), (None, game("ABC", (1, 2, 3)))]
    records = pair_records([(match, games)], by_deal=False)
    assert (records[("A", "B")].won, records[("A", "B")].games) == (1, 2)
    assert records[("A", "B")].score == 1.0
    assert pair_records([(match, games)], by_deal=True)[("A", "B")].trials == 1  # deal 0 only


def test_compare_text_names_the_stronger_and_the_test():
    fourteen_six = PairRecord(games=40, score=28, won=14, lost=6, level=0)
    text = compare_text("A", "B", 0.97, fourteen_six, "deals")
    assert text == (
        "A is stronger than B with 97 % probability (rating model); head-to-head 14-6 over "
        "deals, p = 0.115 (not significant at the 5 % level)"
    )
    assert compare_text("A", "B", 0.2, PairRecord(), "matches").startswith(
        "B is stronger than A with 80 %"
    )
    assert "they have not met" in compare_text("A", "B", 0.2, PairRecord(), "matches")
    assert "(significant at the 5 % level)" in compare_text(
        "A", "B", 0.9, PairRecord(won=15, lost=5), "matches"
    )
    assert percent(0.9996) == "> 99.9 %" and percent(0.994) == "99.4 %"


def test_certain_beliefs_are_compared_without_dividing_by_zero():
    rows = [{"mu": 17.0, "sigma": 0.0}, {"mu": 12.0, "sigma": 0.0}, {"mu": 12.0, "sigma": 0.0}]
    out = with_confidence(rows)
    assert (out[0]["rating_low"], out[0]["rating_high"]) == (17.0, 17.0)
    assert [r["p_above_next"] for r in out] == [1.0, 0.5, None]
