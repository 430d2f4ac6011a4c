"""The bot authors' pages: "My bots", a bot's page, uploads, entries, the API token.

Every write calls one service (``bots.services.bot_create``, ``bot_version_upload``
then ``bot_version_queue``, ``tournaments.services.entry_create``,
``tournaments.services.version_tests.version_test_create`` and ``version_test_cancel``,
``config.authentication.token_rotate``); its ``ValidationError`` is shown next to
the field it names. Another user's bot is a 404 until it plays in a competition
the viewer may watch, and its owner's tools (uploads, entries, stderr, version
tests) never show: a version test's pages are a 404 for anyone but the owner and staff.
"""

from __future__ import annotations

from contextlib import suppress
from functools import partial
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

import games
from bots import accounts, services, store, waiting
from bots import allowances as bot_allowances
from bots import selectors as bot_selectors
from bots.models import Bot, BotVersion
from config.authentication import token_expires_at, token_for_user, token_rotate
from config.filters import INT64_MAX
from tournaments import services as tournament_services
from tournaments.models import Challenge, Competition, VersionTest
from tournaments.permissions import is_organiser
from tournaments.selectors import allowance_use as tournament_allowances
from tournaments.selectors import challenges_visible_to, team_invitations_for, version_records
from tournaments.services import challenge_requests, challenges, version_tests
from web import once, words
from web.bots.forms import (
    BotCreateForm,
    ChallengeForm,
    EntryForm,
    PlayForm,
    QuickGameForm,
    VersionTestForm,
    VersionUploadForm,
    VersionValidateForm,
)
from web.bots.pages import (
    bots_visible_to,
    challenge_view,
    challenges_for_bot,
    entries_for_page,
    head_to_head,
    may_manage_bot,
    open_competitions_for,
    recent_matches,
    version_test_view,
    version_tests_for_page,
    versions_for_page,
)
from web.forms import add_service_errors


def _render(request: HttpRequest, name: str, context: dict[str, Any], status: int = 200):
    context = {"once": once.form_token(request), **context}
    return render(request, f"bots_web/{name}", context, status=status)


@never_cache  # it shows the API token: no cache along the way may keep it
@login_required
@require_http_methods(["GET", "POST"])
def my_bots(request: HttpRequest) -> HttpResponse:
    """The user's bots, a form to create one, what is left of their allowances, and
    the user's API token."""
    form = BotCreateForm(request.POST or None)
    if request.method == "POST":
        here = reverse("bots-web:my-bots")
        if (repeated := once.repeated(request, here)) is not None:
            return repeated

        def create(data: dict[str, Any]) -> str:
            bot = services.bot_create(owner=request.user, **data)
            return reverse("bots-web:bot-detail", args=[bot.pk])

        if (done := once.submit(request, form, create, add_service_errors)) is not None:
            return done
    bots = bot_selectors.bots_for_user(user=request.user)
    token = token_for_user(request.user)
    context = {
        "bots": bots,
        "form": form,
        "token": token.key,
        "token_expires_at": token_expires_at(token),
        "may_organise": is_organiser(request.user),
        "allowances": tournament_allowances.usage_for_user(user=request.user),
        "pending_email": accounts.pending_email(user=request.user),
        "unconfirmed_total": bot_allowances.unconfirmed_total(user=request.user),
        "invitations": team_invitations_for(user=request.user),
    }
    return _render(request, "my_bots.html", context, status=400 if form.errors else 200)


@login_required
@require_POST
def token_regenerate(request: HttpRequest) -> HttpResponse:
    """Replace the user's API token (the old one stops working)."""
    url = reverse("bots-web:my-bots") + "#token"
    if once.repeated(request, url) is None:
        token_rotate(request.user)
        once.settle(once.submitted(request), url)
    return redirect(url)


def _visible_bot(request: HttpRequest, bot_id: int) -> Bot:
    return get_object_or_404(bots_visible_to(user=request.user).select_related("owner"), pk=bot_id)


def _managed_bot(request: HttpRequest, bot_id: int) -> Bot:
    """The bot, if ``request.user`` may change it; a 404 if they may not even see it."""
    bot = _visible_bot(request, bot_id)
    if not may_manage_bot(bot=bot, user=request.user):
        raise PermissionDenied("Only the bot's owner may do this.")
    return bot


@require_GET
def bot_detail(request: HttpRequest, bot_id: int) -> HttpResponse:
    bot = _visible_bot(request, bot_id)
    return _bot_page(request, bot)


