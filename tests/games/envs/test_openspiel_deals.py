"""OpenSpiel's chance nodes deal the real deals; states serialise and pickle, checked."""

from __future__ import annotations

import base64
import pickle
import random
from collections import Counter, defaultdict

import pytest

pytest.importorskip("pyspiel", reason="the 'rl' extra is not installed: pip install '.[rl]'")

import pyspiel  # noqa: E402

import games  # noqa: E402
import games.envs.openspiel as cardroom_spiel  # noqa: E402
from games.deals import deal_count  # noqa: E402

ONE_RANK = {"maniglia_ranks": 1, "maniglia_target": 1, "maniglia_all_pass": "dealer-forced"}


def load(variant: str, params: dict | None = None) -> pyspiel.Game:
    if params is None:
        params = {"money_max_plays": 150} if variant.startswith("money") else {}
    return pyspiel.load_game(cardroom_spiel.game_name(variant), params)


def first_decisions(game: pyspiel.Game) -> dict[tuple, float]:
    """Every path of the root's chance nodes to the first decision: the deal and its
    probability (the dealer and each seat's hand)."""
    out: dict[tuple, float] = Counter()

    def walk(state, p: float) -> None:
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert sum(q for _, q in outcomes) == pytest.approx(1.0)
            for action, q in outcomes:
                walk(state.child(action), p * q)
            return
        engine = state.engine
        key = (engine.record()["dealer"], *(tuple(engine.observation(s)["hand"]) for s in range(4)))
        assert key not in out, "two paths to the same deal"
        out[key] = p

    walk(game.new_initial_state(), 1.0)
    return out


def test_the_one_rank_maniglia_tree_holds_each_of_its_96_deals_equally_often():
    game = load("maniglia-4", ONE_RANK)
    deals = first_decisions(game)
    assert len(deals) == 96 == deal_count(game.cardroom)
    assert list(deals.values()) == [pytest.approx(1 / 96)] * 96
    # A seat's own hand (and the dealer) leaves the other seats' hands open: 3! deals each.
    by_hand = defaultdict(set)
    for key in deals:
        by_hand[(key[0], key[1])].add(key)
    assert {len(v) for v in by_hand.values()} == {6}


def test_a_full_deal_is_dealt_card_by_card_with_its_true_probabilities():
    """manni-basic: the dealer, then 12 cards to each hand in ascending order and 12 to
    the Manni; the outcomes at a hand's first card are every card that leaves room."""
    game = load("manni-basic")
    state = game.new_initial_state()
    assert state.chance_outcomes() == [(s, pytest.approx(1 / 3)) for s in range(3)]
    state.apply_action(2)
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 48 - 11  # the lowest card of a 12-card hand
    assert "to seat 0" in state.action_to_string(pyspiel.PlayerId.CHANCE, outcomes[0][0])
    steps = 1
    rnd = random.Random(0)
    while state.is_chance_node():
        actions, weights = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(rnd.choices(actions, weights)[0])
        steps += 1
    assert steps == 1 + 48  # the dealer, then every card
    assert state.engine.record()["dealer"] == 2


@pytest.mark.parametrize("variant", games.variants())
def test_serialised_and_pickled_states_come_back_equal(variant):
    game = load(variant)
    state = game.new_initial_state()
    rnd = random.Random(variant)
    for step in range(120):
        if state.is_terminal():
            break
        if step % 40 == 39 or (state.is_chance_node() and step % 7 == 0):
            for copy in (
                game.deserialize_state(state.serialize()),
                pickle.loads(pickle.dumps(state)),
            ):
                assert copy.history() == state.history()
                assert str(copy) == str(state)
                assert copy.current_player() == state.current_player()
                if not state.is_chance_node():
                    seat = state.current_player()
                    assert copy.information_state_string(seat) == (
                        state.information_state_string(seat)
                    )
                    assert copy.legal_actions() == state.legal_actions()
                else:
                    assert copy.chance_outcomes() == state.chance_outcomes()
        if state.is_chance_node():
            actions, weights = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rnd.choices(actions, weights)[0])
        else:
            state.apply_action(rnd.choice(state.legal_actions()))
    again = pickle.loads(pickle.dumps(game))
    assert str(again) == str(game) and again.cardroom.options == game.cardroom.options


def _parts(text: str) -> tuple[str, str, str]:
    history, moves, body = text.split("\n", 2)
    return history, moves, body


def _played(game: pyspiel.Game, moves: int) -> pyspiel.State:
    state = game.new_initial_state()
    rnd = random.Random(1)
    while len(state.history()) < moves and not state.is_terminal():
        if state.is_chance_node():
            actions, weights = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rnd.choices(actions, weights)[0])
        else:
            state.apply_action(rnd.choice(state.legal_actions()))
    return state


def test_a_corrupt_serialised_state_is_an_error_never_another_state():
    game = load("maniglia-4", {"maniglia_ranks": 3})
    state = _played(game, 20)
    text = state.serialize()
    history, moves, body = _parts(text)
    # Another history than the state's own.
    entries = history.removeprefix("history=").split(",")
    entries[-1] = entries[-1].split(":")[0] + ":" + str(int(entries[-1].split(":")[1]) ^ 1)
    forged = "\n".join(["history=" + ",".join(entries), moves, body])
    with pytest.raises(Exception, match="does not match"):
        game.deserialize_state(forged)
    # A body that is not a pickle at all, or not base64.
    for bad in ("__dict__=" + base64.b64encode(b"garbage").decode(), "__dict__=!!!"):
        with pytest.raises(Exception):  # noqa: B017  (pyspiel's or pickle's error)
            game.deserialize_state("\n".join([history, moves, bad]))
    # A well-formed body whose actions do not apply.
    world = state._world
    world.actions[5] = 99
    body = "__dict__=" + base64.b64encode(pickle.dumps({"_world": world})).decode()
    with pytest.raises(ValueError, match="serialised action 5"):
        game.deserialize_state("\n".join([history, moves, body]))
