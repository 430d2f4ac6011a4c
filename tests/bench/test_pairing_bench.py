"""The pairing benchmark runs and reports each size and table (figures not asserted)."""

from __future__ import annotations

import json

from bench import pairing


def test_benchmark_reports_each_size_and_table_size_as_json(capsys):
    assert pairing.main(["--sizes", "7,12", "--seats", "3,4", "--repeat", "1", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert [(r["entries"], r["seats"]) for r in rows] == [(7, 3), (7, 4), (12, 3), (12, 4)]
    for row in rows:
        assert row["rounds"] >= 1 and row["design_ms"] > 0 and row["evenness"] >= 1.0
