"""Decision traces: what each decision of a match cost, what the bot logged and why it played.

The referee keeps one trace per ``act`` it sends, and the game's record (what
``tournaments.models.GameRecord.data`` stores compressed, and ``games[].record``
of ``manage.py match --json``) holds them in order under ``"traces"``. A trace
is a dict:

==============  ===================================================================
``seat``        int: the seat that decided
``ply``         int: the index in the record's ``actions`` of the action the decision
                chose (where it would have gone, for a decision that faulted)
``charged_ms``  int: what the decision was charged (``TimeControl.charge_ms``)
``wall_ms``     int: its wall-clock time
``cpu_ms``      int or null: the CPU time of the bot's process tree (null: not counted,
                for in-process built-ins and bots run without a cgroup)
``bank_ms``     int: the time bank left after it
``stderr``      str, only when present: what the bot wrote to stderr during the decision
                (from sending ``act`` to reading its answer), at most
                :data:`STDERR_DECISION_BYTES` bytes, and at most
                :data:`STDERR_MATCH_BYTES` over the decisions of one player's match
``stderr_cut``  true, only when more was written than ``stderr`` holds
``note``        str, only when present: the answer's ``"note"`` (PROTOCOL.md), at most
                :data:`NOTE_CHARS` characters, control characters replaced by spaces
``note_mark``   str, only when the note was cut or dropped: why
``fault``       str, only at the decision where a fault happened: the referee's reason
``over``        true, only when the decision was charged more than :data:`OVER_SHARE`
                of what it could be charged (the move limit plus the bank before it)
==============  ===================================================================

Only the referee writes traces; readers use :func:`seat_totals`, :func:`stderr_log`
and :func:`visible_traces` (who may see what is the caller's rule).
Plain Python: no Django.
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any

#: Most stderr bytes a trace keeps of one decision.
STDERR_DECISION_BYTES = 2_000
#: Most stderr bytes the traces keep of one player over a match (the full log is apart).
STDERR_MATCH_BYTES = 32_000
#: Longest note kept, in characters.
NOTE_CHARS = 280
#: A decision charged more than this share of what it could be charged is marked ``over``.
OVER_SHARE = 0.8

#: Keys every trace has; the others appear only when they say something.
TIME_KEYS = ("seat", "ply", "charged_ms", "wall_ms", "cpu_ms", "bank_ms")
#: Keys only the seat's owner and staff may read.
PRIVATE_KEYS = frozenset({"stderr", "stderr_cut"})
#: Keys of what a bot said about its decisions (see :func:`visible_traces`).
NOTE_KEYS = frozenset({"note", "note_mark"})


def read_note(value: Any) -> tuple[str | None, str | None]:
    """``(note, mark)`` from the ``"note"`` value of an answer.

    A string is kept, cut to :data:`NOTE_CHARS` characters, with control
    characters (and lone surrogates) replaced by spaces; anything else is
    dropped. ``mark`` says what was done, None when the note was kept whole.
    Never raises: a bad note is no fault.
    """
    if value is None:
        return None, None
    if not isinstance(value, str):
        return None, f"dropped: a note must be a string, not {type(value).__name__}"
    marks = []
    if len(value) > NOTE_CHARS:
        value = value[:NOTE_CHARS]
        marks.append(f"cut to {NOTE_CHARS} characters")
    clean = "".join(" " if unicodedata.category(c) in ("Cc", "Cs") else c for c in value)
    if clean != value:
        marks.append("control characters replaced by spaces")
    if not clean.strip():
        return None, ("dropped: empty" if not marks else "; ".join([*marks, "dropped: empty"]))
    return clean, "; ".join(marks) or None


def note_of_reply(line: bytes) -> tuple[str | None, str | None]:
    """``(note, mark)`` of a bot's answer line (see :func:`read_note`); cheap when it
    has none. A line that is no JSON object has no note."""
    if b"note" not in line and b"\\u" not in line:
        return None, None
    try:
        message = json.loads(line)
    except ValueError:
        return None, None
    if not isinstance(message, dict):
        return None, None
    return read_note(message.get("note"))


class StderrBudget:
    """What is left of one player's :data:`STDERR_MATCH_BYTES` over a match."""

    def __init__(self, total: int = STDERR_MATCH_BYTES) -> None:
        self.left = total

    def take(self, data: bytes, cut: bool) -> tuple[str, bool]:
        """One decision's captured stderr as text within the budget, and whether it was
        cut (by the capture or here)."""
        if not data:
            return "", cut
        if len(data) > self.left:
            data, cut = data[: self.left], True
        self.left -= len(data)
        # A NUL is no character a text column (PostgreSQL) or a page can hold.
        text = data.decode("utf-8", errors="replace").replace("\x00", "\N{REPLACEMENT CHARACTER}")
        return text, cut


