"""Answering a team invitation: a member entered a team whose partner is a bot of the
user's (``tournaments.services.entry_create``), which plays once its owner accepts
(``entry_partner_accept``) and is not entered if they decline (``entry_partner_decline``).

Only the partner's owner finds the invitation: for anyone else it is a 404. A refusal
(already answered, the competition started) is shown on the partner bot's page."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from tournaments import services
from tournaments.models import Entry
from web import once
from web.bots.views import _bot_page

#: The two answers and the service of each.
ANSWERS = {"accept": services.entry_partner_accept, "decline": services.entry_partner_decline}


@login_required
@require_POST
def invitation_answer(request: HttpRequest, entry_id: int, answer: str) -> HttpResponse:
    """Accept or decline the invitation of entry ``entry_id``; back to the page the
    answer came from (``back``: ``my-bots`` or the partner bot's page)."""
    if answer not in ANSWERS:
        raise Http404("no such answer")
    entries = Entry.objects.select_related("partner__owner", "competition")
    entry = get_object_or_404(entries, pk=entry_id, partner__owner=request.user)
    bot_page = reverse("bots-web:bot-detail", args=[entry.partner_id]) + "#invitations"
    here = reverse("bots-web:my-bots") if request.POST.get("back") == "my-bots" else bot_page
    if (repeated := once.repeated(request, here)) is not None:
        return repeated
    try:
        ANSWERS[answer](entry=entry, by=request.user)
    except ValidationError as error:
        once.release(once.submitted(request))
        return _bot_page(request, entry.partner, invitation_errors=error.messages, status=400)
    once.settle(once.submitted(request), here)
    return redirect(here)
