"""The organisers' pages: their competitions, a new one, and one competition's controls.

Creating a competition takes the organiser right (``tournaments.organise_competitions``,
granted in the admin on the user's page or by ``manage.py organiser``), as in the
API; changing one takes its creator, one of its organisers, or staff. Every write
calls one service; its ``ValidationError`` is shown next to the field it names.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from bots.models import Bot
from bots.selectors import bots_playing
from tournaments import pairing, services
from tournaments.models import Competition, Match
from tournaments.permissions import can_manage, is_organiser
from tournaments.selectors import (
    collusion_report_for_competition,
    competition_progress,
    competitions_visible_to,
    entries_without_games,
)
from web import once, words
from web.forms import add_service_errors
from web.organise.forms import CompetitionForm, EntryAddForm, NextSeasonForm

#: The controls of a competition page: the service each calls, and what it says after.
ACTIONS = ("start", "pause", "resume", "close")


def _render(request: HttpRequest, name: str, context: dict[str, Any], status: int = 200):
    context = {"once": once.form_token(request), **context}
    return render(request, f"organise/{name}", context, status=status)


def _require_organiser(request: HttpRequest) -> None:
    if not is_organiser(request.user):
        raise PermissionDenied(
            "Creating competitions takes the organiser right: ask an administrator to grant "
            "it (the admin's user page, permission “Can create and run competitions”)."
        )


def _managed(user) -> QuerySet[Competition]:
    if user.is_staff:  # a challenge's hidden competition is the challenge's (the admin's)
        return Competition.objects.exclude(kind=Competition.Kind.CHALLENGE)
    return Competition.objects.filter(Q(created_by=user) | Q(organisers=user)).distinct()


@login_required
@require_GET
def organise_home(request: HttpRequest) -> HttpResponse:
    """The competitions the user runs, newest first, and a link to create one."""
    competitions = _managed(request.user).order_by("-created_at", "-id")
    if not competitions.exists():
        _require_organiser(request)
    rows = [(c, words.competition_status(c.shown_status)) for c in competitions]
    return _render(request, "home.html", {"rows": rows, "may_create": is_organiser(request.user)})


@login_required
@require_http_methods(["GET", "POST"])
def competition_new(request: HttpRequest) -> HttpResponse:
    _require_organiser(request)
    form = CompetitionForm(request.POST or None)
    if request.method == "POST":
        if (repeated := once.repeated(request, reverse("organise:home"))) is not None:
            return repeated

        def create(data: dict[str, Any]) -> str:
            competition = services.competition_create(
                created_by=request.user, **form.service_arguments()
            )
            return reverse("organise:competition", args=[competition.pk])

        if (done := once.submit(request, form, create, _form_errors)) is not None:
            return done
    context = {"form": form, "option_groups": form.option_groups_bound()}
    return _render(request, "new.html", context, status=400 if form.errors else 200)


def _form_errors(form: CompetitionForm, error: ValidationError) -> None:
    if hasattr(error, "error_dict"):
        for key in ("variant", "options"):  # an option's error goes beside that option
            variant_error = error.error_dict.pop(key, None)
            if variant_error:
                form.add_variant_error(ValidationError(variant_error))
        if error.error_dict:
            add_service_errors(form, error)
    else:
        add_service_errors(form, error)


def _competition(request: HttpRequest, competition_id: int) -> Competition:
    """The competition if the user runs it; 404 if they may not see it, 403 otherwise."""
    competition = get_object_or_404(competitions_visible_to(user=request.user), pk=competition_id)
    if not can_manage(competition=competition, user=request.user):
        raise PermissionDenied("Only this competition's organisers may change it.")
    return competition


def _enterable_bots(user, variant: str | None = None) -> QuerySet[Bot]:
    """The bots an organiser may enter (``entry_create``): their own and the built-in ones
    (any bot, for staff); with ``variant``, those that play it (``bots_playing``)."""
    bots = Bot.objects.select_related("owner").order_by("builtin", "name", "id")
    bots = bots if user.is_staff else bots.filter(Q(owner=user) | ~Q(builtin=""))
    return bots if variant is None else bots_playing(bots, variant)


@login_required
@require_GET
def competition_page(request: HttpRequest, competition_id: int) -> HttpResponse:
    return _competition_page(request, _competition(request, competition_id))


def _competition_page(
    request: HttpRequest,
    competition: Competition,
    *,
    entry_form: EntryAddForm | None = None,
    season_form: NextSeasonForm | None = None,
    action_errors: list[str] | None = None,
    status: int = 200,
) -> HttpResponse:
    entries = competition.entries.select_related("bot__owner", "partner__owner").order_by(
        "division", "seed_order", "id"
    )
    bots = _enterable_bots(request.user, competition.variant).exclude(
        entries__competition=competition
    )
    if competition.fixed_teams:  # nor a bot that is a team's partner already
        bots = bots.exclude(partnered_entries__competition=competition)
    progress = competition_progress(competition=competition)
    context = {
        "competition": competition,
        "status_words": words.competition_status(competition.shown_status),
        "entries": entries,
        "entry_form": entry_form or EntryAddForm(bots=bots),
        "action_errors": action_errors or [],
        "progress": {words.match_status(k): v for k, v in progress.items() if k in MATCH_KEYS},
        "total": progress["total"],
        "schedule": progress["schedule"],
        "draft": competition.status == Competition.Status.DRAFT,
        "taking_entries": competition.status in services.entries_open_statuses(competition.format),
        "running": competition.status == Competition.Status.RUNNING,
        "paused": competition.status == Competition.Status.PAUSED,
        "open": competition.status
        in (Competition.Status.DRAFT, Competition.Status.RUNNING, Competition.Status.PAUSED),
        "fair_play_problem": pairing.fair_play_problem(competition)
        if competition.status == Competition.Status.DRAFT
        else None,
        "watch_flags": competition.table_exclusions.filter(by_watch=True)
        .select_related("entry__bot", "other__bot")
        .order_by("id"),
        "failed": competition.matches.filter(status=Match.Status.FAILED)
        .select_related("round")
        .order_by("id")[:50],
        **_league_context(competition, season_form),
    }
    return _render(request, "competition.html", context, status=status)


def _league_context(competition: Competition, season_form: NextSeasonForm | None):
    """A league season's part of its page: whether its entries' divisions are set yet
    (a later season's from the start, a first one's once started), its next season, and
    the form that makes it."""
    if competition.kind != Competition.Kind.LEAGUE_SEASON:
        return {"league": False}
    following = Competition.objects.filter(previous_season=competition).first()
    finished = competition.status == Competition.Status.FINISHED
    in_play = competition.status in (Competition.Status.RUNNING, Competition.Status.PAUSED)
    return {
        "league": True,
        # A first season's draft seeded by hand: its entries may be moved up and down.
        "seed_movable": competition.previous_season_id is None
        and competition.status == Competition.Status.DRAFT
        and competition.seeding == Competition.Seeding.MANUAL,
        # Closing a season in play asks about promotion, naming who has not played.
        "close_asks_promotion": in_play,
        "unplayed": entries_without_games(competition=competition) if in_play else [],
        "divisions_set": competition.previous_season_id is not None
        or competition.status != Competition.Status.DRAFT,
        "next_season": following,
        # A later season's draft: its entries may be moved between its divisions.
        "divisions_movable": competition.previous_season_id is not None
        and competition.status == Competition.Status.DRAFT,
        "division_numbers": sorted(set(competition.entries.values_list("division", flat=True))),
        "season_form": (season_form or NextSeasonForm()) if finished and not following else None,
    }


@login_required
@require_POST
def match_retry(request: HttpRequest, competition_id: int, match_id: int) -> HttpResponse:
    """Play a failed match again (``services.match_retry``), queued at once if running."""
    competition = _competition(request, competition_id)
    match = get_object_or_404(competition.matches, pk=match_id)

    def retry() -> None:
        services.match_retry(match=match, by=request.user)

    return _page_action(request, competition, retry, "#failed")


MATCH_KEYS = ("pending", "queued", "running", "done", "failed")


@login_required
@require_POST
def entry_add(request: HttpRequest, competition_id: int) -> HttpResponse:
    competition = _competition(request, competition_id)
    here = reverse("organise:competition", args=[competition.pk])
    if (repeated := once.repeated(request, here)) is not None:
        return repeated
    # Any bot it may enter: one that does not play the variant gets the service's error,
    # which names the variant (the page offers only those that play it).
    form = EntryAddForm(request.POST, bots=_enterable_bots(request.user))

    def add(data: dict[str, Any]) -> str:
        services.entry_create(
            competition=competition, bot=data["bot"], partner=data["partner"], by=request.user
        )
        return here + "#entries"

    errors = partial(add_service_errors, default="bot")
    if (done := once.submit(request, form, add, errors)) is not None:
        return done
    return _competition_page(request, competition, entry_form=form, status=400)


@login_required
@require_POST
def entry_remove(request: HttpRequest, competition_id: int, entry_id: int) -> HttpResponse:
    """Take an entry out of a draft (``services.entry_remove``); refused, with the reason
    above the controls, once the competition has started."""
    competition = _competition(request, competition_id)
    entry = get_object_or_404(competition.entries.select_related("bot__owner"), pk=entry_id)
    return _page_action(
        request, competition, lambda: services.entry_remove(entry=entry, by=request.user),
        "#entries",
    )  # fmt: skip


@login_required
@require_POST
def entry_division(request: HttpRequest, competition_id: int, entry_id: int) -> HttpResponse:
    """Move an entry of a later season's draft to another division
    (``services.entry_move_division``); a refusal is shown above the controls."""
    competition = _competition(request, competition_id)
    entry = get_object_or_404(competition.entries, pk=entry_id)

    def move() -> None:
        division = _division(request.POST.get("division"))
        services.entry_move_division(entry=entry, division=division, by=request.user)

    return _page_action(request, competition, move, "#entries")


@login_required
@require_POST
def entry_seed(request: HttpRequest, competition_id: int, entry_id: int) -> HttpResponse:
    """Move an entry of a first season's draft seeded by hand one place up or down its
    order (``services.entry_seed_move``); a refusal is shown above the controls."""
    competition = _competition(request, competition_id)
    entry = get_object_or_404(competition.entries, pk=entry_id)

    def move() -> None:
        places = {"up": -1, "down": 1}.get(request.POST.get("direction", ""))
        if places is None:
            raise ValidationError({"direction": "direction must be up or down"})
        services.entry_seed_move(entry=entry, places=places, by=request.user)

    return _page_action(request, competition, move, "#entries")


@login_required
@require_POST
def next_season(request: HttpRequest, competition_id: int) -> HttpResponse:
    """Make the next season of a finished league season (``services.league_next_season``)
    and go to its page, a draft to start; a refusal is shown above the controls."""
    competition = _competition(request, competition_id)
    here = reverse("organise:competition", args=[competition.pk])
    if (repeated := once.repeated(request, here)) is not None:
        return repeated
    form = NextSeasonForm(request.POST)

    def make(data: dict[str, Any]) -> str:
        season = services.league_next_season(
            competition=competition, name=data["name"] or None, by=request.user
        )
        return reverse("organise:competition", args=[season.pk])

    if (done := once.submit(request, form, make, add_service_errors)) is not None:
        return done
    competition.refresh_from_db()
    errors = [message for messages in form.errors.values() for message in messages]
    return _competition_page(
        request, competition, season_form=form, action_errors=errors, status=400
    )


@login_required
@require_POST
def competition_action(request: HttpRequest, competition_id: int, action: str) -> HttpResponse:
    """Start, pause, resume or close; a refusal is shown above the controls."""
    if action not in ACTIONS:
        raise Http404("no such action")
    competition = _competition(request, competition_id)

    def act() -> None:
        if action == "close" and request.POST.get("confirm") != "yes":
            raise ValidationError("closing cannot be undone: tick the box beside the button")
        with transaction.atomic():
            _act(action, competition, request.user, request.POST.get("apply_promotion"))

    return _page_action(request, competition, act)


def _page_action(
    request: HttpRequest, competition: Competition, act: Callable[[], Any], anchor: str = ""
) -> HttpResponse:
    """Run ``act`` once for a form of the competition's page (``once``): back to the page
    at ``anchor``, or the page again with the refusal above its controls (400)."""
    here = reverse("organise:competition", args=[competition.pk])
    if (repeated := once.repeated(request, here)) is not None:
        return repeated
    try:
        act()
    except ValidationError as error:
        once.release(once.submitted(request))
        competition.refresh_from_db()
        return _competition_page(request, competition, action_errors=error.messages, status=400)
    once.settle(once.submitted(request), here)
    return redirect(here + anchor)


def _act(action: str, competition: Competition, user, apply_promotion: str | None) -> None:
    """The one service of ``action`` (starting and resuming queue the matches themselves);
    closing passes the form's answer about promotion (``yes``, ``no``, or none given)."""
    if action == "start":
        services.competition_start(competition=competition, by=user)
    elif action == "pause":
        services.competition_pause(competition=competition, by=user)
    elif action == "resume":
        services.competition_resume(competition=competition, by=user)
    else:
        applies = {"yes": True, "no": False}.get(apply_promotion or "")
        services.competition_close(competition=competition, by=user, apply_promotion=applies)


