"""Reads of fair play: a competition's collusion report and watch, and its soft-play
figures."""

from __future__ import annotations

from typing import Any

import games
from bots.referee.match import schedule
from bots.referee.schedule import rotations
from tournaments.integrity import chances as tallies
from tournaments.models import (
    Competition,
    Entry,
    GameRecord,
    Match,
    MatchSeat,
)
from tournaments.pairing import seat_teams
from tournaments.ratings import (
    collusion,
    collusion_watch,
    soft_play,
    think_times,
)


def collusion_report_for_competition(
    *,
    competition: Competition,
    min_tables: int = collusion.MIN_TABLES,
    alpha: float = collusion.ALPHA,
) -> dict[str, Any]:
    """The collusion report of a competition or ladder (``tournaments.ratings.collusion``,
    docs/fair-play.md): every pair of entries that met at ``min_tables`` finished tables
    or more, most suspicious first, with names, whether the organisers already keep
    the two apart and whether either is disqualified. Two queries, after those that count
    the games not counted yet (:func:`soft_play_of_competition`)."""
    tables, seated = _collusion_tables(competition)
    report = collusion.collusion_report(seated, min_tables=min_tables, alpha=alpha)
    entries = competition.entries.select_related("bot__owner", "partner__owner").order_by("id")
    entries = {e.pk: e for e in entries}
    excluded = {
        frozenset(p) for p in competition.table_exclusions.values_list("entry_id", "other_id")
    }
    signals = soft_play_of_competition(competition=competition, tables=tables)
    rows = []
    for row in report:
        figures = {k: v for k, v in vars(row).items() if k not in ("a", "b")}
        rows.append(
            {
                "a": {"entry": row.a, "name": entries[row.a].name},
                "b": {"entry": row.b, "name": entries[row.b].name},
                **figures,
                "kept_apart": frozenset((row.a, row.b)) in excluded,
                "disqualified": [e for e in (row.a, row.b) if entries[e].disqualified],
                "soft_play": {
                    "a_to_b": _soft_play_figures(signals.get((row.a, row.b))),
                    "b_to_a": _soft_play_figures(signals.get((row.b, row.a))),
                },
            }
        )
    return {
        "competition": competition.pk,
        "tables": len(seated),
        "min_tables": min_tables,
        "alpha": alpha,
        "same_owner_tables": competition.same_owner_tables,
        "pairs": rows,
        "flagged": sum(1 for r in rows if r["flagged"]),
    }


def _collusion_tables(
    competition: Competition,
) -> tuple[dict[int, list[tuple[int, float]]], list[collusion.SeatedTable]]:
    """Each finished match's (entry, points) in seat order, and the tables the
    collusion report reads (none with fixed teams). One query."""
    teams = seat_teams(competition)
    tables: dict[int, list[tuple[int, float]]] = {}
    seats = MatchSeat.objects.filter(
        match__competition=competition, match__status=Match.Status.DONE, points__isnull=False
    ).order_by("match_id", "seat")
    for match_id, entry_id, points in seats.values_list("match_id", "entry_id", "points"):
        tables.setdefault(match_id, []).append((entry_id, points))
    seated = [
        collusion.SeatedTable(
            tuple(e for e, _ in rows), tuple(p for _, p in rows), competition.games_per_match, teams
        )
        for rows in tables.values()
        # Fixed teams: two teams a table, a duel with no third side to play against.
        if not competition.fixed_teams
    ]
    return tables, seated


def collusion_watch_for_competition(
    *,
    competition: Competition,
    alpha: float = collusion.ALPHA,
    profiles: dict[int, think_times.Profile] | None = None,
) -> list[collusion_watch.WatchRow]:
    """The collusion watch's verdicts (``tournaments.ratings.collusion_watch``) on the
    finished tables of ``competition``: the report's rank effect and the soft play of
    each pair combined with their think times' likeness, corrected for every look: a
    batch's games are counted first if the background has not yet
    (:func:`soft_play_of_competition`). Three queries besides (two with ``profiles``
    read already: :func:`think_profiles_for_competition`)."""
    tables, seated = _collusion_tables(competition)
    report = collusion.collusion_report(seated, alpha=alpha)
    signals = soft_play_of_competition(competition=competition, tables=tables)
    if profiles is None:
        profiles = think_profiles_of_competition(competition=competition, tables=tables)
    return collusion_watch.collusion_watch(report, signals, alpha=alpha, profiles=profiles)


def think_profiles_for_competition(*, competition: Competition) -> dict[int, think_times.Profile]:
    """Each entry's think-time profile over the finished tables of ``competition``
    (:func:`think_profiles_of_competition`)."""
    tables, _ = _collusion_tables(competition)
    return think_profiles_of_competition(competition=competition, tables=tables)


