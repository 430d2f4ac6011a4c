"""The variant metadata (``Variant.teams``, ``pack``, ``dealer_rotation``,
``num_distinct_actions``, ``partnership``) against the rules and the engines.

Each field is checked for every registered variant by what the engines do in
random games: who shares a result, which cards are dealt, who deals the next
deal, which action ids the fast path hands out.
"""

from __future__ import annotations

import itertools
import random

import pytest

import games
from games.cards import FRENCH_NAMES, LATIN_NAMES
from games.core import DEALER_ROTATIONS, DEALER_STEPS, PACKS, Variant

VARIANTS = games.variants()
#: Every card name of each pack (COMMON-4): French cards and the jokers X1, X2; Latin cards.
PACK_CARDS = {"french": frozenset(FRENCH_NAMES) | {"X1", "X2"}, "latin": frozenset(LATIN_NAMES)}
#: What RULES.md says, variant by variant (section 0, COMMON-2, MANIGLIA-4P-1).
EXPECTED = {
    "manni-basic": ((), "french", "left"),
    "manni-hornafjordur": ((), "french", "left"),
    "laugavatnsmanni": ((), "french", "left"),
    "money-jordan": ((), "french", "alternate"),
    "money-egypt": ((), "french", "alternate"),
    "money-syria": ((), "french", "alternate"),
    "maniglia-3": ((), "latin", "right"),
    "maniglia-4": ((), "latin", "right"),
    "maniglia-5": ((), "latin", "right"),
    "maniglia-4-partners": (((0, 2), (1, 3)), "latin", "right"),
}


def random_games(variant_id: str, count: int, seed: int = 0, **options):
    """``count`` finished random games of ``variant_id``, played through ``legal_ids``."""
    game = games.load(variant_id, **options)
    rng = random.Random(seed)
    for i in range(count):
        state = game.new_game(seed * 1000 + i)
        while not state.is_over():
            ids = state.legal_ids()
            state.apply_id(ids[rng.randrange(len(ids))])
        yield state


def test_every_registered_variant_states_its_metadata():
    assert sorted(EXPECTED) == VARIANTS
    for v in VARIANTS:
        info = games.variant_info(v)
        assert (info.teams, info.pack, info.dealer_rotation) == EXPECTED[v], v
        assert info.pack in PACKS and info.dealer_rotation in DEALER_ROTATIONS
        assert info.num_distinct_actions > 0
        assert info.partnership is bool(EXPECTED[v][0])


# -- teams ------------------------------------------------------------------------------


def test_maniglia_4_partners_teams_are_seats_0_2_and_1_3():
    """MANIGLIA-4P-1: partners sit opposite each other (seats 0+2, 1+3)."""
    info = games.variant_info("maniglia-4-partners")
    assert info.teams == ((0, 2), (1, 3))
    assert info.partnership
    state = games.load("maniglia-4-partners").new_game(3)
    assert state.observation(1)["teams"] == [list(t) for t in info.teams]


@pytest.mark.parametrize("variant", VARIANTS)
def test_teams_are_who_shares_a_result(variant):
    """Seats of one team always share their rank; seats playing alone do not."""
    info = games.variant_info(variant)
    finished = list(random_games(variant, 12, seed=5, **_short(variant)))
    together = {pair for team in info.teams for pair in itertools.combinations(team, 2)}
    for a, b in itertools.combinations(range(info.players), 2):
        same = [state.ranking()[a] == state.ranking()[b] for state in finished]
        if (a, b) in together:
            assert all(same), (variant, a, b)
            assert all(state.scores()[a] == state.scores()[b] for state in finished)
        else:
            assert not all(same), (variant, a, b)


def test_teams_must_split_the_seats_evenly():
    base = games.variant_info("maniglia-4-partners")
    for bad in (((0, 2),), ((0, 1, 2), (3,)), ((0, 2), (1, 2)), ((0, 2), (1, 4))):
        with pytest.raises(ValueError, match="teams"):
            Variant(**{**_fields(base), "teams": bad})
    assert not Variant(**{**_fields(base), "teams": ()}).partnership


# -- pack -------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_pack_holds_every_card_dealt(variant):
    """COMMON-4: the deck of every deal is made of the pack's cards, some of them found
    in no other pack (a Latin N or B suit, a French T, Q or H)."""
    pack = games.variant_info(variant).pack
    dealt = set()
    for state in random_games(variant, 3, seed=11, **_short(variant)):
        for deck in state.record()["decks"]:
            dealt.update(deck)
        for seat in range(state.game.num_players):
            dealt.update(state.observation(seat).get("hand") or [])
    assert dealt <= PACK_CARDS[pack]
    for other in PACKS:
        if other != pack:
            assert not dealt <= PACK_CARDS[other], (variant, other)


def test_unknown_pack_or_rotation_is_refused():
    base = _fields(games.variant_info("manni-basic"))
    with pytest.raises(ValueError, match="pack"):
        Variant(**{**base, "pack": "tarot"})
    with pytest.raises(ValueError, match="dealer_rotation"):
        Variant(**{**base, "dealer_rotation": "random"})
    with pytest.raises(ValueError, match="num_distinct_actions"):
        Variant(**{**base, "num_distinct_actions": -1})


