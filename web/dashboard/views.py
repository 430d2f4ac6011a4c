"""Dashboard pages: the competitions a user may watch, one competition live, a replay."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.html import json_script
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET

import games
from bots.referee.traces import OVER_SHARE, visible_traces
from bots.sandbox import FULL_STDERR_BYTES
from config.throttles import DOWNLOAD, TRANSCRIPT, download_wait, rate_limited, too_often
from tournaments.models import Competition, GameRecord, Match
from tournaments.permissions import can_manage
from tournaments.ratings.tiebreaks import describe_chain
from tournaments.selectors import (
    CROSSTABLE_FORMATS,
    competitions_visible_to,
    crosstable_export,
    division_asked,
    league_seasons,
    match_results_export,
    owned_game_seats,
    results_csv,
    standings_export,
    trace_readers,
)
from tournaments.selectors.comparison import compare_entries
from tournaments.selectors.stderr_logs import own_stderr_logs, seat_stderr_log
from tournaments.selectors.transcripts import match_transcripts_zip, own_players, transcript_seats
from tournaments.watching import live_match as live_reads
from tournaments.watching.panels import competition_snapshot
from tournaments.watching.queue_panel import progress_by_competition
from tournaments.watching.replay import (
    REFUSED,
    full_view_allowed,
    replay_meta,
    replay_steps,
    seat_names,
)
from tournaments.watching.words import competition_status_words
from web.dashboard.pages import (
    champions,
    competition_page,
    division_numbers,
    match_page,
    neighbour_games,
    page_words,
    standings_legend,
)
from web.dashboard.replay_cache import REPLAY, TryLater, cached_steps_json

#: What each download's JSON holds, by the file's name.
DOWNLOAD_READS = {
    "standings": standings_export,
    "matches": match_results_export,
    "crosstable": crosstable_export,
}
#: The dashboard lists this many competitions, newest first.
LIST_LIMIT = 50
#: ``?view=`` value of the replay that shows every seat's hand (organisers only).
FULL_VIEW = "full"
#: Where the replay page's steps go (never in a template's own text: JSON has no NUL).
STEPS_MARK = "\x00replay-steps\x00"


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
        "champions": champions(competition=competition, standings=snapshot["standings"]),
        "divisions": division_numbers(snapshot["standings"]),
        "has_crosstable": competition.format in CROSSTABLE_FORMATS,
        "legend": standings_legend(),
        "page": competition_page(competition=competition),
        "status_words": competition_status_words(competition.shown_status),
        "words": page_words(),
        "compare": _comparison(request, competition),
        "chain_words": describe_chain(snapshot["chain"]),
        "seasons": _seasons(request, competition),
    }
    return render(request, "dashboard/competition_detail.html", context)


def _seasons(request: HttpRequest, competition: Competition) -> list[Competition]:
    """A league season's seasons the user may watch, first to last; [] for others."""
    if competition.kind != Competition.Kind.LEAGUE_SEASON:
        return []
    visible = set(competitions_visible_to(user=request.user).values_list("pk", flat=True))
    return [s for s in league_seasons(competition=competition) if s.pk in visible]


@require_GET
def competition_download(
    request: HttpRequest, competition_id: int, table: str, kind: str
) -> HttpResponse:
    """The standings (in the page's order), every match result or a round robin's
    crosstable of a competition, as CSV or JSON, to save: the whole competition, or one
    division of a league season (``?division_number=N`` from 1, or ``?division=N`` from
    0; a 400 naming the parameter for a division it does not have). 404 for a
    competition one may not see, and for the crosstable of a format without one. Every
    match result is a heavy read: each account, and each anonymous address, has so many
    a minute (``download`` rate; staff are not counted), then a 429."""
    competition = get_object_or_404(competitions_visible_to(user=request.user), pk=competition_id)
    if table == "crosstable" and competition.format not in CROSSTABLE_FORMATS:
        raise Http404(f"a {competition.format} has no crosstable: only round robins have one")
    try:
        division = division_asked(competition=competition, params=request.GET)
    except ValidationError as exc:
        text = "; ".join(f"{k}: {m}" for k, ms in exc.message_dict.items() for m in ms)
        return HttpResponse(text, status=400, content_type="text/plain; charset=utf-8")
    if table == "matches" and (wait := download_wait(request)) is not None:
        refused = HttpResponse(
            too_often(request, DOWNLOAD, wait), status=429, content_type="text/plain"
        )
        refused["Retry-After"] = str(wait)
        return refused
    if kind == "json":
        body = {"competition": competition.pk, "name": competition.name}
        if division is not None:
            body.update(division=division, division_number=division + 1)
        body[table] = DOWNLOAD_READS[table](competition=competition, division=division)
        response: HttpResponse = JsonResponse(body, json_dumps_params={"indent": 1})
    else:
        text = results_csv(competition=competition, table=table, division=division)
        response = HttpResponse(text, content_type="text/csv; charset=utf-8")
    part = "" if division is None else f"-division-{division + 1}"
    name = f"competition-{competition.pk}{part}-{table}.{kind}"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


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


