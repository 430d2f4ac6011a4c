"""Reads of a competition's results: the crosstable, a round's results, the league's
seasons and an entry's divisions, head-to-head, an entry's rating history and the
verification of the deals."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models import (
    Prefetch,
)

from bots.models import bot_display_name
from bots.referee.match import game_seed
from tournaments.integrity import deals
from tournaments.models import (
    Competition,
    Entry,
    MatchSeat,
    RatingEvent,
)
from tournaments.pairing import finished_results
from tournaments.ratings import (
    display_rating,
    head_to_head,
    pair_score,
)
from tournaments.selectors import comparison
from tournaments.selectors.ranking import finished_tables
from tournaments.selectors.standings import standings_for_competition
from tournaments.selectors.visibility import competitions_visible_to

#: The formats with a crosstable: every entry meets every other.
CROSSTABLE_FORMATS = (Competition.Format.ROUND_ROBIN, Competition.Format.DOUBLE_ROUND_ROBIN)


def crosstable_for_competition(
    *,
    competition: Competition,
    standings: list[dict[str, Any]] | None = None,
    division: int | None = None,
) -> dict[str, Any] | None:
    """A round robin's crosstable: a row and a column per entry, both in standings order;
    the cell of row A and column B is A's result against B. None for other formats.

    ``{"entries": [{"entry", "name", "rank", "shared", "points", "division",
    "division_number"}], "rows": [{"entry", "cells": [{"opponent", "meetings", "results",
    "score"}]}]}``: ``results`` A's pairwise points against B at each finished table they
    shared, in playing order (1 ahead, 0.5 level, 0 behind), ``score`` their sum (None
    before they met); the diagonal cell has ``opponent`` A and no meetings. Partners are
    not opponents. An entry's ``division`` (0 the top one) and ``division_number`` (from
    1) are a league season's, else None. ``division``: only that division's entries (a
    league season's crosstable of one division). ``standings``: the whole table of
    ``standings_for_competition`` if the caller read it already.
    """
    if competition.format not in CROSSTABLE_FORMATS:
        return None
    if standings is None:
        standings = standings_for_competition(competition=competition)
    if division is not None:
        standings = [row for row in standings if row["division"] == division]
    met: dict[tuple[int, int], list[float]] = {}
    for result in finished_tables(competition)[0]:
        for a in result.entries():
            for b in result.opponents(a):
                met.setdefault((a, b), []).append(pair_score(result, a, b))
    order = [row["entry"] for row in standings]
    rows = []
    for a in order:
        cells = []
        for b in order:
            results = met.get((a, b), [])
            cells.append(
                {
                    "opponent": b,
                    "meetings": len(results),
                    "results": results,
                    "score": sum(results) if results else None,
                }
            )
        rows.append({"entry": a, "cells": cells})
    keys = ("entry", "name", "rank", "shared", "points", "division", "division_number")
    return {"entries": [{k: row[k] for k in keys} for row in standings], "rows": rows}


def round_results(
    *, competition: Competition, last: int | None = None, numbers: Sequence[int] | None = None
) -> list[dict[str, Any]]:
    """Every round in order (the ``last`` ones with ``last``, only those of ``numbers``
    with ``numbers``), each with its tables and
    byes: ``{"number", "status", "byes": [{"entry", "name"}], "matches": [{"match",
    "table", "node", "status", "seats": [{"seat", "entry", "name", "rank", "score",
    "points"}]}]}``; seats in seat order (``seat`` is the protocol's index, from 0), a
    seat's ``rank``, ``score`` and ``points`` None until its match is done. Three queries.
    """
    names = {
        pk: bot_display_name(name, owner)
        for pk, name, owner in competition.entries.values_list(
            "pk", "bot__name", "bot__owner__username"
        )
    }
    every = competition.rounds.prefetch_related("byes")
    if numbers is not None:
        every = every.filter(number__in=list(numbers))
    if last:
        rounds = list(every.order_by("-number")[:last])[::-1]
    else:
        rounds = list(every.order_by("number"))
    matches = (
        competition.matches.filter(round__in=rounds)
        .prefetch_related(Prefetch("seats", queryset=MatchSeat.objects.order_by("seat")))
        .order_by("table", "id")
    )
    by_round: dict[int, list[dict[str, Any]]] = {}
    for match in matches:
        by_round.setdefault(match.round_id, []).append(
            {
                "match": match.pk,
                "table": match.table,
                "node": match.node,
                "status": match.status,
                "seats": [
                    {
                        "seat": s.seat,
                        "entry": s.entry_id,
                        "name": names.get(s.entry_id, str(s.entry_id)),
                        "rank": s.rank,
                        "score": s.score,
                        "points": s.points,
                    }
                    for s in match.seats.all()
                ],
            }
        )
    return [
        {
            "number": r.number,
            "status": r.status,
            "byes": [{"entry": e.pk, "name": names.get(e.pk, str(e.pk))} for e in r.byes.all()],
            "matches": by_round.get(r.pk, []),
        }
        for r in rounds
    ]


def league_seasons(*, competition: Competition) -> list[Competition]:
    """Every season of the league ``competition`` belongs to, first to last (following
    ``previous_season`` both ways); just ``[competition]`` for any other competition."""
    seasons = [competition]
    while seasons[0].previous_season_id is not None:
        seasons.insert(0, Competition.objects.get(pk=seasons[0].previous_season_id))
    while (after := Competition.objects.filter(previous_season=seasons[-1]).first()) is not None:
        seasons.append(after)
    return seasons


def division_history_for_entry(*, entry: Entry, user) -> list[dict[str, Any]]:
    """The entry's bot in every season of its league that ``user`` may see, first to
    last: ``{"competition", "name", "season", "status", "entry", "division", "rank",
    "move"}`` with ``division`` 0 for the top one, ``rank`` its place within the division
    and ``move`` "up", "down" or None (as the standings mark them; for an unfinished
    season, where it stands now)."""
    visible = set(competitions_visible_to(user=user).values_list("pk", flat=True))
    out = []
    for season in league_seasons(competition=entry.competition):
        if season.pk not in visible:
            continue
        rows = {row["entry"]: row for row in standings_for_competition(competition=season)}
        there = season.entries.filter(bot_id=entry.bot_id).values_list("pk", flat=True).first()
        if there is None:
            continue
        row = rows[there]
        out.append(
            {
                "competition": season.pk,
                "name": season.name,
                "season": season.season,
                "status": season.status,
                "entry": there,
                "division": row["division"],
                "rank": row["rank"],
                "move": row["move"],
            }
        )
    return out


def head_to_head_for_competition(*, competition: Competition) -> list[dict[str, Any]]:
    """For each pair of entries that met: matches together and who finished ahead, games
    and score, and the sign test over trials (``tournaments.selectors.comparison``)."""
    table = head_to_head(result for _, result in finished_results(competition))
    trials = comparison.pair_records_for_competition(competition=competition)
    unit = comparison.trial_unit(competition)
    entries = competition.entries.select_related("bot__owner", "partner__owner")
    names = {e.pk: e.name for e in entries}
    rows = []
    for (a, b), record in sorted(table.pairs.items()):  # only pairs that met
        if a < b and record.games:
            rows.append(
                {
                    "entry": a,
                    "name": names.get(a, str(a)),
                    "opponent": b,
                    "opponent_name": names.get(b, str(b)),
                    "matches": record.games,
                    "ahead": record.ahead,
                    "behind": record.behind,
                    "level": record.level,
                    **comparison.pair_columns(trials.get((a, b)), unit),
                }
            )
    return rows


def rating_history_for_entry(*, entry: Entry) -> list[dict[str, Any]]:
    events = RatingEvent.objects.filter(entry=entry).order_by("sequence")
    return [
        {
            "match": e.match_id,
            "sequence": e.sequence,
            "mu": e.mu_after,
            "sigma": e.sigma_after,
            "rating": display_rating(e.mu_after, e.sigma_after),
            "at": e.created_at.isoformat(),
        }
        for e in events
    ]


def deals_verification(*, competition: Competition, secret: str | None = None) -> dict[str, Any]:
    """Check every stored deal of ``competition`` against its secret (or ``secret``).

    Returns the numbers of matches and games checked and a list of problems: a
    secret that does not match the published commitment, a match seed that does
    not follow from the secret (or the chosen seed), a game record whose seed or
    decks do not follow from its match seed. An empty list means every deal was
    drawn as published.
    """
    secret = secret if secret is not None else competition.deal_secret
    problems: list[str] = []
    if competition.deal_secret and secret != competition.deal_secret:
        problems.append("the secret given is not the competition's (its SHA-256 differs)")
        return {"matches": 0, "games": 0, "problems": problems}
    checked_games = 0
    matches = competition.matches.select_related("round").prefetch_related("game_records")
    per_deal = competition.seats_per_table if competition.duplicate else 1
    deals_per_match = max(1, competition.games_per_match // per_deal)
    for match in matches.order_by("id"):
        where = {
            "competition_id": competition.pk,
            "round_number": match.round.number if match.round else 0,
            "table": match.table,
        }
        expected = (
            deals.match_seed_from_secret(secret, **where)
            if secret
            else deals.match_seed_from_seed(competition.seed, **where)
        )
        if expected != match.seed:
            problems.append(f"match {match.pk}: its seed does not follow from the secret")
            continue
        deal_of_seed = {game_seed(match.seed, d): d for d in range(deals_per_match)}
        for game in match.game_records.all():
            record = game.record()
            # A play-off game (a level knockout match) has deals of its set's own seed.
            seed = deals.playoff_seed(match.seed, game.playoff) if game.playoff else match.seed
            known = deal_of_seed if not game.playoff else {game_seed(seed, 0): 0}  # one deal a set
            deal = known.get(record.get("seed"))
            problem = (
                "its seed is the seed of no deal of the match"
                if deal is None
                else deals.check_game(record, match_seed=seed, deal=deal)
            )
            checked_games += 1
            if problem:
                problems.append(f"match {match.pk} game {game.index + 1}: {problem}")
    return {"matches": matches.count(), "games": checked_games, "problems": problems}
