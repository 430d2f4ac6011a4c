"""Reads of a match watched while it is played: its finished games and the game in
progress, from what its worker published (``tournaments.live.publisher``), as a visitor may see
them.

Everything here is the public view: no hidden card of any seat. A seat's owner also
sees that seat's own cards where the competition's full-view rule allows it
(:func:`tournaments.selectors.full_view_allowed`), and never another seat's. The full
view of every hand is for finished matches only (``views.game_replay``).
"""

from __future__ import annotations

from typing import Any

import games
from bots.referee.match import schedule
from tournaments.live.publisher import LiveHead, claim_token, live_head, live_record
from tournaments.models import Match
from tournaments.selectors import full_view_allowed
from tournaments.watching.replay import replay_meta, replay_steps
from tournaments.watching.words import status_words


def match_live_head(*, match: Match) -> LiveHead | None:
    """What the worker of ``match`` published under its current claim; None unless the
    match is running and something was published."""
    if match.status != Match.Status.RUNNING:
        return None
    return live_head(match_id=match.pk, token=claim_token(match))


def player_names(*, match: Match) -> list[str]:
    """The bot of each of the match's players (its seats in seat order)."""
    seats = match.seats.select_related("entry__bot__owner", "entry__partner__owner")
    return [str(s.entry.bot_at(s.seat)) for s in seats.order_by("seat")]


def shown_seats(*, match: Match, user) -> frozenset[int]:
    """The seats of ``match`` whose own cards ``user`` may see while it is played: those
    of their bots, where the competition's full-view rule allows it; else none."""
    if user is None or not user.is_authenticated:
        return frozenset()
    if not full_view_allowed(competition=match.competition, user=user):
        return frozenset()
    return frozenset(match.seats.filter(entry__bot__owner=user).values_list("seat", flat=True))


def game_players(*, match: Match, index: int) -> list[int]:
    """The player at each seat of game ``index`` of ``match`` (duplicate matches rotate
    them; play-off sets follow the match's games, each a match of its own)."""
    competition = match.competition
    players = competition.seats_per_table
    count = competition.games_per_match
    if index >= count:  # a play-off set: one deal, once per rotation if duplicate
        count = players if competition.duplicate else 1
        index = (index - competition.games_per_match) % count
    try:
        return schedule(count, players, competition.duplicate)[index][1]
    except (ValueError, IndexError):
        return list(range(players))


def live_games(*, match: Match, head: LiveHead | None, names: list[str]) -> list[dict[str, Any]]:
    """The finished games of a running match as the match page lists them (the shape of
    ``pages.match_page``'s games, ``id`` None: they are not stored yet)."""
    out = []
    for game in head.games if head else []:
        statuses = game.get("statuses") or []
        seats = []
        for s, player in enumerate(game["seats"]):
            status = statuses[s] if s < len(statuses) else {}
            seats.append(
                {
                    "name": names[player] if player < len(names) else f"seat {s + 1}",
                    "score": game["scores"][s],
                    "rank": game["ranking"][s],
                    "fault": status.get("status", "ok") != "ok",
                    "status": status_words(status.get("status", "ok")),
                    "reason": status.get("reason", ""),
                }
            )
        out.append(
            {"id": None, "number": game["index"] + 1, "playoff": game["playoff"], "seats": seats}
        )
    return out


def current_number(*, match: Match, head: LiveHead | None) -> int | None:
    """The number (from 1) of the game being played; None unless the match is running."""
    if match.status != Match.Status.RUNNING:
        return None
    if head is not None and head.current is not None:
        return head.current["index"] + 1
    if head is None:
        return 1
    return 1 + max((g["index"] for g in head.games), default=-1)


def live_game(
    *, match: Match, head: LiveHead | None, number: int, seats: frozenset[int] = frozenset()
) -> dict[str, Any] | None:
    """Game ``number`` (from 1) of a running match for the replay viewer: ``number``,
    ``over`` (finished), ``steps`` (``replay_steps`` in the public view, with the own
    cards of ``seats``), ``meta``, ``names``, ``scores`` and ``ranking`` once over.
    None if that game has neither finished nor started."""
    if head is None:
        return None
    index = number - 1
    finished = next((g for g in head.games if g["index"] == index), None)
    if finished is not None:
        record = live_record(match_id=match.pk, token=claim_token(match), index=index)
        players = finished["seats"]
    elif head.current is not None and head.current["index"] == index:
        record, players = head.current["record"], game_players(match=match, index=index)
    else:
        return None
    if record is None:
        return None
    all_names = player_names(match=match)
    names = [all_names[p] if p < len(all_names) else f"seat {s + 1}" for s, p in enumerate(players)]
    # The seats of the viewer's bots at this game (the players rotate in duplicate).
    own = frozenset(s for s, p in enumerate(players) if p in seats)
    return {
        "number": number,
        "over": finished is not None,
        "steps": replay_steps(record, seats=own),
        "meta": replay_meta(record, names=names),
        "names": names,
        "variant": games.variant_info(record["variant"]).id,
        "scores": finished["scores"] if finished else None,
        "ranking": finished["ranking"] if finished else None,
    }


