"""The JSON-lines protocol helpers and the Python SDK loop."""

from __future__ import annotations

import io
import json
import random

import pytest

import games
from bots import protocol
from bots.sdk import Bot, FunctionBot, History, run


def test_messages_carry_the_documented_fields():
    hello = protocol.hello(
        variant="manni-basic",
        options={},
        seat=1,
        players=3,
        match={"seed": 1},
        time_control={"move_ms": 5, "bank_ms": 9},
    )
    assert hello["type"] == "hello" and hello["protocol"] == protocol.VERSION
    act = protocol.act(
        game=0, observation={"x": 1}, legal=["keep"], time_left_ms=9, move_limit_ms=5
    )
    assert set(act) == {"type", "game", "observation", "legal", "time_left_ms", "move_limit_ms"}
    line = protocol.encode(act)
    assert line.endswith(b"\n") and line.count(b"\n") == 1 and json.loads(line) == act


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b"not json", "not JSON"),
        (b'{"act": "keep"}', "lacks 'action'"),
        (b'{"action": 3}', "must be a string"),
        (b"[1, 2]", "lacks"),
        (b"\xff\xfe", "UTF-8"),
        (b'{"action": "' + b"x" * protocol.MAX_LINE_BYTES + b'"}', "longer than"),
    ],
)
def test_bad_replies_are_protocol_errors(line, message):
    with pytest.raises(protocol.ProtocolError, match=message):
        protocol.parse_reply(line, "action")


def test_ready_must_be_true():
    assert protocol.parse_reply(b'{"ready": true, "name": "x"}', "ready") is True
    with pytest.raises(protocol.ProtocolError):
        protocol.parse_reply(b'{"ready": "yes"}', "ready")


def test_sdk_serves_hello_act_result_bye_and_ignores_unknown_messages():
    seen = []

    class Recorder(Bot):
        name = "recorder"

        def start(self, hello):
            seen.append(("start", hello["seat"]))

        def act(self, observation, legal):
            return legal[-1]

        def game_over(self, result):
            seen.append(("over", result["ranking"]))

    lines = [
        {"type": "hello", "protocol": 1, "seat": 2, "variant": "manni-basic"},
        {"type": "news", "text": "ignored"},
        {"type": "act", "observation": {}, "legal": ["keep", "take"], "extra": 1},
        {"type": "result", "ranking": [1, 2, 3]},
        {"type": "bye"},
        {"type": "act", "observation": {}, "legal": ["never"]},
    ]
    stdin = io.StringIO("".join(json.dumps(m) + "\n" for m in lines))
    stdout = io.StringIO()
    run(Recorder(), stdin, stdout)
    replies = [json.loads(x) for x in stdout.getvalue().splitlines()]
    assert replies == [{"ready": True, "name": "recorder"}, {"action": "take"}]
    assert seen == [("start", 2), ("over", [1, 2, 3])]


def test_function_bot_wraps_a_function():
    bot = FunctionBot(lambda obs, legal: legal[0])
    assert bot.act({}, ["a", "b"]) == "a" and bot.name == "<lambda>"


@pytest.mark.parametrize("variant", games.variants())
def test_act_encoder_gives_the_same_messages_as_plain_encoding(variant):
    """The cached history encoding never changes what a bot receives."""
    state = games.load(variant).new_game(2)
    rnd = random.Random(2)
    encoders: dict[int, protocol.ActEncoder] = {}
    for game in range(2):
        state = games.load(variant).new_game(game)
        for _ in range(300):
            if state.is_over():
                break
            seat = state.current_player()
            message = protocol.act(
                game=game,
                observation=state.observation(seat),
                legal=state.legal_actions(),
                time_left_ms=5,
                move_limit_ms=3,
            )
            line = encoders.setdefault(seat, protocol.ActEncoder()).encode(message)
            assert line.endswith(b"\n") and line.count(b"\n") == 1
            assert json.loads(line) == json.loads(protocol.encode(message))
            state.apply(rnd.choice(state.legal_actions()))


