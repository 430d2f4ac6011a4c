"""Secret deals: nobody learns a deal before it is played, and everyone can check them after.

A competition created without a seed draws its match seeds from a hidden 256-bit
secret; its SHA-256 commitment is public from the start, the secret itself only
once the competition has ended (to whoever may see every hand). A chosen seed
is the organiser's explicit choice of predictable deals, and the API says so.
"""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest

from bots.referee.match import game_seed
from bots.services import builtin_bots_ensure
from tests.api.conftest import client_for
from tests.factories import make_bot, make_competition, make_user
from tournaments import selectors, services
from tournaments.integrity import deals
from tournaments.live import events
from tournaments.models import Competition, Entry, Match

pytestmark = pytest.mark.django_db


def started(organiser, alice, bob, **settings) -> Competition:
    competition = make_competition(organiser, **settings, games=6)
    for bot in [builtin_bots_ensure()[0], make_bot(alice, "a"), make_bot(bob, "b")]:
        Entry.objects.create(competition=competition, bot=bot)
    services.competition_start(competition=competition, by=organiser)
    return Competition.objects.get(pk=competition.pk)


def test_a_competition_without_a_seed_gets_a_fresh_secret(organiser):
    one, two = make_competition(organiser, games=6), make_competition(organiser, games=6)
    assert len(one.deal_secret) == 64 and int(one.deal_secret, 16) >= 0
    assert one.deal_secret != two.deal_secret


def test_match_seeds_follow_from_the_secret_and_not_from_public_values(organiser, alice, bob):
    competition = started(organiser, alice, bob)
    match = competition.matches.order_by("id").first()
    key = bytes.fromhex(competition.deal_secret)
    message = f"cardroom-match:{competition.pk}:{match.round.number}:{match.table}".encode()
    expected = int.from_bytes(hmac.new(key, message, hashlib.sha256).digest()[:7], "big")
    assert match.seed == expected
    public = deals.match_seed_from_seed(
        0, competition_id=competition.pk, round_number=match.round.number, table=match.table
    )
    assert match.seed != public  # what an outsider computed before: no longer the seed


def test_while_it_runs_nobody_sees_the_secret_not_even_organisers_or_staff(
    organiser, alice, bob, anon
):
    competition = started(organiser, alice, bob)
    staff = client_for(make_user("stan", is_staff=True))
    urls = [
        f"/api/competitions/{competition.pk}/",
        "/api/competitions/",
        f"/api/matches/?competition={competition.pk}",
        f"/api/rounds/?competition={competition.pk}",
        f"/api/competitions/{competition.pk}/standings/",
        f"/api/competitions/{competition.pk}/progress/",
    ]
    for client in (anon, client_for(organiser), client_for(alice), staff):
        for url in urls:
            response = client.get(url)
            assert response.status_code == 200, (url, response.content)
            assert competition.deal_secret not in response.content.decode(), url
        detail = client.get(urls[0]).json()["deals"]
        assert detail == {
            "mode": "secret",
            "commitment": hashlib.sha256(bytes.fromhex(competition.deal_secret)).hexdigest(),
            "secret": None,
            "warning": None,
        }


def test_after_the_end_the_secret_is_published_and_every_match_seed_checks(
    organiser, alice, bob, anon
):
    competition = started(organiser, alice, bob, full_replays_after_end=True)
    commitment = anon.get(f"/api/competitions/{competition.pk}/").json()["deals"]["commitment"]
    services.competition_close(competition=competition, by=organiser)

    published = anon.get(f"/api/competitions/{competition.pk}/").json()["deals"]
    secret = published["secret"]
    assert hashlib.sha256(bytes.fromhex(secret)).hexdigest() == commitment
    for match in Match.objects.filter(competition=competition).select_related("round"):
        seed = deals.match_seed_from_secret(
            secret,
            competition_id=competition.pk,
            round_number=match.round.number,
            table=match.table,
        )
        assert seed == match.seed
        assert game_seed(seed, 0) == game_seed(match.seed, 0)


