"""Reads that say how sure a competition's results are.

Head-to-head trials with their sign tests (:func:`pair_records_for_competition`)
and the answer to "is entry A better than entry B?" (:func:`compare_entries`).
The arithmetic is ``tournaments.ratings.confidence``; this module only reads the
stored matches and games and hands them over.

A trial is a deal of a duplicate match (its games at every seat rotation, so the
luck of the cards cancels), or a whole match when the competition is not
duplicate. Games beyond the regular schedule of a match (play-offs) count in
``games`` and ``score`` but form no trial.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from django.core.exceptions import ValidationError

import games
from bots.referee.match import schedule
from tournaments.models import Competition, Entry, GameRecord, Match, MatchSeat
from tournaments.ratings import Rating, TableResult
from tournaments.ratings.confidence import (
    PairRecord,
    PlayedMatch,
    compare_text,
    interval,
    p_stronger,
    p_wins,
    pair_records,
)


def _teams(competition: Competition):
    # The variant's seat groups (Variant.teams), as tournaments.pairing.finished_results reads them.
    return games.variant_info(competition.variant).teams or None


def trial_unit(competition: Competition) -> str:
    """What one trial of the head-to-head tests is: ``"deal"`` or ``"match"``."""
    return "deal" if competition.duplicate else "match"


UNITS = {"deal": "deals", "match": "matches"}


def played_matches(
    *, competition: Competition, entries: Collection[int] | None = None
) -> list[PlayedMatch]:
    """Every finished match (only those seating all of ``entries``, if given) as
    ``(match result, [(deal, game result), ...])``, in the order they were created."""
    matches = competition.matches.filter(status=Match.Status.DONE)
    for entry in entries or ():
        matches = matches.filter(pk__in=MatchSeat.objects.filter(entry_id=entry).values("match"))
    teams = _teams(competition)
    tables: dict[int, tuple[list[int], list[int]]] = {}
    for match_id, entry, rank in (
        MatchSeat.objects.filter(match__in=matches)
        .order_by("match_id", "seat")
        .values_list("match_id", "entry_id", "rank")
    ):
        entry_ids, ranks = tables.setdefault(match_id, ([], []))
        entry_ids.append(entry)
        ranks.append(rank)
    games: dict[int, list[tuple[int, list[int]]]] = {m: [] for m in tables}
    for match_id, index, ranking in (
        GameRecord.objects.filter(match__in=matches)
        .order_by("match_id", "index")
        .values_list("match_id", "index", "ranking")
    ):
        games[match_id].append((index, ranking))
    return [
        _played(competition, table, ranks, games[match_id], teams)
        for match_id, (table, ranks) in tables.items()
    ]


def _played(competition, table, ranks, games, teams) -> PlayedMatch:
    table, ranks = tuple(table), tuple(ranks)
    players = len(table)
    regular = competition.games_per_match
    plan = schedule(regular, players, competition.duplicate and regular % players == 0)
    out = []
    for index, ranking in games:
        # seats[s] is the player (match seat) at seat s; a play-off game forms no trial
        deal, seats = plan[index] if index < len(plan) else (None, list(range(players)))
        out.append((deal, TableResult(tuple(table[p] for p in seats), tuple(ranking), teams)))
    return TableResult(table, ranks, teams), out


def pair_records_for_competition(
    *, competition: Competition, entries: Collection[int] | None = None
) -> dict[tuple[int, int], PairRecord]:
    """Head-to-head records of every ordered pair of opponents (see the module docstring)."""
    played = played_matches(competition=competition, entries=entries)
    records = pair_records(played, by_deal=competition.duplicate)
    return {pair: rec for pair, rec in records.items() if rec.games or rec.trials}


def pair_columns(record: PairRecord | None, unit: str) -> dict[str, Any]:
    """The head-to-head columns of one pair from the first entry's side: ``games``,
    ``score`` and ``opponent_score`` over games, the ``trial`` unit, ``trials`` and how
    many were won, lost and level (``trials_won``, ...), and the sign test's ``p_value``."""
    record = record or PairRecord()
    return {
        "games": record.games,
        "score": record.score,
        "opponent_score": record.games - record.score,
        "trial": unit,
        "trials": record.trials,
        "trials_won": record.won,
        "trials_lost": record.lost,
        "trials_level": record.level,
        "p_value": record.p_value,
    }


def _entry_of(competition: Competition, entry_id: int, field: str) -> Entry:
    entry = Entry.objects.select_related("bot__owner").filter(pk=entry_id).first()
    if entry is None:
        raise ValidationError({field: f"entry {entry_id} does not exist"})
    if entry.competition_id != competition.pk:
        raise ValidationError(
            {
                field: f"entry {entry_id} is in competition {entry.competition_id}, "
                f"not in competition {competition.pk}: only entries of one competition "
                "can be compared"
            }
        )
    return entry


def _name(entry: Entry) -> str:
    return str(entry.bot)


def _side(entry: Entry) -> dict[str, Any]:
    rating = Rating(entry.mu, entry.sigma)
    low, high = interval(rating)
    return {
        "entry": entry.pk,
        "name": _name(entry),
        "rating": rating.display,
        "mu": entry.mu,
        "sigma": entry.sigma,
        "rating_low": low,
        "rating_high": high,
    }


def compare_entries(*, competition: Competition, a: int, b: int) -> dict[str, Any]:
    """The answer to "is entry ``a`` better than entry ``b``?" in ``competition``.

    Returns both sides (rating, mu, sigma, 95 % interval), ``p_stronger`` (the model's
    probability that ``a``'s skill is above ``b``'s), ``p_wins`` (that ``a`` finishes
    ahead of ``b`` in one two-player game), ``head_to_head`` (``a``'s record against
    ``b``: :func:`pair_columns`) and ``answer``, all of it in one sentence. Raises
    ``ValidationError`` naming the parameter for an unknown entry, an entry of another
    competition, or ``a == b``. Reads only.
    """
    entry_a = _entry_of(competition, a, "a")
    entry_b = _entry_of(competition, b, "b")
    if entry_a.pk == entry_b.pk:
        raise ValidationError({"b": f"a and b are the same entry ({a}): compare two entries"})
    rating_a, rating_b = Rating(entry_a.mu, entry_a.sigma), Rating(entry_b.mu, entry_b.sigma)
    records = pair_records_for_competition(competition=competition, entries=(a, b))
    record = records.get((a, b), PairRecord())
    stronger = p_stronger(rating_a, rating_b)
    unit = trial_unit(competition)
    return {
        "a": _side(entry_a),
        "b": _side(entry_b),
        "p_stronger": stronger,
        "p_wins": p_wins(rating_a, rating_b),
        "head_to_head": pair_columns(record, unit),
        "answer": compare_text(_name(entry_a), _name(entry_b), stronger, record, UNITS[unit]),
    }
