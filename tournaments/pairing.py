"""The bridge from stored competitions to the pure formats: what is played next.

Reads entries and finished matches, asks ``tournaments.formats`` for the next
tables, and returns them as entry ids; writing is left to the services.
Everything is deterministic for a competition's seed and its results.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Exists, OuterRef, Q

import games
from bots.models import BotVersion
from tournaments.formats.common import derive_seed
from tournaments.formats.elimination import Bracket, double_elimination, single_elimination
from tournaments.formats.ladder import RECENT_TABLES_PER_ENTRY, LadderEntry, ladder_tables
from tournaments.formats.round_robin import round_robin
from tournaments.formats.swiss import swiss_pair
from tournaments.models import Competition, Match, MatchSeat
from tournaments.ratings import TableResult

Format = Competition.Format

#: The statuses of a match that is still to be played or being played.
OPEN = (Match.Status.PENDING, Match.Status.QUEUED, Match.Status.RUNNING)


@dataclass
class Plan:
    """Tables (entry ids in seat order, with a bracket node id or "") and byes."""

    tables: list[tuple[tuple[int, ...], str]] = field(default_factory=list)
    byes: list[int] = field(default_factory=list)


def playable() -> Q:
    """The entries that can play now: a built-in bot, or an uploaded one with a ready
    version (the pinned one, if the entry pins one), as ``bots.selectors.version_for_play``
    picks it."""
    ready = BotVersion.objects.filter(status=BotVersion.Status.READY)
    newest = ready.filter(bot_id=OuterRef("bot_id"))
    pinned = ready.filter(pk=OuterRef("pinned_version_id"))
    return (
        ~Q(bot__builtin="")
        | Q(Exists(newest), pinned_version__isnull=True)
        | Q(Exists(pinned), pinned_version__isnull=False)
    )


def _entries(competition: Competition) -> list[int]:
    return list(competition.entries.order_by("seed_order", "id").values_list("id", flat=True))


def seat_teams(competition: Competition) -> tuple[tuple[int, ...], ...] | None:
    """The seat groups that share a result (``Variant.teams``), or None when everyone
    plays alone."""
    return games.variant_info(competition.variant).teams or None


def finished_results(competition: Competition) -> list[tuple[str, TableResult]]:
    """(bracket node, result) of every finished match, in the order they were created."""
    teams = seat_teams(competition)
    out = []
    matches = (
        competition.matches.filter(status=Match.Status.DONE)
        .prefetch_related("seats")
        .order_by("id")
    )
    for match in matches:
        seats = sorted(match.seats.all(), key=lambda s: s.seat)
        out.append(
            (
                match.node,
                TableResult(tuple(s.entry_id for s in seats), tuple(s.rank for s in seats), teams),
            )
        )
    return out


def next_round(competition: Competition, number: int) -> Plan | None:
    """The tables of round ``number``, or None when the format has no more to play."""
    planner = {
        Format.ROUND_ROBIN: _round_robin,
        Format.DOUBLE_ROUND_ROBIN: _round_robin,
        Format.SWISS: _swiss,
        Format.SINGLE_ELIMINATION: _elimination,
        Format.DOUBLE_ELIMINATION: _elimination,
        Format.LADDER: _ladder,
    }[competition.format]
    return planner(competition, number)


def _divisions(competition: Competition) -> list[list[int]]:
    """Entry ids per division (league seasons; everyone is in division 0 otherwise)."""
    divisions: dict[int, list[int]] = {}
    for entry_id, division in competition.entries.order_by(
        "division", "seed_order", "id"
    ).values_list("id", "division"):
        divisions.setdefault(division, []).append(entry_id)
    return [divisions[d] for d in sorted(divisions)]


def _round_robin(competition: Competition, number: int) -> Plan | None:
    """Round ``number`` of every division's round robin, played side by side."""
    legs = 2 if competition.format == Format.DOUBLE_ROUND_ROBIN else 1
    plan = Plan()
    for d, members in enumerate(_divisions(competition)):
        rounds = round_robin(
            members,
            competition.seats_per_table,
            legs=legs,
            seed=derive_seed(competition.seed, f"division/{d}"),
        )
        if number <= len(rounds):
            plan.tables += [(table, "") for table in rounds[number - 1].tables]
            plan.byes += list(rounds[number - 1].byes)
    return plan if plan.tables else None


