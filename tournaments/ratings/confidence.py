"""How sure is a ranking: rating intervals, "is A stronger than B", exact tests, SPRT.

Plain Python (``math`` only), so a notebook can check every number the platform shows.

- **Intervals.** A rating is a Gaussian belief ``N(mu, sigma**2)`` about skill
  (:mod:`tournaments.ratings.skill`). Its 95 % interval is ``mu +- 1.96 sigma``, on
  the scale of ``mu`` (the same points as the displayed rating ``mu - 3 sigma``,
  which always lies below the interval: it is a one-sided 99.87 % lower bound).
- **Stronger.** ``P(A stronger than B) = Phi((mu_A - mu_B) / sqrt(sigma_A**2 +
  sigma_B**2))``: the belief that A's skill exceeds B's, the two beliefs taken as
  independent. :func:`p_wins` adds the model's per-game noise ``2 beta**2`` under the
  root and answers a different question, "does A finish ahead of B in one game"
  (openskill's ``predict_win`` for two players); it stays near 1/2 however sure the
  model is, so it is not used to say who is stronger.
- **Exact tests.** :func:`binomial_test` is the two-sided exact binomial test
  (outcomes no more likely than the observed one are summed); :func:`sign_test`
  is that test at p = 1/2 over decided trials, level trials left out.
- **SPRT.** :class:`Sprt` is the generalised sequential probability ratio test of
  chess-engine testing (fishtest's GSPRT, written anew here): trials score in
  [0, 1] (a game 0, 1/2, 1; a duplicate pair of games 0, 1/4, ..., 1), H0 says the
  Elo difference is ``elo0``, H1 says ``elo1`` (logistic Elo: expected score
  ``1 / (1 + 10**(-elo / 400))``). The log-likelihood ratio compares the most likely
  outcome distributions whose mean is each hypothesis's expected score; the test
  stops at ``log(beta / (1 - alpha))`` (H0) or ``log((1 - beta) / alpha)`` (H1).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tournaments.ratings.skill import MODEL, Rating
from tournaments.ratings.standings import TableResult, pair_score

#: The two-sided 95 % quantile of the standard normal distribution.
Z95: float = 1.959963984540054
#: The model's per-game performance noise (openskill's ``beta``, 25/6 by default).
BETA: float = MODEL.beta


def normal_cdf(x: float) -> float:
    """``Phi(x)``, the standard normal distribution function."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def interval(rating: Rating, z: float = Z95) -> tuple[float, float]:
    """``(mu - z sigma, mu + z sigma)``: the 95 % interval of the skill ``mu`` by default."""
    return rating.mu - z * rating.sigma, rating.mu + z * rating.sigma


def p_stronger(a: Rating, b: Rating) -> float:
    """The model's probability that A's skill is above B's (see the module docstring).

    Any objects with ``mu`` and ``sigma`` will do; two certain beliefs (both sigmas 0)
    give 1, 0 or 1/2.
    """
    spread = math.hypot(a.sigma, b.sigma)
    if spread == 0:
        return 0.5 if a.mu == b.mu else float(a.mu > b.mu)
    return normal_cdf((a.mu - b.mu) / spread)


def p_wins(a: Rating, b: Rating, beta: float = BETA) -> float:
    """The model's probability that A finishes ahead of B in one two-player game."""
    return normal_cdf((a.mu - b.mu) / math.sqrt(a.sigma**2 + b.sigma**2 + 2 * beta**2))


@dataclass(frozen=True)
class _Belief:
    mu: float
    sigma: float


