"""The ladder benchmark plays all three schedulers on tiny fields (figures not asserted)."""

from __future__ import annotations

import json

from bench import ladder


def test_benchmark_reports_every_scheduler_and_size_as_json(capsys):
    argv = ["--sizes", "6,9", "--caps", "60,90", "--repeat", "1", "--json"]
    assert ladder.main(argv) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [(r["entries"], r["scheduler"]) for r in rows] == [
        (n, s) for n in (6, 9) for s in ("new", "old", "random")
    ]
    for row in rows:
        assert 0 <= row["near_met"] <= 1 and -1 <= row["final_tau"] <= 1
        assert row["matches_to_tau"] is None or row["matches_to_tau"] <= row["cap"]
    assert next(r for r in rows if r["scheduler"] == "old")["near_vs_old"] == 1.0


def test_the_table_says_when_the_target_was_not_reached(capsys):
    assert ladder.main(["--sizes", "12", "--caps", "6", "--repeat", "1", "--seats", "3"]) == 0
    out = capsys.readouterr().out
    assert "not reached within 6" in out and "random" in out and "old" in out


def test_kendall_tau_of_the_true_order_and_its_reverse():
    field = ladder.Field(5, 2, seed=1, noise=0.1)
    for e in range(5):
        field.ratings[e] = ladder.Rating(mu=25 + 10 * field.strength[e], sigma=1)
    assert field.tau() == 1.0
    for e in range(5):
        field.ratings[e] = ladder.Rating(mu=25 - 10 * field.strength[e], sigma=1)
    assert field.tau() == -1.0
