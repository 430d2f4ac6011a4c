"""Transcripts: every line one seat of a recorded game was sent, and what it answered.

A transcript is rebuilt from a game's record (its seed, decks and actions, and
the per-decision ``traces`` where the record has them) by replaying the engine
and building each message with the referee's own functions
(``bots.referee.messages``), so it holds what the referee sent. It is JSON
lines (PROTOCOL.md, "Transcripts"): a header line
``{"transcript": 1, ...}``, then in order ``{"sent": <message>}`` for each
line the seat was sent and, after each ``act``, ``{"answered": {"action":
...}, "decision": k, "ply": i, "timing": {...}}`` (``answered`` null and a
``fault`` where the bot's answer was a fault).

``act`` messages are kept as protocol version 1 has them (the whole history):
a bot that accepted ``history_delta`` was sent the same messages shortened by
``ActEncoder``, and a replay (``bots.referee.replay``) shortens them again for
a bot that accepts it.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import games
from bots import protocol
from bots.referee.messages import OUT_OF_MATCH, act_message, hello_message, result_message
from bots.referee.players import ILLEGAL, OUT_OF_TURN, offered_hello
from bots.referee.results import MatchResult
from bots.referee.time_control import TimeControl

#: The version of the transcript format (the ``transcript`` key of its first line).
TRANSCRIPT_VERSION = 1
#: The keys of a decision's trace (``record["traces"]``) copied into its ``timing``.
TIMING_KEYS = ("charged_ms", "wall_ms", "cpu_ms", "bank_ms")
#: The media type and file extension of a transcript.
MEDIA_TYPE = "application/x-ndjson"
#: How deeply a line of a transcript may nest objects and lists: the referee's messages
#: are a few levels deep; a deeper line is refused before a bot's encoder recurses into it.
MAX_DEPTH = 32
#: The messages the referee sends a bot (PROTOCOL.md), the only ones a transcript holds.
MESSAGE_TYPES = ("hello", "act", "result", "bye")


class TranscriptError(ValueError):
    """A file or text that is not a transcript this platform reads; says which line and why."""


@dataclass
class Transcript:
    """A header (variant, options, game, seat, player, time control...) and the lines."""

    header: dict[str, Any]
    lines: list[dict[str, Any]] = field(default_factory=list)

    def dumps(self) -> bytes:
        """The transcript as JSON lines (UTF-8), header first."""
        return b"".join(
            (json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n").encode()
            for line in [self.header, *self.lines]
        )

    def decisions(self) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """Each decision: the ``act`` message and the line of its answer, in order."""
        pairs, act = [], None
        for line in self.lines:
            if "sent" in line:
                act = line["sent"] if line["sent"].get("type") == "act" else None
            elif act is not None:
                pairs.append((act, line))
                act = None
        return pairs


def game_transcript(
    record: dict[str, Any],
    *,
    game: int,
    seats: Sequence[int],
    player: int,
    time_control: TimeControl,
    scores: list[int],
    ranking: list[int],
    statuses: list[dict[str, Any]],
    about: dict[str, Any] | None = None,
) -> Transcript:
    """The transcript of ``player`` (its place in the match) in one recorded game.

    ``game`` is the game's number in the match as the referee counted it,
    ``seats[s]`` the player at seat ``s``, ``scores``, ``ranking`` and
    ``statuses`` the game's results as stored. ``about`` adds keys to the header
    (where the game comes from). The transcript covers this game only: the
    ``hello`` that started the player's process, this game's decisions, its
    ``result`` and a ``bye``. Raises ``ValueError`` for a record that does not
    replay, or a player not seated in it.
    """
    if player not in seats:
        raise ValueError(f"player {player} has no seat in seats {list(seats)}")
    engine = games.load(record["variant"], **record["options"])
    seat = seats.index(player)
    # The referee's key order: a database's JSON column may have sorted the keys.
    stored = statuses[seat]
    status = {"status": stored.get("status"), "reason": stored.get("reason", ""), **stored}
    header = {
        "transcript": TRANSCRIPT_VERSION,
        "variant": engine.id,
        "options": dict(engine.options),
        "game": game,
        "seat": seat,
        "player": player,
        "time_control": {"move_ms": time_control.move_ms, "bank_ms": time_control.bank_ms},
        "timing": bool(record.get("traces")),
        "status": status,
        **(about or {}),
    }
    transcript = Transcript(header)
    if str(status.get("reason", "")).startswith(OUT_OF_MATCH):
        return transcript  # its process was gone: it was sent nothing for this game
    hello = hello_message(
        game=engine,
        seat=seat,
        player=player,
        move_ms=time_control.move_ms,
        bank_ms=time_control.bank_ms,
    )
    transcript.lines.append({"sent": offered_hello(hello)})
    if not _decisions(transcript, record, engine, game=game, seat=seat, tc=time_control):
        transcript.lines.append({"sent": protocol.bye()})  # stopped at a fault (FORFEIT-1)
        return transcript
    result = result_message(game=game, seat=seat, scores=scores, ranking=ranking, status=status)
    transcript.lines += [{"sent": result}, {"sent": protocol.bye()}]
    return transcript


def match_transcripts(result: MatchResult, *, time_control: TimeControl) -> dict[str, Transcript]:
    """Every player's transcript of every game of a match played with ``time_control``,
    by file name: ``game-<game>-player-<player>.jsonl``."""
    out = {}
    for played in result.games:
        for player, name in enumerate(result.players):
            out[f"game-{played.index}-player-{player}.jsonl"] = game_transcript(
                played.record,
                game=played.index,
                seats=played.seats,
                player=player,
                time_control=time_control,
                scores=played.scores,
                ranking=played.ranking,
                statuses=played.statuses,
                about={"bot": name, "match_seed": result.seed},
            )
    return out


def _decisions(
    transcript: Transcript,
    record: dict[str, Any],
    engine: games.Game,
    *,
    game: int,
    seat: int,
    tc: TimeControl,
) -> bool:
    """Add the ``act`` lines of ``seat`` and its answers; False if its process was stopped
    at a fault of its own (then it got no ``result``)."""
    state = engine.new_game(record["seed"], dealer=record["dealer"], decks=record["decks"])
    traces = {
        t["ply"]: t
        for t in record.get("traces") or ()
        if isinstance(t, dict) and type(t.get("ply")) is int
    }
    clock = _Clock(tc)
    for ply, label in enumerate(record["actions"]):
        if state.current_player() == seat:
            legal = state.legal_actions()
            if len(legal) > 1:  # a forced move is no decision (ACTION-6)
                act = _act(state, legal, game, seat, clock.left(traces.get(ply)), tc)
                transcript.lines.append({"sent": act})
                transcript.lines.append(_answer({"action": label}, ply, traces.get(ply), clock))
        state.apply(label)
    forfeit = record.get("forfeit")
    if not forfeit or forfeit.get("seat") != seat:
        return True
    # The game ended at this seat's decision: a fault of its own (FORFEIT-2).
    if state.current_player() != seat:
        raise ValueError(f"the record's forfeit of seat {seat} is not at its decision")
    ply, trace = len(record["actions"]), traces.get(len(record["actions"]))
    status = transcript.header["status"]
    if status.get("status") != OUT_OF_TURN:  # out of turn: it wrote before it was asked
        act = _act(state, state.legal_actions(), game, seat, clock.left(trace), tc)
        transcript.lines.append({"sent": act})
    answer = _answer(None, ply, trace, clock)
    answer["fault"] = {"status": status.get("status"), "reason": status.get("reason", "")}
    transcript.lines.append(answer)
    return status.get("status") == ILLEGAL  # an illegal answer leaves the process running


def _act(state, legal, game: int, seat: int, time_left_ms: int, tc: TimeControl) -> dict:
    return act_message(
        game=game,
        seat=seat,
        observation=state.observation(seat),
        legal=legal,
        time_left_ms=time_left_ms,
        move_ms=tc.move_ms,
    )


def _answer(answered, ply: int, trace: dict | None, clock: _Clock) -> dict[str, Any]:
    line = {"answered": answered, "decision": clock.decisions, "ply": ply}
    clock.decisions += 1
    if trace is None:
        return line
    timing = {k: trace[k] for k in TIMING_KEYS if k in trace}
    if timing:
        line["timing"] = timing
    if answered is not None and isinstance(trace.get("note"), str):
        answered["note"] = trace["note"]
    clock.after(trace)
    return line


class _Clock:
    """The seat's time bank at each decision (an ``act``'s ``time_left_ms``).

    The referee draws on the bank only when a decision was charged more than
    ``move_ms``; the trace of a decision says what was left after it (``bank_ms``)
    and what it was charged, so the bank before it is known. Without traces the
    record does not say, and the whole bank stands in.
    """

    def __init__(self, tc: TimeControl) -> None:
        self.tc = tc
        self.bank: int | None = None  # left after the last traced decision
        self.decisions = 0

    def left(self, trace: dict | None) -> int:
        if trace is not None and type(trace.get("time_left_ms")) is int:
            return trace["time_left_ms"]
        if self.bank is not None:
            return self.bank
        bank, charged = (trace or {}).get("bank_ms"), (trace or {}).get("charged_ms")
        if _number(bank) and _number(charged):
            return int(bank) + max(0, int(charged) - self.tc.move_ms)
        return self.tc.bank_ms

    def after(self, trace: dict) -> None:
        bank = trace.get("bank_ms")
        self.bank = int(bank) if _number(bank) else None


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


# --- reading ----------------------------------------------------------------------------


def read_transcript(path: str | os.PathLike[str]) -> Transcript:
    """The transcript in the file at ``path`` (:func:`parse_transcript`).

    Raises :class:`TranscriptError` saying why for a file that cannot be opened or
    read (missing, a directory, not a regular file, no permission) or is not a
    transcript.
    """
    try:  # not blocking: a named pipe with no writer is refused, not waited for
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise TranscriptError(f"cannot open it: {exc.strerror or exc}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        what = "a directory" if stat.S_ISDIR(mode) else "a device, pipe or socket"
        raise TranscriptError(f"it is {what}, not a transcript file")
    os.set_blocking(fd, True)
    with os.fdopen(fd, "rb") as file:
        try:
            data = file.read()
        except OSError as exc:
            raise TranscriptError(f"cannot read it: {exc.strerror or exc}") from None
    return parse_transcript(data)


def parse_transcript(data: bytes | str) -> Transcript:
    """The transcript in ``data`` (JSON lines as :meth:`Transcript.dumps` writes them).

    Raises :class:`TranscriptError` naming the line and what is wrong with it for
    anything else: not UTF-8, not JSON, nested deeper than :data:`MAX_DEPTH`,
    another file (a match's ``--json`` result), another transcript version, a
    variant or options this platform does not play, a field missing or of the
    wrong type, a message the referee does not send, a line out of order, an
    answer that is not one of its act's legal labels.
    """
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise TranscriptError("not a transcript: the file is not UTF-8 text") from None
    # Lines end at "\n" only: JSON text may hold U+2028 and other breaks str.splitlines sees.
    rows = [(n, text) for n, text in enumerate(data.split("\n"), 1) if text.strip()]
    if not rows:
        raise TranscriptError("not a transcript: the file is empty")
    header = _header(_json_line(*rows[0], whole=data))
    transcript = Transcript(header)
    for number, text in rows[1:]:
        transcript.lines.append(_json_line(number, text))
    _check_order(transcript, [n for n, _ in rows[1:]])
    return transcript


def _json_line(number: int, text: str, whole: str | None = None) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except RecursionError:
        raise TranscriptError(f"line {number} nests deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:
        if whole is not None:
            _not_a_match_result(whole)
        raise TranscriptError(f"line {number} is not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise TranscriptError(f"line {number} is not a JSON object")
    if _nests_deeper(value, MAX_DEPTH):
        raise TranscriptError(f"line {number} nests deeper than {MAX_DEPTH} levels")
    return value


def _nests_deeper(value: Any, limit: int) -> bool:
    """True if ``value`` holds objects or lists more than ``limit`` levels deep (walked
    without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in item)
    return False


def _not_a_match_result(whole: str) -> None:
    try:
        value = json.loads(whole)
    except (ValueError, RecursionError):
        return
    if isinstance(value, dict) and "games" in value and "standings" in value:
        raise TranscriptError(
            "not a transcript: this is a match result (manage.py match --json); "
            "write transcripts with manage.py match --transcripts DIR"
        )


def _header(header: dict[str, Any]) -> dict[str, Any]:
    if "transcript" not in header:
        raise TranscriptError(
            'not a transcript: its first line has no "transcript" key (a transcript '
            "comes from GET /api/games/{id}/transcript/?seat=N or manage.py match "
            "--transcripts DIR)"
        )
    version = header["transcript"]
    if version != TRANSCRIPT_VERSION or type(version) is not int:
        raise TranscriptError(
            f"transcript version {version!r:.40} is not one this platform reads "
            f"(version {TRANSCRIPT_VERSION})"
        )
    tc = header.get("time_control")
    if not isinstance(tc, dict) or not all(
        type(tc.get(k)) is int and tc[k] > 0 for k in ("move_ms", "bank_ms")
    ):
        raise TranscriptError("line 1: time_control needs positive integers move_ms and bank_ms")
    for key in ("game", "seat", "player"):
        if not _count(header.get(key)):
            raise TranscriptError(f"line 1: the header needs {key}, an integer 0 or more")
    variant, options = header.get("variant"), header.get("options")
    if not isinstance(variant, str) or not isinstance(options, dict):
        raise TranscriptError("line 1: the header needs variant, a name, and options, an object")
    try:
        players = games.load(variant, **options).num_players
    except (ValueError, TypeError) as exc:
        raise TranscriptError(f"line 1: {exc}") from None
    if header["seat"] >= players:
        raise TranscriptError(f"line 1: seat {header['seat']} of a {players}-player variant")
    return header


def _count(value: Any) -> bool:
    """True for an integer 0 or more (not a bool)."""
    return type(value) is int and value >= 0


def _check_order(transcript: Transcript, numbers: list[int]) -> None:
    """Hello first, one answer after each act and nowhere else, messages well formed."""
    act = None  # an act waits for its answer
    for number, line in zip(numbers, transcript.lines, strict=True):
        if ("sent" in line) == ("answered" in line):
            raise TranscriptError(f'line {number}: needs either "sent" or "answered"')
        if "answered" in line:
            if act is None:
                raise TranscriptError(f"line {number}: an answer without an act before it")
            _check_answer(number, line, act)
            act = None
            continue
        if act is not None:
            raise TranscriptError(f"line {number}: the act before it has no answer")
        message = line["sent"]
        kind = message.get("type") if isinstance(message, dict) else None
        if not isinstance(kind, str):
            raise TranscriptError(f'line {number}: "sent" is not a message with a "type"')
        if kind not in MESSAGE_TYPES:
            raise TranscriptError(
                f"line {number}: {kind!r:.40} is not a message the referee sends "
                f"({', '.join(MESSAGE_TYPES)})"
            )
        if number == numbers[0] and kind != "hello":
            raise TranscriptError(f"line {number}: the first message must be a hello, not {kind}")
        if kind == "hello":
            _check_hello(number, message, transcript.header)
        if kind == "act":
            _check_act(number, message)
            act = message
    if act is not None:
        raise TranscriptError("the last act has no answer")


def _check_hello(number: int, message: dict[str, Any], header: dict[str, Any]) -> None:
    """The hello is the one of the header's variant, options and seat."""
    for key in ("variant", "options", "seat"):
        if message.get(key) != header[key] or type(message.get(key)) is not type(header[key]):
            raise TranscriptError(
                f"line {number}: the hello's {key} {message.get(key)!r:.60} is not the "
                f"header's {header[key]!r:.60}"
            )


def _check_act(number: int, message: dict[str, Any]) -> None:
    legal = message.get("legal")
    if not isinstance(legal, list) or not legal or not all(isinstance(x, str) for x in legal):
        raise TranscriptError(f"line {number}: an act needs legal, a list of labels")
    for key in ("time_left_ms", "move_limit_ms"):
        if type(message.get(key)) is not int:
            raise TranscriptError(f"line {number}: an act needs {key}, an integer")
    if not isinstance(message.get("observation"), dict):
        raise TranscriptError(f"line {number}: an act needs an observation object")


def _check_answer(number: int, line: dict[str, Any], act: dict[str, Any]) -> None:
    answered = line["answered"]
    for key in ("decision", "ply"):
        if key in line and not _count(line[key]):
            raise TranscriptError(f"line {number}: an answer's {key} is an integer 0 or more")
    if answered is None:
        fault = line.get("fault")
        if not isinstance(fault, dict) or not isinstance(fault.get("status"), str):
            raise TranscriptError(f"line {number}: an answer of null needs a fault with a status")
    elif not isinstance(answered, dict) or not isinstance(answered.get("action"), str):
        raise TranscriptError(f'line {number}: "answered" needs an "action" label')
    elif answered["action"] not in act["legal"]:
        # The referee records a label that is not legal as the fault, never as an answer.
        raise TranscriptError(
            f"line {number}: the answer {answered['action']!r:.60} is not one of the act's "
            "legal labels"
        )
