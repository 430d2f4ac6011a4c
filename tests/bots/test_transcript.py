"""Transcripts of recorded games: exactly the lines the referee sent, and replays of them.

The transcripts are rebuilt from the game records alone and compared, byte for
byte, with what a real referee run wrote to sandboxed bot programs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import games
from bots import builtin, protocol, sandbox
from bots.referee import GameResult, InProcessPlayer, ProcessPlayer, TimeControl, play_match
from bots.referee.encoding import HISTORY_DELTA
from bots.referee.replay import replay_transcript, report_lines
from bots.referee.transcript import (
    Transcript,
    TranscriptError,
    game_transcript,
    match_transcripts,
    parse_transcript,
)
from tests.factories import one_process, raw_bot

needs_sandbox = pytest.mark.skipif(not sandbox.available(), reason="needs the bot sandbox")
EXAMPLE = Path(__file__).resolve().parents[2] / "bots" / "examples" / "python"


class RecordingPlayer(ProcessPlayer):
    """A bot program whose every line sent (or tried: ``bye`` to a dead bot) is kept."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.sent: list[bytes] = []
        self.accepted: list[bool] = []  # per process: did it accept history_delta?
        self._said_bye: set[int] = set()

    def start_end(self) -> None:
        super().start_end()
        self.accepted.append(HISTORY_DELTA in self.extensions)

    def _send(self, line: bytes) -> None:
        self.sent.append(line)
        super()._send(line)

    def close(self) -> None:
        if self.process is not None and id(self.process) not in self._said_bye:
            self._said_bye.add(id(self.process))
            self.sent.append(protocol.encode(protocol.bye()))
        super().close()


def recording(path: Path) -> RecordingPlayer:
    command, bot_dir = sandbox.resolve(path)
    return RecordingPlayer(command, bot_dir, name=path.name)


def transcripts_of(result, player: int, tc: TimeControl) -> list[Transcript]:
    return [
        game_transcript(
            g.record,
            game=g.index,
            seats=g.seats,
            player=player,
            time_control=tc,
            scores=g.scores,
            ranking=g.ranking,
            statuses=g.statuses,
        )
        for g in result.games
    ]


@pytest.mark.slow
@needs_sandbox
def test_a_transcript_is_every_line_the_referee_sent_each_seat_of_a_duplicate_match(tmp_path):
    """Duplicate: each game its own process, seats rotating; the SDK example accepts
    ``history_delta`` (shortened acts), the raw bot does not (whole acts)."""
    players = [recording(raw_bot(tmp_path / "raw")), recording(EXAMPLE / "bot.py")]
    players.append(InProcessPlayer(builtin.make("random", seed=1)))
    tc = TimeControl(move_ms=2_000, bank_ms=20_000)

    result = play_match(
        "manni-basic", players, games_count=3, seed=11, duplicate=True, time_control=tc
    )

    assert players[0].accepted == [False] * 3 and players[1].accepted == [True] * 3
    for p in (0, 1):
        transcripts = transcripts_of(result, p, tc)
        assert [t.header["seat"] for t in transcripts] == [g.seats.index(p) for g in result.games]
        sent = [b for t in transcripts for b in one_process([t], players[p].accepted[0])]
        assert sent == players[p].sent
        assert all(len(t.decisions()) > 5 for t in transcripts)


@needs_sandbox
def test_after_an_illegal_answer_the_bot_plays_on_and_its_transcript_says_the_fault(tmp_path):
    player = recording(raw_bot(tmp_path / "b", "illegal", at=2))
    tc = TimeControl()
    players = [player, InProcessPlayer(builtin.make("random", seed=2))]

    result = play_match("money-jordan", players, games_count=2, seed=3, time_control=tc)

    first, second = transcripts_of(result, 0, tc)
    assert one_process([first, second], delta=False) == player.sent
    (act, fault) = first.decisions()[1]
    assert fault["answered"] is None and fault["fault"]["status"] == "illegal"
    assert [line["sent"]["type"] for line in first.lines[-2:]] == ["result", "bye"]
    assert second.header["status"]["status"] == "ok" and second.decisions()


