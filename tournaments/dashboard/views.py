"""Dashboard pages: the competitions a user may watch, one competition live, a replay."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

import games
from tournaments.comparison import compare_entries
from tournaments.dashboard.pages import competition_page, match_page, neighbour_games, page_words
from tournaments.dashboard.replay import (
    REFUSED,
    full_view_allowed,
    replay_meta,
    replay_steps,
    seat_names,
)
from tournaments.dashboard.selectors import (
    competition_snapshot,
    progress_by_competition,
)
from tournaments.models import Competition, GameRecord, Match
from tournaments.selectors import competitions_visible_to
from tournaments.services import can_manage

#: The dashboard lists this many competitions, newest first.
LIST_LIMIT = 50
#: ``?view=`` value of the replay that shows every seat's hand (organisers only).
FULL_VIEW = "full"

HERE = Path(__file__).resolve().parent

#: The files the pages load (``static/``): no build step, no static files setup.
#: name -> (directory under static/, content type).
ASSETS = {
    "live.js": ("dashboard", "text/javascript"),
    "replay.js": ("dashboard", "text/javascript"),
    "pico.min.css": ("cardroom", "text/css"),
    "site.css": ("cardroom", "text/css"),
}
#: The page scripts among :data:`ASSETS` (kept under this name for callers).
SCRIPTS = frozenset(name for name in ASSETS if name.endswith(".js"))


@require_GET
def script(request: HttpRequest, name: str) -> FileResponse:
    """One of :data:`ASSETS`, served from the package; 404 for any other name."""
    if name not in ASSETS:
        raise Http404("no such file")
    folder, content_type = ASSETS[name]
    path = HERE / "static" / folder / name
    response = FileResponse(path.open("rb"), content_type=content_type)
    response["Cache-Control"] = "max-age=300"
    return response


def competition_list(request: HttpRequest) -> HttpResponse:
    competitions = list(competitions_visible_to(user=request.user)[:LIST_LIMIT])
    progress = progress_by_competition(competitions)
    rows = [(c, progress[c.pk]) for c in competitions]
    return render(request, "dashboard/competition_list.html", {"rows": rows})


def competition_detail(request: HttpRequest, competition_id: int) -> HttpResponse:
    competition = get_object_or_404(competitions_visible_to(user=request.user), pk=competition_id)
    admin = can_manage(competition=competition, user=request.user)
    staff = bool(request.user.is_authenticated and request.user.is_staff)
    snapshot = competition_snapshot(competition=competition, admin=admin, staff=staff)
    context = {
        "competition": competition,
        "snapshot": snapshot,
        "admin": admin,
        "standings": snapshot["standings"],
        "page": competition_page(competition=competition),
        "words": page_words(),
        "compare": _comparison(request, competition),
    }
    return render(request, "dashboard/competition_detail.html", context)


def _entry_id(value: str | None, field: str) -> int:
    if value is None or not value.isdigit() or not 0 < int(value) < 2**63:
        raise ValidationError({field: f"{field} must be an entry id, got {value!r}"})
    return int(value)


def _comparison(request: HttpRequest, competition: Competition) -> dict[str, Any] | None:
    """The answer to the page's compare form (``?a=<entry>&b=<entry>``), or why there is
    none (the same refusals as the API's compare); None if the form was not sent."""
    a, b = request.GET.get("a"), request.GET.get("b")
    if a is None and b is None:
        return None
    try:
        a_id, b_id = _entry_id(a, "a"), _entry_id(b, "b")
        answer = compare_entries(competition=competition, a=a_id, b=b_id)
    except ValidationError as exc:
        return {"error": "; ".join(exc.messages)}
    return {"a": a_id, "b": b_id, "answer": answer}


def game_replay(request: HttpRequest, game_id: int) -> HttpResponse:
    """A finished match's game, step by step on a card table; 404 for games one may not see.

    ``?view=full`` also shows every seat's hand at each step, to those
    ``full_view_allowed`` names; anyone else gets a 403 page saying who may.
    """
    game = get_object_or_404(GameRecord.objects.select_related("match__competition"), pk=game_id)
    match = game.match
    competition = match.competition
    visible = competitions_visible_to(user=request.user).filter(pk=competition.pk)
    if match.status != Match.Status.DONE or not visible.exists():
        raise Http404("no such game")
    full = request.GET.get("view") == FULL_VIEW
    full_allowed = full_view_allowed(competition=competition, user=request.user)
    record = game.record()
    names = seat_names(game=game, record=record)
    context = {
        "game": game,
        "match": match,
        "competition": competition,
        "variant": record["variant"],
        "names": names,
        "full": full and full_allowed,
        "full_allowed": full_allowed,
        "neighbours": neighbour_games(game=game),
    }
    if full and not full_allowed:
        response = render(request, "dashboard/game_replay.html", {**context, "refused": REFUSED})
        response.status_code = 403
        return response
    try:
        context["steps"] = replay_steps(record, full=full)
    except (ValueError, games.IllegalAction) as exc:
        # A record stored under an earlier reading of the rules (an amended rule can
        # make one of its actions illegal where it stands): say so, keep the page.
        context["refused"] = (
            "This game no longer replays under the rules as implemented now "
            f"(it was recorded before a rule was amended): {exc}"
        )
        return render(request, "dashboard/game_replay.html", context)
    context["meta"] = replay_meta(record, names=names)
    return render(request, "dashboard/game_replay.html", context)


def match_detail(request: HttpRequest, match_id: int) -> HttpResponse:
    """A match: its seats and results, every game with scores, statuses and a replay link;
    404 for matches of competitions one may not watch."""
    match = get_object_or_404(
        Match.objects.select_related("competition", "round").filter(
            competition__in=competitions_visible_to(user=request.user)
        ),
        pk=match_id,
    )
    context = {"match": match, "competition": match.competition, **match_page(match=match)}
    context["failure_reason"] = _failure_reason(match, request.user)
    return render(request, "dashboard/match_detail.html", context)


def _failure_reason(match: Match, user) -> str:
    """Why the platform gave up on a failed match, for those who may know: its
    competition's organisers and the owners of the bots it seated (it may name a bot
    and what went wrong with it); "" for everyone else."""
    if match.status != Match.Status.FAILED or not match.error:
        return ""
    if can_manage(competition=match.competition, user=user) or (
        user.is_authenticated and match.seats.filter(entry__bot__owner=user).exists()
    ):
        return match.error
    return ""
