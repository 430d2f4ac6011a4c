"""A competition's downloads: its standings, every match result and a round robin's
crosstable, as rows, CSV and JSON, of the whole competition or of one division of a
league season; and what every column of every file means (the help page lists them).

The files are for people: divisions, tables and seats count from 1 as the pages do,
ratings are rounded as the page shows them, and a column name means one thing in every
file. The JSON files keep the fields they always had (``division``, ``table`` and
``seat`` from 0, a seat's ``rank`` and ``points``) beside the ones people read."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import Max

from tournaments.models import (
    Competition,
    Entry,
    Match,
)
from tournaments.selectors.results import crosstable_for_competition
from tournaments.selectors.standings import standings_for_competition

#: What each column of a download means; a name means the same in every file.
COLUMN_MEANINGS: dict[str, str] = {
    "rank": "The place in the standings, 1 the top (in a league season the place within "
    "its division); rows nothing separates share it.",
    "bot": "The bot's name (a team's two bots joined by \" & \"; in the match results the "
    "bot that played that seat).",
    "owner": "The username of the bot's owner; \"built-in\" for the site's own bots.",
    "points": "League points, which order the standings: in every match, 1 for each "
    "opponent the bot finished ahead of and ½ for each it was level with.",
    "games": "Games played (a level knockout match's play-off games not counted).",
    "rating": "μ − 3σ: a cautious rating, the skill we are fairly sure the bot has at "  # noqa: RUF001
    "least (two decimals, as the page shows it).",
    "mu": "μ: the rating model's best guess of the bot's skill; 25 at the start.",
    "sigma": "σ: how unsure the model still is of that guess; it shrinks with every rated "  # noqa: RUF001
    "match (8.33 at the start).",
    "rating_low": "The low end of the range the skill μ lies in with 95 % probability, "
    "μ − 1.96σ (one decimal, as the page's μ 95 % column).",  # noqa: RUF001
    "rating_high": "The high end of that range, μ + 1.96σ.",  # noqa: RUF001
    "p_above_next": "P(> next): the chance this bot is really stronger than the one below "
    "it, from 0 to 1 (the page shows it as a percentage); empty for the last row.",
    "trend": "How the rating moved over the bot's last 5 rated matches; empty before its " "first.",
    "status": "in, withdrawn or disqualified.",
    "entry": "The entry's id, as the API numbers it.",
    "division_number": "League seasons: the division, 1 the top one (the page's "
    "Division 1); empty for other competitions.",
    "move": "League seasons: up for a promotion place, down for a relegation place (final "
    "once the season has finished); empty for the others.",
    "shared": "True when another row has the same rank (the page shows 2=).",
    "separated_by": "The tie-break step that put the row below the one above (points, "
    "head_to_head, sonneborn_berger, buchholz, median_buchholz, score, rating or "
    "placement); empty for the first row and for a shared rank.",
    "match": "The match's id (its page is /dashboard/matches/<id>/).",
    "round": "The round the match was played in, from 1.",
    "table_number": "The match's table in its round, from 1, as the match page numbers it.",
    "node": "A knockout match's box in the bracket (R1-0, GF...); empty for other formats.",
    "finished_at": "When the match finished (UTC, ISO 8601).",
    "seat_number": "The seat at the table, from 1, as the pages number seats.",
    "place": "The seat's place at its table in that match, 1 the first.",
    "score": "The seat's total score over the match's games (the game's own scoring).",
    "game_points": "The seat's game points in that match: in every game, 1 for each "
    "opponent it beat and ½ for each it was level with.",
    "vs <name>": "The row's result against the entry of that name (owner/bot): 1 for each "
    "meeting it finished ahead, ½ level, 0 behind, summed over their meetings; empty "
    "before they met, x on the diagonal (itself).",
}

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
    "division_number",
    "move",
    "shared",
    "separated_by",
)

#: The columns of a match results download in CSV: one row per seat of a finished match.
MATCH_COLUMNS = (
    "match",
    "round",
    "table_number",
    "node",
    "finished_at",
    "seat_number",
    "bot",
    "owner",
    "place",
    "score",
    "game_points",
    "entry",
)

#: The columns of a crosstable download in CSV: one row per entry in standings order, a
#: ``vs <name>`` column per entry after ``owner``.
CROSSTABLE_COLUMNS = ("rank", "bot", "owner", "vs <name>", "points", "entry", "division_number")

#: Every download and its columns, as the help page lists them.
DOWNLOADS = {
    "standings": STANDINGS_COLUMNS,
    "matches": MATCH_COLUMNS,
    "crosstable": CROSSTABLE_COLUMNS,
}

#: The fields of the JSON files that are not CSV columns: kept for the programs that
#: read them, each with its meaning.
JSON_ONLY_FIELDS: dict[str, str] = {
    "division": "standings and crosstable: the division counted from 0 (0 the top one), "
    "as the API's division; division_number is the same from 1.",
    "table": "match results: the table counted from 0; table_number is the same from 1.",
    "seat": "match results: the seat counted from 0 (the bot protocol's seat); "
    "seat_number is the same from 1.",
    "seats[].rank": "match results: the seat's place, the same as place.",
    "seats[].points": "match results: the seat's game points, the same as game_points.",
}

#: Decimals of the rating columns in the files: as the competition page shows them.
DECIMALS = {
    "rating": 2,
    "mu": 2,
    "sigma": 2,
    "rating_low": 1,
    "rating_high": 1,
    "p_above_next": 2,
    "trend": 2,
}

#: The query parameters that choose a division: from 1 as the pages count, or from 0 as
#: the JSON's ``division``.
DIVISION_NUMBER, DIVISION = "division_number", "division"


def download_columns() -> list[dict[str, Any]]:
    """Every download with its CSV columns and their meanings, in file order:
    ``{"file", "columns": [(name, meaning)]}``; the help page's list."""
    return [
        {"file": name, "columns": [(c, COLUMN_MEANINGS[c]) for c in columns]}
        for name, columns in DOWNLOADS.items()
    ]


