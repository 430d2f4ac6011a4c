"""Reads of the dashboard: a competition's live state as plain, JSON-safe data.

The web tier builds the live events here (:func:`live_events`), from the
notifications the write path sends (``tournaments.events``), and each socket's
first ``snapshot`` (:func:`competition_snapshot`).
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count, Prefetch, Q
from django.utils import timezone

from bots.models import bot_display_name
from tournaments import events, pairing
from tournaments.events import SNAPSHOT, celery_backlog, event, worker_label
from tournaments.formats.common import PARTNER_TABLE_SIZE
from tournaments.formats.elimination import Bracket, Node, NodeState
from tournaments.formats.match_result import describe_decision, points_text
from tournaments.models import Competition, Match, MatchSeat, RatingEvent, Round
from tournaments.pairing import planned_matches_of
from tournaments.ratings import display_rating
from tournaments.selectors import (
    CROSSTABLE_FORMATS,
    competition_progress,
    crosstable_for_competition,
    head_to_head_for_competition,
    round_results,
    schedule_progress,
    standings_chain,
    standings_for_competition,
)

log = logging.getLogger(__name__)

#: The status of a seat that played a game without a fault (bots.referee).
OK = "ok"


def matches_for_dashboard(*, competition: Competition, recent: int = 10) -> dict[str, list]:
    """Running (and queued) matches, and the ``recent`` last finished ones, newest first."""
    base = competition.matches.select_related("round")
    running = base.filter(status__in=[Match.Status.RUNNING, Match.Status.QUEUED]).order_by("id")
    finished = base.filter(status=Match.Status.DONE).order_by("-finished_at", "-id")[:recent]
    return {
        "running": [match_payload(m) for m in running[:50]],
        "recent": [match_payload(m) for m in finished],
    }


def problem_bots(*, competition: Competition) -> list[dict[str, Any]]:
    """Per bot with faults: the count of each non-ok game status, most faults first."""
    seats = MatchSeat.objects.filter(
        match__competition=competition, match__status=Match.Status.DONE
    ).values_list(
        "seat",
        "entry__bot__name",
        "entry__bot__owner__username",
        "entry__partner__name",
        "entry__partner__owner__username",
        "statuses",
    )
    faults: dict[str, Counter] = {}
    for seat, name, owner, partner, partner_owner, statuses in seats:
        if partner is not None and seat >= PARTNER_TABLE_SIZE // 2:  # as Entry.bot_at
            name, owner = partner, partner_owner
        label = bot_display_name(name, owner)
        for status, count in (statuses or {}).items():
            if status != OK and count:
                faults.setdefault(label, Counter())[status] += count
    rows = [
        {"name": label, "statuses": dict(counter), "total": sum(counter.values())}
        for label, counter in faults.items()
    ]
    return sorted(rows, key=lambda r: (-r["total"], r["name"]))


def failed_matches(*, competition: Competition) -> list[dict[str, Any]]:
    """Matches the platform gave up on, with their error (organisers only)."""
    rows = competition.matches.filter(status=Match.Status.FAILED).order_by("-id")[:20]
    return [{"id": m.pk, "table": m.table, "error": m.error[-500:]} for m in rows]


#: Pairs a live head-to-head carries (a big ladder's full table is read through the API).
LIVE_HEAD_TO_HEAD_ROWS = 300


def live_head_to_head(*, competition: Competition) -> dict[str, Any]:
    """The head-to-head panel: the first :data:`LIVE_HEAD_TO_HEAD_ROWS` pairs that met
    (``selectors.head_to_head_for_competition``) and how many more there are."""
    rows = head_to_head_for_competition(competition=competition)
    return {
        "rows": rows[:LIVE_HEAD_TO_HEAD_ROWS],
        "more": max(0, len(rows) - LIVE_HEAD_TO_HEAD_ROWS),
    }


def competition_snapshot(
    *,
    competition: Competition,
    admin: bool = False,
    staff: bool = False,
    head_to_head: bool = True,
) -> dict[str, Any]:
    """The ``snapshot`` event: everything the live page shows, as of now.

    ``admin`` (organisers and staff) adds the failed matches and the workers holding
    matches (the "Workers and queue" panel is theirs only); ``staff`` names the
    worker processes of the queue (see :func:`queue_status`). Without ``head_to_head``
    the head-to-head table (which reads every result) is left out: a socket's snapshot
    follows the page's, which has it, and the table's own live lane keeps it current.
    """
    queue = queue_status(competition_id=competition.pk, staff=staff)
    queue["backlog"] = celery_backlog()
    if not admin:  # the workers panel is the operators' (staff and organisers)
        queue["workers"] = []
    standings = standings_for_competition(competition=competition)
    payload: dict[str, Any] = {
        "name": competition.name,
        "status": competition.status,
        "closed_early": competition.closed_early,
        "format": competition.format,
        "chain": list(standings_chain(competition)),
        "standings": standings,
        "progress": progress_from_queue(competition, queue),
        "matches": matches_for_dashboard(competition=competition),
        "problems": problem_bots(competition=competition),
        "rounds": rounds_view(competition=competition),
        "crosstable": crosstable_for_competition(competition=competition, standings=standings),
        "chart": rating_series(competition=competition),
        "queue": queue,
        "admin": admin,
    }
    if head_to_head:
        payload["head_to_head"] = live_head_to_head(competition=competition)
    if admin:
        payload["failed"] = failed_matches(competition=competition)
    return event(SNAPSHOT, competition.pk, **payload)


def progress_from_queue(competition: Competition, queue: dict[str, Any]) -> dict[str, Any]:
    """``competition_progress`` from the counts of ``queue`` (:func:`queue_status`), so that
    the page's header and its queue panel show one reading."""
    row = {status: queue[status] for status in Match.Status.values}
    row["total"] = queue["total"]
    row["games"] = row[Match.Status.DONE] * competition.games_per_match
    row["competition"] = competition.status
    row["schedule"] = schedule_progress(
        competition=competition, done=row[Match.Status.DONE], created=row["total"]
    )
    return row


