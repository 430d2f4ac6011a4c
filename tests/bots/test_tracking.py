"""The SDK's tracked state: a bot follows its game from hello and observations."""

from __future__ import annotations

import random

import pytest

import games
from bots.referee import InProcessPlayer, play_match
from bots.sdk import GameTracker, TrackingBot, TrackingError


def hello_for(game: games.Game, seat: int) -> dict:
    return {
        "type": "hello",
        "protocol": 1,
        "variant": game.id,
        "options": dict(game.options),
        "seat": seat,
        "players": game.num_players,
    }


@pytest.mark.parametrize("variant", games.variants())
def test_tracker_follows_a_game_and_its_worlds_match_what_the_seat_saw(variant):
    game = games.load(variant)
    state = game.new_game(21)
    rng = random.Random(4)
    trackers = [GameTracker(hello_for(game, s)) for s in range(game.num_players)]
    decisions = 0
    while not state.is_over() and decisions < 60:
        seat = state.current_player()
        tracker = trackers[seat]
        tracker.update(state.observation(seat))
        assert tracker.to_move == seat
        assert tracker.legal() == state.legal_actions()  # its own move is always known
        world = tracker.sample(rng)
        assert world.observation(seat) == state.observation(seat)
        assert tracker.legal(world) == world.legal_actions()
        hidden = set(tracker.unseen_cards())
        assert not hidden & set(state.observation(seat).get("hand", []))
        state.apply(rng.choice(state.legal_actions()))
        decisions += 1
    assert decisions > 10


def test_legal_labels_of_another_seat_are_given_only_when_public():
    game = games.load("maniglia-4")
    state = game.new_game(5)
    watcher = GameTracker(hello_for(game, 1))
    # The auction: a bid list does not depend on anybody's cards.
    mover = state.current_player()
    assert mover != 1
    watcher.update(state.observation(1))
    assert watcher.legal() == state.legal_actions()
    # Card play: what another seat may play depends on its hidden hand.
    rng = random.Random(0)
    while state.observation(0)["phase"] != "play":
        state.apply(rng.choice(state.legal_actions()))
    while state.current_player() == 1:
        state.apply(state.legal_actions()[0])
    watcher.update(state.observation(1))
    assert watcher.legal() is None


def test_voids_are_read_from_the_current_deal():
    game = games.load("manni-basic")
    rng = random.Random(8)
    for seed in range(30):
        state = game.new_game(seed)
        while not state.is_over() and state.observation(0)["deal"] == 1:
            tracker = GameTracker(hello_for(game, 0))
            tracker.update(state.observation(0))
            voids = tracker.voids()
            if any(voids[1:]):
                for seat in (1, 2):
                    hand = state.observation(seat)["hand"]
                    assert not [c for c in hand if c[1] in voids[seat]]
                return
            state.apply(rng.choice(state.legal_actions()))
    pytest.fail("no void shown in 30 deals")


class FirstWorldBot(TrackingBot):
    """Plays the first legal label of a sampled world (which must be legal really)."""

    name = "first-world"

    def decide(self, tracker, legal):
        world = tracker.sample(self.rng)
        choice = tracker.legal(world)[0]
        assert choice in legal
        return choice


def test_a_tracking_bot_plays_whole_matches_through_the_referee():
    result = play_match(
        "laugavatnsmanni",
        [InProcessPlayer(FirstWorldBot(s)) for s in range(3)],
        games_count=1,
        seed=3,
        options={"laug.stop_at": 5},
    )
    assert [s["status"] for s in result.games[0].statuses] == ["ok", "ok", "ok"]


def test_messages_out_of_order_or_for_another_game_are_refused():
    game = games.load("manni-basic")
    state = game.new_game(1)
    with pytest.raises(TrackingError, match="starts from the hello"):
        GameTracker({"type": "act"})
    with pytest.raises(TrackingError, match="lacks 'seat'"):
        GameTracker({"type": "hello", "variant": "manni-basic"})
    with pytest.raises(TrackingError, match="unknown variant 'poker'"):
        GameTracker({"type": "hello", "variant": "poker", "seat": 0})
    with pytest.raises(TrackingError, match="seat must be in 0..2"):
        GameTracker({**hello_for(game, 0), "seat": 3})
    tracker = GameTracker(hello_for(game, 0))
    with pytest.raises(TrackingError, match="no observation yet"):
        tracker.sample(random.Random(0))
    other = games.load("maniglia-3").new_game(1).observation(0)
    with pytest.raises(TrackingError, match="'maniglia-3' fed to a tracker of 'manni-basic'"):
        tracker.update(other)
    with pytest.raises(TrackingError, match="for seat 2, tracker is seat 0"):
        tracker.update(state.observation(2))
    assert tracker.observation is None  # nothing was taken in
    bot = FirstWorldBot()
    with pytest.raises(TrackingError, match="act before hello"):
        bot.act(state.observation(0), state.legal_actions())
