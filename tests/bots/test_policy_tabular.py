"""Any policy as a bot (bots/sdk/tabular.py, bots/sdk/policy.py): a table of information
states is looked up with the string OpenSpiel solves over, a callable of the bot's own
folder plays, and a file or callable that does not fit is refused in words."""

from __future__ import annotations

import gzip
import json
import random

import pytest

import games
from bots.sdk.tabular import (
    PolicyError,
    TabularBot,
    games_labels,
    info_state,
    load_tabular,
    save_tabular,
)

ONE_DEAL = {"maniglia.ranks": 1, "maniglia.target": 1, "maniglia.all_pass": "dealer-forced"}


def first_decision(variant: str = "maniglia-4", options: dict | None = None, seed: int = 3):
    game = games.load(variant, **(options if options is not None else ONE_DEAL))
    state = game.new_game(seed)
    seat = state.current_player()
    return game, state, seat, json.loads(json.dumps(state.observation(seat)))


def test_a_table_row_is_played_from_the_protocol_observation(tmp_path):
    game, state, seat, observation = first_decision()
    legal = state.legal_actions()
    ids = state.legal_ids()
    save_tabular(
        {info_state(observation): {ids[-1]: 1.0}}, tmp_path / "p.json", "maniglia-4", ONE_DEAL
    )
    bot = TabularBot(tmp_path / "p.json")
    bot.start({"variant": "maniglia-4", "options": ONE_DEAL, "seat": seat})

    assert [bot.act(observation, legal) for _ in range(5)] == [legal[-1]] * 5
    assert bot.missed == 0
    # A state not in the table: uniform over the legal labels, never an illegal one.
    other = json.loads(json.dumps(game.new_game(4).observation(seat)))
    assert bot.act({**other, "deal": 99}, legal) in legal and bot.missed == 1


def test_a_mixed_row_is_drawn_with_its_probabilities(tmp_path):
    _, state, seat, observation = first_decision()
    ids, legal = state.legal_ids(), state.legal_actions()
    row = {ids[0]: 0.25, ids[-1]: 0.75}
    save_tabular({info_state(observation): row}, tmp_path / "p.json.gz", "maniglia-4", ONE_DEAL)
    bot = TabularBot(tmp_path / "p.json.gz", seed=1)
    bot.start({"variant": "maniglia-4", "options": ONE_DEAL, "seat": seat})

    drawn = [bot.act(observation, legal) for _ in range(400)]
    assert 0.18 < drawn.count(legal[0]) / 400 < 0.32
    assert set(drawn) == {legal[0], legal[-1]}
    assert gzip.decompress((tmp_path / "p.json.gz").read_bytes()).startswith(b"{")


def test_an_openspiel_mccfr_policy_is_saved_with_the_strings_openspiel_uses(tmp_path):
    pyspiel = pytest.importorskip("pyspiel", reason="the 'rl' extra is not installed")
    from open_spiel.python.algorithms import outcome_sampling_mccfr

    import games.envs.openspiel  # noqa: F401

    game = pyspiel.load_game(
        "python_cardroom_maniglia_4",
        {"maniglia_ranks": 1, "maniglia_target": 1, "maniglia_all_pass": "dealer-forced"},
    )
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    for _ in range(60):
        solver.iteration()
    policy = solver.average_policy()
    written = save_tabular(policy, tmp_path / "p.json")
    data = load_tabular(tmp_path / "p.json")

    assert written == len(data["states"]) > 0
    assert data["variant"] == "maniglia-4" and data["options"]["maniglia.ranks"] == 1
    # Every state OpenSpiel meets is found under the string a bot builds from its message.
    bot = TabularBot(tmp_path / "p.json")
    state, rng = game.new_initial_state(), random.Random(2)
    found = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            continue
        player = state.current_player()
        message = json.loads(json.dumps(state.engine.observation(player)))
        assert info_state(message) == state.information_state_string(player)
        row = bot.table.get(info_state(message))
        if row is not None:
            found += 1
            expected = policy.action_probabilities(state)
            assert {a: pytest.approx(p) for a, p in row} == expected
        state.apply_action(rng.choice(state.legal_actions()))
    assert found > 0


def test_a_table_of_another_variant_is_refused_at_hello(tmp_path, capsys):
    _, state, seat, observation = first_decision()
    save_tabular(
        {info_state(observation): {state.legal_ids()[0]: 1}},
        tmp_path / "p.json",
        "maniglia-4",
        ONE_DEAL,
    )
    bot = TabularBot(tmp_path / "p.json")

    with pytest.raises(
        PolicyError, match="p.json does not fit manni-basic: it is a table of maniglia-4"
    ):
        bot.start({"variant": "manni-basic", "options": {}, "seat": 0})
    assert "does not fit manni-basic" in capsys.readouterr().err  # what validation reports


