"""A bot's page after it has played: its matches, ratings and head-to-head, as counted."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from bots.models import Bot
from tests.factories import make_user, play_all
from tournaments import services
from tournaments.models import MatchSeat, RatingEvent

pytestmark = pytest.mark.django_db


def test_the_bot_page_counts_its_matches_ratings_and_opponents():
    ada, olga = make_user("ada"), make_user("olga", organiser=True)
    mine = Bot.objects.create(owner=ada, name="mine", builtin="greedy")
    others = [Bot.objects.create(name=f"random-{i}", builtin="random") for i in range(3)]
    cup = services.competition_create(
        created_by=olga,
        name="Round table",
        kind="tournament",
        variant="manni-basic",
        format="round-robin",
        games_per_match=3,
    )
    for bot in [mine, *others]:
        services.entry_create(competition=cup, bot=bot)
    services.competition_start(competition=cup, send=None)
    play_all(cup)

    html = Client().get(reverse("bots-web:bot-detail", args=[mine.pk])).content.decode()

    seats = MatchSeat.objects.filter(entry__bot=mine)
    assert seats.count() == 3  # 4 entries at 3 seats: every triple once, mine in 3 of 4
    for seat in seats:
        assert f">match {seat.match_id}<" in html
    met = MatchSeat.objects.filter(match__in=seats.values("match")).exclude(entry__bot=mine)
    h2h = html[html.index('id="head-to-head"') :]
    for bot in others:
        together = met.filter(entry__bot=bot)
        ahead = sum(1 for o in together if seats.get(match_id=o.match_id).rank < o.rank)
        row = h2h[h2h.index(f">{bot.name}</a>") :].split("</tr>")[0]
        cells = [c.split("<")[0] for c in row.split('class="num">')[1:]]
        assert cells[:2] == [str(together.count()), str(ahead)]
    ratings = html[html.index('id="entries"') :]
    entry = cup.entries.get(bot=mine)
    assert f"{entry.mu - 3 * entry.sigma:.2f}" in ratings
    assert RatingEvent.objects.filter(entry=entry).count() == 3
    assert "Rating after each of 3 rated matches" in ratings
