"""A match watched while it is played: its page, the API and the replay viewer's data show
its finished games and the game in progress, in the public view only, and never a game
of an earlier, failed attempt."""

from __future__ import annotations

import json

import pytest
from django.test import Client

import games
from bots.builtin import make
from bots.referee import InProcessPlayer
from bots.referee.match import play_match
from tests.factories import make_competition, make_user
from tournaments import services
from tournaments.live import publisher as live
from tournaments.models import Match
from tournaments.watching.replay import public_view
from tournaments.worker import execution

pytestmark = pytest.mark.django_db

GAMES = 20


@pytest.fixture(autouse=True)
def _publish_at_once(settings):
    """The worker writes at every game and move (not after half a second, four a second)."""
    settings.CARDROOM_LIVE_AFTER_S = 0.0
    settings.CARDROOM_LIVE_MOVES_S = settings.CARDROOM_LIVE_GAMES_S = 0.0


def claim(competition) -> Match:
    match = competition.matches.filter(status=Match.Status.PENDING).order_by("id").first()
    claimed = execution.match_claim(match_id=match.pk, claimed_by="test/1/task")
    assert claimed is not None
    return claimed


def hidden_cards(state) -> set[str]:
    """The cards in some seat's hand now that the public view does not show."""
    shown = json.dumps(public_view(state.observation(0)))
    held = set()
    for seat in range(state.game.num_players):
        held |= set(state.observation(seat).get("hand") or [])
    return {card for card in held if f'"{card}"' not in shown}


def live_texts(client: Client, match: Match) -> tuple[str, dict, str]:
    page = client.get(f"/dashboard/matches/{match.pk}/")
    api = client.get(f"/api/matches/{match.pk}/live/")
    assert page.status_code == 200 and api.status_code == 200
    current = api.json()["current"]
    viewer = client.get(f"/dashboard/matches/{match.pk}/games/{current}/")
    assert viewer.status_code == 200
    return page.content.decode(), api.json(), viewer.content.decode()


@pytest.mark.slow
def test_a_running_20_game_match_shows_its_finished_games_and_its_current_game(organiser):
    # Arrange: a 20-game match claimed by a worker; a visitor watches it while it plays.
    competition = make_competition(
        organiser, games=GAMES, entries=4, variant="maniglia-4", start=True
    )
    match = claim(competition)
    publisher = live.live_publisher(match=match)
    visitor = Client()
    seen: list[tuple[int, str, dict, str, set[str]]] = []

    def on_action(index: int, state) -> None:
        publisher.action_applied(index, state)
        looks = (0, 5, 19)  # one look into each of these games, some way into it
        due = index in looks and len(seen) == looks.index(index)
        if due and len(state.record()["actions"]) >= 12:
            page, api, viewer = live_texts(visitor, match)
            seen.append((index, page, api, viewer, hidden_cards(state)))

    # Act: the match is played as a worker plays it.
    played = services.match_play(match=match, on_game=publisher.game_finished, on_action=on_action)

    # Assert: at each look, the games finished so far and the current one, nothing hidden.
    assert [index for index, *_ in seen] == [0, 5, 19]
    for index, page, api, viewer, hidden in seen:
        assert [g["number"] for g in api["games"]] == list(range(1, index + 1))
        assert api["current"] == index + 1 and api["status"] == "running"
        game = api["game"]
        assert game["number"] == index + 1 and not game["over"] and len(game["moves"]) >= 12
        assert "hand" not in game["view"]
        assert hidden, "the seats hold cards nobody has seen"
        for text in (json.dumps(api), viewer):
            assert not [card for card in hidden if f'"{card}"' in text], "a hidden card leaked"
        assert "hand seat" not in viewer
        for number in range(1, index + 1):
            assert f"/dashboard/matches/{match.pk}/games/{number}/" in page
        assert f'id="current-game">Watch game {index + 1}' in page
        assert "No games stored yet" not in page
    # A finished game of the running match replays (public view) from the live store.
    assert len(played.result.games) == GAMES
    finished = visitor.get(f"/dashboard/matches/{match.pk}/games/3/")
    assert finished.status_code == 200 and b'"hand seat' not in finished.content

    # Once recorded and closed, the live pages lead to the stored games.
    assert services.match_record(match=match, played=played, claimed_by="test/1/task", send=None)
    publisher.close()
    stored = visitor.get(f"/dashboard/matches/{match.pk}/games/3/")
    assert stored.status_code == 302 and "/dashboard/games/" in stored["Location"]
    assert visitor.get(f"/api/matches/{match.pk}/live/").json()["games"] == []