def write(path, **changes):
    _, state, _, observation = first_decision()
    data = {
        "format": "cardroom-tabular-1",
        "variant": "maniglia-4",
        "options": dict(games.load("maniglia-4", **ONE_DEAL).options),
        "actions": {},
        "states": {info_state(observation): [[state.legal_ids()[0], 1.0]]},
    }
    data.update(changes)
    path.write_text(json.dumps(data))
    return path


def test_files_that_do_not_fit_are_refused_naming_what(tmp_path):
    _, _, _, manni = first_decision("manni-basic", {}, 1)
    _, state, _, observation = first_decision()
    key = info_state(observation)
    cases = {
        "not a cardroom-tabular-1 file": write(tmp_path / "a.json", format="x"),
        "variant 'nope' and its options do not load": write(tmp_path / "b.json", variant="nope"),
        "action \\[98, 1.0\\] is not an action id of maniglia-4 \\(0..97\\)": write(
            tmp_path / "c.json", states={key: [[98, 1.0]]}
        ),
        "is not one of maniglia-4 \\(it is of manni-basic\\)": write(
            tmp_path / "d.json", states={info_state(manni): [[0, 1.0]]}
        ),
        "not an observation of its game": write(tmp_path / "e.json", states={"seat 0": [[0, 1]]}),
        "probability -1 of action": write(tmp_path / "f.json", states={key: [[44, -1]]}),
        "action id 44 \\(pass\\) is not an action of maniglia-4": write(
            tmp_path / "g.json", actions={"44": "pass"}
        ),
        "has options": write(
            tmp_path / "h.json", states={info_state({**observation, "options": {}}): [[44, 1]]}
        ),
    }
    for message, path in cases.items():
        with pytest.raises(PolicyError, match=message):
            load_tabular(path)
    (tmp_path / "junk.json").write_text("{not json")
    with pytest.raises(PolicyError, match="cannot read the tabular policy file junk.json"):
        load_tabular(tmp_path / "junk.json")
    assert games_labels(games.load("maniglia-4"))[44] == "bid 20"


def test_a_callable_of_the_bots_folder_plays_labels_or_action_ids(tmp_path):
    np = pytest.importorskip("numpy", reason="the 'rl' extra is not installed")  # noqa: F841
    from bots.sdk.policy import CallableBot, policy_bot

    (tmp_path / "mine.py").write_text(
        "class Last:\n"
        "    def start(self, hello):\n        self.seat = hello['seat']\n"
        "    def __call__(self, observation, legal):\n        return legal[-1]\n"
        "def first_id(observation, legal):\n    return 97\n"
        "def wrong(observation, legal):\n    return 'play XX'\n"
    )
    script = str(tmp_path / "bot.py")
    _, state, seat, observation = first_decision()
    hello = {"variant": "maniglia-4", "options": ONE_DEAL, "seat": seat}
    legal = state.legal_actions()

    last = policy_bot(script, "mine:Last")
    last.start(hello)
    assert isinstance(last, CallableBot) and last.act(observation, legal) == legal[-1]
    by_id = policy_bot(script, "mine:first_id")
    by_id.start(hello)
    assert by_id.act(observation, legal) == "pass"  # action id 97
    wrong = policy_bot(script, "mine:wrong")
    wrong.start(hello)
    with pytest.raises(PolicyError, match="mine:wrong answered 'play XX', which is not one of"):
        wrong.act(observation, legal)
    for spec, message in {
        "mine:nothing": "mine has no 'nothing'",
        "absent:act": "no module 'absent'",
        "mine": "not a policy",
        "mine:": "does not name a callable as module:function",
    }.items():
        with pytest.raises(PolicyError, match=message):
            policy_bot(script, spec)


def test_an_openspiel_tabular_policy_keeps_its_rows(tmp_path):
    pyspiel = pytest.importorskip("pyspiel", reason="the 'rl' extra is not installed")
    from open_spiel.python.policy import TabularPolicy

    import games.envs.openspiel  # noqa: F401

    game = pyspiel.load_game(
        "python_cardroom_maniglia_4",
        {"maniglia_ranks": 1, "maniglia_target": 1, "maniglia_all_pass": "dealer-forced"},
    )
    states, rng = {}, random.Random(5)
    for seed in (0, 1, 2):
        state = game.new_initial_state()
        state.apply_action(seed)
        while not state.is_terminal():
            states[state.history_str()] = state.clone()
            state.apply_action(rng.choice(state.legal_actions()))
    table = TabularPolicy(game, states=states)
    for row, state in enumerate(table.states):
        legal = state.legal_actions()
        table.action_probability_array[row] = 0.0
        table.action_probability_array[row][legal[-1]] = 1.0  # the last legal action

    assert save_tabular(table, tmp_path / "p.json") == len(table.state_lookup)
    loaded = load_tabular(tmp_path / "p.json")["states"]
    for state in table.states:
        key = state.information_state_string()
        assert [a for a, p in loaded[key] if p == 1.0] == [state.legal_actions()[-1]]
        assert sorted(a for a, _ in loaded[key]) == state.legal_actions()
