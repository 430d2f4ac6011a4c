"""The conformance suite every engine passes, for every variant and option case.

Each family supplies an independent hidden-card oracle (``tests.games.oracles``);
the engine is driven through its public API only.
"""

from __future__ import annotations

import hashlib
import json
import random

import pytest

import games
from tests.games.oracles import FAMILIES

try:  # the training wrappers (the optional 'rl' extra): checked by the oracle when installed
    import games.envs.openspiel as spiel_wrapper
    from games.envs.encoding import Encoder
    from games.envs.gymnasium import CardroomGymEnv
    from games.envs.pettingzoo import CardroomEnv
except ImportError:
    spiel_wrapper = None

CASES = [
    pytest.param(family, variant, options, id=f"{variant}-{json.dumps(options, sort_keys=True)}")
    for family, module in FAMILIES.items()
    for variant, options in module.CASES
]


def test_every_registered_variant_has_conformance_cases():
    """COMMON-8: every variant is exercised by the suite."""
    covered = {variant for module in FAMILIES.values() for variant, _ in module.CASES}
    assert covered == set(games.variants())


def make_decks(module, variant: str, options: dict, seed: int) -> list[list[str]]:
    """Decks chosen by the test, so the oracle knows every card independently."""
    rnd = random.Random(seed)
    pack = module.pack(variant, options)
    decks = []
    for _ in range(module.MAX_DECKS):
        deck = list(pack)
        rnd.shuffle(deck)
        decks.append(deck)
    return decks


def fingerprint(state) -> str:
    seat = state.current_player()
    obs = state.observation(seat if seat is not None else 0)
    return json.dumps([state.record(), obs, state.legal_actions()], sort_keys=True)


def play_checked(family: str, variant: str, options: dict, seed: int, *, sweep: bool):
    """Play one seeded random game, checking every step; return (state, observations)."""
    module = FAMILIES[family]
    game = games.load(variant, **options)
    decks = make_decks(module, variant, options, seed)
    state = game.new_game(seed, decks=decks)
    oracle = module.Oracle(variant, game.options, state.record()["dealer"], decks)
    all_labels = every_label(state)
    rnd = random.Random(seed)
    observed: dict[int, list[str]] = {}
    step = 0
    history = None
    wrappers = Wrappers(game) if spiel_wrapper is not None else None
    while not state.is_over():
        if sampled(step):
            observed[step] = check_observations(state, module, oracle)
            history = check_history_grows(state, history)
            if wrappers is not None and (step < 200 or step % 400 == 0):
                # Long Money games: the wrappers' early steps and a sparse tail.
                wrappers.check(state, module, oracle, resample=step < 100 and step % 10 == 0)
        ids = state.legal_ids()
        legal = state.legal_actions()
        assert legal, "legal list is empty while the game is not over"
        assert len(set(legal)) == len(legal), f"duplicate legal labels: {legal}"
        assert ids == sorted(set(ids)), f"legal ids not strictly ascending: {ids}"
        assert legal == [all_labels[i] for i in ids], "legal labels are not the ids' labels"
        if sweep and step < 150:
            illegal = [x for x in all_labels if x not in legal]
            assert illegal, f"every label is legal at step {step}: nothing to sweep"
            check_rejections(state, rnd.sample(illegal, min(len(illegal), 200)))
        seat = state.current_player()
        label = rnd.choice(legal)
        state.apply(label)
        oracle.advance(seat, label)
        step += 1
    observed[step] = check_observations(state, module, oracle)
    if wrappers is not None:
        wrappers.check(state, module, oracle, resample=False)
        wrappers.check_resampling_is_not_a_copy()
    return state, observed


def every_label(state) -> list[str]:
    """Every action label of the state's game, indexed by action id: the family's table
    (``LABELS``), or for Money the table of the ruleset's money system, which depends on
    the variant and its options (``games.money.plans.ActionTable``)."""
    labels = list(state.LABELS) or list(state.rules.table.labels)
    assert len(labels) > 3 and len(set(labels)) == len(labels), labels
    return labels


def sampled(step: int) -> bool:
    """Steps whose observations are checked: all of the first 400, then every 40th, and
    half as often each time the game's length doubles past step 2,000 (every 80th from
    there, every 160th from step 4,000, every 320th from step 8,000).

    Observations carry the whole history, so checking every step of a
    10,000-play Money game would cost quadratic time, and even every 40th step most of
    the suite's time; the early steps cover every phase of a deal and the samples cover
    the long tail.
    """
    gap = 40
    while step >= 50 * gap:
        gap *= 2
    return step < 400 or step % gap == 0