#: The events a match's watchers receive (``tournaments.sockets.match_fanout.MatchFanout``).
LIVE_GAMES, LIVE_STEPS, LIVE_OVER = "live.games", "live.steps", "live.over"


def live_events(
    *, match_id: int, views: dict[tuple[int, frozenset[int]], int], games_from: int = 0
) -> tuple[list[dict[str, Any]], dict[tuple[int, frozenset[int]], int], int]:
    """The events of a running match for its watchers: ``live.games`` for all (the
    games finished since the first ``games_from``, ``from`` being that number, and the
    number of the ``current`` one), ``live.steps`` for each followed game view
    ``(number, seats)`` from its cursor (the steps sent so far), or ``live.over`` once
    the match is not running. Returns the events (a view's carry ``"view": key``), the
    views' new cursors and the number of finished games."""
    match = Match.objects.select_related("competition").filter(pk=match_id).first()
    if match is None or match.status != Match.Status.RUNNING:
        return _over_events(match_id, match, games_from), views, games_from
    head = match_live_head(match=match)
    finished = head.games if head is not None else []
    new = LiveHead(finished[games_from:], None) if len(finished) > games_from else None
    out: list[dict[str, Any]] = [
        {
            "type": LIVE_GAMES,
            "match": match_id,
            "from": games_from,
            "games": live_games(match=match, head=new, names=player_names(match=match)),
            "current": current_number(match=match, head=head),
        }
    ]
    cursors = dict(views)
    for (number, seats), at in views.items():
        game = live_game(match=match, head=head, number=number, seats=seats)
        count = len(game["steps"]) if game is not None else 0
        if game is None or at > count or (at == count and not game["over"]):
            continue  # nothing new (past the end: its end was sent)
        cursors[(number, seats)] = count + 1 if game["over"] else count
        out.append(
            {
                "type": LIVE_STEPS,
                "view": (number, seats),
                "match": match_id,
                "game": number,
                "from": at,
                "steps": game["steps"][at:],
                "over": game["over"],
            }
        )
    return out, cursors, max(games_from, len(finished))


def _over_events(match_id: int, match: Match | None, games_from: int) -> list[dict[str, Any]]:
    """``live.over``; for a match that was recorded, first the stored games its watchers
    were not listed yet (the last ones may finish just before it is recorded)."""
    over = {"type": LIVE_OVER, "match": match_id, "status": "gone"}
    if match is None:
        return [over]
    over["status"] = match.status
    if match.status != Match.Status.DONE:
        return [over]
    stored = match.game_records.filter(index__gte=games_from).order_by("index")
    head = LiveHead(
        [
            {
                "index": g.index,
                "playoff": g.playoff,
                "seats": game_players(match=match, index=g.index),
                "scores": g.scores,
                "ranking": g.ranking,
                "statuses": g.statuses,
            }
            for g in stored.defer("data")
        ],
        None,
    )
    games = live_games(match=match, head=head, names=player_names(match=match))
    listed = {"type": LIVE_GAMES, "match": match_id, "from": games_from, "games": games}
    return [{**listed, "current": None}, over]


def live_match_view(*, match: Match, user, number: int | None = None) -> dict[str, Any]:
    """The API's view of a match while it is played (``GET /api/matches/{id}/live/``):
    ``match``, ``status``, the finished ``games``, the ``current`` game's number and
    ``game``: game ``number`` (else the current one) as ``number``, ``over``, ``names``,
    its ``moves`` (index, seat, action as the other seats see it) and the ``view``
    after the last; null if it has not started."""
    head = match_live_head(match=match)
    names = player_names(match=match)
    current = current_number(match=match, head=head)
    game = None
    wanted = number or current
    if wanted is not None:
        seats = shown_seats(match=match, user=user)
        game = live_game(match=match, head=head, number=wanted, seats=seats)
    if game is not None:
        steps = game["steps"]
        game = {
            "number": game["number"],
            "over": game["over"],
            "names": game["names"],
            "moves": [
                {"index": s["index"], "actor": s["actor"], "action": s["action"]} for s in steps[1:]
            ],
            "view": steps[-1]["view"],
        }
    return {
        "match": match.pk,
        "status": match.status,
        "games": live_games(match=match, head=head, names=names),
        "current": current,
        "game": game,
    }