def test_after_the_end_the_secret_follows_the_full_view_rule(organiser, alice, bob, anon):
    """The secret shows every hand: after the end, organisers see it; everyone else only
    if the organisers allow full replays."""
    competition = started(organiser, alice, bob)
    services.competition_close(competition=competition, by=organiser)
    url = f"/api/competitions/{competition.pk}/"
    assert anon.get(url).json()["deals"]["secret"] is None
    assert client_for(alice).get(url).json()["deals"]["secret"] is None
    assert client_for(organiser).get(url).json()["deals"]["secret"] == competition.deal_secret


def test_a_chosen_seed_is_reproducible_and_the_organiser_is_told_it_is_predictable(
    as_organiser,
):
    body = {"name": "Repeatable", "kind": "tournament", "variant": "manni-basic"}
    body |= {"format": "round-robin", "seed": 42}
    response = as_organiser.post("/api/competitions/", body, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["deals"]["mode"] == "seeded"
    assert "compute every hand" in response.json()["deals"]["warning"]
    assert Competition.objects.get(pk=response.json()["id"]).deal_secret == ""

    plain = dict(body)
    del plain["seed"]
    response = as_organiser.post("/api/competitions/", plain, format="json")
    assert response.json()["deals"]["mode"] == "secret"
    assert response.json()["deals"]["warning"] is None


def test_built_in_bots_draw_their_randomness_from_the_secret_match_seed(organiser):
    """``match.seed + seat`` was predictable; the player seed is a hash of the match seed."""
    assert deals.player_seed(1000, 0) != 1000
    assert deals.player_seed(1000, 1) != deals.player_seed(1000, 0)
    assert deals.player_seed(1000, 1) != deals.player_seed(1001, 0)


def test_secrets_are_checked():
    with pytest.raises(ValueError, match="64 lowercase hexadecimal"):
        deals.commitment("abc")
    with pytest.raises(ValueError):
        deals.match_seed_from_secret("G" * 64, competition_id=1, round_number=1, table=0)


def test_the_secret_is_in_no_live_event(
    organiser, alice, bob, monkeypatch, django_capture_on_commit_callbacks
):
    sent: list[str] = []
    monkeypatch.setattr(
        events, "broadcast", lambda competition_id, event: sent.append(json.dumps(event))
    )
    with django_capture_on_commit_callbacks(execute=True):
        competition = started(organiser, alice, bob)
    assert sent  # the start was announced
    assert all(competition.deal_secret not in text for text in sent)


def test_every_deal_of_a_played_competition_verifies_and_a_forged_one_does_not(organiser):
    """After the end anyone holding the published secret can recompute every deck."""
    from django.core.management import CommandError, call_command

    from tests.factories import make_competition, play_all
    from tournaments.models import GameRecord

    comp = make_competition(organiser, entries=4, games=3, duplicate=True)
    services.competition_start(competition=comp, by=organiser)
    played = len(play_all(comp))
    comp.refresh_from_db()
    assert comp.status == "finished" and played >= 2
    report = selectors.deals_verification(competition=comp)
    assert report == {"matches": played, "games": 3 * played, "problems": []}
    call_command("verify_deals", str(comp.pk), "--secret", comp.deal_secret)

    wrong = deals.new_secret()
    assert selectors.deals_verification(competition=comp, secret=wrong)["problems"]
    game = GameRecord.objects.filter(match__competition=comp).order_by("id").first()
    record = game.record()
    record["decks"][0] = list(reversed(record["decks"][0]))  # a stacked deck
    GameRecord.objects.filter(pk=game.pk).update(data=GameRecord.pack(record))
    problems = selectors.deals_verification(competition=comp)["problems"]
    assert problems == [
        f"match {game.match_id} game {game.index + 1}: " + problems[0].split(": ", 1)[1]
    ]
    assert "decks" in problems[0] or "replay" in problems[0]
    with pytest.raises(CommandError, match="1 problems"):
        call_command("verify_deals", str(comp.pk))