def _bot_page(
    request: HttpRequest,
    bot: Bot,
    *,
    upload_form: VersionUploadForm | None = None,
    entry_form: EntryForm | None = None,
    play_form: PlayForm | None = None,
    validate_forms: dict[int, VersionValidateForm] | None = None,
    test_form: VersionTestForm | None = None,
    challenge_form: ChallengeForm | None = None,
    quick_form: QuickGameForm | None = None,
    invitation_errors: list[str] | None = None,
    status: int = 200,
) -> HttpResponse:
    manage = may_manage_bot(bot=bot, user=request.user)
    context: dict[str, Any] = {
        "bot": bot,
        "manage": manage,
        "versions": _with_validate_forms(
            versions_for_page(bot=bot, with_logs=manage), manage, validate_forms or {}
        ),
        "entries": entries_for_page(bot=bot, user=request.user),
        "matches": recent_matches(bot=bot, user=request.user),
        "head_to_head": head_to_head(bot=bot, user=request.user),
        "records": version_records(bot=bot, user=request.user),
        "plays": bot_selectors.version_for_play(bot=bot),
    }
    if manage and not bot.builtin:
        context["play_form"] = play_form or PlayForm(bot=bot)
    if manage:
        competitions = _competitions_it_plays(bot, request.user).exclude(entries__bot=bot)
        context["entry_form"] = entry_form or EntryForm(
            competitions=competitions, offered=competitions, user=request.user
        )
        context["has_open"] = competitions.exists()
        context["teams_open"] = competitions.filter(
            partnerships=Competition.Partnerships.FIXED
        ).exists()
    if bot.owner_id is not None and bot.owner_id == request.user.pk:
        context["invitations"] = team_invitations_for(user=request.user, bot=bot)
        context["invitation_errors"] = invitation_errors or []
    if manage and not bot.builtin:  # a bot that runs a built-in player takes no uploads
        context["upload_form"] = upload_form or VersionUploadForm()
    if manage:  # version tests are the owner's (and staff's) alone, as in the API
        context["test_form"] = test_form or VersionTestForm(bot=bot)
        context["version_tests"] = version_tests_for_page(bot=bot)
    if manage and bot.owner_id == request.user.pk:  # challenges are asked for by the owner
        context["challenge_form"] = challenge_form or ChallengeForm(bot=bot, user=request.user)
        context["quick_form"] = quick_form or QuickGameForm(bot=bot, prefix="quick")
    context["challenges"] = challenges_for_bot(bot=bot, user=request.user)
    return _render(request, "bot_detail.html", context, status=status)


def _with_validate_forms(versions: list, manage: bool, forms: dict[int, VersionValidateForm]):
    """Each ready version the owner may validate in more variants gets its form."""
    for item in versions:
        number = item.version.number
        if manage and item.missing and not item.queued:
            item.validate_form = forms.get(number) or VersionValidateForm(
                missing=item.missing, prefix=f"v{number}"
            )
    return versions


@login_required
@require_POST
def version_upload(request: HttpRequest, bot_id: int) -> HttpResponse:
    """Store the upload as the bot's next version and queue its validation."""
    bot = _managed_bot(request, bot_id)
    here = reverse("bots-web:bot-detail", args=[bot.pk])
    if (repeated := once.repeated(request, here)) is not None:
        return repeated
    form = VersionUploadForm(request.POST, request.FILES)
    status = 400
    if form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            with transaction.atomic():
                version = services.bot_version_upload(
                    bot=bot,
                    filename=upload.name,
                    content=upload.read(),
                    variants=form.cleaned_data["variants"],
                )
                services.bot_version_queue(version=version)
        except ValidationError as error:
            add_service_errors(form, error)
        except store.StoreError as error:  # nothing was saved: the transaction rolled back
            form.add_error("file", f"The bot store cannot be written now ({error}); try again.")
            status = 503
        else:
            url = f"{here}#version-{version.number}"
            once.settle(once.submitted(request), url)
            return redirect(url)
    once.release(once.submitted(request))
    return _bot_page(request, bot, upload_form=form, status=status)


@require_GET
def version_status(request: HttpRequest, bot_id: int, number: int) -> JsonResponse:
    """The version's status, for the page that watches its validation finish."""
    bot = _managed_bot(request, bot_id) if request.user.is_authenticated else None
    if bot is None:
        raise Http404("No such bot.")
    version = get_object_or_404(BotVersion, bot=bot, number=number)
    finished = version.status in (BotVersion.Status.READY, BotVersion.Status.REJECTED)
    place = waiting.validation_place(version)
    return JsonResponse(
        {
            "number": version.number,
            "status": version.status,
            "words": words.version_status(version.status),
            "finished": finished,
            "queue": place,
            "waiting": words.waiting_place(place, version.validation_report),
        }
    )