@rate_limited(REPLAY)
def game_replay(request: HttpRequest, game_id: int) -> HttpResponse:
    """A finished match's game, step by step on a card table; 404 for games one may not see.

    ``?view=full`` also shows every seat's hand at each step, to those
    ``full_view_allowed`` names; anyone else gets a 403 page saying who may. Each account,
    and each anonymous address, has so many replay pages a minute (``replay`` rate; staff
    are not counted), then a 429 page saying why (``config.throttles.rate_limited``,
    before anything of the game is read).
    """
    game = get_object_or_404(GameRecord.objects.select_related("match__competition"), pk=game_id)
    match = game.match
    competition = match.competition
    visible = competitions_visible_to(user=request.user, challenges=True).filter(pk=competition.pk)
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
        "transcripts": [
            (seat, names[seat]) for seat in transcript_seats(game=game, user=request.user)
        ],
    }
    if full and not full_allowed:
        response = render(request, "dashboard/game_replay.html", {**context, "refused": REFUSED})
        response.status_code = 403
        return response
    try:
        steps = cached_steps_json(
            game_id=game.pk,
            full=full,
            build=lambda: replay_steps(record, full=full),
        )
    except TryLater as later:
        response = render(
            request, "dashboard/game_replay.html", {**context, "refused": later.message}
        )
        response.status_code = later.status
        response["Retry-After"] = str(later.wait)
        return response
    except (ValueError, games.IllegalAction) as exc:
        # A record stored under an earlier reading of the rules (an amended rule can
        # make one of its actions illegal where it stands): say so, keep the page.
        context["refused"] = (
            "This game no longer replays under the rules as implemented now "
            f"(it was recorded before a rule was amended): {exc}"
        )
        return render(request, "dashboard/game_replay.html", context)
    context["steps_json"] = mark_safe(STEPS_MARK)
    context["meta"] = replay_meta(record, names=names)
    context["traces"] = _replay_traces(game, record, request.user)
    response = render(request, "dashboard/game_replay.html", context)
    # The steps (megabytes for a long game) go in as they were kept, escaped for a script
    # element (replay_cache): the template engine never copies them.
    response.content = response.content.replace(STEPS_MARK.encode(), steps.encode(), 1)
    return response


def _replay_traces(game: GameRecord, record: dict[str, Any], user) -> dict[str, Any]:
    """The game's decision traces as ``user`` may see them (``trace_readers``), and the
    seats that are theirs (for "my next decision")."""
    stderr_seats, note_seats = trace_readers(game=game, record=record, user=user)
    return {
        "traces": visible_traces(
            record.get("traces", []), stderr_seats=stderr_seats, note_seats=note_seats
        ),
        "mine": sorted(owned_game_seats(game=game, record=record, user=user)),
        "over_share": OVER_SHARE,
    }


