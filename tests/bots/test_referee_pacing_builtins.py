"""The platform's built-ins are never paced: pacing hides what an uploaded bot's think
time could tell another, and a built-in signals to nobody; holding its instant answers
to the grid only made every match of house bots and every validation ten times longer."""

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


def test_an_uploaded_bots_turns_are_held_beside_built_ins(sleeps):
    players = [
        InProcessPlayer(First()),
        seat_player(builtin="greedy", seat=1, seed=7),
        seat_player(builtin="random", seat=2, seed=7),
    ]
    result = play_match(
        "manni-basic", players, games_count=1, seed=7, time_control=TimeControl(pace_ms=20)
    )
    decisions = len(players[0].charged_ms)
    assert decisions > 10 and result.games
    # Each of its turns but the game's first waits for the grid (the built-ins' never do).
    assert decisions - 1 <= len(sleeps) <= decisions