def division_asked(*, competition: Competition, params: Mapping[str, str]) -> int | None:
    """The division (0 the top one) a download asks for: ``?division_number=N`` (from 1,
    as the pages count) or ``?division=N`` (from 0, as the JSON's ``division``); None
    without either. A ValidationError naming the parameter for a competition without
    divisions, a number that is not one of its divisions, or the two disagreeing."""
    asked: dict[str, int] = {}
    for field, first in ((DIVISION_NUMBER, 1), (DIVISION, 0)):
        value = params.get(field)
        if value is None:
            continue
        if competition.kind != Competition.Kind.LEAGUE_SEASON:
            raise ValidationError(
                {field: f"only a league season has divisions; this is a {competition.kind}"}
            )
        last = (competition.entries.aggregate(last=Max("division"))["last"] or 0) + first
        if not value.strip().isdigit() or not first <= int(value) <= last:
            said = f"{field} must be {first} to {last} ({first} is the top one), got {value!r}"
            raise ValidationError({field: said})
        asked[field] = int(value) - first
    if len(set(asked.values())) > 1:
        raise ValidationError(
            {DIVISION: "division and division_number name different divisions; send one"}
        )
    return next(iter(asked.values()), None)


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


def _rounded(column: str, value: Any) -> Any:
    """``value`` of ``column`` as the files give it: a rating to the page's decimals."""
    if column not in DECIMALS or value is None:
        return value
    return round(value, DECIMALS[column]) + 0.0  # + 0.0: no -0.0


def standings_export(
    *, competition: Competition, division: int | None = None
) -> list[dict[str, Any]]:
    """The standings as the page shows them (``standings_for_competition``, same order;
    only ``division``'s rows with ``division``), one flat row per entry: the
    :data:`STANDINGS_COLUMNS` (ratings rounded as the page shows them) and ``division``
    (from 0), for a CSV or JSON download."""
    entries = _entries_named(competition)
    out = []
    for row in standings_for_competition(competition=competition):
        if division is not None and row["division"] != division:
            continue
        bot, owner = _entry_bot_and_owner(entries[row["entry"]])
        status = "in"
        if row["disqualified"] or row["withdrawn"]:
            status = "disqualified" if row["disqualified"] else "withdrawn"
        values = {**row, "bot": bot, "owner": owner, "status": status}
        flat = {column: _rounded(column, values[column]) for column in STANDINGS_COLUMNS}
        out.append({**flat, "division": row["division"]})
    return out