def live_game(request: HttpRequest, match_id: int, number: int) -> HttpResponse:
    """Game ``number`` (from 1) of a match, watched while the match is played: a
    finished game, or the game in progress followed move by move (``replay.js`` over
    ``ws/matches/<id>/games/<n>/``), in the public view (with the viewer's own seat's
    cards where the full-view rule allows it: ``tournaments.watching.live_match``). Once
    the match is done, the stored game's replay; 404 for a game that is neither."""
    match = get_object_or_404(
        Match.objects.select_related("competition").filter(
            competition__in=competitions_visible_to(user=request.user, challenges=True)
        ),
        pk=match_id,
    )
    if match.status == Match.Status.DONE:
        stored = get_object_or_404(match.game_records, index=number - 1)
        return redirect("dashboard:game-replay", stored.pk)
    head = live_reads.match_live_head(match=match)
    current = live_reads.current_number(match=match, head=head)
    seats = live_reads.shown_seats(match=match, user=request.user)
    game = live_reads.live_game(match=match, head=head, number=number, seats=seats)
    if game is None and number != current:
        raise Http404("no such game")
    if game is None:  # the game in progress, before its first move was published
        players = live_reads.player_names(match=match)
        seating = live_reads.game_players(match=match, index=number - 1)
        names = [players[p] for p in seating if p < len(players)]
        meta = replay_meta({"variant": match.competition.variant}, names=names)
    else:
        names, meta = game["names"], game["meta"]
    context = {
        "match": match,
        "competition": match.competition,
        "variant": match.competition.variant,
        "names": names,
        "live": {
            "match": match.pk,
            "number": number,
            "over": bool(game and game["over"]),
            "current": current,
            "socket": f"/ws/matches/{match.pk}/games/{number}/",
            "match_url": reverse("dashboard:match-detail", args=[match.pk]),
            "game_url": reverse("dashboard:live-game", args=[match.pk, 0]).removesuffix("0/"),
        },
        "game_live": game,
        "steps": game["steps"] if game else [],
        "meta": meta,
        # Decision traces come with the stored record, once the match is recorded.
        "traces": {"traces": [], "mine": [], "over_share": OVER_SHARE},
    }
    context["steps_json"] = mark_safe(_script_json(context["steps"]))
    return render(request, "dashboard/live_game.html", context)


def _script_json(value: Any) -> str:
    """``value`` as JSON safe inside a ``<script>`` element (as ``json_script`` escapes)."""
    return json_script(value).split(">", 1)[1].rsplit("</script>", 1)[0]


def _visible_match(request: HttpRequest, match_id: int) -> Match:
    """The match ``match_id`` if ``request``'s user may watch its competition, else 404."""
    return get_object_or_404(
        Match.objects.select_related("competition", "round").filter(
            competition__in=competitions_visible_to(user=request.user, challenges=True)
        ),
        pk=match_id,
    )


def match_detail(request: HttpRequest, match_id: int) -> HttpResponse:
    """A match: its seats and results, every game with scores, statuses and a replay link;
    404 for matches of competitions one may not watch."""
    match = _visible_match(request, match_id)
    context = {"match": match, "competition": match.competition, **match_page(match=match)}
    context["failure_reason"] = _failure_reason(match, request.user)
    context["logs"] = _seat_logs(match, request.user)
    context["own_transcripts"] = match.status == Match.Status.DONE and bool(
        own_players(match=match, user=request.user)
    )
    context["full_logs"] = own_stderr_logs(match=match, user=request.user)
    context["full_stderr_bytes"] = FULL_STDERR_BYTES
    return render(request, "dashboard/match_detail.html", context)


@require_GET
def match_stderr(request: HttpRequest, match_id: int, seat: int) -> HttpResponse:
    """The whole stderr of the bot at ``seat`` of a done match, gzip as it is kept, to
    its owner only; 404 for anyone else, or once the log was dropped."""
    match = _visible_match(request, match_id)
    log = seat_stderr_log(match=match, seat=seat, user=request.user)
    if log is None:
        raise Http404("No full stderr of this seat is yours to download.")
    response = HttpResponse(bytes(log.data), content_type="application/gzip")
    name = f"match-{match.pk}-seat-{seat}-stderr.log.gz"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@require_GET
@rate_limited(TRANSCRIPT)
def match_transcripts(request: HttpRequest, match_id: int) -> FileResponse:
    """Every transcript of the user's bots in a done match, zipped (what ``manage.py match
    --replay ZIP BOT`` takes as it is); 404 for anyone whose bot it did not seat."""
    match = _visible_match(request, match_id)
    zipped = match_transcripts_zip(match=match, user=request.user)
    if zipped is None:
        raise Http404("No transcripts of this match are yours to download.")
    return zipped.download()


def _seat_logs(match: Match, user) -> list[dict[str, Any]]:
    """The stderr logs of the seats of a done match that ``user`` may read: their own
    bots' (all of them for staff), as the API's ``seats[].log``."""
    if match.status != Match.Status.DONE or not user.is_authenticated:
        return []
    seats = match.seats.select_related("entry__bot", "entry__partner").order_by("seat")
    if not user.is_staff:
        seats = seats.filter(entry__bot__owner=user)
    return [{"name": str(s.entry.bot_at(s.seat)), "log": s.log} for s in seats]


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
