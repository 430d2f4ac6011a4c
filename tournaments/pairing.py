"""The bridge from stored competitions to the pure formats: what is played next.

Reads entries and finished matches, asks ``tournaments.formats`` for the next
tables, and returns them as entry ids; writing is left to the services.
Everything is deterministic for a competition's seed and its results.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db.models import Exists, OuterRef, Q

import games
from bots.models import AccountLink, Bot, BotVersion
from bots.selectors import passed_variant
from tournaments.formats.common import derive_seed
from tournaments.formats.elimination import Bracket, double_elimination, single_elimination
from tournaments.formats.ladder import RECENT_TABLES_PER_ENTRY, LadderEntry, ladder_tables
from tournaments.formats.league import division_sizes
from tournaments.formats.round_robin import round_robin, scheduled_tables
from tournaments.formats.swiss import swiss_pair
from tournaments.models import Competition, Entry, Match, MatchSeat, OwnerLink, TableExclusion
from tournaments.ratings import TableResult

Format = Competition.Format

#: The statuses of a match that is still to be played or being played.
OPEN = (Match.Status.PENDING, Match.Status.QUEUED, Match.Status.RUNNING)


@dataclass
class Plan:
    """Tables (entry ids in seat order, with a bracket node id or "") and byes."""

    tables: list[tuple[tuple[int, ...], str]] = field(default_factory=list)
    byes: list[int] = field(default_factory=list)


def playable(variant: str | None = None) -> Q:
    """The entries that can play now: a built-in bot, or an uploaded one with a ready
    version (the pinned one, if the entry or else the bot pins one), as
    ``bots.selectors.version_for_play`` picks it; with ``variant``, a version that passed
    that variant's validation. A bot its owner deactivated plays nowhere. A team
    (``Entry.partner``) plays when its partner can play too (the bot's own pin)."""
    ready = BotVersion.objects.filter(status=BotVersion.Status.READY)
    if variant is not None:
        ready = ready.filter(passed_variant(variant))
    newest = ready.filter(bot_id=OuterRef("bot_id"))
    pinned = ready.filter(pk=OuterRef("pinned_version_id"))
    bot_pinned = ready.filter(pk=OuterRef("bot__pinned_version_id"))
    unpinned = Q(pinned_version__isnull=True)
    partner_newest = ready.filter(bot_id=OuterRef("partner_id"))
    partner_pinned = ready.filter(pk=OuterRef("partner__pinned_version_id"))
    partner = Q(partner__isnull=True) | (
        Q(partner__active=True)
        & (
            ~Q(partner__builtin="")
            | Q(Exists(partner_newest), partner__pinned_version__isnull=True)
            | Q(Exists(partner_pinned), partner__pinned_version__isnull=False)
        )
    )
    return (
        Q(bot__active=True)
        & (
            ~Q(bot__builtin="")
            | Q(Exists(newest), unpinned, bot__pinned_version__isnull=True)
            | Q(Exists(bot_pinned), unpinned, bot__pinned_version__isnull=False)
            | Q(Exists(pinned), pinned_version__isnull=False)
        )
        & partner
    )


def _entries(competition: Competition) -> list[int]:
    return list(competition.entries.order_by("seed_order", "id").values_list("id", flat=True))


def seat_teams(competition: Competition) -> tuple[tuple[int, ...], ...] | None:
    """The seat groups that share a result (``Variant.teams``), or None when everyone
    plays alone."""
    return games.variant_info(competition.variant).teams or None


def owner_groups(owner_ids: Iterable[int], *, automatic: bool = False) -> dict[int, int]:
    """Each owner id mapped to the smallest id of the accounts linked with it as one
    person (``OwnerLink``, transitively; with ``automatic``, the links ``bots.links``
    found from sign-up addresses and uploads too, unless staff dismissed them); an owner
    linked to nobody maps to itself."""
    parent = {o: o for o in owner_ids}

    def root(o: int) -> int:
        while parent.setdefault(o, o) != o:
            o = parent[o]
        return o

    seen: set[int] = set()
    pending = _links_of(set(parent), automatic)
    while pending:  # follow links through accounts outside the field too
        for a, b in pending:
            ra, rb = root(a), root(b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
        seen |= {o for pair in pending for o in pair}
        pending = [p for p in _links_of(seen, automatic) if root(p[0]) != root(p[1])]
    return {o: root(o) for o in owner_ids}


def _links_of(owners: set[int], automatic: bool) -> list[tuple[int, int]]:
    """The (user, other) links that touch ``owners``: staff's, and the automatic ones."""
    near = Q(user_id__in=owners) | Q(other_id__in=owners)
    pairs = list(OwnerLink.objects.filter(near).values_list("user_id", "other_id"))
    if automatic:
        found = AccountLink.objects.filter(near, dismissed=False)
        pairs += found.values_list("user_id", "other_id")
    return pairs


def may_not_share_table(bots: Iterable[Bot]) -> frozenset[frozenset[int]]:
    """The pairs of bot ids that may not share a table: bots of one owner, or of owners
    the staff linked as one person. Built-in bots (no owner) are nobody's.

    The one definition of the rule for every door that seats bots (competitions,
    ladders, queues, challenges); a variant's partnerships are the caller's to allow
    (``tournaments.formats.apart``). One query (the links) when two owners or more
    are among ``bots``, none otherwise.
    """
    return _owned_apart([(bot.pk, bot.owner_id) for bot in bots])


def _owned_apart(
    rows: Iterable[tuple[int, int | None]], *, automatic: bool = False
) -> frozenset[frozenset[int]]:
    """:func:`may_not_share_table` of (id, owner id) rows: pairs of those ids (with
    ``automatic``, owners linked automatically count as one too: :func:`owner_groups`)."""
    owned = [(pk, owner) for pk, owner in rows if owner is not None]
    owners = {owner for _, owner in owned}
    if len(owners) > 1:
        group = owner_groups(owners, automatic=automatic)
    else:
        group = {o: o for o in owners}
    by_group: dict[int, list[int]] = {}
    for pk, owner in owned:
        by_group.setdefault(group[owner], []).append(pk)
    return frozenset(
        frozenset(pair)
        for members in by_group.values()
        for pair in itertools.combinations(sorted(set(members)), 2)
    )


#: The smallest table at which two bots of one owner could play for each other.
MIN_TEAM_TABLE = 3


def entries_apart(
    competition: Competition, owners: Iterable[tuple[int, int | None]] | None = None
) -> frozenset[frozenset[int]]:
    """The pairs of entry ids of ``competition`` that may not share a table: those of
    :func:`may_not_share_table` at tables of three seats or more (unless the organisers
    waived it; in a public ladder, with the owners ``bots.links`` linked automatically
    too) and the pairs the organisers excluded. ``owners``: (entry id, owner id) of the
    entries, if the caller has read them already."""
    pairs: set[frozenset[int]] = set()
    # Two bots can only team up against a third seat: a two-seat table is a duel.
    if not competition.same_owner_tables and competition.seats_per_table >= MIN_TEAM_TABLE:
        if owners is None:
            owners = list(competition.entries.values_list("id", "bot__owner_id"))
            # A team's two bots are partners the rules make: only other entries are kept
            # from the owners of either.
            partnered = competition.entries.filter(partner__isnull=False)
            owners += partnered.values_list("id", "partner__owner_id")
        public_ladder = competition.is_public and competition.format == Format.LADDER
        pairs |= _owned_apart(owners, automatic=public_ladder)
    excluded = TableExclusion.objects.filter(competition=competition)
    pairs |= {frozenset(p) for p in excluded.values_list("entry_id", "other_id")}
    return frozenset(pairs)


def fair_play_problem(competition: Competition) -> str | None:
    """Why the entries cannot be kept apart (:func:`entries_apart`), in words naming
    the bots, or None. A table holds one bot of each group of bots that may not meet
    (one owner, linked owners): a group larger than the tables a round fills plus the
    entries that sit out cannot be seated, whatever the format."""
    entries = list(
        competition.entries.filter(withdrawn=False).select_related("bot__owner", "partner__owner")
    )
    apart = entries_apart(competition)
    if not apart:
        return None
    teams = seat_teams(competition)
    # Fixed teams: a table seats one entry a side, and partners never clash.
    seats = len(teams) if competition.fixed_teams else competition.seats_per_table
    allowed = len(teams[0]) if teams and not competition.fixed_teams else 1
    tables = len(entries) // seats
    sitting_out = len(entries) - tables * seats
    neighbours: dict[int, set[int]] = {}
    for a, b in (tuple(pair) for pair in apart):
        neighbours.setdefault(a, set()).add(b)
        neighbours.setdefault(b, set()).add(a)
    for entry in entries:  # (rotating partners: two bots of one owner may be partners)
        group = [e for e in entries if e.pk == entry.pk or e.pk in neighbours.get(entry.pk, ())]
        if len(group) > tables * allowed + sitting_out:
            names = ", ".join(e.name for e in group)
            return (
                f"{names} may not share a table (one owner, or owners linked as one person), "
                f"and {len(entries)} entries fill only {tables} table(s) of "
                f"{competition.seats_per_table}: withdraw some of them, enter more bots by "
                "others, or (a private competition) waive the rule"
            )
    return None


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


def planned_matches(competition: Competition) -> int | None:
    """How many matches the whole schedule holds, as far as its format fixes it.

    A round robin: every division's whole schedule (``round_robin.scheduled_tables``);
    Swiss: its planned rounds of ``n // k`` tables (the rest sit out); a knockout: the
    most its bracket can play (the reset final included). None for a ladder, which has
    no end. Before the entries can fill a table (or a bracket), 0.
    """
    return planned_matches_of([competition])[competition.pk]


def planned_matches_of(competitions: Iterable[Competition]) -> dict[int, int | None]:
    """:func:`planned_matches` of many competitions, reading their entries in one query."""
    items = list(competitions)
    entries: dict[int, list[tuple[int, int]]] = {c.pk: [] for c in items}
    rows = (
        Entry.objects.filter(competition__in=[c.pk for c in items if c.format != Format.LADDER])
        .order_by("competition_id", "seed_order", "id")
        .values_list("competition_id", "id", "division")
    )
    for competition_id, entry_id, division in rows:
        entries[competition_id].append((entry_id, division))
    return {c.pk: _planned(c, entries[c.pk]) for c in items}


def _planned(competition: Competition, entries: list[tuple[int, int]]) -> int | None:
    # Fixed teams: one entry a side, so a table of two sides is a two-seat schedule's.
    k = len(seat_teams(competition)) if competition.fixed_teams else competition.seats_per_table
    if competition.format in (Format.ROUND_ROBIN, Format.DOUBLE_ROUND_ROBIN):
        legs = 2 if competition.format == Format.DOUBLE_ROUND_ROBIN else 1
        sizes = list(Counter(division for _, division in entries).values())
        first_draft = competition.status == Competition.Status.DRAFT and not (
            competition.previous_season_id
        )
        if competition.division_size and first_draft:  # cut at the start: its sizes now
            sizes = division_sizes(len(entries), competition.division_size)
        return sum(scheduled_tables(n, k, legs) for n in sizes)
    if competition.format == Format.SWISS:
        return (competition.rounds_planned or 0) * (len(entries) // k)
    if competition.format in (Format.SINGLE_ELIMINATION, Format.DOUBLE_ELIMINATION):
        ids = [entry_id for entry_id, _ in entries]
        try:
            return _bracket_matches(_bracket(competition, ids), seat_teams(competition))
        except ValueError:  # too few entries (or a field it cannot seat) so far
            return 0
    return None


def _bracket_matches(bracket: Bracket, teams: tuple[tuple[int, ...], ...] | None) -> int:
    """The matches ``bracket`` plays when every table goes to its last seat: the second
    side wins the grand final too, so a double elimination's reset final is counted."""
    results: dict[str, TableResult] = {}
    while ready := bracket.ready(results):
        for node, table in ready:
            groups = teams or tuple((seat,) for seat in range(len(table)))
            ranks = [0] * len(table)
            for place, group in enumerate(reversed(groups), start=1):
                for seat in group:
                    ranks[seat] = place
            results[node] = TableResult(table, tuple(ranks), teams)
    return len(results)


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
    apart = entries_apart(competition)
    for d, members in enumerate(_divisions(competition)):
        rounds = round_robin(
            members,
            competition.seats_per_table,
            legs=legs,
            seed=derive_seed(competition.seed, f"division/{d}"),
            partners=competition.fixed_teams,
            apart=apart,
            teams=seat_teams(competition),
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
    chosen = swiss_pair(
        _entries(competition),
        competition.seats_per_table,
        results,
        byes=byes,
        partners=competition.fixed_teams,
        apart=entries_apart(competition),
        teams=seat_teams(competition),
    )
    return Plan([(table, "") for table in chosen.tables], list(chosen.byes))


def _bracket(competition: Competition, entries: list[int] | None = None) -> Bracket:
    entries = _entries(competition) if entries is None else entries
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

    Five queries whatever the size of the field: the entries, the busy ones, where
    the recent window starts, the seats of the matches in it (the latest
    ``RECENT_TABLES_PER_ENTRY`` tables per entry, in order) and the pairs the
    organisers keep apart; a sixth (owner links) when two owners or more have entries.
    """
    entries = list(
        competition.entries.filter(playable(competition.variant), withdrawn=False)
        .order_by("id")
        .values_list("id", "mu", "sigma", "games", "bot__owner_id")
    )
    busy = set(  # a failed match holds nobody: its entries play on in the next batch
        competition.matches.filter(status__in=OPEN).values_list("seats__entry_id", flat=True)
    )
    candidates = [
        LadderEntry(pk, recent_games=games, sigma=sigma, busy=pk in busy, mu=mu)
        for pk, mu, sigma, games, _ in entries
    ]
    tables = ladder_tables(
        candidates,
        competition.seats_per_table,
        seed=derive_seed(competition.seed, f"ladder/{number}"),
        recent=_recent_tables(competition, len(entries)),
        apart=entries_apart(competition, [(e[0], e[4]) for e in entries]),
        teams=seat_teams(competition),
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