def serve(bot: Bot, messages: list[dict]) -> list[dict]:
    stdout = io.StringIO()
    run(bot, io.StringIO("".join(json.dumps(m) + "\n" for m in messages)), stdout)
    return [json.loads(line) for line in stdout.getvalue().splitlines()]


class Seeing(Bot):
    name = "seeing"

    def __init__(self, history_delta: bool = True) -> None:
        self.history_delta = history_delta
        self.seen: list[dict] = []

    def act(self, observation, legal):
        self.seen.append(observation)
        return legal[0]


OFFER = {"type": "hello", "protocol": 1, "seat": 0, "extensions": {"history_delta": 1}}


@pytest.mark.parametrize(
    ("hello", "history_delta", "accepted"),
    [
        (OFFER, True, {"history_delta": 1}),
        (OFFER, False, None),
        ({**OFFER, "extensions": {"history_delta": 2}}, True, None),  # a version it does not know
        ({"type": "hello", "protocol": 1, "seat": 0}, True, None),  # a version 1 platform
    ],
)
def test_sdk_accepts_history_delta_only_when_offered_and_allowed(hello, history_delta, accepted):
    [ready] = serve(Seeing(history_delta), [hello])

    assert ready.get("extensions") == accepted


def test_sdk_puts_the_history_back_so_act_sees_the_whole_observation():
    bot = Seeing()
    messages = [
        OFFER,
        {"type": "act", "game": 0, "history_from": 0, "observation": {"history": [[0, "a"]]}},
        {
            "type": "act",
            "game": 0,
            "history_from": 0,
            "observation": {"history": [[0, "a"], [1, "b"]]},
        },
        {
            "type": "act",
            "game": 0,
            "history_from": 1,
            "observation": {"history": [[1, "b"], [0, "c"]]},
        },
        {"type": "act", "game": 1, "history_from": 0, "observation": {"history": [[1, "x"]]}},
        {"type": "act", "game": 1, "observation": {"history": [[1, "x"], [0, "y"]]}},  # version 1
    ]
    for message in messages[1:]:
        message["legal"] = ["keep"]

    serve(bot, messages)

    assert [o["history"] for o in bot.seen] == [
        [[0, "a"]],
        [[0, "a"], [1, "b"]],
        [[0, "a"], [1, "b"], [0, "c"]],
        [[1, "x"]],
        [[1, "x"], [0, "y"]],
    ]


@pytest.mark.parametrize(
    "message",
    [
        {"game": 0, "history_from": 3, "observation": {"history": []}},  # more than it was sent
        {"game": 0, "history_from": -1, "observation": {"history": []}},
        {"game": 0, "history_from": "1", "observation": {"history": []}},
        {"game": 0, "history_from": 0, "observation": {"history": "all of it"}},
        {"game": 1, "history_from": 1, "observation": {"history": [[0, "b"]]}},  # a new game
    ],
)
def test_sdk_refuses_a_history_that_does_not_follow_what_it_got(message):
    history = History()
    history.complete({"game": 0, "history_from": 0, "observation": {"history": [[0, "a"]]}})

    with pytest.raises(ValueError, match="does not follow"):
        history.complete(message)


def test_sdk_sends_the_note_of_a_decision_with_its_answer_and_only_with_it():
    class Explaining(Bot):
        name = "explaining"

        def act(self, observation, legal):
            if legal[0] == "why":
                self.note("the first was best")
            return legal[0]

    lines = [
        {"type": "hello", "protocol": 1, "seat": 0},
        {"type": "act", "observation": {}, "legal": ["why", "b"]},
        {"type": "act", "observation": {}, "legal": ["silent", "b"]},
        {"type": "bye"},
    ]
    stdin = io.StringIO("".join(json.dumps(m) + "\n" for m in lines))
    stdout = io.StringIO()
    run(Explaining(), stdin, stdout)
    replies = [json.loads(x) for x in stdout.getvalue().splitlines()][1:]
    assert replies == [{"action": "why", "note": "the first was best"}, {"action": "silent"}]
