"""Teams of two members' bots through the API: the owner of the first bot names another
member's bot as its partner; that owner sees the invitation and accepts or declines it;
only an accepted team plays, and nobody else can answer for them."""

from __future__ import annotations

import pytest

from tests.api.conftest import client_for, results
from tests.factories import make_user, member_bot
from tournaments import services
from tournaments.models import Competition, Entry

pytestmark = pytest.mark.django_db

FIXED = {
    "name": "Maniglia club",
    "kind": "league-season",
    "variant": "maniglia-4-partners",
    "format": "round-robin",
    "games_per_match": 4,
    "partnerships": "fixed",
    "seed": 5,
}


@pytest.fixture
def club(organiser):
    """A draft of fixed teams with one team of built-in-playing bots already in it."""
    competition = services.competition_create(created_by=organiser, **FIXED)
    olga_a, olga_b = member_bot(organiser, "north"), member_bot(organiser, "south")
    services.entry_create(competition=competition, bot=olga_a, partner=olga_b, by=organiser)
    return competition


def invite(client, competition: Competition, bot, partner):
    return client.post(
        "/api/entries/",
        {"competition": competition.pk, "bot": bot.pk, "partner": partner.pk},
        format="json",
    )


def test_a_team_of_two_members_plays_once_the_partners_owner_accepts(
    club, organiser, as_organiser, alice, bob, as_alice, as_bob
):
    ace, bobs = member_bot(alice, "ace"), member_bot(bob, "bobs", plays="greedy")

    invited = invite(as_alice, club, ace, bobs)
    seen_by_bob = as_bob.get("/api/entries/invitations/").json()
    seen_by_alice = as_alice.get("/api/entries/invitations/").json()
    early = as_organiser.post(f"/api/competitions/{club.pk}/start/")
    accepted = as_bob.post(f"/api/entries/{invited.json()['id']}/accept/")
    started = as_organiser.post(f"/api/competitions/{club.pk}/start/")

    assert invited.status_code == 201, invited.content
    assert invited.json()["partner_status"] == "pending"
    assert invited.json()["name"] == "alice/ace & bob/bobs"
    assert [(i["id"], i["name"], i["competition"]) for i in seen_by_bob] == [
        (invited.json()["id"], "alice/ace & bob/bobs", club.pk)
    ]
    assert seen_by_alice == []  # the invitation is the partner's owner's to answer
    assert early.status_code == 400
    assert "waiting for their partner's owner to accept: alice/ace & bob/bobs" in str(early.json())
    assert accepted.status_code == 200 and accepted.json()["partner_status"] == "accepted"
    assert as_bob.get("/api/entries/invitations/").json() == []
    assert started.status_code == 200, started.content
    # The team plays: its first match seats bob's bot at the second seat of its side.
    (match,) = results(as_alice.get(f"/api/matches/?competition={club.pk}"))
    team = invited.json()["id"]
    assert [s["bot"] for s in match["seats"] if s["entry"] == team] == ["alice/ace", "bob/bobs"]


def test_a_declined_invitation_leaves_the_team_out(club, alice, bob, as_alice, as_bob):
    invited = invite(as_alice, club, member_bot(alice, "ace"), member_bot(bob, "bobs")).json()

    declined = as_bob.post(f"/api/entries/{invited['id']}/decline/")

    assert declined.status_code == 204
    assert not Entry.objects.filter(pk=invited["id"]).exists()
    listed = results(as_alice.get(f"/api/entries/?competition={club.pk}"))
    assert [e["name"] for e in listed] == ["olga/north & olga/south"]
    assert as_bob.get("/api/entries/invitations/").json() == []


def test_an_invitation_cannot_be_forged(club, alice, bob, as_alice, as_bob, as_staff):
    ace, bobs = member_bot(alice, "ace"), member_bot(bob, "bobs")
    carol = make_user("carol")
    invited = invite(as_alice, club, ace, bobs).json()
    url = f"/api/entries/{invited['id']}"

    by_inviter = as_alice.post(f"{url}/accept/")
    by_stranger = client_for(carol).post(f"{url}/accept/")
    by_staff = as_staff.post(f"{url}/accept/")
    declined_by_stranger = client_for(carol).post(f"{url}/decline/")
    not_my_bot = as_alice.post(  # alice names bob's bot as the team's first bot
        "/api/entries/",
        {"competition": club.pk, "bot": member_bot(bob, "other").pk, "partner": ace.pk},
        format="json",
    )
    first = as_bob.post(f"{url}/accept/")
    twice = as_bob.post(f"{url}/accept/")
    decline_after = as_bob.post(f"{url}/decline/")

    assert by_inviter.status_code == 403
    assert "only the owner of bob/bobs" in str(by_inviter.json())
    assert by_stranger.status_code == 403 and by_staff.status_code == 403
    assert declined_by_stranger.status_code == 403
    assert not_my_bot.status_code == 400 and "bot" in not_my_bot.json()
    assert first.status_code == 200
    assert twice.status_code == 400 and "already accepted" in str(twice.json())
    assert decline_after.status_code == 400
    assert Entry.objects.get(pk=invited["id"]).partner_pending is False
    assert club.entries.count() == 2


def test_the_invitation_of_a_private_competition_reaches_the_partners_owner(
    organiser, alice, bob, as_alice, as_bob
):
    private = services.competition_create(created_by=organiser, is_public=False, **FIXED)
    private.organisers.add(alice)  # alice helps run it; bob may not watch it
    invited = invite(as_alice, private, member_bot(alice, "ace"), member_bot(bob, "bobs")).json()

    listed = as_bob.get("/api/entries/invitations/").json()
    accepted = as_bob.post(f"/api/entries/{invited['id']}/accept/")

    assert [i["id"] for i in listed] == [invited["id"]]
    assert accepted.status_code == 200 and accepted.json()["partner_status"] == "accepted"


def test_an_invitation_is_answered_before_the_start_only(club, alice, bob, as_alice, as_bob):
    invited = invite(as_alice, club, member_bot(alice, "ace"), member_bot(bob, "bobs")).json()
    Competition.objects.filter(pk=club.pk).update(status=Competition.Status.CANCELLED)

    late = as_bob.post(f"/api/entries/{invited['id']}/accept/")

    assert late.status_code == 400 and "answered before the start" in str(late.json())
    assert as_bob.get("/api/entries/invitations/").json() == []


def test_a_team_of_ones_own_bots_needs_no_invitation(club, alice, as_alice):
    team = invite(as_alice, club, member_bot(alice, "ace"), member_bot(alice, "king"))

    assert team.status_code == 201 and team.json()["partner_status"] == "accepted"
    assert as_alice.get("/api/entries/invitations/").json() == []