def think_alike_entries(
    *, competition: Competition, profiles: dict[int, think_times.Profile], p_max: float
) -> list[tuple[Entry, Entry, think_times.Alike]]:
    """Every two entries of ``competition`` whose bots belong to two accounts and whose
    think times share a pattern at ``p_max`` or below (``think_times.alike``, both
    tested), given their ``profiles``. Only entries whose own processes show a pattern
    (``think_times.patterned``: one half of them follows the other's) are compared, so
    a field of honest bots costs one look each, not one a pair. One query."""
    candidates = [e for e, profile in profiles.items() if think_times.patterned(profile)]
    if len(candidates) < 2:
        return []
    entries = competition.entries.filter(pk__in=candidates).select_related("bot__owner")
    entries = sorted(entries, key=lambda e: e.pk)
    out = []
    for i, a in enumerate(entries):
        for b in entries[i + 1 :]:
            owners = a.bot.owner_id, b.bot.owner_id
            if None in owners or owners[0] == owners[1]:
                continue
            result = think_times.alike(profiles[a.pk], profiles[b.pk])
            if result.tested and result.p <= p_max:
                out.append((a, b, result))
    return out


def think_profiles_of_competition(
    *, competition: Competition, tables: dict[int, list[tuple[int, float]]]
) -> dict[int, think_times.Profile]:
    """Each entry's think-time profile (``tournaments.ratings.think_times``) over the
    finished games of ``competition`` whose seats' think times are counted (the games
    not yet counted are counted first: ``tournaments.integrity.chances.count``); ``tables``
    holds each finished match's entries in player order; each profile keeps the entry's
    latest processes (``think_times.MAX_PROCESSES``). One query besides."""
    found = _counted_plan(competition)
    if found is None:
        return {}
    players, plan = found
    spans = rotations(plan)
    counted = (
        GameRecord.objects.filter(
            match__competition=competition,
            match__status=Match.Status.DONE,
            playoff=0,
            think_ms__isnull=False,
        )
        .order_by("match_id", "index")
        .values_list("match_id", "index", "think_ms")
    )
    by_match: dict[int, dict[int, list[list[int]]]] = {}
    for match_id, index, times in counted:
        by_match.setdefault(match_id, {})[index] = times
    processes: dict[int, list[think_times.Process]] = {}
    for match_id, played in by_match.items():
        rows = tables.get(match_id)
        if rows is None or len(rows) != players or len(played) != len(plan):
            continue  # a table the report leaves out, or a game missing
        seated = [([rows[p][0] for p in plan[i][1]], played[i]) for i in range(len(plan))]
        for entry, found in think_times.match_processes(seated, spans).items():
            processes.setdefault(entry, []).extend(found)
    return {entry: think_times.Profile.of(found) for entry, found in processes.items()}


def _counted_plan(competition: Competition) -> tuple[int, list[tuple[int, list[int]]]] | None:
    """Count the games of ``competition`` not counted yet (``tallies.count``), and return
    its seats and its matches' plan of games (``schedule``), or None for a plan the
    report leaves out."""
    tallies.count(competition=competition)
    players = games.load(competition.variant, **competition.options).num_players
    try:
        return players, schedule(competition.games_per_match, players, competition.duplicate)
    except ValueError:
        return None


def soft_play_of_competition(
    *, competition: Competition, tables: dict[int, list[tuple[int, float]]]
) -> dict[tuple[int, int], soft_play.SoftPlay]:
    """The soft-play signals (``tournaments.ratings.soft_play``) of the finished games of
    ``competition`` whose records keep a tally; ``tables`` holds each finished match's
    entries in player order. The games recorded since the tallies were last counted are
    counted first (``tournaments.integrity.chances.count``: their records are decompressed and
    replayed, once); then one query."""
    found = _counted_plan(competition)
    if found is None:
        return {}
    players, rotation = found
    tallied = GameRecord.objects.filter(
        match__competition=competition, match__status=Match.Status.DONE, chances__isnull=False
    ).values_list("match_id", "index", "chances")
    seated = []
    for match_id, index, chances in tallied:
        rows = tables.get(match_id)
        if rows is None or index >= len(rotation) or len(rows) != players:
            continue  # a play-off game, or a table the report leaves out
        seated.append(([rows[p][0] for p in rotation[index][1]], chances))
    return soft_play.soft_play(seated)


def _soft_play_figures(signal: soft_play.SoftPlay | None) -> dict[str, Any] | None:
    if signal is None:
        return None
    return {
        "chances": signal.chances,
        "let_go": signal.let_go,
        "rate": signal.rate,
        "chances_others": signal.chances_others,
        "let_go_others": signal.let_go_others,
        "rate_others": signal.rate_others,
        "p_value": signal.p_value,
    }
