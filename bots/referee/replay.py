"""Replaying a transcript against a bot: does it answer as it did (``manage.py match --replay``)?

The bot is started with the transcript's ``hello`` and sent its lines in order,
each ``act`` encoded as the referee encodes it for that bot (``history_delta``
if the bot accepts it), and each answer is compared with the transcript's. The
replay stops at the first decision where the bot answers differently (another
label, or a fault where it answered, or the other way round) and says which.
A bot answers the same only if what it decides follows from what it is sent
(PROTOCOL.md, "Making a bot replayable").
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from bots.referee.players import ILLEGAL, BotFault, Player
from bots.referee.time_control import TimeControl
from bots.referee.transcript import Transcript


@dataclass(frozen=True)
class Difference:
    """The first decision at which the bot did not answer as in the transcript."""

    decision: int  # the seat's decisions in the game, from 0
    ply: int | None  # the index of the decision's action in the record
    act: dict[str, Any]  # the act message, version 1 (the whole observation)
    expected: str  # the transcript's answer, in words
    answered: str  # the bot's answer now, in words


@dataclass(frozen=True)
class ReplayReport:
    """How a replay went: the decisions compared and the first difference, if any."""

    decisions: int
    compared: int
    difference: Difference | None = None
    #: The bot did not start (no ``ready``): nothing was compared.
    not_ready: str = ""
    #: The decisions answered differently (1 at most unless the replay kept going).
    differing: int = 0

    @property
    def same(self) -> bool:
        return self.difference is None and not self.not_ready


def replay_transcript(
    transcript: Transcript, player: Player, *, keep_going: bool = False
) -> ReplayReport:
    """Send ``transcript``'s lines to ``player`` and compare its answers; closes the player.

    A decision may last as long as the referee would have allowed it
    (``TimeControl.wall_ceiling_ms`` of its move limit and the bank it was sent). The
    replay stops at the first difference unless ``keep_going``: then every decision is
    compared (the bot is sent the transcript's lines whatever it answered) and
    ``differing`` counts those answered differently; ``difference`` is the first.
    """
    tc = TimeControl(**transcript.header["time_control"])
    total = len(transcript.decisions())
    compared, differing, first = 0, 0, None
    try:
        answer_to: dict[str, Any] | None = None
        for line in transcript.lines:
            if "answered" in line:
                difference = _compare(player, answer_to, line, tc)
                compared += 1
                if difference is not None:
                    differing += 1
                    first = difference if first is None else first
                    if not keep_going:
                        return ReplayReport(total, compared, difference, differing=1)
                continue
            message = line["sent"]
            kind = message.get("type")
            if kind == "hello":
                hello = {k: v for k, v in message.items() if k != "extensions"}
                try:  # the player offers the extensions as the referee does
                    player.start(hello, tc.start_ms / 1000)
                except BotFault as fault:
                    return ReplayReport(total, 0, not_ready=f"{fault.status}: {fault.reason}")
            elif kind == "act":
                answer_to = message
            elif kind == "result" and player.fault is None:
                try:
                    player.notify(message)
                except BotFault as fault:
                    player.fault = fault
            elif kind == "bye":
                break
        return ReplayReport(total, compared, first, differing=differing)
    finally:
        player.close()


def _compare(
    player: Player, act: dict[str, Any], line: dict[str, Any], tc: TimeControl
) -> Difference | None:
    """Ask ``player`` for ``act`` and compare with the answer ``line``; None if the same.

    An answer that is not legal is the fault ``illegal``, as the referee judges it; a
    fault is the same answer as a fault of the same status in the transcript."""
    expected = line["fault"]["status"] if line["answered"] is None else None
    if player.fault is not None:  # out of step since an earlier fault
        got = f"nothing: the bot was stopped ({player.fault.status}: {player.fault.reason})"
    else:
        allowed_ms = act["move_limit_ms"] + max(0, act["time_left_ms"])
        player.clock = (act["move_limit_ms"], max(0, act["time_left_ms"]))  # as the referee
        try:
            label = player.act(act, tc.wall_ceiling_ms(allowed_ms) / 1000)
        except BotFault as fault:
            player.fault = fault
            if expected == fault.status:
                return None
            got = f"a fault, {fault.status}: {fault.reason}"
        else:
            if label not in act["legal"]:
                if expected == ILLEGAL:
                    return None
                got = f"a fault, {ILLEGAL}: {label!r:.80} is not a legal label"
            elif expected is None and label == line["answered"]["action"]:
                return None
            else:
                got = repr(label)
    return Difference(line.get("decision", 0), line.get("ply"), act, _expected(line), got)


def _expected(line: dict[str, Any]) -> str:
    if line["answered"] is not None:
        return repr(line["answered"]["action"])
    fault = line["fault"]
    return f"a fault, {fault['status']}: {fault.get('reason', '')}"


def report_lines(transcript: Transcript, report: ReplayReport, *, bot: str) -> list[str]:
    """The replay's outcome in words, as ``manage.py match --replay`` prints it."""
    h = transcript.header
    lines = [
        f"replayed {bot} on {h.get('variant')} game {h.get('game')}, seat {h.get('seat')} "
        f"(player {h.get('player')}): {report.decisions} decisions in the transcript"
    ]
    if report.not_ready:
        return [*lines, f"the bot did not start: {report.not_ready}"]
    if report.difference is None:
        if not report.decisions:
            return [*lines, "the transcript holds no decision of this seat: nothing to compare"]
        return [*lines, "same answers at every decision"]
    d = report.difference
    ply = "" if d.ply is None else f", ply {d.ply} of the record"
    return [
        *lines,
        f"first difference at decision {d.decision}{ply} "
        f"({report.compared - 1} of {report.decisions} decisions answered the same before it):",
        "observation: " + json.dumps(d.act.get("observation"), separators=(",", ":")),
        "legal: " + ", ".join(d.act.get("legal", [])),
        f"time left: {d.act.get('time_left_ms')} ms (move limit {d.act.get('move_limit_ms')} ms)",
        f"answered in the transcript: {d.expected}",
        f"answered now:               {d.answered}",
    ]
