"""Reads of the competition domain: standings, head-to-head, rating history, visibility."""

from __future__ import annotations

import csv
import functools
import io
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import (
    Avg,
    Count,
    F,
    FloatField,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Sum,
)
from django.db.models.functions import Coalesce
from django.utils import timezone

import games
from bots.models import Bot, bot_display_name
from bots.referee.match import game_seed, schedule
from tournaments import comparison, deals
from tournaments.formats.common import PARTNER_TABLE_SIZE
from tournaments.formats.swiss import swiss_standings
from tournaments.models import (
    Challenge,
    Competition,
    Entry,
    GameRecord,
    Match,
    MatchSeat,
    RatingEvent,
    Round,
    display_rating_expression,
)
from tournaments.pairing import competition_bracket, finished_results, planned_matches, seat_teams
from tournaments.permissions import can_manage
from tournaments.ratings import (
    TableResult,
    collusion,
    display_rating,
    head_to_head,
    pair_score,
    soft_play,
    tiebreaks,
)
from tournaments.ratings.confidence import with_confidence


def competitions_visible_to(*, user, challenges: bool = False) -> QuerySet[Competition]:
    """Public competitions, plus the private ones the user organises (all for staff).

    The hidden competitions of challenges (``Competition.Kind.CHALLENGE``) are never
    among them unless ``challenges``: then also those of the challenges ``user`` may see
    (:func:`challenges_visible_to`), for the doors that show their matches, games and
    replays. Lists, standings, ratings, the home page and the ladders leave it off.
    """
    qs = Competition.objects.all()
    if not challenges:
        qs = qs.exclude(kind=Competition.Kind.CHALLENGE)
    if user is not None and user.is_authenticated:
        if user.is_staff:
            return qs
        seen = Q(is_public=True) | Q(organisers=user) | Q(created_by=user)
        if challenges:  # a challenge's competition is private and has no organiser
            seen |= Q(pk__in=challenges_visible_to(user=user).values("competition_id"))
        return qs.filter(seen).distinct()
    return qs.filter(is_public=True)


def challenges_visible_to(*, user) -> QuerySet[Challenge]:
    """The challenges ``user`` may see: those they asked for and those a bot of theirs
    was asked to play (every one, for staff; none for an anonymous visitor)."""
    if user is None or not user.is_authenticated:
        return Challenge.objects.none()
    if user.is_staff:
        return Challenge.objects.all()
    theirs = Entry.objects.filter(bot__owner=user).values("competition_id")
    return Challenge.objects.filter(Q(created_by=user) | Q(competition_id__in=theirs))


def challenges_settled_but_running() -> list[int]:
    """The competitions of running challenges none of whose matches waits or plays any
    more (their last recorder died before it closed them)."""
    open_ = [Match.Status.PENDING, Match.Status.QUEUED, Match.Status.RUNNING]
    return list(
        Challenge.objects.filter(status=Challenge.Status.RUNNING)
        .exclude(competition__matches__status__in=open_)
        .values_list("competition_id", flat=True)
    )


def challenge_progress(*, challenge: Challenge) -> dict[str, Any]:
    """Where ``challenge`` stands: its games asked for and played, its matches by status,
    and per seat of its table (its entries, in seat order) the bot, the version, the
    games, the wins, the total score and the mean rank of the matches played so far."""
    competition = challenge.competition
    statuses = dict(
        Match.objects.filter(competition=competition)
        .values_list("status")
        .annotate(count=Count("id"))
        .order_by()
    )
    done = statuses.get(Match.Status.DONE, 0)
    seats = []
    entries = competition.entries.select_related("bot__owner", "pinned_version").order_by(
        "seed_order", "id"
    )
    for entry in entries:
        played = MatchSeat.objects.filter(entry=entry, match__status=Match.Status.DONE)
        totals = played.aggregate(
            matches=Count("id"), wins=Sum("wins"), score=Sum("score"), rank=Avg("rank")
        )
        version = entry.pinned_version
        seats.append(
            {
                "bot": str(entry.bot),
                "bot_id": entry.bot_id,
                "builtin": entry.bot.builtin,
                "version": version.number if version and not entry.bot.builtin else None,
                "games": totals["matches"] * competition.games_per_match,
                "wins": totals["wins"] or 0,
                "score": totals["score"] or 0,
                "mean_rank": totals["rank"],
            }
        )
    return {
        "games": challenge.games,
        "games_played": done * competition.games_per_match,
        "matches": sum(statuses.values()),
        "matches_done": done,
        "matches_failed": statuses.get(Match.Status.FAILED, 0),
        "matches_open": sum(
            statuses.get(s, 0)
            for s in (Match.Status.PENDING, Match.Status.QUEUED, Match.Status.RUNNING)
        ),
        "seats": seats,
    }


