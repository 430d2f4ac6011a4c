"""The match benchmark plays every configuration in the real sandbox (figures not asserted)."""

from __future__ import annotations

import json

import pytest

from bench import match


@pytest.mark.slow
def test_benchmark_times_every_control_and_every_match_ends_ok(capsys):
    assert match.main(["--games", "3", "--repeat", "1", "--no-pin", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["seconds"]) == set(match.CONFIGURATIONS)
    assert report["sandboxed_statuses"] == ["ok"]  # no configuration made a bot fault
    assert set(report["cost_ms_per_match"]) == {
        "seccomp filter",
        "cgroup and CPU-time charging",
        "fresh processes per rotation",
    }
    assert report["deals"] > 0 and report["sandboxed_vs_floor"] > 0


def test_duplicate_rows_need_a_whole_number_of_rotations():
    with pytest.raises(ValueError, match="multiple of 3"):
        match.measure("manni-basic", 4, seed=1, repeat=1)