@login_required
@require_GET
def collusion_page(request: HttpRequest, competition_id: int) -> HttpResponse:
    """The collusion report of the competition (docs/fair-play.md), with its two answers."""
    competition = _competition(request, competition_id)
    return _collusion_page(request, competition)


def _collusion_page(request, competition, errors: list[str] | None = None, status: int = 200):
    report = collusion_report_for_competition(competition=competition)
    for row in report["pairs"]:  # the two directions of a pair's soft play, with names
        signals = row["soft_play"]
        row["soft_play_rows"] = [
            (giver["name"], taker["name"], signals[key])
            for giver, taker, key in (
                (row["a"], row["b"], "a_to_b"),
                (row["b"], row["a"], "b_to_a"),
            )
            if signals[key] is not None
        ]
    context = {"competition": competition, "report": report, "errors": errors or []}
    return _render(request, "collusion.html", context, status=status)


@login_required
@require_POST
def collusion_action(request: HttpRequest, competition_id: int) -> HttpResponse:
    """``keep-apart`` (fields ``entry``, ``other``) or ``disqualify`` (field ``entry``)."""
    competition = _competition(request, competition_id)
    here = reverse("organise:collusion", args=[competition.pk])
    if (repeated := once.repeated(request, here)) is not None:
        return repeated
    entries = competition.entries.all()
    try:
        entry = entries.filter(pk=_digits(request.POST.get("entry"), "entry")).first()
        if entry is None:
            raise ValidationError({"entry": "no such entry in this competition"})
        if request.POST.get("action") == "keep-apart":
            other = entries.filter(pk=_digits(request.POST.get("other"), "other")).first()
            if other is None:
                raise ValidationError({"other": "no such entry in this competition"})
            services.table_exclusion_create(
                competition=competition, entry=entry, other=other, by=request.user
            )
        elif request.POST.get("action") == "disqualify":
            services.entry_disqualify(entry=entry, by=request.user)
        else:
            raise ValidationError({"action": "action must be keep-apart or disqualify"})
    except ValidationError as error:
        once.release(request.POST.get(once.FIELD))
        return _collusion_page(request, competition, error.messages, status=400)
    once.settle(request.POST.get(once.FIELD), here)
    return redirect(here)


def _digits(value: str | None, field: str) -> int:
    if value is None or not value.isdigit() or not 0 < int(value) < 2**63:
        raise ValidationError({field: f"{field} must be an entry id, got {value!r}"})
    return int(value)


def _division(value: str | None) -> int:
    """The ``division`` field (0 the top one) as a number, else a ``ValidationError``."""
    if value is None or not value.isdigit() or int(value) > 1000:
        raise ValidationError({"division": f"division must be a division number, got {value!r}"})
    return int(value)