@login_required
@require_POST
def bot_play(request: HttpRequest, bot_id: int) -> HttpResponse:
    """Pin a ready version (or go back to the newest ready one), deactivate or reactivate."""
    bot = _managed_bot(request, bot_id)
    here = reverse("bots-web:bot-detail", args=[bot.pk])
    if (repeated := once.repeated(request, here + "#play")) is not None:
        return repeated
    form = PlayForm(request.POST, bot=bot)

    def play(data: dict[str, Any]) -> str:
        services.bot_play_set(bot=bot, pinned_number=data["pinned_version"], active=data["active"])
        return here + "#play"

    errors = partial(add_service_errors, default="pinned_version")
    if (done := once.submit(request, form, play, errors)) is not None:
        return done
    return _bot_page(request, bot, play_form=form, status=400)


@login_required
@require_POST
def bot_enter(request: HttpRequest, bot_id: int) -> HttpResponse:
    """Enter the bot into a competition still taking entries."""
    bot = _managed_bot(request, bot_id)
    here = reverse("bots-web:bot-detail", args=[bot.pk])
    if (repeated := once.repeated(request, here + "#entries")) is not None:
        return repeated
    # Any open competition: one in a variant it does not play gets the service's error,
    # which names the variant (the page offers only those it plays).
    form = EntryForm(
        request.POST, competitions=open_competitions_for(user=request.user), user=request.user
    )

    def enter(data: dict[str, Any]) -> str:
        tournament_services.entry_create(
            competition=data["competition"], bot=bot, partner=data["partner"], by=request.user
        )
        return here + "#entries"

    errors = partial(add_service_errors, default="competition")
    if (done := once.submit(request, form, enter, errors)) is not None:
        return done
    return _bot_page(request, bot, entry_form=form, status=400)


def _competitions_it_plays(bot: Bot, user):
    """The open competitions ``user`` may watch in a variant ``bot`` plays (or will play
    once validated): what the entry form offers."""
    variants = [v for v in games.variants() if bot_selectors.bot_will_play(bot=bot, variant=v)]
    return open_competitions_for(user=user).filter(variant__in=variants)


@login_required
@require_POST
def version_validate(request: HttpRequest, bot_id: int, number: int) -> HttpResponse:
    """Validate a ready version in more variants (it keeps playing meanwhile)."""
    bot = _managed_bot(request, bot_id)
    version = get_object_or_404(BotVersion, bot=bot, number=number)
    here = reverse("bots-web:bot-detail", args=[bot.pk]) + f"#version-{version.number}"
    if (repeated := once.repeated(request, here)) is not None:
        return repeated
    passed = bot_selectors.variants_passed(version=version)
    missing = [v for v in games.variants() if v not in passed]
    form = VersionValidateForm(request.POST, missing=missing, prefix=f"v{version.number}")

    def validate(data: dict[str, Any]) -> str:
        services.bot_version_validate_more(version=version, variants=data["variants"])
        return here

    if (done := once.submit(request, form, validate, add_service_errors)) is not None:
        return done
    return _bot_page(request, bot, validate_forms={version.number: form}, status=400)


def _owned_bot(request: HttpRequest, bot_id: int) -> Bot:
    """The bot, if ``request.user`` owns it (or is staff); a 404 for anyone else, as in
    the API's version tests."""
    bot = _visible_bot(request, bot_id)
    if not may_manage_bot(bot=bot, user=request.user):
        raise Http404("No such bot.")
    return bot


@login_required
@require_POST
def version_test_start(request: HttpRequest, bot_id: int) -> HttpResponse:
    """Start a version test: is the new version better than the old one?"""
    bot = _owned_bot(request, bot_id)
    here = reverse("bots-web:bot-detail", args=[bot.pk]) + "#version-tests"
    if (repeated := once.repeated(request, here)) is not None:
        return repeated
    form = VersionTestForm(request.POST, bot=bot)

    def start(data: dict[str, Any]) -> str:
        test = version_tests.version_test_create(bot=bot, by=request.user, **data)
        return here.removesuffix("#version-tests") + f"#version-test-{test.pk}"

    if (done := once.submit(request, form, start, add_service_errors)) is not None:
        return done
    return _bot_page(request, bot, test_form=form, status=400)


def _bot_test(request: HttpRequest, bot_id: int, test_id: int) -> VersionTest:
    bot = _owned_bot(request, bot_id)
    tests = VersionTest.objects.select_related("bot", "new", "old").filter(bot=bot)
    return get_object_or_404(tests, pk=test_id if test_id <= INT64_MAX else 0)


@login_required
@require_POST
def version_test_cancel(request: HttpRequest, bot_id: int, test_id: int) -> HttpResponse:
    """Stop a pending or running version test for good; one already over stays as it is."""
    test = _bot_test(request, bot_id, test_id)
    here = reverse("bots-web:bot-detail", args=[bot_id]) + f"#version-test-{test.pk}"
    if once.repeated(request, here) is None:
        with suppress(ValidationError):  # over already: the page says how it ended
            version_tests.version_test_cancel(test=test, by=request.user)
        once.settle(once.submitted(request), here)
    return redirect(here)