#: Competition statuses after which replays may show every hand (:func:`full_view_allowed`).
ENDED = (Competition.Status.FINISHED, Competition.Status.CANCELLED)


def seats_played_by(bot: Bot) -> Q:
    """The match seats ``bot`` played, one a match (``Entry.bot_at``): its entry's seat,
    or a team's first seat when it leads the team, its second seat when it is the
    partner (a bot at both seats of its side counts once, at the first)."""
    second = PARTNER_TABLE_SIZE // 2
    lead = Q(entry__bot=bot) & (Q(entry__partner__isnull=True) | Q(seat__lt=second))
    return lead | (Q(entry__partner=bot, seat__gte=second) & ~Q(entry__bot=bot))


def entries_of_bot(bot: Bot) -> Q:
    """The entries ``bot`` plays in (as their bot, or as a team's partner), as a filter
    of match seats."""
    return Q(entry__bot=bot) | Q(entry__partner=bot)


def full_view_allowed(*, competition: Competition, user) -> bool:
    """May ``user`` see every seat's hand of the games of ``competition``?

    Staff at any time; the competition's organisers once it has ended (finished or
    cancelled); anyone once it has ended if the organisers set
    ``full_replays_after_end``. The same rule hides the decks of game records and
    the seeds they follow from (API). The caller checks that the game is visible.
    """
    if user is not None and user.is_authenticated and user.is_staff:
        return True
    if competition.status not in ENDED:
        return False
    return competition.full_replays_after_end or can_manage(competition=competition, user=user)


def game_seat_players(*, game: GameRecord, record: dict[str, Any]) -> list[int] | None:
    """The match player (``MatchSeat.seat``) at each seat of ``game`` (``record`` is its
    record); None when the seating cannot be recomputed.

    Duplicate matches rotate the bots around the table from game to game
    (``bots.referee.match.schedule``); the rotation is recomputed and checked against
    the game's seed.
    """
    match = game.match
    competition = match.competition
    players = games.load(record["variant"], **record["options"]).num_players
    try:
        deal, seats = schedule(competition.games_per_match, players, competition.duplicate)[
            game.index
        ]
    except (ValueError, IndexError):
        return None
    if game_seed(match.seed, deal) != record["seed"]:
        return None
    return seats


def owned_game_seats(*, game: GameRecord, record: dict[str, Any], user) -> frozenset[int]:
    """The seats of ``game`` (``record`` is its record) where a bot of ``user`` sat."""
    if user is None or not user.is_authenticated:
        return frozenset()
    owned = set(game.match.seats.filter(entry__bot__owner=user).values_list("seat", flat=True))
    players = game_seat_players(game=game, record=record) if owned else None
    if players is None:
        return frozenset()
    return frozenset(s for s, player in enumerate(players) if player in owned)


def trace_readers(
    *, game: GameRecord, record: dict[str, Any], user
) -> tuple[frozenset[int], frozenset[int]]:
    """The seats of ``game`` whose decision stderr ``user`` may read, and those whose notes
    (``bots.referee.traces``). The caller checks that the game is visible.

    Stderr and notes: staff, and the owner of the bot at the seat, at once. Notes (never
    stderr): everyone with the full view (``full_view_allowed``) once the competition
    has ended. Nobody else reads either; times are public with the game.
    """
    seats = range(len(game.scores))
    if user is not None and user.is_authenticated and user.is_staff:
        return frozenset(seats), frozenset(seats)
    own = owned_game_seats(game=game, record=record, user=user)
    competition = game.match.competition
    if competition.status in ENDED and full_view_allowed(competition=competition, user=user):
        return own, frozenset(seats)
    return own, own


#: The trend of a standings row is the change of the displayed rating over this many
#: of the entry's last rated matches.
TREND_MATCHES = 5