def test_an_owner_sees_only_their_own_seat_and_only_where_the_full_view_rule_allows(
    organiser,
):
    competition = make_competition(organiser, games=3, entries=3, start=True)
    match = claim(competition)
    owner = make_user("owner")
    seat = match.seats.get(seat=1)
    seat.entry.bot.owner = owner
    seat.entry.bot.save()
    publisher = live.live_publisher(match=match)
    state = games.load("manni-basic").new_game(7)
    for _ in range(4):
        state.apply(state.legal_actions()[0])
    publisher.action_applied(0, state)
    client = Client()
    client.force_login(owner)

    running = client.get(f"/api/matches/{match.pk}/live/").json()["game"]["view"]
    staff = make_user("staff", is_staff=True)
    seat.entry.bot.owner = staff
    seat.entry.bot.save()
    client.force_login(staff)
    allowed = client.get(f"/api/matches/{match.pk}/live/").json()["game"]["view"]

    assert not [
        k for k in running if k == "hand" or k.startswith("hand seat")
    ]  # the rule allows nothing yet
    assert [k for k in allowed if k.startswith("hand seat")] == ["hand seat 1"]
    assert allowed["hand seat 1"] == state.observation(1)["hand"]


def test_a_retried_match_does_not_show_the_games_of_its_failed_attempt(organiser):
    # Arrange: a first attempt publishes two games, then its worker dies (nothing closed).
    competition = make_competition(organiser, games=3, entries=3, start=True)
    match = claim(competition)
    first = live.live_publisher(match=match)
    players = [InProcessPlayer(make("random", seed=s)) for s in range(3)]
    play_match("manni-basic", players, games_count=2, seed=1, on_game=first.game_finished)
    client = Client()
    assert len(client.get(f"/api/matches/{match.pk}/live/").json()["games"]) == 2
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FAILED)
    services.match_retry(match=match, by=organiser, send=None)

    # Act: the same worker claims it again (attempts were reset: 1 again).
    again = claim(competition)

    # Assert: nothing of the failed attempt shows.
    assert again.pk == match.pk and again.attempts == 1
    api = client.get(f"/api/matches/{match.pk}/live/").json()
    assert api["games"] == [] and api["current"] == 1 and api["game"] is None
    page = client.get(f"/dashboard/matches/{match.pk}/").content.decode()
    assert f"/dashboard/matches/{match.pk}/games/2/" not in page
    assert client.get(f"/dashboard/matches/{match.pk}/games/1/").status_code == 200
    assert client.get(f"/dashboard/matches/{match.pk}/games/2/").status_code == 404


def test_the_game_number_must_be_a_number(organiser):
    competition = make_competition(organiser, games=3, entries=3, start=True)
    match = claim(competition)
    response = Client().get(f"/api/matches/{match.pk}/live/?game=x")
    assert response.status_code == 400 and "game" in response.json()


def test_a_match_not_running_has_nothing_live(organiser):
    competition = make_competition(organiser, games=3, entries=3, start=True)
    match = competition.matches.first()
    api = Client().get(f"/api/matches/{match.pk}/live/").json()
    assert api == {
        "match": match.pk,
        "status": "pending",
        "games": [],
        "current": None,
        "game": None,
    }
    assert Client().get(f"/dashboard/matches/{match.pk}/games/1/").status_code == 404


def test_the_worker_writes_nothing_at_first_and_then_at_most_once_per_interval(organiser):
    competition = make_competition(organiser, games=3, entries=3, start=True)
    match = claim(competition)
    now = [0.0]
    publisher = live.LivePublisher(
        match_id=match.pk,
        token=live.claim_token(match),
        moves_s=0.25,
        games_s=0.05,
        after_s=0.5,
        clock=lambda: now[0],
    )
    state = games.load("manni-basic").new_game(3)

    def moves(count: int, every_s: float) -> None:
        for _ in range(count):
            now[0] += every_s
            state.apply(state.legal_actions()[0])
            publisher.action_applied(0, state)

    moves(40, 0.01)  # 0.4 s: within the quiet start
    assert publisher.flushes == 0 and not publisher.written
    moves(60, 0.01)  # 0.4 s to 1.0 s: one write at 0.5 s, then every 0.25 s at most
    assert publisher.flushes == 3
    head = live.live_head(match_id=match.pk, token=live.claim_token(match))
    assert head.current["index"] == 0 and len(head.current["record"]["actions"]) >= 90


def test_a_cache_that_is_down_never_stops_the_match(organiser):
    competition = make_competition(organiser, games=3, entries=3, start=True)
    match = claim(competition)
    publisher = live.live_publisher(match=match)

    class Down:
        def set_many(self, *args, **kwargs):
            raise ConnectionError("the cache is down")

    publisher.cache = Down()  # this publisher's only (the cache itself is shared)

    played = services.match_play(
        match=match, on_game=publisher.game_finished, on_action=publisher.action_applied
    )
    publisher.close()

    assert len(played.result.games) == 3 and publisher.flushes == 0