def make_trace(
    seat: int,
    ply: int,
    charged_ms: float,
    wall_ms: float,
    cpu_ms: float | None,
    bank_ms: int,
    could_ms: float,
) -> dict[str, Any]:
    """One trace's times (the module docstring's format); ``could_ms`` is what the
    decision could have been charged (it decides ``over``). The referee adds the rest
    with :func:`add_stderr`, :func:`add_note` and ``"fault"``. Positional: it is made
    at every decision."""
    trace = {
        "seat": seat,
        "ply": ply,
        "charged_ms": int(charged_ms),
        "wall_ms": int(wall_ms),
        "cpu_ms": None if cpu_ms is None else int(cpu_ms),
        "bank_ms": bank_ms if bank_ms > 0 else 0,
    }
    if charged_ms > OVER_SHARE * could_ms:
        trace["over"] = True
    return trace


def add_stderr(trace: dict[str, Any], stderr: str, cut: bool) -> None:
    """Add a decision's stderr (``StderrBudget.take``) to ``trace``."""
    if stderr:
        trace["stderr"] = stderr
    if cut:
        trace["stderr_cut"] = True


def add_note(trace: dict[str, Any], note: str | None, mark: str | None) -> None:
    """Add a decision's note and its mark (:func:`read_note`) to ``trace``."""
    if note is not None:
        trace["note"] = note
    if mark is not None:
        trace["note_mark"] = mark


def visible_traces(
    traces: list[dict[str, Any]], *, stderr_seats: frozenset[int], note_seats: frozenset[int]
) -> list[dict[str, Any]]:
    """``traces`` as one reader may see them: stderr only of ``stderr_seats``, notes only
    of ``note_seats``; times and faults of every seat."""
    shown = []
    for trace in traces:
        seat = trace["seat"]
        hide = (PRIVATE_KEYS if seat not in stderr_seats else frozenset()) | (
            NOTE_KEYS if seat not in note_seats else frozenset()
        )
        shown.append({k: v for k, v in trace.items() if k not in hide} if hide else trace)
    return shown


def seat_totals(traces: list[dict[str, Any]], players: int) -> list[dict[str, Any]]:
    """Per seat: ``decisions``, ``charged_ms`` (total), ``wall_ms`` (total), the slowest
    decision's ``slowest_ms`` and ``slowest_ply`` (None without decisions), and the
    count of decisions marked ``over``."""
    totals = [
        {
            "decisions": 0,
            "charged_ms": 0,
            "wall_ms": 0,
            "slowest_ms": None,
            "slowest_ply": None,
            "over": 0,
        }
        for _ in range(players)
    ]
    for trace in traces:
        row = totals[trace["seat"]]
        row["decisions"] += 1
        row["charged_ms"] += trace["charged_ms"]
        row["wall_ms"] += trace["wall_ms"]
        row["over"] += bool(trace.get("over"))
        if row["slowest_ms"] is None or trace["charged_ms"] > row["slowest_ms"]:
            row["slowest_ms"], row["slowest_ply"] = trace["charged_ms"], trace["ply"]
    return totals


def stderr_log(traces: list[dict[str, Any]], seat: int) -> str:
    """The stderr of ``seat``'s decisions in one text, each headed by its ply."""
    parts = []
    for trace in traces:
        if trace["seat"] == seat and "stderr" in trace:
            cut = " (cut)" if trace.get("stderr_cut") else ""
            parts.append(f"--- move {trace['ply'] + 1}{cut} ---\n{trace['stderr']}")
    return "\n".join(parts)