def _rating_before_recent_matches() -> Coalesce:
    """The displayed rating of the outer entry before its last :data:`TREND_MATCHES` rated
    matches (before its first one if it has fewer); NULL if it was never rated.

    Two correlated subqueries, each a short backward scan of the (entry, sequence) index,
    so the cost does not grow with the length of the history.
    """
    before = display_rating_expression("mu_before", "sigma_before")
    history = RatingEvent.objects.filter(entry=OuterRef("pk")).annotate(before=before)
    back = history.order_by("-sequence").values("before")[TREND_MATCHES - 1 : TREND_MATCHES]
    first = history.order_by("sequence").values("before")[:1]
    return Coalesce(Subquery(back), Subquery(first), output_field=FloatField())


#: What orders the standings of each format (the ``order`` of every row).
STANDINGS_ORDER = {
    Competition.Format.ROUND_ROBIN: "points",
    Competition.Format.DOUBLE_ROUND_ROBIN: "points",
    Competition.Format.SWISS: "swiss",
    Competition.Format.SINGLE_ELIMINATION: "placement",
    Competition.Format.DOUBLE_ELIMINATION: "placement",
    Competition.Format.LADDER: "rating",
}


def _with_confidence(selector: Callable[..., list[dict[str, Any]]]):
    """Adds to every standings row the 95 % interval of its rating and the probability
    that it is stronger than the row below (``ratings.confidence.with_confidence``).

    A table cut to ``limit`` rows is read one row longer, so that its last row is
    compared with the entry really below it.
    """

    @functools.wraps(selector)
    def standings(*, competition: Competition, limit: int | None = None):
        rows = selector(competition=competition, limit=None if limit is None else limit + 1)
        return with_confidence(rows)[:limit]

    return standings


def _in_divisions(selector: Callable[..., list[dict[str, Any]]]):
    """Adds to every standings row its ``division`` (0 the top one; None outside league
    seasons) and ``move``: "up" for the top ``promote`` of a division below the first,
    "down" for the bottom ``promote`` of a division above the last, else None (while the
    season runs: where the row stands now). A league season's rows come division by
    division, each ranked (and compared with the row below) within its division."""

    @functools.wraps(selector)
    def standings(*, competition: Competition, limit: int | None = None):
        if competition.kind != Competition.Kind.LEAGUE_SEASON:
            rows = selector(competition=competition, limit=limit)
            return [{**row, "division": None, "move": None} for row in rows]
        rows = selector(competition=competition)
        division_of = dict(competition.entries.values_list("pk", "division"))
        groups: dict[int, list[dict[str, Any]]] = {}
        for row in rows:
            groups.setdefault(division_of[row["entry"]], []).append(row)
        out: list[dict[str, Any]] = []
        last = max(groups, default=0)
        # Nobody goes up or down from a season that has not started.
        promote = 0 if competition.status == Competition.Status.DRAFT else competition.promote
        for division in sorted(groups):
            out.extend(_division_rows(groups[division], division, last, promote))
        return out[:limit]

    return standings


def _division_rows(
    rows: list[dict[str, Any]], division: int, last: int, promote: int
) -> list[dict[str, Any]]:
    """One division's rows (in standing order), ranked within it, with their move."""
    out = with_confidence(rows)
    level, rank = None, 0
    for position, row in enumerate(out):
        # Ranks within the division; rows level in the whole table stay level here.
        if row["rank"] != level:
            level, rank = row["rank"], position + 1
        row["rank"] = rank
        row["division"] = division
        up = division > 0 and position < promote
        down = division < last and position >= len(out) - promote
        row["move"] = "up" if up else "down" if down else None
    return out