# -- dealer rotation ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "variant", [v for v in VARIANTS if games.variant_info(v).dealer_rotation != "alternate"]
)
def test_dealer_moves_between_deals_as_stated(variant):
    """COMMON-2: the Manni deal passes to the left (dealer + 1), the Maniglia deal to the
    right (dealer - 1, MANIGLIA-GEN-3), thrown-in deals included (MANIGLIA-AUC-3)."""
    info = games.variant_info(variant)
    step = DEALER_STEPS[info.dealer_rotation]
    # A higher Maniglia target than one deal's value, so that a game has several deals.
    more = {"maniglia.target": 300} if info.option("maniglia.target") else {}
    game = games.load(variant, **more)
    rng = random.Random(7)
    longest = 0
    for seed in range(6):
        state = game.new_game(seed)
        dealers = [state.observation(0)["dealer"]]
        assert dealers[0] == state.record()["dealer"]
        while not state.is_over():
            deal = state.deal_number()
            state.playout(rng, deal_only=True)
            if not state.is_over():
                assert state.deal_number() == deal + 1
                dealers.append(state.observation(0)["dealer"])
        for before, after in itertools.pairwise(dealers):
            assert after == (before + step) % info.players, (variant, seed, dealers)
        longest = max(longest, len(dealers))
    assert longest >= 3  # several deals were seen


@pytest.mark.parametrize(
    "variant", [v for v in VARIANTS if games.variant_info(v).dealer_rotation == "alternate"]
)
def test_alternate_is_one_deal_per_game_with_its_dealer_kept(variant):
    """COMMON-2: Money has one dealer per game; the engine deals with the given dealer
    and never moves it (the platform alternates it between games, see below)."""
    game = games.load(variant, **{"money.max_plays": 300})
    rng = random.Random(3)
    for dealer in (0, 1):
        state = game.new_game(dealer + 20, dealer=dealer)
        while not state.is_over():
            assert state.deal_number() == 1
            assert state.observation(state.current_player())["dealer"] == dealer
            ids = state.legal_ids()
            state.apply_id(ids[rng.randrange(len(ids))])
        assert state.record()["dealer"] == dealer
        assert len(state.record()["decks"]) == 1


def test_alternate_dealers_alternate_between_the_games_of_a_match():
    """COMMON-2: "the platform alternates between games of a match": deal k, seat k % 2."""
    from bots.builtin import make
    from bots.referee import InProcessPlayer, play_match

    alternating = [v for v in VARIANTS if games.variant_info(v).dealer_rotation == "alternate"]
    for variant in alternating:
        players = [InProcessPlayer(make("random", seed=i)) for i in range(2)]
        result = play_match(
            variant, players, games_count=4, seed=2, options={"money.max_plays": 40}
        )
        assert [g.record["dealer"] for g in result.games] == [0, 1, 0, 1], variant


# -- num_distinct_actions ----------------------------------------------------------------


def _configurations(variant: str):
    """Every option configuration of ``variant`` that can change its action table: each
    enumerated or true/false option at each of its values (integer options at default)."""
    info = games.variant_info(variant)
    choices = []
    for opt in info.options:
        if opt.choices:
            choices.append([(opt.name, c) for c in opt.choices])
        elif isinstance(opt.default, bool):
            choices.append([(opt.name, False), (opt.name, True)])
    for combo in itertools.product(*choices):
        yield dict(combo)


def _id_space(state) -> int:
    """The number of action ids the state's configuration has (ids index its labels)."""
    rules = getattr(state, "rules", None)
    return len(rules.table.labels) if rules is not None else len(state.LABELS)


@pytest.mark.parametrize("variant", VARIANTS)
def test_num_distinct_actions_is_the_largest_id_space_of_any_configuration(variant):
    info = games.variant_info(variant)
    spaces = [_id_space(games.load(variant, **c).new_game(0)) for c in _configurations(variant)]
    assert max(spaces) == info.num_distinct_actions


@pytest.mark.parametrize("variant", VARIANTS)
def test_num_distinct_actions_bounds_every_id_of_random_play(variant):
    info = games.variant_info(variant)
    configurations = list(_configurations(variant))
    per_configuration = max(1, 8 // len(configurations))
    seen = max(
        top
        for i, config in enumerate(configurations)
        for top in _played(
            variant, per_configuration, seed=i, options={**config, **_short(variant)}
        )
    )
    assert 0 < seen < info.num_distinct_actions


def _played(variant: str, count: int, *, seed: int, options: dict):
    """The largest action id offered in each of ``count`` random games (every legal list
    checked against the labels, too)."""
    game = games.load(variant, **options)
    rng = random.Random(seed)
    for g in range(count):
        state = game.new_game(seed * 100 + g)
        top = 0
        while not state.is_over():
            ids = state.legal_ids()
            assert ids and all(isinstance(a, int) and a >= 0 for a in ids)
            assert len(state.legal_actions()) == len(ids)
            top = max(top, *ids)
            state.apply_id(ids[rng.randrange(len(ids))])
        yield top


# -- helpers -----------------------------------------------------------------------------


def _short(variant: str) -> dict:
    """Options that keep a random Money game short (the cap of LIMIT-1)."""
    return {"money.max_plays": 300} if games.variant_info(variant).option("money.max_plays") else {}


def _fields(variant: Variant) -> dict:
    return {f: getattr(variant, f) for f in Variant.__dataclass_fields__}
