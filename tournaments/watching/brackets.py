"""The rounds and bracket panels of the dashboard: the latest rounds' tables and an
elimination's bracket, as plain data."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from django.db.models import Count, Q

from tournaments import pairing
from tournaments.formats.elimination import Bracket, Node, NodeState
from tournaments.formats.match_result import points_text
from tournaments.models import Competition, Match, Round
from tournaments.selectors import (
    round_results,
)
from tournaments.watching.rows import _entry_names, _match_rows, _with_seats, score_line

log = logging.getLogger(__name__)


#: The rounds view lists the latest this many rounds (a ladder runs thousands of batches).
ROUNDS_SHOWN = 12


#: ... and the pairings of at most this many tables of the current round.
CURRENT_TABLES = 64


ELIMINATION = frozenset(
    {Competition.Format.SINGLE_ELIMINATION, Competition.Format.DOUBLE_ELIMINATION}
)


def rounds_view(
    *, competition: Competition, results_of: Sequence[int] | None = None
) -> dict[str, Any]:
    """The rounds of a competition, its current round's pairings and, for elimination
    formats, its bracket.

    ``rounds``: the latest :data:`ROUNDS_SHOWN` as ``{"number", "status", "matches",
    "done"}``, ``earlier`` how many more there are; ``current``: the first running round
    (else the last) with the byes and up to :data:`CURRENT_TABLES` tables (match rows
    with seats); ``bracket``: :func:`bracket_view`, or None for other formats;
    ``results`` (not for knockouts, whose bracket shows every match): every round's
    tables and byes (``selectors.round_results``; a ladder's latest
    :data:`ROUNDS_SHOWN`). With ``results_of`` (a live round event's rounds), a
    round robin's or a league's ``results`` hold only those rounds, named again in
    ``results_of``: the page keeps the others it has (every round's results, sent with
    each round event, grew with every match played).
    """
    counted = competition.rounds.annotate(
        total=Count("matches"), done=Count("matches", filter=Q(matches__status=Match.Status.DONE))
    )
    latest = list(counted.order_by("-number")[:ROUNDS_SHOWN])[::-1]
    names = _entry_names(competition)
    view: dict[str, Any] = {
        "format": competition.format,
        "rounds": [
            {"number": r.number, "status": r.status, "matches": r.total, "done": r.done}
            for r in latest
        ],
        "earlier": max(latest[0].number - 1, 0) if latest else 0,
        "current": None,
        "bracket": None,
    }
    if competition.format in ELIMINATION:
        view["bracket"] = bracket_view(competition=competition, names=names)
        return view
    if competition.format == Competition.Format.LADDER:
        view["results"] = round_results(competition=competition, last=ROUNDS_SHOWN)
    elif results_of is not None:
        view["results_of"] = sorted(set(results_of))
        view["results"] = round_results(competition=competition, numbers=view["results_of"])
    else:
        view["results"] = round_results(competition=competition)
    current = competition.rounds.filter(status=Round.Status.RUNNING).order_by("number").first()
    current = current or (latest[-1] if latest else None)
    if current is not None:
        tables = _with_seats(current.matches.order_by("table", "id"))[:CURRENT_TABLES]
        view["current"] = {
            "number": current.number,
            "status": current.status,
            "tables": _match_rows(tables, names),
            "more": max(current.matches.count() - CURRENT_TABLES, 0),
            "byes": [names.get(e, str(e)) for e in current.byes.values_list("pk", flat=True)],
        }
    return view


#: Bracket node ids (tournaments.formats.elimination): "R2-0", "W1-3", "L4-0", "GF", "GF2".
NODE = re.compile(r"(?P<side>[RWL])(?P<round>\d+)-(?P<index>\d+)")


SECTIONS = {"R": "Bracket", "W": "Winners bracket", "L": "Losers bracket", "F": "Grand final"}


FINAL_LABELS = {"R": "Final", "W": "Winners final", "L": "Losers final"}


def _node_place(node_id: str) -> tuple[str, int, int]:
    """(section key, column, position) of a bracket node; the grand finals form section F."""
    found = NODE.fullmatch(node_id)
    if found is not None:
        return found["side"], int(found["round"]), int(found["index"])
    return "F", 2 if node_id == "GF2" else 1, 0


def bracket_view(*, competition: Competition, names: dict[int, str]) -> dict[str, Any] | None:
    """The whole bracket of an elimination competition, drawn from its results so far.

    ``sections`` (one, or winners, losers and grand final for double elimination) hold
    ``columns`` (bracket rounds) of node boxes: ``{"node", "match", "status", "seats"}``
    where a seat is ``{"entry", "name", "rank", "score", "winner"}`` (entry None while
    unknown or empty). ``status`` is the match's, or ``waiting`` (players not known yet),
    ``bye`` (goes through unplayed) or ``not-needed`` (an unplayed reset final).
    None if the bracket cannot be built (e.g. an inconsistent history).
    """
    try:
        # The pairing step's own bracket, so the view is exactly what is being played.
        bracket = pairing.competition_bracket(competition)
        results = dict(pairing.finished_results(competition))
        states = bracket.states(results)
    except ValueError:
        log.warning("no bracket view for competition %s", competition.pk, exc_info=True)
        return None
    played = {
        m["node"]: m
        for m in _match_rows(
            _with_seats(competition.matches.exclude(node="").order_by("id")), names
        )
    }
    columns: dict[tuple[str, int], list[tuple[int, dict[str, Any]]]] = {}
    for node in bracket.nodes:
        side, column, position = _node_place(node.id)
        box = _node_box(node, states[node.id], played.get(node.id), bracket, names)
        columns.setdefault((side, column), []).append((position, box))
    sections = []
    for side in ("R", "W", "L", "F"):
        numbers = sorted(c for s, c in columns if s == side)
        if not numbers:
            continue
        sections.append(
            {
                "key": side,
                "name": SECTIONS[side],
                "columns": [
                    {
                        "label": _column_label(side, number, numbers[-1]),
                        "nodes": [
                            box for _, box in sorted(columns[side, number], key=lambda p: p[0])
                        ],
                    }
                    for number in numbers
                ],
            }
        )
    champion = bracket.champion(results)
    return {
        "advance": bracket.advance,
        "table_size": bracket.table_size,
        "sections": sections,
        "champion": None if champion is None else names.get(champion, str(champion)),
    }


def _column_label(side: str, number: int, last: int) -> str:
    if side == "F":
        return "Grand final" if number == 1 else "Reset final"
    return FINAL_LABELS[side] if number == last else f"Round {number}"


def _node_box(
    node: Node,
    state: NodeState,
    match: dict[str, Any] | None,
    bracket: Bracket,
    names: dict[int, str],
) -> dict[str, Any]:
    """One box of the bracket: the match played at ``node`` or what is known of it."""
    order = state.order if state.order is not None else ()
    winners = set(order[: bracket.advance]) if state.played else set()
    side = _node_place(node.id)[0]
    feeders = [
        s.node for s in node.sources if s.node and _node_place(s.node)[0] == side and s.place == 1
    ]
    if match is not None:
        for seat in match["seats"]:
            seat["winner"] = seat["entry"] in winners
            seat["points_text"] = None if seat["points"] is None else points_text(seat["points"])
        return {
            "node": node.id,
            "match": match["id"],
            "status": match["status"],
            "seats": match["seats"],
            "from": feeders,
            "score_line": score_line(match["seats"]),
            "tiebreak": match["tiebreak"],
        }
    people = state.participants
    if people is None:
        status, people = "waiting", (None,) * bracket.table_size
    elif node.reset_of and state.order == ():
        status = "not-needed"
    elif state.order is not None:  # fewer than a table: they go through unplayed
        status, winners = "bye", set(state.order)
    else:
        status = Match.Status.PENDING
    seats = [
        {
            "entry": entry,
            "name": None if entry is None else names.get(entry, str(entry)),
            "rank": None,
            "score": None,
            "points": None,
            "points_text": None,
            "winner": entry in winners,
        }
        for entry in people
    ]
    return {
        "node": node.id,
        "match": None,
        "status": str(status),
        "seats": seats,
        "from": feeders,
        "score_line": None,
        "tiebreak": None,
    }