@require_GET
def version_test_status(request: HttpRequest, bot_id: int, test_id: int) -> JsonResponse:
    """Where a version test stands, for the bot page that follows it while it runs."""
    if not request.user.is_authenticated:
        raise Http404("No such bot.")
    view = version_test_view(_bot_test(request, bot_id, test_id))
    return JsonResponse({key: value for key, value in view.items() if key != "test"})


@login_required
@require_POST
def challenge_start(request: HttpRequest, bot_id: int) -> HttpResponse:
    """Ask for a challenge of one of the bot's ready versions; its page follows it."""
    bot = _owned_bot(request, bot_id)
    here = reverse("bots-web:bot-detail", args=[bot.pk]) + "#challenges"
    if (repeated := once.repeated(request, here)) is not None:
        return repeated
    form = ChallengeForm(request.POST, bot=bot, user=request.user)

    def start(data: dict[str, Any]) -> str:
        try:
            challenge = challenges.challenge_create(bot=bot, by=request.user, **data)
        except (
            challenge_requests.OpponentNotFound
        ) as exc:  # gone from view since the page was drawn
            raise ValidationError(str(exc)) from None
        return reverse("bots-web:challenge-detail", args=[challenge.pk])

    if (done := once.submit(request, form, start, add_service_errors)) is not None:
        return done
    return _bot_page(request, bot, challenge_form=form, status=400)


@login_required
@require_POST
def quick_game(request: HttpRequest, bot_id: int) -> HttpResponse:
    """One unrated game of the bot's version against built-ins, played now; its page
    follows it."""
    bot = _owned_bot(request, bot_id)
    here = reverse("bots-web:bot-detail", args=[bot.pk]) + "#quick-game"
    if (repeated := once.repeated(request, here)) is not None:
        return repeated
    form = QuickGameForm(request.POST, bot=bot, prefix="quick")

    def start(data: dict[str, Any]) -> str:
        challenge = challenges.challenge_create(
            bot=bot, by=request.user, games=challenge_requests.QUICK_GAME, **data
        )
        return reverse("bots-web:challenge-detail", args=[challenge.pk])

    if (done := once.submit(request, form, start, add_service_errors)) is not None:
        return done
    return _bot_page(request, bot, quick_form=form, status=400)


def _visible_challenge(request: HttpRequest, challenge_id: int) -> Challenge:
    """The challenge, if ``request.user`` asked for it or owns one of its bots (or is
    staff); a 404 for anyone else."""
    found = challenges_visible_to(user=request.user).select_related(
        "competition", "bot", "version", "created_by"
    )
    return get_object_or_404(found, pk=challenge_id if challenge_id <= INT64_MAX else 0)


@require_GET
def challenge_detail(request: HttpRequest, challenge_id: int) -> HttpResponse:
    """A challenge: who plays whom, its games as they are played, its matches."""
    challenge = _visible_challenge(request, challenge_id)
    view = challenge_view(challenge=challenge, user=request.user)
    return _render(request, "challenge.html", {"challenge": challenge, **view})


@require_GET
def challenge_status(request: HttpRequest, challenge_id: int) -> JsonResponse:
    """Where a challenge stands, for its page that follows it while it is played."""
    challenge = _visible_challenge(request, challenge_id)
    view = challenge_view(challenge=challenge, user=request.user)
    keys = ("status", "status_words", "finished", "progress", "waiting")
    return JsonResponse({key: view[key] for key in keys})


@login_required
@require_POST
def challenge_cancel(request: HttpRequest, challenge_id: int) -> HttpResponse:
    """Stop a running challenge (the author who asked for it); one over stays as it is."""
    challenge = _visible_challenge(request, challenge_id)
    here = reverse("bots-web:challenge-detail", args=[challenge.pk])
    if once.repeated(request, here) is None:
        with suppress(ValidationError, PermissionDenied):  # the page says how it stands
            challenges.challenge_cancel(challenge=challenge, by=request.user)
        once.settle(once.submitted(request), here)
    return redirect(here)


@login_required
@require_POST
def bot_challengeable(request: HttpRequest, bot_id: int) -> HttpResponse:
    """Let other authors challenge the bot, or not (its owner)."""
    bot = _managed_bot(request, bot_id)
    here = reverse("bots-web:bot-detail", args=[bot.pk]) + "#challenges"
    if once.repeated(request, here) is None:
        services.bot_challengeable_set(
            bot=bot, challengeable=bool(request.POST.get("challengeable"))
        )
        once.settle(once.submitted(request), here)
    return redirect(here)
