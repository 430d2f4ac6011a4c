"""The referee with in-process bots: scheduling, seeds, time control and forfeits."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from bots import protocol
from bots.builtin import make
from bots.referee import InProcessPlayer, TimeControl, game_seed, play_match
from bots.referee.encoding import ActEncoder
from bots.referee.match import rotations, schedule
from bots.sdk import Bot, History


def randoms(n, seed=0):
    return [InProcessPlayer(make("random", seed=seed + i)) for i in range(n)]


class Scripted(Bot):
    """Plays the first legal label, except that it misbehaves at decision ``at``."""

    def __init__(self, how, at=3):
        self.how, self.at, self.calls, self.results = how, at, 0, []

    def act(self, observation, legal):
        self.calls += 1
        if self.calls == self.at:
            if self.how == "illegal":
                return "play ZZ"
            if self.how == "crash":
                raise RuntimeError("boom")
            if self.how == "slow":
                time.sleep(0.05)
            if self.how == "not-a-string":
                return 42
        return legal[0]

    def game_over(self, result):
        self.results.append(result)


def test_duplicate_schedule_rotates_every_deal_through_every_seat():
    plan = schedule(6, 3, duplicate=True)
    # Rotation by rotation: every deal once at one seating, then the next seating.
    assert [deal for deal, _ in plan] == [0, 1, 0, 1, 0, 1]
    assert [seats for _, seats in plan] == [
        [0, 1, 2],
        [0, 1, 2],
        [2, 0, 1],
        [2, 0, 1],
        [1, 2, 0],
        [1, 2, 0],
    ]
    assert rotations(plan) == [(0, 2), (2, 4), (4, 6)]
    for deal in (0, 1):
        seatings = [seats for d, seats in plan if d == deal]
        for player in range(3):
            assert sorted(s.index(player) for s in seatings) == [0, 1, 2]
    with pytest.raises(ValueError, match="multiple of 3"):
        schedule(4, 3, duplicate=True)


def test_duplicate_keeps_partners_together():
    """MANIGLIA-4P-1: rotating seats by one keeps players 0+2 and 1+3 partners."""
    for _, seats in schedule(8, 4, duplicate=True):
        assert seats.index(0) % 2 == seats.index(2) % 2


def test_duplicate_games_share_their_decks():
    result = play_match("manni-hornafjordur", randoms(3), games_count=3, seed=5, duplicate=True)
    decks = {json.dumps(g.record["decks"][0]) for g in result.games}
    assert len(decks) == 1
    assert {g.seed for g in result.games} == {game_seed(5, 0)}


def test_a_match_is_reproducible_from_its_seed():
    def played(result):  # the decision traces are measurements: left out
        return [{k: v for k, v in g.record.items() if k != "traces"} for g in result.games]

    a = play_match("laugavatnsmanni", randoms(3), games_count=2, seed=9)
    b = play_match("laugavatnsmanni", randoms(3), games_count=2, seed=9)
    assert played(a) == played(b)
    c = play_match("laugavatnsmanni", randoms(3), games_count=2, seed=10)
    assert played(a) != played(c)


def test_every_variant_plays_a_match_and_records_replay():
    for variant in games.variants():
        n = games.load(variant).num_players
        result = play_match(variant, randoms(n), games_count=2, seed=1)
        for g in result.games:
            assert games.replay(g.record).scores() == g.scores
            assert all(s["status"] == "ok" for s in g.statuses)


def test_money_alternates_the_dealer():
    """COMMON-2: in Money the platform alternates the dealer between games."""
    result = play_match("money-jordan", randoms(2), games_count=4, seed=2)
    assert [g.record["dealer"] for g in result.games] == [0, 1, 0, 1]


@pytest.mark.parametrize(
    ("how", "status"),
    [
        ("illegal", "illegal"),
        ("crash", "crash"),
        ("not-a-string", "malformed"),
    ],
)
def test_a_fault_forfeits_the_game_for_the_offender(how, status):
    """FORFEIT-1, FORFEIT-2: the offender is ranked last alone, the reason recorded."""
    bad = Scripted(how)
    players = [InProcessPlayer(bad, name="bad"), *randoms(2)]
    result = play_match("manni-basic", players, games_count=3, seed=4)
    first = result.games[0]
    assert first.statuses[0]["status"] == status and first.statuses[0]["reason"]
    assert first.ranking[0] == 3 and sorted(first.ranking[1:]) in ([1, 1], [1, 2])
    assert first.record["forfeit"]["seat"] == 0
    later = [g.statuses[0]["status"] for g in result.games[1:]]
    # An illegal label costs one game; a crashed or broken bot is out of the match.
    assert later == (["ok", "ok"] if how == "illegal" else [status, status])


def test_time_bank_runs_out():
    """LIMIT-6: a move over the allowance draws on the bank; an empty bank is a timeout."""
    players = [InProcessPlayer(Scripted("slow"), name="slow"), *randoms(2)]
    tc = TimeControl(move_ms=1, bank_ms=10)
    result = play_match("manni-basic", players, games_count=1, seed=4, time_control=tc)
    assert result.games[0].statuses[0]["status"] == "timeout"
    assert result.games[0].ranking[0] == 3


def test_bots_hear_every_result():
    bot = Scripted("none")
    play_match("manni-basic", [InProcessPlayer(bot), *randoms(2)], games_count=2, seed=1)
    assert [r["game"] for r in bot.results] == [0, 1]
    assert all(r["type"] == "result" and len(r["ranking"]) == 3 for r in bot.results)


def test_forced_moves_are_applied_without_asking():
    """ACTION-6: a lone legal action is played for the bot, and recorded."""
    bot = Scripted("none")
    result = play_match("money-jordan", [InProcessPlayer(bot), *randoms(1)], games_count=1)
    assert bot.calls < len(result.games[0].record["actions"]) / 2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"variant": "nope"}, "unknown variant"),
        ({"players": 2}, "needs 3 players"),
        ({"games_count": 0}, "positive integer"),
        ({"options": {"manni.tie": "x"}}, "manni.tie"),
    ],
)
def test_bad_match_requests_are_named(kwargs, message):
    args = {"variant": "manni-basic", "players": 3, "games_count": 1, "options": None}
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        play_match(
            args["variant"],
            randoms(args["players"]),
            games_count=args["games_count"],
            options=args["options"],
        )


def test_time_control_is_validated():
    with pytest.raises(ValueError, match="move_ms"):
        TimeControl(move_ms=0)


class Recorder(Bot):
    """Logs every hello and every game it is asked to act in."""

    name = "recorder"

    def __init__(self, log: list) -> None:
        self.log = log

    def start(self, hello):
        self.log.append(("hello", hello))

    def act(self, observation, legal):
        self.log.append(("act", None))
        return legal[0]

    def game_over(self, result):
        self.log.append(("result", result["game"]))


def test_each_rotation_of_a_duplicate_match_starts_the_players_afresh():
    """A player is started again (for a bot program: a fresh process) at each rotation,
    and within one start it plays every deal once: it never meets a deal it has seen."""
    log: list = []
    players = [InProcessPlayer(Recorder(log)), *randoms(2)]
    result = play_match("manni-basic", players, games_count=6, seed=3, duplicate=True)

    lifetimes: list[list[int]] = []
    for kind, value in log:
        if kind == "hello":
            lifetimes.append([])
            assert value["seat"] == [0, 1, 2][len(lifetimes) - 1]  # one seat on each time
        elif kind == "result":
            lifetimes[-1].append(value)
    assert lifetimes == [[0, 1], [2, 3], [4, 5]]
    for games_played in lifetimes:
        assert sorted(result.games[g].seed for g in games_played) == sorted(
            {game_seed(3, 0), game_seed(3, 1)}
        )


def test_a_player_out_of_the_match_is_not_started_again():
    class Crasher(Bot):
        name = "crasher"
        starts = 0

        def start(self, hello):
            Crasher.starts += 1

        def act(self, observation, legal):
            raise RuntimeError("boom")

    result = play_match(
        "manni-basic", [InProcessPlayer(Crasher()), *randoms(2)], games_count=6, duplicate=True
    )
    assert Crasher.starts == 1
    assert all(g.statuses[g.seats.index(0)]["status"] == "crash" for g in result.games)


def test_no_message_to_a_bot_carries_the_seed():
    """Nothing a bot receives lets it derive a deal: no seed in hello or elsewhere."""
    log: list = []
    play_match("manni-basic", [InProcessPlayer(Recorder(log)), *randoms(2)], seed=987654321)
    hello = next(value for kind, value in log if kind == "hello")
    assert hello["match"] == {"player": 0}
    assert "987654321" not in json.dumps(hello)


# -- incremental act encoding (bots/referee/encoding.py) ------------------------------------


def act_messages(variant: str, seed: int, choices: list[int], games_count: int = 2):
    """(seat, act message) for each decision of ``games_count`` games played by ``choices``."""
    game = games.load(variant)
    picks = iter(choices)
    for index in range(games_count):
        state = game.new_game(seed + index)
        for _ in range(120):
            if state.is_over():
                break
            seat = state.current_player()
            legal = state.legal_actions()
            message = protocol.act(
                game=index,
                observation=state.observation(seat),
                legal=legal,
                time_left_ms=5,
                move_limit_ms=3,
            )
            message["seat"] = seat
            yield seat, message
            state.apply(legal[next(picks, 0) % len(legal)])


@pytest.mark.parametrize("variant", games.variants())
@settings(max_examples=4, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    choices=st.lists(st.integers(0, 50), min_size=40, max_size=240),
)
def test_the_incremental_encoding_sends_each_seat_exactly_the_plain_observation(
    variant, seed, choices
):
    plain = [ActEncoder() for _ in range(5)]
    since_last = [ActEncoder(delta=True) for _ in range(5)]
    rebuilt = [History() for _ in range(5)]

    for seat, message in act_messages(variant, seed, choices):
        expected = protocol.encode(message)
        assert plain[seat].encode(message) == expected  # byte for byte
        sent = json.loads(since_last[seat].encode(message))
        assert sent["history_from"] <= len(rebuilt[seat].known)
        observation = rebuilt[seat].complete(sent)
        del sent["history_from"]
        assert {**sent, "observation": observation} == json.loads(expected)


def test_since_last_move_sends_the_last_history_element_and_the_new_ones_only():
    encoder = ActEncoder(delta=True)
    first = {"type": "act", "game": 0, "observation": {"seat": 1, "history": [[0, "a"]]}}
    later = {
        "type": "act",
        "game": 0,
        "observation": {"seat": 1, "history": [[0, "a"], [1, "b"], [0, "c"]]},
    }
    next_game = {"type": "act", "game": 1, "observation": {"seat": 1, "history": [[1, "x"]]}}

    assert json.loads(encoder.encode(first))["history_from"] == 0
    sent = json.loads(encoder.encode(later))
    assert sent["history_from"] == 0 and sent["observation"]["history"] == [
        [0, "a"],
        [1, "b"],
        [0, "c"],
    ]
    sent = json.loads(
        encoder.encode(
            {
                **later,
                "observation": {"seat": 1, "history": [*later["observation"]["history"], [1, "d"]]},
            }
        )
    )
    assert sent["history_from"] == 2 and sent["observation"]["history"] == [[0, "c"], [1, "d"]]
    sent = json.loads(encoder.encode(next_game))  # a new game starts from nothing
    assert sent["history_from"] == 0 and sent["observation"]["history"] == [[1, "x"]]
