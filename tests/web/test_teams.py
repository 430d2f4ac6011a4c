"""Teams of two members' bots on the site: alice enters her bot with bob's as its
partner from her bot's page; bob finds the invitation on "My bots" and on his bot's page
and accepts or declines it; the competition starts only once he has accepted, and nobody
else can answer for him."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.factories import logged_in, make_user, member_bot
from tests.web.conftest import error_next_to, once_value, post_action
from tournaments import services
from tournaments.models import Competition, Entry

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    olga = make_user("olga", organiser=True)
    alice, bob = make_user("alice"), make_user("bob")
    club = services.competition_create(
        created_by=olga,
        name="Maniglia club",
        kind="league-season",
        variant="maniglia-4-partners",
        format="round-robin",
        games_per_match=4,
        partnerships="fixed",
        seed=5,
    )
    services.entry_create(
        competition=club, bot=member_bot(olga, "north"), partner=member_bot(olga, "south"), by=olga
    )
    return {
        "olga": olga,
        "alice": alice,
        "bob": bob,
        "club": club,
        "ace": member_bot(alice, "ace"),
        "bobs": member_bot(bob, "bobs"),
    }


def enter_team(browser, bot, competition, partner: str):
    page = browser.get(reverse("bots-web:bot-detail", args=[bot.pk])).content.decode()
    return browser.post(
        reverse("bots-web:bot-enter", args=[bot.pk]),
        {"competition": competition.pk, "partner": partner, "once": once_value(page, "enter-form")},
    )


def answer(browser, entry: Entry, reply: str, page_url: str, back: str = "bot"):
    page = browser.get(page_url).content.decode()
    return browser.post(
        reverse("bots-web:invitation-answer", args=[entry.pk, reply]),
        {"once": once_value(page), "back": back},
    )


def test_bob_accepts_alices_invitation_and_the_team_plays(world):
    alice, bob = logged_in(world["alice"]), logged_in(world["bob"])
    olga, club = logged_in(world["olga"]), world["club"]
    form_page = alice.get(reverse("bots-web:bot-detail", args=[world["ace"].pk])).content.decode()

    typo = enter_team(alice, world["ace"], club, "bob/nobody")
    entered = enter_team(alice, world["ace"], club, "bob/bobs")

    assert "Partner (fixed teams)" in form_page
    assert typo.status_code == 400
    assert "no bot named bob/nobody" in error_next_to(typo.content.decode(), "partner")
    assert entered.status_code == 302
    team = Entry.objects.get(competition=club, bot=world["ace"])
    assert (team.partner, team.partner_pending) == (world["bobs"], True)
    my_bots = bob.get(reverse("bots-web:my-bots")).content.decode()
    invitation = my_bots[my_bots.index('id="invitations"') :]
    assert "alice/ace</strong> asks your <strong>bobs</strong>" in invitation
    assert "Maniglia club" in invitation and f'id="accept-{team.pk}"' in invitation
    bot_page = bob.get(reverse("bots-web:bot-detail", args=[world["bobs"].pk])).content.decode()
    assert f'id="accept-{team.pk}"' in bot_page and f'id="decline-{team.pk}"' in bot_page
    alices_page = alice.get(reverse("bots-web:bot-detail", args=[world["ace"].pk])).content.decode()
    assert "team with bob/bobs: waiting for its owner to accept" in alices_page
    assert 'id="invitations"' not in alice.get(reverse("bots-web:my-bots")).content.decode()
    organise = olga.get(reverse("organise:competition", args=[club.pk])).content.decode()
    assert "waiting for bob to accept" in organise

    early = post_action(olga, club, "start")
    assert early.status_code == 400
    assert "waiting for their partner&#x27;s owner to accept: alice/ace &amp; bob/bobs" in (
        early.content.decode()
    )

    accepted = answer(bob, team, "accept", reverse("bots-web:my-bots"), back="my-bots")
    again = answer(bob, team, "accept", reverse("bots-web:bot-detail", args=[world["bobs"].pk]))

    assert accepted.status_code == 302 and accepted["Location"] == reverse("bots-web:my-bots")
    team.refresh_from_db()
    assert team.partner_pending is False
    assert 'id="invitations"' not in bob.get(reverse("bots-web:my-bots")).content.decode()
    assert again.status_code == 400 and "the invitation was already accepted" in (
        again.content.decode()
    )
    assert post_action(olga, club, "start").status_code == 302
    club.refresh_from_db()
    assert club.status == Competition.Status.RUNNING
    (match,) = club.matches.all()
    seats = {seat.seat: seat.entry for seat in match.seats.all()}
    side = [s for s, entry in seats.items() if entry == team]
    assert [team.bot_at(s) for s in side] == [world["ace"], world["bobs"]]


def test_bob_declines_and_the_team_is_not_entered(world):
    alice, bob = logged_in(world["alice"]), logged_in(world["bob"])
    enter_team(alice, world["ace"], world["club"], "bob/bobs")
    team = Entry.objects.get(competition=world["club"], bot=world["ace"])
    bots_page = reverse("bots-web:bot-detail", args=[world["bobs"].pk])

    declined = answer(bob, team, "decline", bots_page)

    assert declined.status_code == 302 and declined["Location"] == bots_page + "#invitations"
    assert not Entry.objects.filter(pk=team.pk).exists()
    assert 'id="invitations"' not in bob.get(bots_page).content.decode()


def test_nobody_but_the_partners_owner_answers_an_invitation(world):
    alice = logged_in(world["alice"])
    enter_team(alice, world["ace"], world["club"], "bob/bobs")
    team = Entry.objects.get(competition=world["club"], bot=world["ace"])
    carol = logged_in(make_user("carol"))
    page = reverse("bots-web:my-bots")

    by_inviter = answer(alice, team, "accept", page)
    by_stranger = answer(carol, team, "accept", page)
    declined_by_stranger = answer(carol, team, "decline", page)

    assert by_inviter.status_code == 404 and by_stranger.status_code == 404
    assert declined_by_stranger.status_code == 404
    team.refresh_from_db()
    assert team.partner_pending is True