def check_history_grows(state, previous: list | None) -> list:
    """The public history only grows: every element but the last is final.

    Bots and the referee rely on it (the protocol re-uses the encoded prefix).
    """
    history = state.observation(0)["history"]
    if previous:
        assert history[: len(previous) - 1] == previous[:-1], "public history was rewritten"
    return history


def check_observations(state, module, oracle) -> list[str]:
    """Every seat's observation is JSON-ready and shows no card hidden from it (COMMON-6).

    Returns a digest of each seat's observation, for the replay comparison.
    """
    out = []
    for seat in range(state.game.num_players):
        view = state.observation(seat)
        text = json.dumps(view, sort_keys=True)
        assert json.loads(text) == view
        leaked = set(module.TOKEN.findall(text)) - oracle.visible(seat)
        assert not leaked, f"seat {seat} sees hidden cards {sorted(leaked)}"
        out.append(hashlib.sha256(text.encode()).hexdigest())
    return out


class Wrappers:
    """The leak oracle over the training wrappers (games/envs): PettingZoo, Gymnasium
    and OpenSpiel.

    Every card bit of a seat's observation vector (the PettingZoo and Gymnasium
    observations, as each environment builds it, and the OpenSpiel information-state
    and observation tensors are all this vector) and every
    card named in the OpenSpiel strings must be one the seat may see; every world
    ``resample_from_infostate`` returns must show the seat exactly what it saw, and
    the hidden cards must be dealt again, not copied from the true state.
    """

    def __init__(self, game) -> None:
        self.encoder = Encoder(game)
        name = spiel_wrapper.game_name(game.id)
        # An option whose default is none is a string parameter ("none", "6").
        params = {
            o.name.replace(".", "_"): str(game.options[o.name]).lower()
            if o.default is None
            else game.options[o.name]
            for o in game.variant.options
        }
        self.spiel_game = spiel_wrapper.pyspiel.load_game(name, params)
        self.observers = [
            self.spiel_game.make_py_observer(
                spiel_wrapper.pyspiel.IIGObservationType(perfect_recall=recall)
            )
            for recall in (True, False)
        ]
        self.card_names = {i: name for name, i in self.encoder.cards.items()}
        self.pettingzoo = CardroomEnv(game)
        self.gymnasium = CardroomGymEnv(game, "random")
        self.resampled = 0
        self.changed = 0

    def hidden_bits(self, vector, seat: int, visible: set[str]) -> set[str]:
        c = len(self.card_names)
        seen = set()
        for name, start, length in self.encoder.layout:
            if name in ("hand", "public", "trick", "played", "pile", "pile_top"):
                for i in vector[start : start + length].nonzero()[0]:
                    seen.add(self.card_names[int(i) % c])
        return seen - visible

    def check(self, state, module, oracle, *, resample: bool) -> None:
        spiel_state = self.spiel_game.new_initial_state()
        world = spiel_wrapper._World(self.spiel_game.cardroom)  # the conformance state's
        world.state, world.dealer = state.clone(), state.record()["dealer"]
        spiel_state._world = world
        for seat in range(state.game.num_players):
            visible = oracle.visible(seat)
            leaked = self.hidden_bits(self.encoder.encode(state, seat), seat, visible)
            assert not leaked, f"seat {seat}'s observation vector sets hidden cards {leaked}"
            self.pettingzoo.state = state
            vector = self.pettingzoo.observe(f"player_{seat}")["observation"]
            leaked = self.hidden_bits(vector, seat, visible)
            assert not leaked, f"seat {seat}'s PettingZoo observation sets hidden cards {leaked}"
            self.gymnasium.state, self.gymnasium.seat = state, seat
            leaked = self.hidden_bits(self.gymnasium._observe()["observation"], seat, visible)
            assert not leaked, f"seat {seat}'s Gymnasium observation sets hidden cards {leaked}"
            for observer in self.observers:
                observer.set_from(spiel_state, seat)
                leaked = self.hidden_bits(observer.tensor, seat, visible)
                assert not leaked, f"seat {seat}'s OpenSpiel tensor sets hidden cards {leaked}"
                text = observer.string_from(spiel_state, seat)
                leaked = set(module.TOKEN.findall(text)) - visible
                assert not leaked, f"seat {seat}'s OpenSpiel string shows hidden cards {leaked}"
        seat = state.current_player()
        if not resample or seat is None:
            return
        sampler = spiel_wrapper.pyspiel.UniformProbabilitySampler(0.0, 1.0)
        world = spiel_state.resample_from_infostate(seat, sampler)
        assert world.engine is not spiel_state.engine
        assert world.engine.observation(seat) == state.observation(seat), "inconsistent world"
        assert world.information_state_string(seat) == spiel_state.information_state_string(seat)
        self.resampled += 1
        if world.engine.record()["decks"] != state.record()["decks"]:
            self.changed += 1

    def check_resampling_is_not_a_copy(self) -> None:
        if self.resampled >= 3:
            assert self.changed > 0, "every resampled world copied the true hidden cards"