@_in_divisions
@_with_confidence
def standings_for_competition(
    *, competition: Competition, limit: int | None = None
) -> list[dict[str, Any]]:
    """One row per entry, in standing order; the one table the API, the dashboard,
    the downloads and ``run_competition`` show (docs/competitions.md).

    The order is the format's tie-break chain (:func:`standings_chain`,
    ``tournaments.ratings.tiebreaks``):

    - Round robins: points, then head-to-head among the tied, then Sonneborn-Berger
      (the duplicate score when the matches are duplicate), then the displayed rating
      (mu - 3 sigma) to two decimals.
    - Swiss: points (byes included), then Buchholz, Sonneborn-Berger, head-to-head
      among the still level (see ``_swiss_order``), then the rating.
    - Knockouts: placements (see ``_knockout_order``): the champion first, the
      runner-up second, then by the round of elimination, later rounds first; those
      out in the same round share a rank. Before the end the entries still in lead,
      the unbeaten ahead of a double elimination's losers' bracket. Points, games and
      rating are columns only.
    - Ladders: the displayed rating, then points.

    Rows that no step separates share a rank (``shared``); every other row says which
    step put it below the row above (``separated_by``, None for the first). Every row
    says what ordered it (``order``: ``points``, ``swiss``, ``placement`` or
    ``rating``) and whether the matches are ``duplicate`` (every deal once per seat
    rotation); round robins' and Swiss rows carry their ``tiebreaks`` values.
    ``limit`` keeps only the top rows (live views of very large ladders): a ladder's
    table is one ordered query returning plain tuples, its cost growing with the number
    of entries only.

    ``trend`` is the change of the displayed rating over the entry's last
    :data:`TREND_MATCHES` rated matches (None before its first), in the same query.
    """
    order = STANDINGS_ORDER[competition.format]
    by_rating = order == "rating"
    fields = ("-display", "-points") if by_rating else ("-points", "-display")
    rows = (
        competition.entries.annotate(display=display_rating_expression())
        .annotate(trend=F("display") - _rating_before_recent_matches())
        .order_by(*fields, "seed_order", "id")
        .values_list(
            "pk",
            "bot_id",
            "bot__name",
            "bot__builtin",
            "bot__owner__username",
            "display",
            "mu",
            "sigma",
            "games",
            "points",
            "withdrawn",
            "trend",
            "disqualified",
            "partner__name",
            "partner__owner__username",
        )
    )
    # Only a ladder's table is in the query's order (rating, then points); every other
    # format is re-ordered by its chain, which needs the whole table.
    if limit is not None and by_rating:
        rows = rows[:limit]
    out: list[dict[str, Any]] = []
    for position, row in enumerate(rows, start=1):
        pk, bot, name, builtin, owner, display, mu, sigma, played, points, withdrawn, trend, dq = (
            row[:13]
        )
        name = bot_display_name(name, owner)
        if row[13] is not None:  # a team (fixed partnerships): named by its two bots
            name = f"{name} & {bot_display_name(row[13], row[14])}"
        out.append(
            {
                "rank": position,
                "entry": pk,
                "bot": bot,
                "name": name,
                "rating": display,
                "mu": mu,
                "sigma": sigma,
                "games": played,
                "points": points,
                "withdrawn": withdrawn,
                "disqualified": dq,
                "trend": trend,
                "order": order,
                "duplicate": competition.duplicate,
            }
        )
    chain = standings_chain(competition)
    tables = _finished_tables(competition) if order in ("points", "swiss") else ([], {})
    if order == "swiss":
        out = _swiss_order(competition, out, tables[0])
    elif order == "placement":
        out = _knockout_order(competition, out)
    divisions = (
        dict(competition.entries.values_list("pk", "division"))
        if competition.kind == Competition.Kind.LEAGUE_SEASON
        else {}
    )
    return _apply_chain(out, chain, *tables, divisions=divisions)[:limit]


def standings_chain(competition: Competition) -> tuple[str, ...]:
    """The tie-break chain that orders the competition's standings
    (``tournaments.ratings.tiebreaks.chain_for``)."""
    return tiebreaks.chain_for(competition.format, duplicate=competition.duplicate)


