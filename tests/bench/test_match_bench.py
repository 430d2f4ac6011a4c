"""The match benchmark plays every configuration in the real sandbox (figures not asserted)."""

from __future__ import annotations

import json

import pytest

from bench import match


@pytest.mark.slow
def test_benchmark_times_every_control_and_every_match_ends_ok(capsys):
    assert match.main(["--games", "3", "--repeat", "1", "--no-pin", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["seconds"]) == {
        *match.CONFIGURATIONS,
        match.DELTA,
        match.NOTING,
        match.NOTING_OFF,
    }
    assert report["sandboxed_statuses"] == ["ok"]  # no configuration made a bot fault
    assert set(report["cost_ms_per_match"]) == {
        "seccomp filter",
        "cgroup and CPU-time charging",
        "fresh processes per rotation",
    }
    assert report["deals"] > 0 and report["sandboxed_vs_floor"] > 0
    delta = report["history_delta"]
    assert 0 < delta["bytes_per_match"] < delta["version_1_bytes_per_match"]
    assert delta["sandboxed_vs_floor"] > 0
    assert set(report["start_up_ms"]) == {"staging", "bench bot", "importing games"}
    traces = report["traces"]
    assert traces["sandboxed_matches_per_s"] > 0 and traces["in_process_matches_per_s"] > 0
    assert 0 < traces["bytes_per_decision"] < traces["noting_bytes_per_decision"]


def test_the_recorded_lines_are_those_a_bot_program_gets():
    """The floors replay what the sandboxed bots are sent: the offer in hello, the encodings."""
    plain = match.transcript_of("manni-basic", 1, seed=1, delta=False)
    delta = match.transcript_of("manni-basic", 1, seed=1, delta=True)

    hellos = [json.loads(line) for _, line in plain if b'"type":"hello"' in line]
    assert [hello["extensions"] for hello in hellos] == [{"history_delta": 1}] * 3
    acts = [json.loads(line) for _, line in plain if b'"type":"act"' in line]
    assert acts and not any("history_from" in act for act in acts)
    delta_acts = [json.loads(line) for _, line in delta if b'"type":"act"' in line]
    assert len(delta_acts) == len(acts) and all("history_from" in act for act in delta_acts)
    assert [act["legal"] for act in delta_acts] == [act["legal"] for act in acts]


def test_duplicate_rows_need_a_whole_number_of_rotations():
    with pytest.raises(ValueError, match="multiple of 3"):
        match.measure("manni-basic", 4, seed=1, repeat=1)