def check_rejections(state, illegal: list[str]) -> None:
    """FORFEIT-1, ACTION-7: anything outside the legal list is refused, nothing changes."""
    before = fingerprint(state)
    for label in [*illegal, "", "play", "nonsense", "PLAY AS"]:
        with pytest.raises(games.IllegalAction):
            state.apply(label)
    assert fingerprint(state) == before


class Lenient:
    """An engine with a hole: it takes any label of its table that is not legal as a
    no-op instead of refusing it (nonsense outside the table is still refused)."""

    def __init__(self, state) -> None:
        self._state = state

    def __getattr__(self, name: str):
        return getattr(self._state, name)

    def apply(self, label: str) -> None:
        state = self._state
        if label in every_label(state) and label not in state.legal_actions():
            return
        state.apply(label)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_the_sweep_catches_an_engine_that_accepts_an_illegal_action(family, monkeypatch):
    """ACTION-7: the illegal-action sweep fails an engine that takes a label of its table
    that is not legal (every family, Money's per-ruleset tables included)."""
    module = FAMILIES[family]
    variant, options = module.CASES[0]
    play_checked(family, variant, options, 0, sweep=False)  # the honest engine passes
    honest = games.Game.new_game
    monkeypatch.setattr(
        games.Game, "new_game", lambda game, *a, **kw: Lenient(honest(game, *a, **kw))
    )
    with pytest.raises(pytest.fail.Exception, match="DID NOT RAISE"):
        play_checked(family, variant, options, 0, sweep=True)


@pytest.mark.parametrize(("family", "variant", "options"), CASES)
def test_checked_playouts(family, variant, options):
    """ACTION-7, COMMON-6, MANIGLIA-GEN-7, FORFEIT-1: legal lists, rejections, hidden cards."""
    for seed in range(2):
        state, observed = play_checked(family, variant, options, seed, sweep=seed == 0)
        check_replay(state, observed)


def check_replay(state, observed) -> None:
    """replay(record()) reproduces every observation and the final result."""
    record = json.loads(json.dumps(state.record()))
    replayed = games.replay(record)
    assert replayed.scores() == state.scores()
    assert replayed.ranking() == state.ranking()
    assert replayed.record() == state.record()
    # Step through again and compare every checked observation.
    rebuilt = games.load(record["variant"], **record["options"]).new_game(
        record["seed"], dealer=record["dealer"], decks=record["decks"]
    )
    for step, label in enumerate([*record["actions"], None]):
        if step in observed:
            assert digests(rebuilt) == observed[step], f"observation differs at step {step}"
        if label is not None:
            rebuilt.apply(label)


def digests(state) -> list[str]:
    return [
        hashlib.sha256(json.dumps(state.observation(s), sort_keys=True).encode()).hexdigest()
        for s in range(state.game.num_players)
    ]


#: The random playouts of one case stop after this many actions (and ``PLAYOUT_GAMES_MIN``
#: games) if a thousand games take longer.
PLAYOUT_ACTIONS = 1_000_000
PLAYOUT_GAMES_MIN = 100


