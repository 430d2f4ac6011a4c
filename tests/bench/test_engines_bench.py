"""The engine benchmark runs and reports every variant (its figures are not asserted)."""

from __future__ import annotations

import json

import pytest

import games
from bench import engines


def test_benchmark_reports_every_variant_as_json(capsys):
    assert engines.main(["--seconds", "0.05", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["variants"]) == set(games.variants())
    for variant, entry in report["variants"].items():
        money = games.variant_info(variant).family == "money"
        for path in ("label", "step", "fast"):
            assert entry[path]["games"] >= 1 and entry[path]["deals_per_s"] > 0
            assert ("ms_per_100_plays" in entry[path]) == money
        assert entry["fast_vs_label"] > 0 and entry["step_vs_label"] > 0
        assert entry["clone_us"] > 0
        if report["openspiel_skat"] and not money:
            assert entry["fast_vs_cpp_skat"] > 0


def test_benchmark_refuses_unknown_variants():
    with pytest.raises(ValueError, match="unknown variant"):
        engines.main(["--variants", "no-such-game", "--seconds", "0.01"])
