"""Every match seats its players one way (``bots.referee.seating.seat_player``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bots.referee import InProcessPlayer, ProcessPlayer
from bots.referee.seating import player_seed, seat_player
from bots.referee.specs import player_from_spec
from tournaments.integrity import deals

EXAMPLE = Path(__file__).resolve().parents[2] / "bots" / "examples" / "python"


def test_the_player_seed_is_the_one_stored_matches_were_played_with():
    # A stored match's built-in moves follow from this derivation: it never changes.
    assert player_seed(1000, 0) == 4274725266047652
    assert deals.player_seed is player_seed  # the checkable deals name it there


def test_a_built_in_seat_is_seeded_from_the_match_seed_and_its_seat():
    player = seat_player(builtin="random", seed=1000, seat=2, name="house")
    unnamed = seat_player(builtin="greedy", seed=1000, seat=3)

    assert isinstance(player, InProcessPlayer) and player.name == "house"
    assert player.bot.seed == player_seed(1000, 2)
    assert unnamed.name == "greedy" and unnamed.bot.seed == player_seed(1000, 3)


def test_a_path_seat_runs_the_program_under_its_name_and_limits():
    player = seat_player(path=EXAMPLE, seed=1, seat=0, sandboxed=False)
    named = seat_player(path=EXAMPLE, seed=1, seat=0, name="mine", sandboxed=False)

    assert isinstance(player, ProcessPlayer) and player.name == EXAMPLE.name
    assert named.name == "mine" and not named.sandboxed


def test_a_seat_takes_exactly_one_of_a_built_in_and_a_path():
    with pytest.raises(ValueError, match="a built-in or a path"):
        seat_player(seed=1, seat=0)
    with pytest.raises(ValueError, match="a built-in or a path"):
        seat_player(builtin="random", path=EXAMPLE, seed=1, seat=0)
    with pytest.raises(ValueError, match="unknown built-in bot 'nobody'"):
        seat_player(builtin="nobody", seed=1, seat=0)


def test_the_commands_seat_built_ins_as_competitions_do():
    spec = player_from_spec("builtin:greedy", seed=1000, index=1)
    seated = seat_player(builtin="greedy", seed=1000, seat=1)

    assert spec.name == "builtin:greedy" and spec.bot.seed == seated.bot.seed