def _swiss(competition: Competition, number: int) -> Plan | None:
    if number > (competition.rounds_planned or 0):
        return None
    results = [result for _, result in finished_results(competition)]
    byes = [e for r in competition.rounds.all() for e in r.byes.values_list("id", flat=True)]
    chosen = swiss_pair(_entries(competition), competition.seats_per_table, results, byes=byes)
    return Plan([(table, "") for table in chosen.tables], list(chosen.byes))


def _bracket(competition: Competition) -> Bracket:
    entries = _entries(competition)
    if competition.format == Format.DOUBLE_ELIMINATION:
        return double_elimination(entries)
    teams = seat_teams(competition)
    advance = len(teams[0]) if teams else 1  # a partnership's winning team goes on together
    return single_elimination(entries, competition.seats_per_table, advance=advance)


def competition_bracket(competition: Competition) -> Bracket:
    """The bracket of an elimination competition, exactly as the pairing step plays it.

    Raises ``ValueError`` if its entries cannot fill a bracket.
    """
    return _bracket(competition)


def _elimination(competition: Competition, number: int) -> Plan | None:
    bracket = _bracket(competition)
    results = dict(finished_results(competition))
    if bracket.champion(results) is not None:
        return None
    created = set(competition.matches.exclude(node="").values_list("node", flat=True))
    ready = [(table, node) for node, table in bracket.ready(results) if node not in created]
    return Plan(ready) if ready else None


def _ladder(competition: Competition, number: int) -> Plan | None:
    """The next ladder batch: every free entry that can play (:func:`playable`), by
    rating, from the recent meetings.

    Four queries whatever the size of the field: the entries, the busy ones, where
    the recent window starts and the seats of the matches in it (the latest
    ``RECENT_TABLES_PER_ENTRY`` tables per entry, in order).
    """
    entries = list(
        competition.entries.filter(playable(), withdrawn=False)
        .order_by("id")
        .values_list("id", "mu", "sigma", "games")
    )
    busy = set(  # a failed match holds nobody: its entries play on in the next batch
        competition.matches.filter(status__in=OPEN).values_list("seats__entry_id", flat=True)
    )
    candidates = [
        LadderEntry(pk, recent_games=games, sigma=sigma, busy=pk in busy, mu=mu)
        for pk, mu, sigma, games in entries
    ]
    tables = ladder_tables(
        candidates,
        competition.seats_per_table,
        seed=derive_seed(competition.seed, f"ladder/{number}"),
        recent=_recent_tables(competition, len(entries)),
    )
    return Plan([(table, "") for table in tables]) if tables else None


def _recent_tables(competition: Competition, entries: int) -> list[tuple[int, ...]]:
    """The entries at each of the competition's latest matches, oldest first (any status)."""
    window = max(1, RECENT_TABLES_PER_ENTRY * entries // competition.seats_per_table)
    latest = competition.matches.order_by("-id").values_list("id", flat=True)
    oldest = list(latest[window - 1 : window])
    seats = MatchSeat.objects.filter(match__competition=competition)
    if oldest:  # else fewer matches than the window: all of them
        seats = seats.filter(match_id__gte=oldest[0])
    tables: dict[int, list[int]] = {}
    for match_id, entry_id in seats.order_by("match_id", "seat").values_list(
        "match_id", "entry_id"
    ):
        tables.setdefault(match_id, []).append(entry_id)
    return [tuple(table) for table in tables.values()]
