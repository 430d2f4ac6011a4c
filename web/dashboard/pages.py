"""Reads of the site's pages (home, match): plain data for the templates.

The live panels of a competition page come from ``tournaments.watching``; this module
adds what only the pages show: the home page's lists and a match's games in words.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import Case, IntegerField, Value, When

import games
from bots import builtin
from bots.allowances import ALLOWANCES, allowance_limit
from tournaments.models import Competition, Match, RatingEvent
from tournaments.ratings import display_rating
from tournaments.ratings.tiebreaks import STEP_LABELS, chain_for
from tournaments.selectors import (
    JSON_ONLY_FIELDS,
    competitions_visible_to,
    download_columns,
    entries_with_outlook,
    entry_outlook,
    game_seat_players,
    standings_for_competition,
)
from tournaments.selectors.ladders import STANDING_LADDERS
from tournaments.services import challenge_requests as challenges
from tournaments.watching.live_match import current_number, live_games, match_live_head
from tournaments.watching.queue_panel import progress_by_competition
from tournaments.watching.replay import seat_names
from tournaments.watching.words import (
    COMPETITION_STATUS_WORDS,
    MATCH_STATUS_WORDS,
    MOVE_WORDS,
    ROUND_STATUS_WORDS,
    STATUS_WORDS,
    move_words,
    status_words,
)

#: The home page lists this many competitions, live ones first.
HOME_COMPETITIONS = 20
#: A ladder's top ten on the home page.
LADDER_TOP = 10
#: Recent upsets on the home page, found among this many last rated matches.
UPSETS_SHOWN, UPSETS_SCANNED = 5, 200
#: An upset: the better placed seat was rated at least this much lower (mu - 3 sigma) before.
UPSET_MARGIN = 1.0


def home_page(*, user) -> dict[str, Any]:
    """The home page: competitions ``user`` may watch (running first, then newest), the
    top ten of the first running ladder among them, recent upsets, and the standing open
    ladders any signed-in author may enter (``open_ladders``, by family:
    :func:`open_ladders_by_family`)."""
    visible = competitions_visible_to(user=user)
    live_first = Case(
        When(status=Competition.Status.RUNNING, then=Value(0)),
        default=Value(1),
        output_field=IntegerField(),
    )
    ordered = visible.annotate(live=live_first).order_by("live", "-created_at", "-id")
    competitions = list(ordered[:HOME_COMPETITIONS])
    progress = progress_by_competition(competitions)
    ladder = next((c for c in competitions if c.format == Competition.Format.LADDER), None)
    league = next((c for c in competitions if _in_divisions(c)), None)
    return {
        "rows": [(c, progress[c.pk]) for c in competitions],
        "league": league,
        "league_divisions": division_tables(competition=league) if league else [],
        "ladder": ladder,
        "ladder_top": (
            standings_for_competition(competition=ladder, limit=LADDER_TOP) if ladder else []
        ),
        "upsets": recent_upsets(competitions=visible),
        "open_ladders": open_ladders_by_family(competitions=visible),
    }


def open_ladders_by_family(*, competitions) -> list[dict[str, Any]]:
    """The standing open ladders among ``competitions`` that play (running or paused), in
    ``STANDING_LADDERS`` order, grouped by game family: ``{"family", "ladders"}`` each."""
    playing = competitions.exclude(standing="").filter(
        status__in=[Competition.Status.RUNNING, Competition.Status.PAUSED]
    )
    by_variant = {c.standing: c for c in playing}
    groups: list[dict[str, Any]] = []
    for spec in STANDING_LADDERS:
        if spec.variant not in by_variant:
            continue
        if not groups or groups[-1]["family"] != spec.family:
            groups.append({"family": spec.family, "ladders": []})
        groups[-1]["ladders"].append(by_variant[spec.variant])
    return groups


def _in_divisions(competition: Competition) -> bool:
    """A league season whose entries are in divisions (it has started, or it follows a
    season that cut them)."""
    return (
        competition.kind == Competition.Kind.LEAGUE_SEASON
        and competition.division_size is not None
        and (competition.status != Competition.Status.DRAFT or competition.previous_season_id)
    )


def division_tables(*, competition: Competition) -> list[dict[str, Any]]:
    """A league season's standings, one table per division (``{"number"}`` from 1,
    ``"rows"``), each row's ``move`` in words (``move_words``)."""
    finished = competition.status == Competition.Status.FINISHED
    tables: list[dict[str, Any]] = []
    for row in standings_for_competition(competition=competition):
        if not tables or tables[-1]["division"] != row["division"]:
            tables.append({"division": row["division"], "number": row["division"] + 1, "rows": []})
        words = move_words(row["move"], finished=finished)
        tables[-1]["rows"].append({**row, "move_words": words})
    return tables