@needs_sandbox
def test_a_crashed_bot_is_sent_bye_instead_of_a_result_and_nothing_afterwards(tmp_path):
    player = recording(raw_bot(tmp_path / "b", "crash", at=2))
    tc = TimeControl()
    players = [player, InProcessPlayer(builtin.make("random", seed=2))]

    result = play_match("money-jordan", players, games_count=2, seed=3, time_control=tc)

    first, second = transcripts_of(result, 0, tc)
    assert one_process([first, second], delta=False) == player.sent
    assert first.decisions()[-1][1]["fault"]["status"] == "crash"
    assert [line["sent"]["type"] for line in first.lines if "sent" in line][-2:] == ["act", "bye"]
    assert second.lines == []  # out of the match: it was sent nothing
    assert second.header["status"]["reason"].startswith("out of the match")


def traced_game() -> tuple[dict, list[int], GameResult]:
    """A game of Money with made-up traces: seat 0 over its move limit at its 2nd decision;
    its record with the traces, the bank seat 0 had at each decision, the game."""
    players = [InProcessPlayer(builtin.make("random", seed=s)) for s in (1, 2)]
    game = play_match("money-jordan", players, seed=8).games[0]
    traces, bank = [], 20_000
    state = games.load("money-jordan").new_game(
        game.record["seed"], dealer=game.record["dealer"], decks=game.record["decks"]
    )
    lefts = []
    for ply, label in enumerate(game.record["actions"]):
        seat = state.current_player()
        if len(state.legal_actions()) > 1:
            charged = 2_500.7 if seat == 0 and len(lefts) == 1 else 12.3
            before = bank if seat == 0 else 20_000
            after = before - max(0, int(charged) - 2_000)
            if seat == 0:
                lefts.append(before)
                bank = after
            traces.append(
                {"seat": seat, "ply": ply, "charged_ms": charged, "wall_ms": charged + 1,
                 "cpu_ms": charged, "bank_ms": after, "stderr": "secret", "note": f"n{ply}"}
            )  # fmt: skip
        state.apply(label)
    return {**game.record, "traces": traces}, lefts, game


def test_each_decision_carries_its_timing_and_the_bank_it_was_sent_where_traced():
    record, lefts, game = traced_game()
    kwargs = dict(
        game=0, seats=[0, 1], player=0, time_control=TimeControl(),
        scores=game.scores, ranking=game.ranking, statuses=game.statuses,
    )  # fmt: skip

    traced = game_transcript(record, **kwargs)
    untraced = {key: value for key, value in game.record.items() if key != "traces"}
    plain = game_transcript(untraced, **kwargs)

    decisions = traced.decisions()
    assert [act["time_left_ms"] for act, _ in decisions] == lefts
    assert lefts[2] == 19_500  # 500 ms over the limit at the 2nd decision
    assert decisions[1][1]["timing"] == {
        "charged_ms": 2_500.7, "wall_ms": 2_501.7, "cpu_ms": 2_500.7, "bank_ms": 19_500
    }  # fmt: skip
    assert decisions[0][1]["answered"]["note"].startswith("n")
    assert "secret" not in traced.dumps().decode()  # stderr is the owner's, never here
    assert traced.header["timing"] is True and plain.header["timing"] is False
    assert all("timing" not in answer for _, answer in plain.decisions())
    assert {act["time_left_ms"] for act, _ in plain.decisions()} == {20_000}


def test_a_transcript_reads_back_as_it_was_written():
    record, _, game = traced_game()
    transcript = game_transcript(
        record, game=0, seats=[1, 0], player=0, time_control=TimeControl(),
        scores=game.scores, ranking=game.ranking, statuses=game.statuses,
    )  # fmt: skip

    again = parse_transcript(transcript.dumps())

    assert again.header == transcript.header and again.lines == transcript.lines
    assert again.header["seat"] == 1 and again.lines[0]["sent"]["seat"] == 1


