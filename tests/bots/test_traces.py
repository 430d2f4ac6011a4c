"""Decision traces (bots.referee.traces): notes, caps, reading, and the referee's traces of
in-process bots (faults, the over-80 % mark)."""

from __future__ import annotations

import time

import pytest

from bots.builtin import make
from bots.referee import InProcessPlayer, TimeControl, play_match
from bots.referee import traces as tr
from bots.sdk import Bot


@pytest.mark.parametrize(
    ("value", "note", "mark"),
    [
        ("plain", "plain", None),
        (None, None, None),
        (42, None, "dropped: a note must be a string, not int"),
        (["a"], None, "dropped: a note must be a string, not list"),
        ("a\nb\tc\x00", "a b c ", "control characters replaced by spaces"),
        ("x" * 400, "x" * tr.NOTE_CHARS, f"cut to {tr.NOTE_CHARS} characters"),
        ("\ud800ok", " ok", "control characters replaced by spaces"),
        ("\n", None, "control characters replaced by spaces; dropped: empty"),
    ],
)
def test_a_bad_note_is_cut_or_dropped_with_a_mark(value, note, mark):
    assert tr.read_note(value) == (note, mark)


@pytest.mark.parametrize(
    ("line", "note"),
    [
        (b'{"action":"a"}', None),
        (b'{"action":"a","note":"why"}', "why"),
        (b'{"action":"a","\\u006eote":"escaped key"}', "escaped key"),
        (b"not json note", None),
        (b'["note"]', None),
    ],
)
def test_the_note_of_a_reply_line(line, note):
    assert tr.note_of_reply(line)[0] == note


def test_the_stderr_budget_of_a_match_is_shared_by_its_decisions():
    budget = tr.StderrBudget(10)
    assert budget.take(b"abcdef", False) == ("abcdef", False)
    assert budget.take(b"ghijkl", False) == ("ghij", True)
    assert budget.take(b"more", False) == ("", True)
    assert budget.take(b"", False) == ("", False)
    assert tr.StderrBudget().take(b"a\x00\xff", True) == ("a\ufffd\ufffd", True)


def test_readers_hide_stderr_and_notes_of_seats_one_may_not_see():
    traces = [tr.make_trace(0, 0, 5, 6, 5, 100, 200), tr.make_trace(1, 1, 190, 190, None, 0, 200)]
    tr.add_stderr(traces[0], "log", True)
    tr.add_note(traces[0], "why", None)
    tr.add_note(traces[1], "hm", "cut")
    traces[1]["fault"] = "timeout: slow"
    assert "over" not in traces[0] and traces[1]["over"] is True
    shown = tr.visible_traces(traces, stderr_seats=frozenset({0}), note_seats=frozenset({0}))
    assert shown[0] == traces[0]
    assert shown[1] == {k: traces[1][k] for k in (*tr.TIME_KEYS, "fault", "over")}
    notes_only = tr.visible_traces(traces, stderr_seats=frozenset(), note_seats=frozenset({0, 1}))
    assert all("stderr" not in t and "stderr_cut" not in t for t in notes_only)
    assert [t["note"] for t in notes_only] == ["why", "hm"]
    totals = tr.seat_totals(traces, 3)
    assert totals[1] == {
        "decisions": 1,
        "charged_ms": 190,
        "wall_ms": 190,
        "slowest_ms": 190,
        "slowest_ply": 1,
        "over": 1,
    }
    assert totals[2]["decisions"] == 0 and totals[2]["slowest_ms"] is None
    assert tr.stderr_log(traces, 0) == "--- move 1 (cut) ---\nlog"


class Scripted(Bot):
    def __init__(self, how, at=3):
        self.how, self.at, self.calls = how, at, 0

    def act(self, observation, legal):
        self.calls += 1
        if self.calls == self.at:
            if self.how == "illegal":
                return "play ZZ"
            time.sleep(0.05)
        return legal[0]


def test_a_fault_is_traced_at_the_decision_where_it_happened():
    players = [
        InProcessPlayer(Scripted("illegal")),
        *(InProcessPlayer(make("random", seed=i)) for i in range(2)),
    ]
    result = play_match("manni-basic", players, games_count=1, seed=4)
    record = result.games[0].record
    mine = [t for t in record["traces"] if t["seat"] == 0]
    assert len(mine) == 3 and mine[2]["fault"].startswith("illegal: ")
    assert mine[2]["ply"] == len(record["actions"])  # where the action would have gone
    assert all("fault" not in t for t in record["traces"][:-1])


def test_a_decision_over_80_percent_of_what_it_could_use_is_marked():
    players = [
        InProcessPlayer(Scripted("slow")),
        *(InProcessPlayer(make("random", seed=i)) for i in range(2)),
    ]
    tc = TimeControl(move_ms=20, bank_ms=10)  # the slow decision sleeps 50 ms
    result = play_match("manni-basic", players, games_count=1, seed=4, time_control=tc)
    mine = [t for t in result.games[0].record["traces"] if t["seat"] == 0]
    assert [bool(t.get("over")) for t in mine] == [False, False, True]
    assert mine[2]["fault"].startswith("timeout: ") and mine[2]["bank_ms"] == 0
    assert mine[0]["bank_ms"] == 10 and mine[2]["charged_ms"] >= 50
