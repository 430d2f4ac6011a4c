"""``bots.validation``: a validation match is a real match of its variant, dealt from a seed
nobody can compute from what a bot or its owner can read."""

from __future__ import annotations

from pathlib import Path

import pytest

import games
from bots import validation
from bots.referee import OPEN_LADDER_PACE_MS, InProcessPlayer, TimeControl
from bots.sandbox import Limits
from bots.sdk import Bot
from tournaments.models import Competition
from tournaments.selectors import ladders as ladder_reads
from tournaments.services import ladders

MATCH_TIME_LIMIT_S = 1800
SECRET = b"the server's secret"

HAND_LOGGER = """import json, sys
seen = set()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"ready": True}), flush=True)
    elif message["type"] == "act":
        if message["game"] not in seen:
            seen.add(message["game"])
            hand = sorted(message["observation"]["hand"])
            print("HAND", message["game"], " ".join(hand), file=sys.stderr, flush=True)
        print(json.dumps({"action": message["legal"][0]}), flush=True)
    elif message["type"] == "bye":
        break
"""


class Illegal(Bot):
    """Answers a label that is never legal."""

    name = "illegal"

    def act(self, observation, legal):
        return "play ZZ"


def default(field: str):
    return Competition._meta.get_field(field).default


def plan(variant: str, seed: int = 1, **overrides) -> validation.VariantPlan:
    return validation.plan(variant, seed=seed, match_time_limit_s=MATCH_TIME_LIMIT_S, **overrides)


def test_a_validation_plays_what_a_real_match_of_its_variant_plays():
    for standing in ladder_reads.STANDING_LADDERS:
        planned = plan(standing.variant)

        assert planned.games == standing.games_per_match, standing.variant
        assert planned.duplicate is default("duplicate") is True
        tc = planned.time_control
        assert (tc.move_ms, tc.bank_ms) == (default("move_ms"), default("bank_ms"))
        # Paced as new standing ladders are (5 ms unless the operator sets another).
        assert tc.pace_ms == validation.ladder_pace_ms() == OPEN_LADDER_PACE_MS
        assert tc.pace_jitter == TimeControl().pace_jitter
        seats = games.variant_info(standing.variant).players
        assert tc.match_wall_ms == validation.match_wall_ms(seats, MATCH_TIME_LIMIT_S)
        # A real match seats an uploaded bot without limits of its own: the sandbox's.
        assert planned.limits == Limits()
    assert set(validation.OPPONENTS) == set(ladders.HOUSE_BUILTINS)


def test_every_variant_plays_whole_rotations_of_its_seats():
    for variant in games.variants():
        seats = games.variant_info(variant).players

        count = validation.match_games(variant)

        assert count % seats == 0 and count >= validation.MIN_GAMES > count - seats


def test_the_bot_sits_at_any_place_against_any_house_bot():
    plans = [plan("maniglia-5", seed=seed) for seed in range(200)]

    assert {p.player for p in plans} == set(range(5))
    assert all(len(p.opponents) == 4 for p in plans)
    assert {name for p in plans for name in p.opponents} == set(validation.OPPONENTS)


def test_a_validation_seed_needs_both_the_secret_and_the_nonce():
    nonce = bytes(range(validation.NONCE_BYTES))

    seed = validation.validation_seed(secret=SECRET, nonce=nonce, variant="manni-basic")

    again = validation.validation_seed(secret=SECRET, nonce=nonce, variant="manni-basic")
    assert seed == again  # whoever holds both can replay the validation
    others = [
        validation.validation_seed(secret=b"a guess", nonce=nonce, variant="manni-basic"),
        validation.validation_seed(secret=SECRET, nonce=bytes(16), variant="manni-basic"),
        validation.validation_seed(secret=SECRET, nonce=nonce, variant="manni-hornafjordur"),
    ]
    assert seed not in others
    assert 0 <= seed < 2 ** (8 * validation.SEED_BYTES)


def test_every_validation_draws_its_own_nonce():
    first = validation.plans(["manni-basic"], secret=SECRET, match_time_limit_s=60)
    second = validation.plans(["manni-basic"], secret=SECRET, match_time_limit_s=60)

    assert first[0].seed != second[0].seed


def test_the_report_is_the_bots_wherever_it_sits():
    seed = next(s for s in range(100) if plan("manni-basic", seed=s).player != 0)
    planned = plan("manni-basic", seed=seed, games_count=3)

    found = validation.play(planned, InProcessPlayer(Illegal()))

    assert [s["status"] for s in found["statuses"]] == ["illegal"] * 3
    assert found["ok"] is False


def test_two_validations_of_the_same_bytes_deal_different_games(tmp_path: Path):
    bot = tmp_path / "hands.py"
    bot.write_text(HAND_LOGGER)

    def hands() -> set[str]:
        report = validation.validate_program(
            str(bot), variants=["manni-basic"], match_time_limit_s=60, sandboxed=False
        )
        assert report["ok"], report["reasons"]
        tail = report["variants"]["manni-basic"]["stderr_tail"]
        return {line for line in tail.splitlines() if line.startswith("HAND ")}

    first, second = hands(), hands()

    assert len(first) == len(second) == validation.match_games("manni-basic")
    assert first.isdisjoint(second)


@pytest.mark.parametrize("variant", ["money-jordan", "maniglia-4-partners"])
def test_a_validation_match_starts_the_bot_once_a_rotation_from_every_seat(variant):
    seats = games.variant_info(variant).players
    planned = plan(variant, seed=7)
    hellos = []

    class Recorder(Bot):
        name = "recorder"

        def start(self, hello):
            hellos.append(hello)
            return super().start(hello)

        def act(self, observation, legal):
            return legal[0]

    found = validation.play(planned, InProcessPlayer(Recorder()))

    assert found["ok"], found["reasons"]
    assert sorted(hello["seat"] for hello in hellos) == list(range(seats))
    assert {hello["match"]["player"] for hello in hellos} == {planned.player}