def recent_upsets(*, competitions, shown: int = UPSETS_SHOWN) -> list[dict[str, Any]]:
    """Finished rated matches, newest first, where a seat placed better than a seat rated
    at least :data:`UPSET_MARGIN` higher before the match (mu - 3 sigma); per match the
    biggest such gap: ``match``, ``competition``, ``winner``, ``loser``, ``gap``."""
    events = (
        RatingEvent.objects.filter(match__competition__in=competitions)
        .order_by("-match__finished_at", "-match_id")
        .values_list("match_id", "entry_id", "mu_before", "sigma_before")
    )
    matches: dict[int, dict[int, float]] = {}
    for match_id, entry_id, mu, sigma in events[:UPSETS_SCANNED]:
        matches.setdefault(match_id, {})[entry_id] = display_rating(mu, sigma)
    found = []
    rows = Match.objects.filter(pk__in=matches).select_related("competition")
    seated = rows.prefetch_related("seats__entry__bot__owner", "seats__entry__partner__owner")
    for match in seated.order_by("-finished_at", "-id"):
        before = matches[match.pk]
        seats = [s for s in match.seats.all() if s.rank is not None and s.entry_id in before]
        best = None
        for up in seats:
            for down in seats:
                gap = before[down.entry_id] - before[up.entry_id]
                if up.rank < down.rank and gap >= UPSET_MARGIN and (best is None or gap > best[0]):
                    best = (gap, up, down)
        if best:
            gap, up, down = best
            found.append(
                {
                    "match": match,
                    "competition": match.competition,
                    "winner": up.entry.bot_at(up.seat),
                    "loser": down.entry.bot_at(down.seat),
                    "gap": gap,
                }
            )
        if len(found) >= shown:
            break
    return found


def match_page(*, match: Match) -> dict[str, Any]:
    """A match for its page: seats with their bots and results, and every stored game
    numbered from 1, with the bot at each seat, scores, ranks and statuses in words.

    A seat's ``statuses`` are the match's counts of each game status, in words; a game's
    ``seats`` hold ``name``, ``score``, ``rank``, ``status`` (words) and ``reason``.
    While the match is played, its games are those finished so far
    (``tournaments.watching.live_match``) and ``current`` is the number of the game in
    progress.
    """
    seats = match.seats.select_related("entry__bot__owner", "entry__partner__owner", "version")
    seats = list(seats.order_by("seat"))
    times = {s.seat: {"decisions": 0, "charged_ms": 0, "slowest": None} for s in seats}
    rows = [
        {
            "seat": s.seat,
            "bot": s.entry.bot_at(s.seat),  # a team's partner at its second seat
            "name": str(s.entry.bot_at(s.seat)),
            "version": s.version.number if s.version is not None else None,
            "rank": s.rank,
            "score": s.score,
            "points": s.points,
            "statuses": [
                (status_words(status), n) for status, n in sorted((s.statuses or {}).items())
            ],
        }
        for s in seats
    ]
    if match.status == Match.Status.RUNNING:  # not stored yet: as its worker published them
        head = match_live_head(match=match)
        return {
            "seats": rows,
            "games": live_games(match=match, head=head, names=[r["name"] for r in rows]),
            "current": current_number(match=match, head=head),
            "status_words": MATCH_STATUS_WORDS.get(match.status, match.status),
        }
    games = []
    for game in match.game_records.order_by("index"):
        try:
            record = game.record()
            names = seat_names(game=game, record=record)
            _add_times(times, game, record)
        except (ValueError, KeyError):
            names = [f"seat {i + 1}" for i in range(len(game.scores))]
        statuses = list(game.statuses or [])
        per_seat = []
        for i, score in enumerate(game.scores):
            status = statuses[i] if i < len(statuses) and isinstance(statuses[i], dict) else {}
            per_seat.append(
                {
                    "name": names[i] if i < len(names) else f"seat {i + 1}",
                    "score": score,
                    "rank": game.ranking[i] if i < len(game.ranking) else None,
                    "fault": status.get("status", "ok") != "ok",
                    "status": status_words(status.get("status", "ok")),
                    "reason": status.get("reason", ""),
                }
            )
        games.append(
            {"id": game.pk, "number": game.index + 1, "playoff": game.playoff, "seats": per_seat}
        )
    for row in rows:
        row["times"] = times[row["seat"]]
    return {
        "seats": rows,
        "games": games,
        "status_words": MATCH_STATUS_WORDS.get(match.status, match.status),
        "level": level_words(rows, match.decided_by or {}),
    }