#: The rating chart draws this many entries, the top of the standings.
CHART_ENTRIES = 10
#: Ten distinguishable line colours, one per charted entry.
CHART_COLOURS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)


def rating_series(*, competition: Competition, top: int = CHART_ENTRIES) -> dict[str, Any]:
    """The ratings (mu - 3 sigma) over time of the ``top`` entries of the standings.

    One series per charted entry that has rating events, in standings order: its
    rating before its first rated match, then after each one, as ``[sequence, rating]``
    points (x = the competition's rating sequence). Two queries, whatever the history.
    The live page appends the points of ``match.finished`` to these series.
    """
    standings = standings_for_competition(competition=competition, limit=top)[:top]
    names = {row["entry"]: row["name"] for row in standings}
    events = (
        RatingEvent.objects.filter(entry_id__in=names)
        .order_by("sequence", "id")
        .values_list("entry_id", "sequence", "mu_before", "sigma_before", "mu_after", "sigma_after")
    )
    points: dict[int, list[list[float]]] = {}
    for entry, sequence, mu_before, sigma_before, mu_after, sigma_after in events:
        series = points.get(entry)
        if series is None:
            series = points[entry] = [[sequence - 1, display_rating(mu_before, sigma_before)]]
        series.append([sequence, display_rating(mu_after, sigma_after)])
    charted = [row["entry"] for row in standings if row["entry"] in points]
    return {
        "top": top,
        "colours": list(CHART_COLOURS),
        "series": [
            {
                "entry": entry,
                "name": names[entry],
                "colour": CHART_COLOURS[position % len(CHART_COLOURS)],
                "points": points[entry],
            }
            for position, entry in enumerate(charted)
        ],
    }


# --- rounds and brackets ---

#: The rounds view lists the latest this many rounds (a ladder runs thousands of batches).
ROUNDS_SHOWN = 12
#: ... and the pairings of at most this many tables of the current round.
CURRENT_TABLES = 64
ELIMINATION = frozenset(
    {Competition.Format.SINGLE_ELIMINATION, Competition.Format.DOUBLE_ELIMINATION}
)


def _entry_names(competition: Competition) -> dict[int, str]:
    """Entry id -> its name (``Entry.name``: a team's two bots)."""
    entries = competition.entries.select_related("bot__owner", "partner__owner")
    return {e.pk: e.name for e in entries}