def _apply_chain(
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
    ``results`` and ``scores``: :func:`_finished_tables`. A league season's divisions
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


def _finished_tables(competition: Competition) -> tuple[list[TableResult], dict[int, float]]:
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


def _knockout_order(competition: Competition, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
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


def _swiss_order(
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


#: The formats with a crosstable: every entry meets every other.
CROSSTABLE_FORMATS = (Competition.Format.ROUND_ROBIN, Competition.Format.DOUBLE_ROUND_ROBIN)


def crosstable_for_competition(
    *, competition: Competition, standings: list[dict[str, Any]] | None = None
) -> dict[str, Any] | None:
    """A round robin's crosstable: a row and a column per entry, both in standings order;
    the cell of row A and column B is A's result against B. None for other formats.

    ``{"entries": [{"entry", "name", "rank", "shared", "points"}], "rows": [{"entry",
    "cells": [{"opponent", "meetings", "results", "score"}]}]}``: ``results`` A's pairwise
    points against B at each finished table they shared, in playing order (1 ahead,
    0.5 level, 0 behind), ``score`` their sum (None before they met); the diagonal cell
    has ``opponent`` A and no meetings. Partners are not opponents. ``standings``: the
    whole table of ``standings_for_competition`` if the caller read it already.
    """
    if competition.format not in CROSSTABLE_FORMATS:
        return None
    if standings is None:
        standings = standings_for_competition(competition=competition)
    met: dict[tuple[int, int], list[float]] = {}
    for result in _finished_tables(competition)[0]:
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
    keys = ("entry", "name", "rank", "shared", "points")
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
    and score, and the sign test over trials (``tournaments.comparison``)."""
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


def competition_progress(*, competition: Competition) -> dict[str, Any]:
    """Match counts by status, games played, the competition's status."""
    counts = dict(competition.matches.values_list("status").annotate(n=Count("id")).order_by())
    competition.refresh_from_db(fields=["status"])
    row = {status: counts.get(status, 0) for status in Match.Status.values}
    row["total"] = sum(counts.values())
    row["games"] = row[Match.Status.DONE] * competition.games_per_match
    row["competition"] = competition.status
    row["schedule"] = schedule_progress(
        competition=competition, done=row[Match.Status.DONE], created=row["total"]
    )
    return row


def schedule_progress(
    *, competition: Competition, done: int, created: int, planned: int | None | bool = False
) -> dict[str, Any]:
    """Matches ``done`` out of the whole schedule: ``{"done", "total", "total_known"}``.

    ``total`` is every match the format will play (``pairing.planned_matches``: a round
    robin's or a Swiss's whole schedule from the start, a knockout's most), never fewer
    than the ``created`` matches. A ladder has no end: its ``total`` is the matches
    created so far and ``total_known`` is False ("of at least"). ``planned``: the
    competition's ``planned_matches`` if the caller read it already.
    """
    if planned is False:
        planned = planned_matches(competition)
    return {
        "done": done,
        "total": max(created, planned or 0),
        "total_known": planned is not None,
    }


def ladders_idle() -> list[Competition]:
    """Running ladders with no open match (and, paced, none finished within the pause)."""
    open_ = [Match.Status.PENDING, Match.Status.QUEUED, Match.Status.RUNNING]
    ladders = Competition.objects.filter(
        status=Competition.Status.RUNNING, format=Competition.Format.LADDER
    ).exclude(matches__status__in=open_)
    pause = settings.CARDROOM_LADDER_PAUSE_S
    if pause > 0:
        ladders = ladders.exclude(
            matches__finished_at__gt=timezone.now() - timedelta(seconds=pause)
        )
    return list(ladders.distinct())


def rounds_complete_but_running() -> list[Round]:
    """Running rounds of running competitions whose matches are all done (their last
    recorder died before it closed them), or, in a ladder, done or failed (a failed match
    holds up no batch), with their competition."""
    open_ = [Match.Status.PENDING, Match.Status.QUEUED, Match.Status.RUNNING]
    rounds = (
        Round.objects.filter(
            status=Round.Status.RUNNING, competition__status=Competition.Status.RUNNING
        )
        .filter(matches__isnull=False)
        .exclude(matches__status__in=open_)
        .exclude(
            ~Q(competition__format=Competition.Format.LADDER), matches__status=Match.Status.FAILED
        )
        .select_related("competition")
        .distinct()
    )
    return list(rounds)


def collusion_report_for_competition(
    *,
    competition: Competition,
    min_tables: int = collusion.MIN_TABLES,
    alpha: float = collusion.ALPHA,
) -> dict[str, Any]:
    """The collusion report of a competition or ladder (``tournaments.ratings.collusion``,
    docs/fair-play.md): every pair of entries that met at ``min_tables`` finished tables
    or more, most suspicious first, with names, whether the organisers already keep
    the two apart and whether either is disqualified. Two queries."""
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


def soft_play_of_competition(
    *, competition: Competition, tables: dict[int, list[tuple[int, float]]]
) -> dict[tuple[int, int], soft_play.SoftPlay]:
    """The soft-play signals (``tournaments.ratings.soft_play``) of the finished games of
    ``competition`` whose records keep a tally; ``tables`` holds each finished match's
    entries in player order. One query; no record is decompressed."""
    players = games.load(competition.variant, **competition.options).num_players
    try:
        rotation = schedule(competition.games_per_match, players, competition.duplicate)
    except ValueError:
        return {}
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


# --- results to download (CSV and JSON) ---

#: The columns of a standings download, in this order (the page's rows, in its order).
STANDINGS_COLUMNS = (
    "rank",
    "bot",
    "owner",
    "points",
    "games",
    "rating",
    "mu",
    "sigma",
    "rating_low",
    "rating_high",
    "p_above_next",
    "trend",
    "status",
    "entry",
    "division",
    "move",
    "shared",
    "separated_by",
)
#: The columns of a match results download in CSV: one row per seat of a finished match.
MATCH_COLUMNS = (
    "match",
    "round",
    "table",
    "node",
    "finished_at",
    "seat",
    "bot",
    "owner",
    "rank",
    "score",
    "points",
    "entry",
)


def _bot_and_owner(bot) -> tuple[str, str]:
    """(bot name, owner's username; "built-in" for the platform's bots)."""
    return bot.name, bot.owner.username if bot.owner_id is not None else "built-in"


def _entries_named(competition: Competition) -> dict[int, Entry]:
    """The competition's entries by id, with their bots, partners and owners read."""
    entries = competition.entries.select_related("bot__owner", "partner__owner")
    return {e.pk: e for e in entries}


def _entry_bot_and_owner(entry: Entry) -> tuple[str, str]:
    """:func:`_bot_and_owner` of the entry's bot; a team's two bots (and owners, once
    each) joined by " & "."""
    if entry.partner_id is None:
        return _bot_and_owner(entry.bot)
    pairs = [_bot_and_owner(entry.bot), _bot_and_owner(entry.partner)]
    owners = dict.fromkeys(owner for _, owner in pairs)
    return " & ".join(name for name, _ in pairs), " & ".join(owners)


def standings_export(*, competition: Competition) -> list[dict[str, Any]]:
    """The standings as the page shows them (``standings_for_competition``, same order),
    one flat row of :data:`STANDINGS_COLUMNS` per entry, for a CSV or JSON download."""
    entries = _entries_named(competition)
    out = []
    for row in standings_for_competition(competition=competition):
        bot, owner = _entry_bot_and_owner(entries[row["entry"]])
        status = "in"
        if row["disqualified"] or row["withdrawn"]:
            status = "disqualified" if row["disqualified"] else "withdrawn"
        values = {**row, "bot": bot, "owner": owner, "status": status}
        out.append({column: values[column] for column in STANDINGS_COLUMNS})
    return out


def match_results_export(*, competition: Competition) -> list[dict[str, Any]]:
    """Every finished match of the competition, in the order they were played (round,
    table), with its seats in seat order: ``{"match", "round", "table", "node",
    "finished_at", "seats": [{"seat", "bot", "owner", "rank", "score", "points",
    "entry"}]}`` (the bot at that seat: a team's two seats name its two bots). Three
    queries."""
    entries = _entries_named(competition)
    matches = (
        competition.matches.filter(status=Match.Status.DONE)
        .select_related("round")
        .prefetch_related("seats")
        .order_by("round__number", "table", "id")
    )
    out = []
    for match in matches:
        seats = []
        for s in sorted(match.seats.all(), key=lambda s: s.seat):
            bot, owner = _bot_and_owner(entries[s.entry_id].bot_at(s.seat))
            seats.append(
                {
                    "seat": s.seat,
                    "bot": bot,
                    "owner": owner,
                    "rank": s.rank,
                    "score": s.score,
                    "points": s.points,
                    "entry": s.entry_id,
                }
            )
        out.append(
            {
                "match": match.pk,
                "round": match.round.number if match.round_id else None,
                "table": match.table,
                "node": match.node,
                "finished_at": match.finished_at.isoformat() if match.finished_at else None,
                "seats": seats,
            }
        )
    return out


def match_results_rows(matches: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """:func:`match_results_export` flattened for CSV: one row of :data:`MATCH_COLUMNS`
    per seat of each match."""
    return [
        {**{k: v for k, v in match.items() if k != "seats"}, **seat}
        for match in matches
        for seat in match["seats"]
    ]


def results_csv(*, competition: Competition, table: str) -> str:
    """The CSV download of the standings (``table`` "standings") or of every match result
    ("matches"): the site's and the API's, byte for byte."""
    if table == "standings":
        return rows_as_csv(standings_export(competition=competition), STANDINGS_COLUMNS)
    rows = match_results_rows(match_results_export(competition=competition))
    return rows_as_csv(rows, MATCH_COLUMNS)


def rows_as_csv(rows: list[dict[str, Any]], columns: tuple[str, ...]) -> str:
    """``rows`` as CSV text with a header of ``columns`` (None as an empty field)."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()
