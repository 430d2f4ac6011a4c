"""Bot programs get the engines' shared observations: the lines stay byte for byte the same.

``ProcessPlayer`` says ``encodes_observation``: the referee then hands it
``State.shared_observation`` (the engine's own history objects, extended in
place) instead of a fresh ``observation``. What the bot reads must not change:
the act lines of a whole match, plain and ``history_delta``, are compared with
the plain encoding of fresh observations, for every variant.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from bots import protocol
from bots.referee import InProcessPlayer, ProcessPlayer, play_match
from bots.referee.encoding import ActEncoder
from bots.sdk import Bot, History


class Pick(Bot):
    """Plays legal action ``choices[k] % len(legal)`` at its k-th decision."""

    name = "pick"

    def __init__(self, choices: list[int]) -> None:
        self.choices, self.calls = choices, 0

    def act(self, observation, legal):
        self.calls += 1
        return legal[self.choices[self.calls % len(self.choices)] % len(legal)]


class Lines(InProcessPlayer):
    """Encodes every act message as a ``ProcessPlayer`` would, and keeps the lines."""

    def __init__(self, bot: Bot, *, shared: bool, delta: bool = False) -> None:
        super().__init__(bot)
        self.encodes_observation = shared
        self.encoder = ActEncoder(delta=delta)
        self.lines: list[bytes] = []
        self.plain: list[bytes] = []  # protocol.encode of the same message, when it came

    def act(self, message, timeout_s):
        self.lines.append(self.encoder.encode(message))
        self.plain.append(protocol.encode(message))
        return super().act(message, timeout_s)


def test_a_bot_program_is_given_the_shared_observation():
    assert ProcessPlayer.encodes_observation is True
    assert InProcessPlayer.encodes_observation is False  # built-ins may keep what they get

    seen = []

    class Keep(Lines):
        def act(self, message, timeout_s):
            seen.append(message["observation"])
            return super().act(message, timeout_s)

    players = [Keep(Pick([0]), shared=i == 0) for i in range(3)]
    play_match("manni-basic", players, seed=5)
    assert seen and all(isinstance(o["history"], list) for o in seen)


@pytest.mark.parametrize("variant", games.variants())
@settings(max_examples=2, deadline=None)
@given(seed=st.integers(0, 2**32), choices=st.lists(st.integers(0, 40), min_size=5, max_size=60))
def test_shared_observations_give_the_lines_of_fresh_ones(variant, seed, choices):
    n = games.load(variant).num_players
    runs = {}
    for shared in (False, True):
        for delta in (False, True):
            players = [Lines(Pick(choices), shared=shared, delta=delta) for _ in range(n)]
            play_match(variant, players, seed=seed)
            runs[shared, delta] = players
    for p in range(n):
        fresh, shared = runs[False, False][p], runs[True, False][p]
        assert shared.lines == fresh.lines == fresh.plain  # byte for byte
        rebuilt = History()
        for line, plain in zip(runs[True, True][p].lines, fresh.plain, strict=True):
            sent = json.loads(line)
            observation = rebuilt.complete(sent)
            del sent["history_from"]
            assert {**sent, "observation": observation} == json.loads(plain)