def _add_times(times: dict[int, dict[str, Any]], game, record: dict[str, Any]) -> None:
    """Add the decision times of ``game`` (``bots.referee.traces``) to each match seat's
    ``decisions``, ``charged_ms`` and ``slowest`` (``ms``, ``game`` id and ``number``,
    ``move`` and ``step`` of the replay)."""
    traces = record.get("traces")
    players = game_seat_players(game=game, record=record) if traces else None
    if players is None:
        return
    for trace in traces:
        row = times.get(players[trace["seat"]])
        if row is None:
            continue
        row["decisions"] += 1
        row["charged_ms"] += trace["charged_ms"]
        if row["slowest"] is None or trace["charged_ms"] > row["slowest"]["ms"]:
            row["slowest"] = {
                "ms": trace["charged_ms"],
                "game": game.pk,
                "number": game.index + 1,
                "move": trace["ply"] + 1,
            }


def _number(value: float) -> str:
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def level_words(rows: list[dict[str, Any]], decided_by: dict[str, Any]) -> list[str]:
    """Why seats level on game points were ranked as they were, one sentence per level
    group ("alpha and bravo: 10-10 on points; decided on total score 1,421-1,378"), and
    how a knockout's cut was made when a play-off or a lot decided it."""
    groups: dict[float, list[dict[str, Any]]] = {}
    for row in rows:
        if row["points"] is not None:
            groups.setdefault(row["points"], []).append(row)
    out = []
    for points, level in sorted(groups.items(), reverse=True):
        if len(level) < 2:
            continue
        level.sort(key=lambda r: r["rank"] or 0)
        who = " and ".join(r["name"] for r in level)
        on_points = "-".join(_number(points) for _ in level) + " on points"
        scores = [r["score"] for r in level]
        if len(set(scores)) > 1:
            shown = "-".join(_number(x) for x in scores)
            out.append(f"{who}: {on_points}; decided on total score {shown}")
        else:
            out.append(f"{who}: {on_points} and level on total score ({_number(scores[0])})")
    rule = decided_by.get("rule")
    if rule == "play-off":
        out.append("The knockout cut was level after the games: play-off games decided it.")
    elif rule == "lot":
        out.append("The knockout cut was level after every tie-break: decided by lot.")
    return out


def neighbour_games(*, game) -> dict[str, Any]:
    """The ids of the previous and next game of ``game``'s match (None at either end),
    and the number of games."""
    ids = list(game.match.game_records.order_by("index").values_list("pk", flat=True))
    at = ids.index(game.pk)
    return {
        "previous": ids[at - 1] if at > 0 else None,
        "next": ids[at + 1] if at + 1 < len(ids) else None,
        "count": len(ids),
        "number": game.index + 1,
    }


def competition_page(*, competition: Competition) -> dict[str, Any]:
    """What a competition page shows besides its live panels: the entry list (each entry
    with where it stands, ``tournaments.selectors.entry_outlook``), the head-to-head
    table, and the variant's rules and options (each with its value, its default and
    what it does)."""
    entries = list(
        competition.entries.select_related("bot__owner", "partner__owner", "pinned_version")
        .prefetch_related(*entries_with_outlook())
        .order_by("seed_order", "id")
    )
    for entry in entries:
        entry.competition = competition
        entry.outlook = entry_outlook(entry=entry)
    try:
        variant = games.variant_info(competition.variant)
        values = games.load(competition.variant, **(competition.options or {})).options
    except ValueError:
        variant, values = None, {}
    options = [
        {"name": o.name, "value": values.get(o.name, o.default), "default": o.default, "doc": o.doc}
        for o in (variant.options if variant else ())
    ]
    return {
        "entries": entries,
        "variant": variant,
        "options": options,
    }


