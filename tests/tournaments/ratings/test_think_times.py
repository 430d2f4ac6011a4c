"""Think-time profiles and the test of two bots alike (``tournaments.ratings.think_times``)."""

from __future__ import annotations

from tournaments.ratings import think_times as tt

BEACON = [9, 9, 9, 9, 9, 9, 1, 1, 1, 1, 1, 1]
PLAIN = [1] * tt.WINDOW


def _noise(seed: int, scale: int = 1) -> list[int]:
    """Deterministic think times with no pattern, ``scale`` times slower."""
    return [scale * (10 + (seed * 7919 + k * 104729) % 13) for k in range(tt.WINDOW)]


def test_seat_times_keep_each_seats_first_decisions_in_order():
    traces = [{"seat": k % 3, "charged_ms": k} for k in range(60)]
    kept = tt.seat_times(traces, 3)
    assert kept[1] == list(range(1, 36, 3))


def test_two_copies_with_a_beacon_are_alike_and_a_plain_program_is_not():
    copy = tt.Profile.of([(BEACON, PLAIN)] * 10)
    honest = tt.Profile.of([(_noise(s), _noise(s + 100)) for s in range(10)])
    assert tt.alike(copy, copy).p < 1e-3 and tt.alike(copy, copy).tested
    assert tt.alike(copy, honest).p > 0.01


def test_the_signs_do_not_change_with_the_machines_speed():
    fast = tt.Profile.of([(_noise(s), _noise(s + 100)) for s in range(10)])
    slow = tt.Profile.of([(_noise(s, 3), _noise(s + 100, 3)) for s in range(10)])
    assert fast == slow


def test_a_first_game_slower_all_through_is_no_pattern():
    cold = tt.Profile.of([([5] * tt.WINDOW, [1] * tt.WINDOW)] * 10)
    assert cold.shape() == [0.0] * (tt.WINDOW - tt.SKIP)
    assert tt.beacon(cold).p < 1e-3  # the structure check sees it; the fingerprint does not
    assert tt.alike(cold, cold).a.votes == 0


def test_match_processes_pair_the_first_game_of_each_hello_with_the_second():
    games = [(("a", "b"), [[1], [2]]), (("a", "b"), [[3], [4]]), (("b", "a"), [[5], [6]])]
    found = tt.match_processes(games, [(0, 2), (2, 3)])
    assert found == {"a": [([1], [3])], "b": [([2], [4])]}


def test_a_trace_of_another_shape_is_left_out_not_a_failure():
    traces = [
        {"seat": 0, "charged_ms": 3.7},
        {"seat": 1},  # an older record's trace without a charge
        {"charged_ms": 5},
        {"seat": 7, "charged_ms": 2},  # no such seat
        {"seat": 1, "charged_ms": 9.2},
    ]
    assert tt.seat_times(traces, 3) == [[3], [9], []]
