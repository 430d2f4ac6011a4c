"""The referee's pacing closes the timing channel ``bench.timing`` measures."""

from __future__ import annotations

import pytest

from bench.timing import channel
from bots.referee import TimeControl

#: Times decisions: run alone, after the parallel part (`make test`).
pytestmark = pytest.mark.serial


def test_pacing_hides_the_senders_think_time_from_the_receiver():
    off = channel(games=2, step_ms=8, pace_ms=0)
    on = channel(games=2, step_ms=8, pace_ms=20)

    print(f"bits a decision: pacing off {off['bits']:.3f}, on {on['bits']:.3f}")
    # Without pacing the receiver reads the 8 ms wait every time.
    assert off["median_gap_1_ms"] - off["median_gap_0_ms"] > 6
    assert off["bits"] > 0.8
    # With it the gap is a whole number of quanta either way.
    assert abs(on["median_gap_1_ms"] - on["median_gap_0_ms"]) < 2
    assert on["bits"] < 0.2


def test_a_pacing_quantum_is_a_non_negative_whole_number():
    assert TimeControl(pace_ms=0).pace_ms == 0
    for bad in (-1, 2.5, True):
        with pytest.raises(ValueError, match="pace_ms must be a non-negative integer"):
            TimeControl(pace_ms=bad)