def match_results_export(
    *, competition: Competition, division: int | None = None
) -> list[dict[str, Any]]:
    """Every finished match of the competition (only ``division``'s with ``division``),
    in the order they were played (round, table), with its seats in seat order:
    ``{"match", "round", "table", "table_number", "node", "finished_at", "seats":
    [{"seat", "seat_number", "bot", "owner", "rank", "place", "score", "points",
    "game_points", "entry"}]}`` (the bot at that seat: a team's two seats name its two
    bots; ``table`` and ``seat`` from 0, their ``_number`` from 1; ``place`` is ``rank``
    and ``game_points`` is ``points``, under the names the CSV gives them). Three
    queries."""
    entries = _entries_named(competition)
    matches = competition.matches.filter(status=Match.Status.DONE)
    if division is not None:
        matches = matches.filter(seats__entry__division=division).distinct()
    matches = (
        matches.select_related("round")
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
                    "seat_number": s.seat + 1,
                    "bot": bot,
                    "owner": owner,
                    "rank": s.rank,
                    "place": s.rank,
                    "score": s.score,
                    "points": s.points,
                    "game_points": s.points,
                    "entry": s.entry_id,
                }
            )
        out.append(
            {
                "match": match.pk,
                "round": match.round.number if match.round_id else None,
                "table": match.table,
                "table_number": match.table + 1,
                "node": match.node,
                "finished_at": match.finished_at.isoformat() if match.finished_at else None,
                "seats": seats,
            }
        )
    return out


def match_results_rows(matches: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """:func:`match_results_export` flattened for CSV: one row per seat of each match
    (its :data:`MATCH_COLUMNS` and the JSON's other fields)."""
    return [
        {**{k: v for k, v in match.items() if k != "seats"}, **seat}
        for match in matches
        for seat in match["seats"]
    ]


def crosstable_export(
    *, competition: Competition, division: int | None = None
) -> dict[str, Any] | None:
    """A round robin's crosstable (``crosstable_for_competition``; of ``division`` alone
    with ``division``), as the API gives it; None for other formats."""
    return crosstable_for_competition(competition=competition, division=division)


def crosstable_csv(*, competition: Competition, table: dict[str, Any]) -> str:
    """``table`` (:func:`crosstable_export`) as CSV: the :data:`CROSSTABLE_COLUMNS`, the
    ``vs <name>`` column standing for one column per entry, headed ``vs`` and the entry's
    name; a cell is the row's summed result against that column's entry."""
    entries = _entries_named(competition)
    names = [e["name"] for e in table["entries"]]
    at = CROSSTABLE_COLUMNS.index("vs <name>")
    header = [*CROSSTABLE_COLUMNS[:at], *(f"vs {n}" for n in names), *CROSSTABLE_COLUMNS[at + 1 :]]
    rows = []
    for entry, row in zip(table["entries"], table["rows"], strict=True):
        bot, owner = _entry_bot_and_owner(entries[entry["entry"]])
        cells = [
            "x" if cell["opponent"] == row["entry"] else _text(cell["score"])
            for cell in row["cells"]
        ]
        after = [entry["points"], entry["entry"], entry["division_number"]]
        rows.append([entry["rank"], bot, owner, *cells, *map(_text, after)])
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([[_text(v) for v in row] for row in rows])
    return buffer.getvalue()


def results_csv(*, competition: Competition, table: str, division: int | None = None) -> str:
    """The CSV download of the standings (``table`` "standings"), of every match result
    ("matches") or of a round robin's crosstable ("crosstable"; "" for another format),
    of the whole competition or of ``division``: the site's and the API's, byte for
    byte."""
    if table == "standings":
        rows = standings_export(competition=competition, division=division)
        return rows_as_csv(rows, STANDINGS_COLUMNS)
    if table == "crosstable":
        cross = crosstable_export(competition=competition, division=division)
        return "" if cross is None else crosstable_csv(competition=competition, table=cross)
    matches = match_results_export(competition=competition, division=division)
    return rows_as_csv(match_results_rows(matches), MATCH_COLUMNS)


def _text(value: Any, column: str = "") -> str:
    """A CSV field: None empty, a rating to the page's decimals ("4.30"), a whole number
    without a decimal point ("2"), anything else as Python writes it."""
    if value is None:
        return ""
    if column in DECIMALS:
        return f"{value:.{DECIMALS[column]}f}"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def rows_as_csv(rows: list[dict[str, Any]], columns: tuple[str, ...]) -> str:
    """``rows`` as CSV text with a header of ``columns`` (only those; see :func:`_text`)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([[_text(row[c], c) for c in columns] for row in rows])
    return buffer.getvalue()
