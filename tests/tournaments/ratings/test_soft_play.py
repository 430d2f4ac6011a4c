"""Soft-play signals (tournaments/ratings/soft_play.py): the tricks a bot could have taken
from another and let go, counted from the game records, against the same bot's chances
with the other seats at the same tables."""

from __future__ import annotations

import pytest

import games
from bots import builtin
from bots.referee import InProcessPlayer, play_match
from tests.bots.hostile.colluder import Colluder
from tournaments.ratings.soft_play import SoftPlay, chances, game_tally, soft_play, tally


def test_a_tally_counts_each_pair_of_seats_and_the_report_compares_like_with_like():
    found = [(0, 1, True), (0, 1, True), (0, 1, False), (0, 2, False), (1, 0, False)]
    assert tally(found) == [[0, 1, 3, 2], [0, 2, 1, 0], [1, 0, 1, 0]]

    signals = soft_play([(("ann", "bob", "cy"), tally(found))] * 10)

    ann_to_bob = signals["ann", "bob"]
    assert (ann_to_bob.chances, ann_to_bob.let_go) == (30, 20)
    assert (ann_to_bob.chances_others, ann_to_bob.let_go_others) == (10, 0)
    assert ann_to_bob.p_value < 0.001  # bob's tricks let go, cy's never
    assert signals["ann", "cy"].p_value > 0.5  # the other way round: nothing suspicious
    assert signals["bob", "ann"] == SoftPlay(10, 0, 0, 0)
    assert signals["bob", "ann"].p_value == 1.0  # no chance against anyone else: no signal


def test_partners_the_rules_make_are_not_opponents():
    game = games.load("maniglia-4-partners")
    players = [InProcessPlayer(builtin.make("greedy", seed=s), f"g{s}") for s in range(4)]
    result = play_match("maniglia-4-partners", players, games_count=1, seed=4)
    found = chances(result.games[0].record)
    partners = {s: set(t) for t in game.variant.teams for s in t}
    assert found and all(winner not in partners[seat] for seat, winner, _ in found)


def test_two_seat_games_and_games_without_tricks_carry_no_tally():
    players = [InProcessPlayer(builtin.make("greedy", seed=s), f"g{s}") for s in range(2)]
    money = play_match("money-jordan", players, games_count=1, seed=1,
                       options={"money.max_plays": 60})  # fmt: skip
    assert game_tally(money.games[0].record) is None
    assert chances(money.games[0].record) == []


class KnownPartner(Colluder):
    """The hostile colluder told its partner's seat (the timing beacon it uses on a real
    worker reads the clock, which would make this test depend on the machine's load)."""

    def __init__(self, seed: int, name: str, seats: dict[str, int], *, collude: bool) -> None:
        super().__init__(seed, collude=collude, step_ms=0.0)
        self.own, self.seats = name, seats

    def start(self, hello):
        super().start(hello)
        self.seats[self.own] = self.seat

    def listen(self, gap_ms, actors):
        self.partner = next(seat for name, seat in self.seats.items() if name != self.own)


def _signals(collude: bool) -> dict:
    tables = []
    for m in range(4):
        seats: dict[str, int] = {}
        players = [
            InProcessPlayer(KnownPartner(10 * m, "a", seats, collude=collude), "a"),
            InProcessPlayer(KnownPartner(10 * m + 1, "b", seats, collude=collude), "b"),
            InProcessPlayer(builtin.make("greedy", seed=m), "outsider"),
        ]
        result = play_match("manni-basic", players, games_count=3, seed=m, duplicate=True)
        for played in result.games:
            seated = [("a", "b", "outsider")[p] for p in played.seats]
            tables.append((seated, game_tally(played.record)))
    return soft_play(tables)


@pytest.mark.slow
def test_the_colluders_soft_play_shows_on_the_same_deals_and_their_honest_twins_do_not():
    """The hostile colluders throw low cards under their partner's sure tricks; their
    honest twins (greedy moves) play the same deals."""
    colluding, honest = _signals(True), _signals(False)

    for giver, taker in (("a", "b"), ("b", "a")):
        signal = colluding[giver, taker]
        assert signal.chances >= 50 and signal.rate > 3 * signal.rate_others, signal
        assert signal.p_value < 1e-6
        assert honest[giver, taker].p_value > 0.05, honest[giver, taker]
    assert colluding["outsider", "a"].p_value > 0.05  # the outsider plays for nobody