def with_confidence(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Standings rows (each with ``mu`` and ``sigma``, in standing order) with three more
    keys: ``rating_low`` and ``rating_high``, the 95 % interval of ``mu``, and
    ``p_above_next``, :func:`p_stronger` of the row against the row below it (None for
    the last row). Returns new dicts; the input is not modified.
    """
    ratings = [_Belief(row["mu"], row["sigma"]) for row in rows]  # stored: not re-checked
    out = []
    for index, (row, rating) in enumerate(zip(rows, ratings, strict=True)):
        low, high = interval(rating)
        below = ratings[index + 1] if index + 1 < len(ratings) else None
        out.append(
            {
                **row,
                "rating_low": low,
                "rating_high": high,
                "p_above_next": None if below is None else p_stronger(rating, below),
            }
        )
    return out


# --- exact tests -------------------------------------------------------------------------


def _log_pmf(k: int, n: int, p: float) -> float:
    return (
        math.lgamma(n + 1)
        - math.lgamma(k + 1)
        - math.lgamma(n - k + 1)
        + k * math.log(p)
        + (n - k) * math.log1p(-p)
    )


def binomial_test(successes: int, trials: int, p: float = 0.5) -> float:
    """Two-sided exact binomial test: the probability, with success probability ``p``,
    of an outcome no more likely than ``successes`` of ``trials``.

    1.0 for no trials. Raises ``ValueError`` for counts out of range or ``p`` outside
    (0, 1).
    """
    if not (isinstance(trials, int) and isinstance(successes, int)) or not (
        0 <= successes <= trials
    ):
        raise ValueError(f"need integers 0 <= successes <= trials, got {successes}, {trials}")
    if not 0 < p < 1:
        raise ValueError(f"p must be strictly between 0 and 1, got {p}")
    if trials == 0:
        return 1.0
    observed = _log_pmf(successes, trials, p)
    # A relative slack so that outcomes exactly as likely as the observed one, such as
    # the mirror image at p = 1/2, count despite rounding (as scipy's binomtest does).
    limit = observed + math.log1p(1e-7)
    terms = [lp for k in range(trials + 1) if (lp := _log_pmf(k, trials, p)) <= limit]
    top = max(terms)
    total = math.exp(top) * math.fsum(math.exp(t - top) for t in terms)
    return 1.0 if total > 1.0 - 1e-12 else total  # every outcome counted: exactly 1


def sign_test(wins: int, losses: int) -> float:
    """Two-sided sign test of ``wins`` against ``losses`` (level trials are left out)."""
    return binomial_test(wins, wins + losses, 0.5)


# --- SPRT ---------------------------------------------------------------------------------


def elo_to_score(elo: float) -> float:
    """Expected score of a player ``elo`` logistic Elo points stronger."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(score: float) -> float:
    """The logistic Elo difference of a mean score (+-inf at 1 and 0)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # + 0.0: no "-0.0" at 1/2


def trinomial(wins: int, draws: int, losses: int) -> dict[float, float]:
    """Counts of single games: 1 per win, 1/2 per draw, 0 per loss."""
    return {1.0: wins, 0.5: draws, 0.0: losses}


def score_counts(scores: Iterable[float], steps: int) -> dict[float, float]:
    """Counts of trial scores on the grid ``0, 1/steps, ..., 1`` (every point present).

    ``steps`` is 2 for single games (trinomial), 4 for duplicate pairs of two-player
    games (pentanomial), ``2 * rotations`` for a deal played at every seat rotation.
    Raises ``ValueError`` for a score off the grid.
    """
    counts = {i / steps: 0.0 for i in range(steps + 1)}
    for score in scores:
        counts[_grid_point(score, steps)] += 1
    return counts


def _grid_point(score: float, steps: int) -> float:
    point = round(score * steps)
    if not 0 <= point <= steps or abs(point - score * steps) > 1e-9:
        raise ValueError(f"score {score} is not on the grid of 1/{steps}")
    return point / steps


#: Empty outcome categories count as this many trials (fishtest regularises the same
#: way), so that the constrained maximum-likelihood distributions exist.
EMPTY_COUNT = 1e-3


def _constrained_log_ratio(values: list[float], freqs: list[float], mean: float) -> list[float]:
    """``log(p_hat_i / p_i)`` where ``p`` is the distribution closest (maximum likelihood)
    to the empirical ``p_hat`` whose mean is ``mean``: ``p_i = p_hat_i / (1 + t (a_i -
    mean))`` with ``t`` solving ``sum p_hat_i (a_i - mean) / (1 + t (a_i - mean)) = 0``.
    """
    d = [a - mean for a in values]
    lo = -1.0 / max(d) if max(d) > 0 else -1e12
    hi = -1.0 / min(d) if min(d) < 0 else 1e12

    def f(t: float) -> float:
        return sum(q * x / (1.0 + t * x) for q, x in zip(freqs, d, strict=True))

    t = 0.0
    for _ in range(200):  # safeguarded Newton: f decreases on (lo, hi)
        value = f(t)
        if abs(value) < 1e-13:
            break
        if value > 0:
            lo = t
        else:
            hi = t
        slope = -sum(q * x * x / (1.0 + t * x) ** 2 for q, x in zip(freqs, d, strict=True))
        step = t - value / slope if slope < 0 else math.nan
        t = step if lo < step < hi else (lo + hi) / 2
    return [math.log1p(t * x) for x in d]


@dataclass(frozen=True)
class SprtResult:
    """Where a test stands: the LLR, its bounds, the decision ("H0", "H1" or None)."""

    llr: float
    lower: float
    upper: float
    decision: str | None
    trials: int
    score: float
    elo: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "llr": self.llr,
            "lower": self.lower,
            "upper": self.upper,
            "decision": self.decision,
            "trials": self.trials,
            "score": self.score,
            "elo": self.elo,
        }


@dataclass(frozen=True)
class Sprt:
    """A sequential test of H0 "Elo difference = ``elo0``" against H1 "= ``elo1``", with
    error rates ``alpha`` (accepting H1 when H0 holds) and ``beta`` (the reverse).

    Raises ``ValueError`` unless ``elo0 < elo1``, both finite, and 0 < alpha, beta with
    alpha + beta < 1.
    """

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not (math.isfinite(self.elo0) and math.isfinite(self.elo1) and self.elo0 < self.elo1):
            raise ValueError(f"need finite elo0 < elo1, got {self.elo0}, {self.elo1}")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha + self.beta < 1):
            raise ValueError(
                f"need 0 < alpha, beta and alpha + beta < 1, got {self.alpha}, {self.beta}"
            )

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR: ``log(beta / (1 - alpha))``."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR: ``log((1 - beta) / alpha)``."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, counts: Mapping[float, float]) -> float:
        """The generalised log-likelihood ratio of H1 against H0 for ``counts`` (trial
        score in [0, 1] -> number of trials). 0 for no trials."""
        if any(not 0 <= v <= 1 for v in counts) or any(c < 0 for c in counts.values()):
            raise ValueError(f"scores must be in [0, 1] and counts >= 0, got {dict(counts)}")
        total = sum(counts.values())
        if total == 0 or len(counts) < 2:
            return 0.0
        values = sorted(counts)
        regular = [max(counts[v], EMPTY_COUNT) for v in values]
        n = sum(regular)
        freqs = [c / n for c in regular]
        to0 = _constrained_log_ratio(values, freqs, elo_to_score(self.elo0))
        to1 = _constrained_log_ratio(values, freqs, elo_to_score(self.elo1))
        # log L1 - log L0 = sum n_i (log p1_i - log p0_i) = sum n_i (to0_i - to1_i)
        return n * math.fsum(q * (a - b) for q, a, b in zip(freqs, to0, to1, strict=True))

    def test(self, counts: Mapping[float, float]) -> SprtResult:
        """The LLR of ``counts`` and the decision it reaches, if any."""
        llr = self.llr(counts)
        decision = "H1" if llr >= self.upper else "H0" if llr <= self.lower else None
        trials = sum(counts.values())
        score = sum(v * c for v, c in counts.items()) / trials if trials else 0.5
        return SprtResult(
            llr, self.lower, self.upper, decision, int(trials), score, score_to_elo(score)
        )

    def sequence(
        self, scores: Iterable[float], *, steps: int, max_trials: int | None = None
    ) -> Iterator[SprtResult]:
        """Feed trial ``scores`` (on the grid of 1/``steps``) one by one, yielding the
        result after each; stops after a decision or ``max_trials`` trials."""
        counts = score_counts((), steps)
        for trial, score in enumerate(scores, start=1):
            counts[_grid_point(score, steps)] += 1
            result = self.test(counts)
            yield result
            if result.decision is not None or (max_trials is not None and trial >= max_trials):
                return


# --- head-to-head trials ------------------------------------------------------------------


@dataclass
class PairRecord:
    """One ordered pair ``(a, b)`` from ``a``'s side.

    ``games`` and ``score`` count single games (``a`` scores 1 for each game it
    finished ahead of ``b``, 1/2 level, 0 behind). ``won``, ``lost`` and ``level``
    count trials: a deal played at every seat rotation of a duplicate match (``a``
    wins it with more than half the points of its games), else a whole match (by
    the match ranks). ``p_value`` is the sign test over the decided trials.
    """

    games: int = 0
    score: float = 0.0
    won: int = 0
    lost: int = 0
    level: int = 0

    @property
    def trials(self) -> int:
        return self.won + self.lost + self.level

    @property
    def p_value(self) -> float:
        return sign_test(self.won, self.lost)


#: One finished match: its result by match ranks and its games as ``(deal, result)``; a
#: game whose deal is None (a play-off) counts in games and score but forms no trial.
PlayedMatch = tuple[TableResult, Sequence[tuple[int | None, TableResult]]]


def pair_records(matches: Iterable[PlayedMatch], *, by_deal: bool) -> dict[tuple, PairRecord]:
    """Head-to-head records of every ordered pair of opponents over ``matches``.

    ``by_deal``: a trial is one deal (its games at every seat rotation, as duplicate
    matches play them); otherwise a trial is one match.
    """
    records: dict[tuple, PairRecord] = {}
    for match, games in matches:
        deal_points: dict[tuple, dict[int, list[float]]] = {}
        for deal, game in games:
            for a in game.entries():
                for b in game.opponents(a):
                    rec = records.setdefault((a, b), PairRecord())
                    points = pair_score(game, a, b)
                    rec.games += 1
                    rec.score += points
                    if deal is not None:
                        deal_points.setdefault((a, b), {}).setdefault(deal, []).append(points)
        if by_deal:
            for pair, deals in deal_points.items():
                for points in deals.values():
                    _count_trial(records[pair], sum(points) - len(points) / 2)
        else:
            for a in match.entries():
                for b in match.opponents(a):
                    _count_trial(
                        records.setdefault((a, b), PairRecord()), pair_score(match, a, b) - 0.5
                    )
    return records


def _count_trial(record: PairRecord, margin: float) -> None:
    if margin > 0:
        record.won += 1
    elif margin < 0:
        record.lost += 1
    else:
        record.level += 1


# --- "is A better than B?" ----------------------------------------------------------------

#: A test result at or below this p-value is called significant in plain-language answers.
SIGNIFICANCE = 0.05


def percent(p: float) -> str:
    """``p`` as a percentage for people: "97 %", "99.4 %", "> 99.9 %", "< 0.1 %"."""
    if p > 0.999:
        return "> 99.9 %"
    if p < 0.001:
        return "< 0.1 %"
    digits = 1 if p > 0.99 or p < 0.01 else 0
    return f"{100 * p:.{digits}f} %"


def compare_text(
    name_a: str, name_b: str, p_a_stronger: float, record: PairRecord, units: str
) -> str:
    """The plain-language answer to "is A better than B?", e.g. "A is stronger than B with
    97 % probability (rating model); head-to-head 14-6 over deals, p = 0.115 (not
    significant at the 5 % level)". ``record`` is A's side; ``units`` names the
    trials ("deals" or "matches")."""
    if p_a_stronger == 0.5:
        model = f"the rating model cannot tell {name_a} and {name_b} apart (50 %)"
    else:
        first, second, p = (
            (name_a, name_b, p_a_stronger)
            if p_a_stronger > 0.5
            else (name_b, name_a, 1 - p_a_stronger)
        )
        model = f"{first} is stronger than {second} with {percent(p)} probability (rating model)"
    if not record.trials:
        return f"{model}; they have not met"
    level = f", {record.level} level" if record.level else ""
    verdict = "significant" if record.p_value <= SIGNIFICANCE else "not significant"
    return (
        f"{model}; head-to-head {record.won}-{record.lost} over {units}{level}, "
        f"p = {record.p_value:.3g} ({verdict} at the {100 * SIGNIFICANCE:.0f} % level)"
    )