#: The standings table's column headings and what each means, in the words the page's
#: tooltips (``<abbr title>``) and its legend under the table both use: ``key: (heading,
#: meaning)``; ``live.js`` draws the headings from them.
STANDINGS_HEADINGS: dict[str, tuple[str, str]] = {
    "rank": (
        "#",
        "The place in the standings (in a league season, within the division); rows "
        "nothing separates share a place, shown 3=.",
    ),
    "name": ("Bot", "The bot (or team), named owner/bot; the site's own bots have no owner."),
    "rating": (
        "Rating (μ − 3σ)",  # noqa: RUF001
        "A cautious rating — the skill we are fairly sure the bot has at least: the model's "
        "best guess μ less three times its doubt σ. It rises as the bot wins and as the "  # noqa: RUF001
        "model grows sure of it.",
    ),
    "points": (
        "Points",
        "League points, which order the table: in every match, 1 for each opponent the bot "
        "finished ahead of and ½ for each it was level with.",
    ),
    "games": ("Games", "Games played (a level knockout match's play-off games not counted)."),
    "sigma": (
        "σ",  # noqa: RUF001
        "How unsure the model still is of the bot's skill: it shrinks with every rated "
        "match (8.33 at the start).",
    ),
    "trend": ("Trend", "How the rating moved over the bot's last 5 rated matches (▲ up, ▼ down)."),
    "interval": (
        "μ 95 %",
        "The range the bot's skill lies in with 95 % probability: the best guess μ, give "
        "or take 1.96σ.",  # noqa: RUF001
    ),
    "pNext": (
        "P(> next)",
        "The chance this bot is really stronger than the one below it, not just luckier so "
        "far (>99 % or <1 %: as good as sure).",
    ),
}


def standings_legend() -> list[tuple[str, str]]:
    """The legend under the standings: every heading of the table with what it means."""
    return list(STANDINGS_HEADINGS.values())


def page_words() -> dict[str, dict[str, str]]:
    """The words the live page script writes for statuses (one table, the server's)."""
    return {
        "game": STATUS_WORDS,
        "match": {str(k): v for k, v in MATCH_STATUS_WORDS.items()},
        "round": ROUND_STATUS_WORDS,
        "competition": COMPETITION_STATUS_WORDS,
        "tiebreak": STEP_LABELS,
        "move": MOVE_WORDS,
        "columns": {key: list(pair) for key, pair in STANDINGS_HEADINGS.items()},
    }


def champions(*, competition: Competition, standings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Who won an ended competition, from its standings (the first place, shared by
    ties): ``[{"label", "names", "division_number"}]``, one for the competition, or one
    per division of a league season in divisions ("Division 1 champion"); "Leader when it
    closed" for one closed early. [] while it is not finished."""
    if competition.status != Competition.Status.FINISHED or not standings:
        return []
    tables: dict[int | None, list[dict[str, Any]]] = {}
    for row in standings:
        tables.setdefault(row.get("division_number"), []).append(row)
    divided = len(tables) > 1
    out = []
    for number, rows in tables.items():
        label = "leader when it closed" if competition.closed_early else "champion"
        label = f"Division {number} {label}" if divided else label.capitalize()
        first = [row["name"] for row in rows if row["rank"] == rows[0]["rank"]]
        out.append({"label": label, "names": first, "division_number": number if divided else None})
    return out


def division_numbers(standings: list[dict[str, Any]]) -> list[int]:
    """The divisions of a league season's standings, from 1, when it has more than one;
    [] for one division or another kind of competition."""
    numbers = list(dict.fromkeys(row["division_number"] for row in standings))
    return numbers if len(numbers) > 1 and None not in numbers else []


def help_page(*, user) -> dict[str, Any]:
    """The help page's figures: the variants with their players, the built-in opponents,
    the most games of a challenge, the tie-break chains, the open ladders, and the
    allowances (the reader's own when signed in, else the installation's defaults)."""
    signed_in = user is not None and user.is_authenticated
    allowances = [
        {
            "name": a.name,
            "label": a.label,
            "daily": a.daily,
            "limit": (
                allowance_limit(user=user, name=a.name)
                if signed_in
                else getattr(settings, a.setting)
            ),
        }
        for a in ALLOWANCES.values()
    ]
    formats = (
        ("Round robin", "round-robin", False),
        ("Round robin of duplicate matches", "round-robin", True),
        ("Swiss", "swiss", False),
        ("Knockouts", "single-elimination", False),
        ("Ladders", "ladder", False),
    )
    return {
        "variants": [games.variant_info(v) for v in games.variants()],
        "builtins": builtin.names(),
        "strengths": builtin.strengths(),
        "challenge_games_max": f"{challenges.GAMES_MAX:,}",
        "ladders": STANDING_LADDERS,
        "allowances": allowances,
        "own_allowances": signed_in,
        "chains": [
            (label, [STEP_LABELS[step] for step in chain_for(format_, duplicate=duplicate)])
            for label, format_, duplicate in formats
        ],
        "downloads": download_columns(),
        "json_only": JSON_ONLY_FIELDS,
    }