@pytest.mark.slow
@pytest.mark.parametrize(("family", "variant", "options"), CASES)
def test_many_random_playouts_end_within_limits(family, variant, options):
    """LIMIT-3, LIMIT-4, LIMIT-5, LIMIT-1: a thousand seeded random games all end (for a
    variant whose random games are very long, as many as :data:`PLAYOUT_ACTIONS` actions
    take, and at least :data:`PLAYOUT_GAMES_MIN`: about 100 Egyptian games with aces
    money, of some 10,000 plays each)."""
    game = games.load(variant, **options)
    played = 0
    for seed in range(1000):
        if seed >= PLAYOUT_GAMES_MIN and played >= PLAYOUT_ACTIONS:
            break
        state = game.new_game(seed)
        rnd = random.Random(seed)
        steps = 0
        while not state.is_over():
            state.apply_id(rnd.choice(state.legal_ids()))
            steps += 1
            assert steps < 200_000, "game did not end"
        played += steps
        ranks = state.ranking()
        assert min(ranks) == 1 and len(ranks) == game.num_players
        assert all(1 <= r <= game.num_players for r in ranks)


@pytest.mark.parametrize(("family", "variant", "options"), CASES)
def test_same_seed_gives_identical_records(family, variant, options):
    """COMMON-3: the seed alone fixes the game, byte for byte."""
    game = games.load(variant, **options)
    records = []
    for _ in range(2):
        state = game.new_game(12345)
        rnd = random.Random(7)
        while not state.is_over():
            state.apply(rnd.choice(state.legal_actions()))
        records.append(json.dumps(state.record(), sort_keys=True))
    assert records[0] == records[1]
    other = game.new_game(12346).record()
    assert other["decks"] != json.loads(records[0])["decks"][:1]


@pytest.mark.parametrize(("family", "variant", "options"), CASES)
def test_clone_is_independent(family, variant, options):
    """A clone plays on without touching the original, and vice versa."""
    state = games.load(variant, **options).new_game(3)
    rnd = random.Random(3)
    for _ in range(20):
        if state.is_over():
            break
        state.apply(rnd.choice(state.legal_actions()))
    before = fingerprint(state)
    twin = state.clone()
    assert fingerprint(twin) == before
    while not twin.is_over():
        twin.apply(rnd.choice(twin.legal_actions()))
    assert fingerprint(state) == before


@pytest.mark.parametrize(("family", "variant", "options"), CASES)
def test_finished_game_refuses_actions(family, variant, options):
    """FORFEIT-1: nothing is legal once the game is over."""
    state = games.load(variant, **options).new_game(5)
    rnd = random.Random(5)
    last = None
    while not state.is_over():
        last = rnd.choice(state.legal_actions())
        state.apply(last)
    assert state.legal_actions() == [] and state.current_player() is None
    with pytest.raises(games.IllegalAction, match="over"):
        state.apply(last)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_the_hidden_card_check_catches_a_leak(family):
    """COMMON-6: the oracle check fails when an observation shows another seat's cards."""
    module = FAMILIES[family]
    variant, options = module.CASES[0]
    game = games.load(variant, **options)
    decks = make_decks(module, variant, options, 0)
    state = game.new_game(0, decks=decks)
    oracle = module.Oracle(variant, game.options, state.record()["dealer"], decks)
    check_observations(state, module, oracle)  # honest: passes
    honest = state.observation

    def leaky(seat):
        obs = honest(seat)
        obs["peek"] = [c for c in decks[0] if c not in oracle.visible(seat)][:1]
        return obs

    state.observation = leaky
    with pytest.raises(AssertionError, match="hidden cards"):
        check_observations(state, module, oracle)


@pytest.mark.skipif(spiel_wrapper is None, reason="the 'rl' extra is not installed")
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_the_wrapper_check_catches_a_leak(family):
    """The oracle fails a wrapper whose vector sets a card bit the seat may not see."""
    module = FAMILIES[family]
    variant, options = module.CASES[0]
    game = games.load(variant, **options)
    decks = make_decks(module, variant, options, 0)
    state = game.new_game(0, decks=decks)
    oracle = module.Oracle(variant, game.options, state.record()["dealer"], decks)
    wrappers = Wrappers(game)
    wrappers.check(state, module, oracle, resample=True)  # honest: passes
    honest = wrappers.encoder.encode
    field = "pile" if family == "money" else "hand"
    start = wrappers.encoder.offsets[field]

    def leaky(state, seat):
        vector = honest(state, seat)
        hidden = next(c for c in decks[0] if c not in oracle.visible(seat))
        vector[start + wrappers.encoder.cards[hidden]] = 1.0
        return vector

    wrappers.encoder.encode = leaky
    with pytest.raises(AssertionError, match="hidden cards"):
        wrappers.check(state, module, oracle, resample=False)
