"""Skill ratings with openskill's Plackett-Luce model (default parameters).

A rating is a Gaussian belief ``(mu, sigma)`` about an entry's skill. The
number shown to people is the conservative estimate ``mu - 3 * sigma``
(:attr:`Rating.display`): the skill is above it with about 99.9 % belief, so
a new entry starts at 0 and climbs as games make the model surer. ``sigma``
is shown beside it as the uncertainty.

Determinism: updates depend only on the ratings before the game and the
ranks, never on clocks or random state. A history is replayed in ascending
:attr:`RatedGame.order` (for example ``(match id, game number)``), the
documented sort key of every update, so :func:`recompute` of a stored history
gives bit-for-bit the numbers that were produced one game at a time.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

import games

Entry = Hashable

MODEL = PlackettLuce()
INITIAL_MU: float = MODEL.mu
INITIAL_SIGMA: float = MODEL.sigma
#: Seat groups of a four-seat partnership game: seats 0+2 against 1+3 (the
#: ``teams`` of maniglia-4-partners, MANIGLIA-4P-1). A variant's own seat groups
#: are ``games.variant_info(variant).teams``.
PARTNER_SEATS: tuple[tuple[int, ...], ...] = games.variant_info("maniglia-4-partners").teams
#: Default widening for :func:`inherit`: half the initial uncertainty, in quadrature.
DEFAULT_WIDEN: float = INITIAL_SIGMA / 2


#: How many standard deviations the displayed rating keeps below the mean.
DISPLAY_SIGMAS = 3


def display_rating(mu: float, sigma: float) -> float:
    """The conservative rating shown to people: ``mu - 3 * sigma`` (:data:`DISPLAY_SIGMAS`).

    The one definition; :attr:`Rating.display` and the database expression of the
    standings (``tournaments.models.display_rating_expression``) say the same."""
    return mu - DISPLAY_SIGMAS * sigma


@dataclass(frozen=True)
class Rating:
    """A skill belief. ``display`` is ``mu - 3 * sigma``; ``uncertainty`` is ``sigma``."""

    mu: float = INITIAL_MU
    sigma: float = INITIAL_SIGMA

    def __post_init__(self) -> None:
        if not (math.isfinite(self.mu) and math.isfinite(self.sigma)) or self.sigma <= 0:
            raise ValueError(f"a rating needs finite mu and sigma > 0, got {self.mu}, {self.sigma}")

    @property
    def display(self) -> float:
        """The conservative rating shown in standings: ``mu - 3 * sigma``."""
        return display_rating(self.mu, self.sigma)

    @property
    def uncertainty(self) -> float:
        """The standard deviation of the belief, shown next to :attr:`display`."""
        return self.sigma


def _team_seats(seats: int, teams: Sequence[Sequence[int]] | None) -> list[tuple[int, ...]]:
    if teams is None:
        return [(s,) for s in range(seats)]
    groups = [tuple(team) for team in teams]
    if sorted(s for g in groups for s in g) != list(range(seats)) or any(not g for g in groups):
        raise ValueError(f"teams {groups} must cover seats 0..{seats - 1} exactly once")
    return groups


def rate_game(
    ratings: Mapping[Entry, Rating],
    seats: Sequence[Entry],
    ranks: Sequence[int],
    *,
    teams: Sequence[Sequence[int]] | None = None,
) -> dict[Entry, Rating]:
    """New ratings of the entries at one finished table.

    ``seats`` lists the entry at each seat, ``ranks`` the rank per seat (1 =
    best; equal ranks are ties and reach the model as ties). ``teams`` groups
    seat indices into partnerships (use :data:`PARTNER_SEATS` for seats 0+2 vs
    1+3); partners must share a rank. An entry seated twice within one team
    counts once. Entries missing from ``ratings`` start at :class:`Rating`'s
    defaults. Returns only the entries at the table. Raises ``ValueError`` for
    fewer than two teams, length mismatches, bad ranks, split partners or an
    entry on two teams.
    """
    if len(seats) != len(ranks):
        raise ValueError(f"{len(seats)} seats but {len(ranks)} ranks")
    if any(not isinstance(r, int) or r < 1 for r in ranks):
        raise ValueError(f"ranks must be integers >= 1, got {list(ranks)}")
    groups = _team_seats(len(seats), teams)
    if len(groups) < 2:
        raise ValueError(f"a rated game needs at least two teams, got {groups}")
    members: list[list[Entry]] = []
    team_ranks: list[int] = []
    for group in groups:
        if len({ranks[s] for s in group}) != 1:
            raise ValueError(f"partners at seats {group} have different ranks {list(ranks)}")
        members.append(list(dict.fromkeys(seats[s] for s in group)))
        team_ranks.append(ranks[group[0]])
    flat = [e for team in members for e in team]
    if len(flat) != len(set(flat)):
        raise ValueError(f"an entry sits on two teams: {list(seats)}")
    teams_in = [
        [
            MODEL.rating(mu=ratings.get(e, Rating()).mu, sigma=ratings.get(e, Rating()).sigma)
            for e in team
        ]
        for team in members
    ]
    teams_out = MODEL.rate(teams_in, ranks=team_ranks)
    return {
        e: Rating(mu=r.mu, sigma=r.sigma)
        for team, rated in zip(members, teams_out, strict=True)
        for e, r in zip(team, rated, strict=True)
    }


def inherit(mu: float, sigma: float, widen: float = DEFAULT_WIDEN) -> Rating:
    """The starting rating of a new version of a rated bot.

    Keeps ``mu`` and widens ``sigma`` in quadrature, ``sqrt(sigma**2 +
    widen**2)``, capped at the model's initial sigma (the new version is
    never less certain than a stranger), and never narrower than ``sigma``.
    Raises ``ValueError`` for a negative ``widen``.
    """
    if widen < 0 or not math.isfinite(widen):
        raise ValueError(f"widen must be a finite number >= 0, got {widen}")
    return Rating(mu=mu, sigma=max(sigma, min(math.hypot(sigma, widen), INITIAL_SIGMA)))


@dataclass(frozen=True)
class RatedGame:
    """A stored game result for replay; applied in ascending ``order``."""

    order: tuple[int, ...]
    seats: tuple[Entry, ...]
    ranks: tuple[int, ...]
    teams: tuple[tuple[int, ...], ...] | None = None


@dataclass(frozen=True)
class Inheritance:
    """A stored "new version inherits its parent's rating" event; ordered like games."""

    order: tuple[int, ...]
    entry: Entry
    parent: Entry
    widen: float = DEFAULT_WIDEN


HistoryEvent = RatedGame | Inheritance


def update_key(event: HistoryEvent) -> tuple[int, ...]:
    """The sort key of rating updates: the event's ``order`` tuple."""
    return event.order


def apply_event(ratings: Mapping[Entry, Rating], event: HistoryEvent) -> dict[Entry, Rating]:
    """``ratings`` after one event (a copy; the input is not modified)."""
    out = dict(ratings)
    if isinstance(event, Inheritance):
        parent = ratings.get(event.parent, Rating())
        out[event.entry] = inherit(parent.mu, parent.sigma, widen=event.widen)
    else:
        out.update(rate_game(ratings, event.seats, event.ranks, teams=event.teams))
    return out


def recompute(
    history: Iterable[HistoryEvent], initial: Mapping[Entry, Rating] | None = None
) -> dict[Entry, Rating]:
    """Replay ``history`` in ascending :func:`update_key` from ``initial`` (default: empty).

    The result equals applying the same events one by one with
    :func:`apply_event` in that order. Raises ``ValueError`` if two events
    share an order key (the replay order would be ambiguous).
    """
    events = sorted(history, key=update_key)
    for before, after in itertools.pairwise(events):
        if before.order == after.order:
            raise ValueError(f"two rating events share the order key {before.order}")
    ratings = dict(initial or {})
    for event in events:
        ratings = apply_event(ratings, event)
    return ratings
