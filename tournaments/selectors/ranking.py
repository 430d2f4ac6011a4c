"""The order of a competition's standings: its tiebreak chain applied to the finished
tables, a knockout's places and a Swiss system's order."""

from __future__ import annotations

from typing import Any

from tournaments.formats.swiss import swiss_standings
from tournaments.models import (
    Competition,
    Match,
    MatchSeat,
)
from tournaments.pairing import competition_bracket, finished_results, seat_teams
from tournaments.ratings import (
    TableResult,
    tiebreaks,
)


def standings_chain(competition: Competition) -> tuple[str, ...]:
    """The tie-break chain that orders the competition's standings
    (``tournaments.ratings.tiebreaks.chain_for``)."""
    return tiebreaks.chain_for(competition.format, duplicate=competition.duplicate)


def apply_chain(
    rows: list[dict[str, Any]],
    chain: tuple[str, ...],
    results: list[TableResult],
    scores: dict[int, float],
    *,
    divisions: dict[int, int],
) -> list[dict[str, Any]]:
    """``rows`` re-ordered by ``chain`` (``tiebreaks.order``), each with its ``rank``,
    whether it is ``shared`` and the step that put it below the row above
    (``separated_by``); a round robin's rows carry their ``tiebreaks`` values.
    ``results`` and ``scores``: :func:`finished_tables`. A league season's divisions
    (``divisions``: entry -> division) are ordered each on its own, top division first:
    a tie, and what separated two rows, is within a division."""
    points = {row["entry"]: row["points"] for row in rows}
    values: dict[str, dict[Any, float]] = {
        "points": points,
        "rating": {row["entry"]: round(row["rating"], 2) for row in rows},
        "placement": {row["entry"]: -row["rank"] for row in rows},
    }
    for step in ("buchholz", "median_buchholz"):
        values[step] = {row["entry"]: row.get("tiebreaks", {}).get(step, 0.0) for row in rows}
    if "sonneborn_berger" in chain:
        values["sonneborn_berger"] = tiebreaks.sonneborn_berger(results, points)
    values["score"] = scores
    by_entry = {row["entry"]: row for row in rows}
    groups: dict[int, list[Any]] = {}
    for entry in by_entry:
        groups.setdefault(divisions.get(entry, 0), []).append(entry)
    placed_rows = [
        placed
        for division in sorted(groups)
        for placed in tiebreaks.order(groups[division], chain, values, results)
    ]
    ordered = []
    for placed in placed_rows:
        row = by_entry[placed.entry]
        row.update(rank=placed.rank, shared=placed.shared, separated_by=placed.separated_by)
        if row["order"] == "points":
            row["tiebreaks"] = {"head_to_head": placed.head_to_head}
            for step in ("sonneborn_berger", "score"):
                if step in chain:
                    row["tiebreaks"][step] = values[step].get(placed.entry, 0.0)
        ordered.append(row)
    return ordered


def finished_tables(competition: Competition) -> tuple[list[TableResult], dict[int, float]]:
    """The finished tables of ``competition`` in the order they were created (as
    ``pairing.finished_results``) and each entry's duplicate score: its total game score
    over them (an entry at two seats of one table counts their mean). One query."""
    teams = seat_teams(competition)
    seats = (
        MatchSeat.objects.filter(match__competition=competition, match__status=Match.Status.DONE)
        .order_by("match_id", "seat")
        .values_list("match_id", "entry_id", "rank", "score")
    )
    by_match: dict[int, list[tuple[int, int, float | None]]] = {}
    for match_id, entry, rank, score in seats:
        by_match.setdefault(match_id, []).append((entry, rank, score))
    results, scores = [], {}
    for rows in by_match.values():
        results.append(
            TableResult(tuple(e for e, _, _ in rows), tuple(r for _, r, _ in rows), teams)
        )
        mine: dict[int, list[float]] = {}
        for entry, _, score in rows:
            if score is not None:
                mine.setdefault(entry, []).append(score)
        for entry, values in mine.items():
            scores[entry] = scores.get(entry, 0.0) + sum(values) / len(values)
    return results, scores


def knockout_order(competition: Competition, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Knockout standings: the bracket's placements (``Bracket.placements``).

    Adds ``eliminated_round`` (the schedule round of the entry's last table, None for
    the champion and for entries still in) and ``eliminated_at`` (that table's bracket
    node). Rows keep the points order if the bracket cannot be built (no entries yet).
    """
    try:
        bracket = competition_bracket(competition)
        placements = bracket.placements(dict(finished_results(competition)))
    except ValueError:
        return rows
    by_entry = {row["entry"]: row for row in rows}
    ordered = []
    for place in placements:
        row = by_entry[place.entry]
        row.update(
            rank=place.rank,
            eliminated_round=place.eliminated_round,
            eliminated_at=place.eliminated_at,
        )
        ordered.append(row)
    return ordered


def swiss_order(
    competition: Competition, rows: list[dict[str, Any]], results: list[TableResult]
) -> list[dict[str, Any]]:
    """Swiss standings: points (byes included), then Buchholz, Sonneborn-Berger, head-to-head."""
    entries = list(competition.entries.order_by("seed_order", "id").values_list("id", flat=True))
    byes = [e for r in competition.rounds.all() for e in r.byes.values_list("id", flat=True)]
    table = swiss_standings(
        entries,
        results,
        byes=byes,
        table_size=competition.seats_per_table,
        partners=competition.fixed_teams,
    )
    by_entry = {row["entry"]: row for row in rows}
    ordered = []
    for line in table:
        row = by_entry[line.entry]
        row.update(
            rank=line.rank,
            points=line.points,
            tiebreaks={
                "buchholz": line.buchholz,
                "median_buchholz": line.median_buchholz,
                "sonneborn_berger": line.sonneborn_berger,
                "head_to_head": line.head_to_head,
            },
        )
        ordered.append(row)
    return ordered
