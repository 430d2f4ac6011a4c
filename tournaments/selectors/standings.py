"""Reads of a competition's standings: the table of every format (divisions, confidence,
the recent trend), in the order of :mod:`tournaments.selectors.ranking`."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.db.models import (
    F,
    FloatField,
    OuterRef,
    Subquery,
)
from django.db.models.functions import Coalesce

from bots.models import bot_display_name
from tournaments.models import (
    Competition,
    RatingEvent,
    display_rating_expression,
)
from tournaments.ratings.confidence import with_confidence
from tournaments.selectors.ranking import (
    apply_chain,
    finished_tables,
    knockout_order,
    standings_chain,
    swiss_order,
)

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
    seasons), its ``division_number`` (from 1, as the pages say "Division 1"; None outside
    league seasons) and ``move``: "up" for the top ``promote`` of a division below the first,
    "down" for the bottom ``promote`` of a division above the last, else None (while the
    season runs: where the row stands now; None for all once it was closed early without
    promotion and relegation). A league season's rows come division by
    division, each ranked (and compared with the row below) within its division."""

    @functools.wraps(selector)
    def standings(*, competition: Competition, limit: int | None = None):
        if competition.kind != Competition.Kind.LEAGUE_SEASON:
            rows = selector(competition=competition, limit=limit)
            return [
                {**row, "division": None, "division_number": None, "move": None} for row in rows
            ]
        rows = selector(competition=competition)
        division_of = dict(competition.entries.values_list("pk", "division"))
        groups: dict[int, list[dict[str, Any]]] = {}
        for row in rows:
            groups.setdefault(division_of[row["entry"]], []).append(row)
        out: list[dict[str, Any]] = []
        last = max(groups, default=0)
        # Nobody goes up or down from a season that has not started, nor from one closed
        # early without promotion and relegation.
        moves = competition.status != Competition.Status.DRAFT and competition.promotion_applies
        promote = competition.promote if moves else 0
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
        row["division_number"] = division + 1
        up = division > 0 and position < promote
        down = division < last and position >= len(out) - promote
        row["move"] = "up" if up else "down" if down else None
    return out


def _table_rows(competition: Competition, *, order: str, limit: int | None) -> list[dict[str, Any]]:
    """The standings' rows before the format's chain orders them: a ladder's in its
    query's order (rating, then points; only its top ``limit``), every other format's
    by points, then rating."""
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
      among the still level (see ``swiss_order``), then the rating.
    - Knockouts: placements (see ``knockout_order``): the champion first, the
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
    out = _table_rows(competition, order=order, limit=limit)
    chain = standings_chain(competition)
    tables = finished_tables(competition) if order in ("points", "swiss") else ([], {})
    if order == "swiss":
        out = swiss_order(competition, out, tables[0])
    elif order == "placement":
        out = knockout_order(competition, out)
    divisions = (
        dict(competition.entries.values_list("pk", "division"))
        if competition.kind == Competition.Kind.LEAGUE_SEASON
        else {}
    )
    return apply_chain(out, chain, *tables, divisions=divisions)[:limit]