def good_lines() -> list[str]:
    record, _, game = traced_game()
    transcript = game_transcript(
        record, game=0, seats=[0, 1], player=0, time_control=TimeControl(),
        scores=game.scores, ranking=game.ranking, statuses=game.statuses,
    )  # fmt: skip
    return transcript.dumps().decode().splitlines()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda lines: b"", "the file is empty"),
        (lambda lines: b"\xff\xfe\x00garbage", "not UTF-8"),
        (lambda lines: "hello there\n", "line 1 is not JSON"),
        (lambda lines: "[1, 2]\n", "line 1 is not a JSON object"),
        (lambda lines: '{"type": "hello"}\n', 'no "transcript" key'),
        (lambda lines: lines[0].replace('"transcript":1', '"transcript":7'), "version 7"),
        (lambda lines: lines[0].replace('"move_ms":2000', '"move_ms":"x"'), "time_control"),
        (
            lambda lines: json.dumps({"games": [], "standings": [], "logs": []}, indent=1),
            "this is a match result",
        ),
        (lambda lines: "\n".join([lines[0], *lines[2:]]), "first message must be a hello"),
        (lambda lines: "\n".join([*lines[:2], lines[3]]), "an answer without an act"),
        (lambda lines: "\n".join([*lines[:3], lines[4]]), "the act before it has no answer"),
        (lambda lines: "\n".join(lines[:3]), "the last act has no answer"),
        (lambda lines: "\n".join([*lines[:3], '{"answered": {"act": 1}}']), "line 4"),
        (lambda lines: "\n".join([lines[0], '{"sent": 3}']), 'line 2: "sent" is not'),
        (lambda lines: "\n".join([*lines[:2], "{}"]), 'either "sent" or "answered"'),
        (
            lambda lines: "\n".join([*lines[:2], lines[2].replace('"legal":[', '"legal":[1,')]),
            "legal, a list of labels",
        ),
    ],
)
def test_what_is_not_a_transcript_is_refused_naming_the_line(make, message):
    with pytest.raises(TranscriptError, match=message):
        parse_transcript(make(good_lines()))


# --- replays ------------------------------------------------------------------------------


def local_transcripts(tmp_path, bot: Path, *, seed: int = 4) -> dict[str, Transcript]:
    tc = TimeControl()
    players = [ProcessPlayer.from_path(bot), InProcessPlayer(builtin.make("greedy", seed=1))]
    result = play_match("money-jordan", players, games_count=2, seed=seed, time_control=tc)
    return match_transcripts(result, time_control=tc)


@needs_sandbox
def test_the_same_bot_answers_the_same_and_a_changed_one_differs_where_it_changed(tmp_path):
    transcripts = local_transcripts(tmp_path, raw_bot(tmp_path / "same"))
    transcript = parse_transcript(transcripts["game-1-player-0.jsonl"].dumps())
    changed = raw_bot(tmp_path / "changed", "other-choice", at=3)
    third = transcript.decisions()[2]

    same = replay_transcript(transcript, ProcessPlayer.from_path(tmp_path / "same"))
    other = replay_transcript(transcript, ProcessPlayer.from_path(changed))

    assert same.same and same.compared == same.decisions == len(transcript.decisions())
    assert "same answers at every decision" in report_lines(transcript, same, bot="b")
    assert not other.same and other.compared == 3
    assert other.difference.decision == 2 and other.difference.act == third[0]
    assert other.difference.expected == repr(third[0]["legal"][0])
    assert other.difference.answered == repr(third[0]["legal"][-1])
    words = "\n".join(report_lines(transcript, other, bot="b"))
    assert "first difference at decision 2" in words and "observation: {" in words


@needs_sandbox
def test_a_replay_of_a_fault_is_the_same_only_for_the_same_fault(tmp_path):
    transcripts = local_transcripts(tmp_path, raw_bot(tmp_path / "illegal", "illegal", at=2))
    transcript = transcripts["game-0-player-0.jsonl"]

    again = replay_transcript(transcript, ProcessPlayer.from_path(tmp_path / "illegal"))
    fixed = replay_transcript(transcript, ProcessPlayer.from_path(raw_bot(tmp_path / "fixed")))
    crashing = raw_bot(tmp_path / "crash", "crash", at=2)
    crashed = replay_transcript(transcript, ProcessPlayer.from_path(crashing))

    assert again.same
    assert fixed.difference.expected.startswith("a fault, illegal")
    assert fixed.difference.answered == repr(fixed.difference.act["legal"][0])
    assert crashed.difference.answered.startswith("a fault, crash")


def test_a_bot_that_does_not_start_is_reported_and_nothing_compared(tmp_path):
    record, _, game = traced_game()
    transcript = game_transcript(
        record, game=0, seats=[0, 1], player=0, time_control=TimeControl(),
        scores=game.scores, ranking=game.ranking, statuses=game.statuses,
    )  # fmt: skip

    class Broken(builtin.make("random", seed=0).__class__):
        def start(self, hello):
            raise RuntimeError("no")

    report = replay_transcript(transcript, InProcessPlayer(Broken(0)))

    assert not report.same and report.compared == 0 and "RuntimeError" in report.not_ready