def _match_rows(matches: Iterable[Match], names: dict[int, str]) -> list[dict[str, Any]]:
    """Matches with their seats, as ``match_payload`` without the games: two queries.

    Each seat has its match ``points`` (game points) beside ``rank`` and ``score``; a
    knockout match has ``decided_by`` and ``tiebreak``, the line saying how a level
    match was decided (None when its games decided it).
    """
    rows = []
    for m in matches:
        seats = [
            {
                "seat": s.seat,
                "entry": s.entry_id,
                "name": names.get(s.entry_id, str(s.entry_id)),
                "rank": s.rank,
                "score": s.score,
                "points": s.points,
            }
            for s in m.seats.all()
        ]
        rows.append(
            {
                "id": m.pk,
                "round": m.round.number if m.round_id else None,
                "table": m.table,
                "node": m.node,
                "status": m.status,
                "seats": seats,
                "decided_by": m.decided_by,
                "tiebreak": describe_decision(
                    m.decided_by, [s["name"] for s in seats], [s["score"] for s in seats]
                ),
            }
        )
    return rows


def _with_seats(queryset):
    return queryset.select_related("round").prefetch_related(
        Prefetch("seats", queryset=MatchSeat.objects.order_by("seat"))
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


def score_line(seats: list[dict[str, Any]]) -> str | None:
    """A played match's game score in seat order, e.g. ``"2-0"`` or ``"1½-½"`` (two
    seats), ``"2-1½-½"`` (more); None before it is played."""
    if any(seat.get("points") is None for seat in seats):
        return None
    return "-".join(points_text(seat["points"]) for seat in seats)


# --- workers and queue ---

#: ``results_per_minute`` counts the matches finished in this last stretch.
RATE_WINDOW_S = 60
#: The queue status lists at most this many lease holders.
WORKERS_SHOWN = 50


def worker_process(claimed_by: str) -> str:
    """``host/pid`` of a claim (``tournaments.execution.worker_name`` is ``host/pid/task``)."""
    parts = claimed_by.split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else claimed_by


def _worker_shown(claimed_by: str, *, staff: bool) -> str:
    process = worker_process(claimed_by)
    return process if staff else worker_label(process)


def queue_status(*, competition_id: int, staff: bool = False) -> dict[str, Any]:
    """The ``queue`` of a ``queue.status`` event (see ``tournaments.events``), as of now.

    Each lease's ``worker`` is its process (``host/pid``) for ``staff``, else the
    opaque ``events.worker_label`` of it: nobody else learns hosts or pids.

    Two queries: the matches by status with the results of the last
    :data:`RATE_WINDOW_S` seconds, and the leases held. ``since`` is when the match was
    claimed (its lease's end minus ``CARDROOM_MATCH_LEASE_S``). ``backlog`` is left None
    for the caller (it is the broker's, not the database's).
    """
    now = timezone.now()
    matches = Match.objects.filter(competition_id=competition_id)
    counts = matches.aggregate(
        **{status: Count("id", filter=Q(status=status)) for status in Match.Status.values},
        recent=Count(
            "id",
            filter=Q(
                status=Match.Status.DONE,
                finished_at__gte=now - timedelta(seconds=RATE_WINDOW_S),
            ),
        ),
    )
    recent = counts.pop("recent")
    lease = timedelta(seconds=settings.CARDROOM_MATCH_LEASE_S)
    held = (
        matches.filter(status=Match.Status.RUNNING)
        .exclude(claimed_by="")
        .order_by("lease_until", "id")
        .values_list("pk", "claimed_by", "lease_until")[:WORKERS_SHOWN]
    )
    return {
        **counts,
        "total": sum(counts.values()),
        "results_per_minute": recent,
        "backlog": None,
        "workers": [
            {
                "worker": _worker_shown(claimed_by, staff=staff),
                "match": pk,
                "since": (until - lease).isoformat() if until else None,
                "until": until.isoformat() if until else None,
            }
            for pk, claimed_by, until in held
        ],
        "at": now.isoformat(),
    }


def progress_by_competition(competitions: Iterable[Competition]) -> dict[int, dict[str, Any]]:
    """``competition_progress`` of many competitions in two queries (the list page: the
    match counts, the entries of the schedules), with ``percent`` of the schedule done."""
    items = list(competitions)
    counts: dict[int, dict[str, int]] = {c.pk: {} for c in items}
    rows = (
        Match.objects.filter(competition__in=[c.pk for c in items])
        .values_list("competition_id", "status")
        .annotate(n=Count("id"))
        .order_by()
    )
    for competition_id, status, n in rows:
        counts[competition_id][status] = n
    recent = _recent_results([c.pk for c in items if c.format == Competition.Format.LADDER])
    planned = planned_matches_of(items)
    out = {}
    for competition in items:
        row = {status: counts[competition.pk].get(status, 0) for status in Match.Status.values}
        row["total"] = sum(counts[competition.pk].values())
        row["games"] = row[Match.Status.DONE] * competition.games_per_match
        row["competition"] = competition.status
        row["schedule"] = schedule = schedule_progress(
            competition=competition,
            done=row[Match.Status.DONE],
            created=row["total"],
            planned=planned[competition.pk],
        )
        row["percent"] = (
            round(100 * schedule["done"] / schedule["total"]) if schedule["total"] else 0
        )
        # A ladder has no end: no percentage, but its results of the last hour.
        row["open_ended"] = competition.format == Competition.Format.LADDER
        row["last_hour"] = recent.get(competition.pk, 0)
        out[competition.pk] = row
    return out


def _recent_results(competition_ids: list[int]) -> dict[int, int]:
    """Matches finished in the last hour, per competition (one query; none if no ids)."""
    if not competition_ids:
        return {}
    since = timezone.now() - timedelta(hours=1)
    rows = (
        Match.objects.filter(
            competition__in=competition_ids, status=Match.Status.DONE, finished_at__gte=since
        )
        .values_list("competition_id")
        .annotate(n=Count("id"))
        .order_by()
    )
    return dict(rows)


# --- the live events, built in the web tier from notifications ---


def match_payload(match: Match) -> dict[str, Any]:
    """A match with its seats (bot names, and ranks once it is done)."""
    seats = match.seats.select_related("entry__bot__owner", "entry__partner__owner")
    seats = list(seats.order_by("seat"))
    names = [str(s.entry.bot_at(s.seat)) for s in seats]  # a team's partner at its second seat
    return {
        "id": match.pk,
        "round": match.round.number if match.round_id else None,
        "table": match.table,
        "node": match.node,
        "status": match.status,
        "finished_at": match.finished_at.isoformat() if match.finished_at else None,
        "seats": [
            {
                "seat": s.seat,
                "entry": s.entry_id,
                "name": name,
                "rank": s.rank,
                "score": s.score,
                "points": s.points,
            }
            for s, name in zip(seats, names, strict=True)
        ],
        "decided_by": match.decided_by,
        "tiebreak": describe_decision(match.decided_by, names, [s.score for s in seats]),
        "games": (
            list(match.game_records.order_by("index").values_list("pk", flat=True))
            if match.status == Match.Status.DONE
            else []
        ),
    }


#: Rows a live ``standings.updated`` carries: the top of the table (the whole
#: table of a very large ladder is read through the API, not pushed per result).
LIVE_STANDINGS_ROWS = 200
#: The most matches one build announces as started or finished (the newest; the
#: panels' lists are this long at most, and a reconnect reads a snapshot anyway).
LIVE_MATCHES = 50


def standings_event(competition: Competition) -> dict[str, Any]:
    """``standings.updated`` with the top of the standings and the progress."""
    rows = standings_for_competition(competition=competition, limit=LIVE_STANDINGS_ROWS)
    return event(
        events.STANDINGS_UPDATED,
        competition.pk,
        standings=rows,
        progress=competition_progress(competition=competition),
    )


def crosstable_event(competition: Competition) -> dict[str, Any] | None:
    """``crosstable.updated`` of a round robin (None for other formats)."""
    if competition.format not in CROSSTABLE_FORMATS:
        return None
    table = crosstable_for_competition(competition=competition)
    return event(events.CROSSTABLE_UPDATED, competition.pk, crosstable=table)


def round_payload(round_: Round) -> dict[str, Any]:
    counts = dict(round_.matches.values_list("status").annotate(n=Count("id")).order_by())
    return {
        "number": round_.number,
        "status": round_.status,
        "matches": sum(counts.values()),
        "done": counts.get(Match.Status.DONE, 0),
    }


def rating_changes(match: Match) -> list[dict[str, Any]]:
    """The displayed rating (mu - 3 sigma) of each seat's entry before and after ``match``."""
    rows = RatingEvent.objects.filter(match=match).order_by("entry_id")
    return [
        {
            "entry": r.entry_id,
            "sequence": r.sequence,
            "before": display_rating(r.mu_before, r.sigma_before),
            "after": display_rating(r.mu_after, r.sigma_after),
        }
        for r in rows
    ]


def queue_status_event(competition_id: int) -> dict[str, Any]:
    """``queue.status`` of a competition, as of now, with the Celery backlog.

    It names the worker processes: the fan-out (``tournaments.fanout``) hands non-staff
    sockets its ``public_event_text``.
    """
    queue = queue_status(competition_id=competition_id, staff=True)
    queue["backlog"] = celery_backlog()
    return event(events.QUEUE_STATUS, competition_id, queue=queue)


def _match_events(competition: Competition, changes: events.Changes) -> list[dict[str, Any]]:
    out = []
    started = changes.started[-LIVE_MATCHES:]
    finished = changes.finished[-LIVE_MATCHES:]
    by_id = Match.objects.select_related("round").in_bulk([*started, *finished])
    for match_id in started:
        if match_id in by_id:
            match = by_id[match_id]
            out.append(event(events.MATCH_STARTED, competition.pk, match=match_payload(match)))
    for match_id in finished:
        if match_id in by_id:
            match = by_id[match_id]
            out.append(
                event(
                    events.MATCH_FINISHED,
                    competition.pk,
                    match=match_payload(match),
                    ratings=rating_changes(match),
                )
            )
    return out


def _round_events(competition: Competition, changes: events.Changes) -> list[dict[str, Any]]:
    finished_numbers = sorted(set(changes.rounds_finished))
    wants_started = bool(changes.kinds & {events.ROUND_STARTED, events.COMPETITION_STARTED})
    if not finished_numbers and not wants_started:
        return []
    finished = list(competition.rounds.filter(number__in=finished_numbers).order_by("number"))
    started = []
    if wants_started:
        started = list(competition.rounds.filter(status=Round.Status.RUNNING).order_by("number"))
    # The results of the rounds these events are about: the page has the others.
    changed = [r.number for r in (*finished, *started)]
    rounds = rounds_view(competition=competition, results_of=changed)
    out = []
    for round_ in finished:
        out.append(
            event(events.ROUND_FINISHED, competition.pk, round=round_payload(round_), rounds=rounds)
        )
    for round_ in started:
        out.append(
            event(events.ROUND_STARTED, competition.pk, round=round_payload(round_), rounds=rounds)
        )
    return out


def live_events(
    *,
    competition_id: int,
    changes: events.Changes,
    matches: bool = True,
    panels: bool = True,
    head_to_head: bool = True,
) -> list[dict[str, Any]]:
    """The events that the notifications gathered in ``changes`` call for, as of now.

    In the order of ``tournaments.events``: started and finished matches (the newest
    :data:`LIVE_MATCHES` of each; only if ``matches``), then, if ``panels``, the
    standings (after a result or a start), the rounds finished and started, the
    competition's end, the problem bots (after a result) and the queue status
    (always), and if ``head_to_head`` the head-to-head table and a round robin's
    crosstable (after a result). An unknown competition gives none.
    """
    competition = Competition.objects.filter(pk=competition_id).first()
    if competition is None or not changes:
        return []
    out = _match_events(competition, changes) if matches else []
    if panels:
        out += _panel_events(competition, changes)
    if head_to_head and changes.finished:
        table = live_head_to_head(competition=competition)
        out.append(event(events.HEAD_TO_HEAD_UPDATED, competition.pk, head_to_head=table))
        crosstable = crosstable_event(competition)
        if crosstable is not None:
            out.append(crosstable)
    return out


def _panel_events(competition: Competition, changes: events.Changes) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    results = bool(changes.finished)
    standings = None
    if results or changes.kinds & {
        events.COMPETITION_STARTED,
        events.COMPETITION_STATUS,
        events.ROUND_FINISHED,
    }:
        standings = standings_event(competition)
        out.append(standings)
    out += _round_events(competition, changes)
    if events.COMPETITION_FINISHED in changes.kinds:
        rows = (
            standings["standings"]
            if standings
            else standings_for_competition(competition=competition, limit=LIVE_STANDINGS_ROWS)
        )
        out.append(
            event(
                events.COMPETITION_FINISHED,
                competition.pk,
                status=competition.status,
                closed_early=competition.closed_early,
                standings=rows,
            )
        )
    if results:
        out.append(
            event(
                events.PROBLEMS_UPDATED,
                competition.pk,
                problems=problem_bots(competition=competition),
            )
        )
    out.append(queue_status_event(competition.pk))
    return out
