"""The platform's built-ins are never paced, and a table is paced only where two uploaded
bots sit: pacing hides what an uploaded bot's think time could tell another, and a
built-in signals to nobody, nor can one bot among built-ins. Holding every answer to the
grid made every match of house bots and every validation ten times longer."""

from __future__ import annotations

import pytest

from bots.referee import InProcessPlayer, TimeControl, play_match
from bots.referee import match as referee_match
from bots.referee.seating import seat_player
from bots.sdk import Bot


class First(Bot):
    """Stands for an uploaded bot: played in-process here, but paced like one."""

    name = "first"
    needs_observation = False

    def act(self, observation, legal):
        return legal[0]


@pytest.fixture
def sleeps(monkeypatch) -> list[float]:
    """The referee's pacing waits, counted instead of slept."""
    waited: list[float] = []
    monkeypatch.setattr(referee_match.time, "sleep", waited.append)
    return waited


def test_a_table_of_built_ins_is_never_held_to_the_grid(sleeps):
    players = [
        seat_player(builtin=name, seat=i, seed=7)
        for i, name in enumerate(("random", "greedy", "random"))
    ]
    assert not any(p.paced for p in players)
    play_match("manni-basic", players, games_count=1, seed=7, time_control=TimeControl(pace_ms=20))
    assert sleeps == []


def test_one_uploaded_bot_among_built_ins_is_not_held_it_has_nobody_to_tell(sleeps):
    # Its validation and a house table of a ladder: the same, and unpaced both.
    players = [
        InProcessPlayer(First()),
        seat_player(builtin="greedy", seat=1, seed=7),
        seat_player(builtin="random", seat=2, seed=7),
    ]
    result = play_match(
        "manni-basic", players, games_count=1, seed=7, time_control=TimeControl(pace_ms=20)
    )
    assert len(players[0].charged_ms) > 10 and result.games
    assert sleeps == []


def test_two_uploaded_bots_at_a_table_have_their_turns_held_beside_built_ins(sleeps):
    players = [
        InProcessPlayer(First()),
        InProcessPlayer(First()),
        seat_player(builtin="random", seat=2, seed=7),
    ]
    result = play_match(
        "manni-basic", players, games_count=1, seed=7, time_control=TimeControl(pace_ms=20)
    )
    decisions = len(players[0].charged_ms) + len(players[1].charged_ms)
    assert decisions > 10 and result.games
    # Each of their turns but the game's first waits for the grid (the built-in's never do).
    assert decisions - 1 <= len(sleeps) <= decisions
