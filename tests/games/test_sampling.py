"""Sampled worlds (games.sample_world): consistent with the seat's view, uniform, careful.

For every variant, worlds sampled at random positions must show the seat
exactly what it saw (its hand, the whole public history, counts, tallies),
and replaying a world's record must give the same view again. A chi-square
test checks uniformity over the hidden hands of small positions, counted
by brute force through the engine itself.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
from collections import Counter

import pytest

import games

VARIANTS = games.variants()


def random_position(game: games.Game, seed: int) -> games.State:
    """A game played at random to a random point before its end."""
    rng = random.Random(seed)
    for _ in range(20):
        state = game.new_game(rng.getrandbits(32))
        stop = rng.randrange(1, 300)
        for _ in range(stop):
            if state.is_over():
                break
            state.apply(rng.choice(state.legal_actions()))
        if not state.is_over():
            return state
    raise AssertionError("no unfinished position found")


def test_every_registered_variant_is_covered():
    assert len(VARIANTS) == 10


@pytest.mark.parametrize("variant", VARIANTS)
def test_sampled_worlds_show_the_seat_exactly_what_it_saw(variant):
    game = games.load(variant)
    rng = random.Random(variant)
    worlds = 0
    for position in range(8):
        state = random_position(game, random.Random(f"{variant}/{position}").getrandbits(32))
        seat = position % game.num_players
        seen = state.observation(seat)
        sampler = games.WorldSampler(game, seen)
        for i in range(150):
            world = sampler.sample(rng)
            assert world.observation(seat) == seen
            if state.current_player() == seat:
                assert world.legal_actions() == state.legal_actions()
            if i % 30 == 0:  # the record of a world replays to the same view
                assert games.replay(world.record()).observation(seat) == seen
            worlds += 1
    assert worlds == 1200


@pytest.mark.parametrize("variant", VARIANTS)
def test_hidden_cards_really_vary_between_worlds(variant):
    """Worlds are not one copy of the true deal: the hidden cards move."""
    game = games.load(variant)
    state = game.new_game(11)
    seat = state.current_player()
    seen = state.observation(seat)
    rng = random.Random(5)
    decks = {tuple(games.sample_world(game, seen, rng).record()["decks"][0]) for _ in range(20)}
    assert len(decks) > 15
    true_hand = seen.get("hand")
    for deck in decks:  # the seat's own cards never move
        world = game.new_game(0, dealer=seen["dealer"], decks=[list(deck)])
        if true_hand is not None:
            assert world.observation(seat)["hand"] == true_hand


def test_state_sample_world_uses_only_the_seats_observation():
    game = games.load("maniglia-4")
    state = random_position(game, 3)
    rng = random.Random(1)
    world = state.sample_world(1, rng)
    assert world is not state
    assert world.observation(1) == state.observation(1)
    # Another seat's hidden hand is not copied from the true state every time.
    others = {tuple(state.sample_world(1, rng).observation(2)["hand"]) for _ in range(30)}
    assert len(others) > 1 or state.observation(2)["hand_sizes"][2] <= 1


def test_voids_shown_in_play_are_respected():
    game = games.load("manni-basic")
    rng = random.Random(2)
    checked = 0
    for seed in range(40):
        state = random_position(game, seed)
        seen = state.observation(0)
        if seen["phase"] != "play":
            continue
        voids = {1: set(), 2: set()}
        deal = seen["history"][-1]
        trick: list[str] = []
        for who, label in zip(deal["seats"], deal["actions"], strict=True):
            if label.startswith("play "):
                if trick and label[6] != trick[0][1] and who in voids:
                    voids[who].add(trick[0][1])
                trick = [] if len(trick) == 2 else [*trick, label[5:]]
        for _ in range(20):
            world = games.sample_world(game, seen, rng)
            for who, suits in voids.items():
                hand = world.observation(who)["hand"]
                assert not [c for c in hand if c[1] in suits]
            checked += 1
    assert checked > 100


# -- uniformity ---------------------------------------------------------------------


def chi_square_p(observed: list[int], expected: float) -> float:
    """Upper tail of the chi-square statistic against equal expected counts."""
    stat = sum((o - expected) ** 2 / expected for o in observed)
    k = (len(observed) - 1) / 2
    # Regularised upper incomplete gamma Q(k, stat / 2) by its series.
    x = stat / 2
    if x == 0:
        return 1.0
    term = total = 1 / k
    for n in range(1, 2000):
        term *= x / (k + n)
        total += term
        if term < total * 1e-15:
            break
    lower = total * math.exp(-x + k * math.log(x) - math.lgamma(k))
    return max(0.0, 1.0 - lower)


def consistent_hands(game, state, seat):
    """Every assignment of the unseen cards to the other hands that the engine accepts.

    Brute force: for each split, a deck of the current (first) deal is laid out
    and the history replayed; the engine's legality is the only judge.
    """
    record = state.record()
    true_deck = record["decks"][0]
    others = [s for s in range(game.num_players) if s != seat]
    # Unseen = cards now in the other hands.
    truth = {s: state.observation(s)["hand"] for s in others}
    unseen = sorted(c for s in others for c in truth[s])
    sizes = [len(truth[s]) for s in others]
    found = []
    for perm in itertools.permutations(unseen):
        split, at = [], 0
        for size in sizes:
            split.append(tuple(sorted(perm[at : at + size])))
            at += size
        if any(list(p) != sorted(p) for p in split):
            continue
        key = tuple(split)
        if key in found:
            continue
        # Swap the true cards of the other hands for this split in the true deck.
        rename = {}
        for s, cards in zip(others, split, strict=True):
            for old, new in zip(sorted(truth[s]), cards, strict=True):
                rename[old] = new
        deck = [rename.get(c, c) for c in true_deck]
        world = game.new_game(0, dealer=record["dealer"], decks=[deck])
        try:
            for label in record["actions"]:
                world.apply(label)
        except games.IllegalAction:
            continue
        found.append(key)
    return found, others


def late_position(variant, left, seed):
    game = games.load(variant)
    rng = random.Random(seed)
    state = game.new_game(seed)
    while not state.is_over():
        seen = state.observation(0)
        playing = seen["phase"] == "play" and seen["deal"] == 1 and not seen["trick"]
        if playing and all(n == left for n in seen["hand_sizes"]):
            return game, state
        if seen["deal"] > 1:
            break
        state.apply(rng.choice(state.legal_actions()))
    return game, None


@pytest.mark.parametrize("variant,left", [("maniglia-4", 2), ("maniglia-4-partners", 2)])
def test_worlds_are_uniform_over_consistent_hands(variant, left):
    """Chi-square over every consistent split of the unseen cards (p > 0.001)."""
    for seed in range(60):
        game, state = late_position(variant, left, seed)
        if state is None:
            continue
        cells, others = consistent_hands(game, state, 0)
        if len(cells) >= 10:
            break
    else:
        pytest.fail("no small position with enough consistent deals")
    seen = state.observation(0)
    sampler = games.WorldSampler(game, seen)
    rng = random.Random(99)
    counts: Counter = Counter()
    draws = 60 * len(cells)
    for _ in range(draws):
        world = sampler.sample(rng)
        counts[tuple(tuple(sorted(world.observation(s)["hand"])) for s in others)] += 1
    assert set(counts) <= set(cells), "a sampled world is not among the consistent ones"
    p = chi_square_p([counts[c] for c in cells], draws / len(cells))
    print(f"{variant}: {len(cells)} consistent splits, {draws} worlds, chi-square p = {p:.3f}")
    assert p > 0.001


def test_money_worlds_are_uniform_over_the_unturned_order():
    """Money: every order of the unturned cards over the unseen positions is equally likely."""
    game = games.load("money-jordan")
    state = game.new_game(4)
    for _ in range(6):
        state.apply(state.legal_actions()[0])
    seen = state.observation(0)
    sampler = games.WorldSampler(game, seen)
    rng = random.Random(3)
    counts: Counter = Counter()
    for _ in range(3000):
        deck = sampler.sample(rng).record()["decks"][0]
        counts[deck[-1]] += 1  # the last card dealt: never turned yet
    turned = {e[2] for e in seen["history"] if e[1] == "turn"}
    unseen = [c for c in state.record()["decks"][0] if c not in turned]
    assert set(counts) == set(unseen)
    p = chi_square_p([counts[c] for c in unseen], 3000 / len(unseen))
    print(f"money-jordan: last card over {len(unseen)} unseen numerals, chi-square p = {p:.3f}")
    assert p > 0.001


def test_chi_square_helper_rejects_a_biased_count():
    assert chi_square_p([100, 100, 100, 100], 100) > 0.99
    assert chi_square_p([160, 80, 80, 80], 100) < 0.001


# -- bad input ------------------------------------------------------------------------


def test_bad_input_gives_a_clear_error_and_changes_nothing():
    game = games.load("manni-basic")
    state = game.new_game(1)
    seen = state.observation(0)
    before = state.record()
    rng = random.Random(0)
    with pytest.raises(ValueError, match="seat must be in 0..2"):
        state.sample_world(3, rng)
    with pytest.raises(ValueError, match="seat must be in 0..2"):
        games.sample_world(game, {**seen, "seat": 5}, rng)
    other = games.load("maniglia-3").new_game(1).observation(0)
    with pytest.raises(ValueError, match="variant 'maniglia-3', not of 'manni-basic'"):
        games.sample_world(game, other, rng)
    with pytest.raises(ValueError, match="must be a dict"):
        games.sample_world(game, "hand", rng)
    with pytest.raises(ValueError, match="rng must be a random.Random"):
        games.sample_world(game, seen, 7)
    assert state.record() == before


def test_a_finished_game_has_nothing_to_sample():
    game = games.load("money-jordan")
    state = game.new_game(2)
    while not state.is_over():
        state.apply(state.legal_actions()[0])
    with pytest.raises(ValueError, match="the game is over"):
        state.sample_world(0, random.Random(0))


def test_an_impossible_observation_is_refused():
    game = games.load("maniglia-4")
    state = game.new_game(3)
    seen = state.observation(0)
    forged = {**seen, "hand": seen["hand"][:-1] + [state.observation(1)["hand"][0]] * 2}
    with pytest.raises(games.SamplingError):
        games.sample_world(game, forged, random.Random(0))


def test_every_registered_variant_states_how_its_worlds_are_drawn():
    assert [v for v in VARIANTS if games.variant_info(v).worlds is None] == []


@pytest.mark.parametrize("variant", ["manni-basic", "money-jordan"])
def test_the_sampler_asks_the_variant_how_to_draw_worlds(variant):
    """Metadata, not names: ``Variant.worlds`` decides, whatever the family; a later
    sampler of the same game and seat hands it the earlier one's analysis."""
    base = games.variant_info(variant)
    asked = []

    def worlds(game, observation, previous):
        built = base.worlds(game, observation, previous)
        asked.append((previous, built))
        return built

    game = games.Game(dataclasses.replace(base, worlds=worlds), {})
    state = game.new_game(5)
    state.apply(state.legal_actions()[0])
    seat = state.current_player()
    first = games.WorldSampler(game, state.observation(seat))
    later = games.WorldSampler(game, state.observation(seat), previous=first)
    other_seat = games.WorldSampler(game, state.observation(1 - seat), previous=first)
    assert [previous for previous, _ in asked] == [None, asked[0][1], None]
    for sampler, seen in ((later, seat), (other_seat, 1 - seat)):
        assert sampler.sample(random.Random(1)).observation(seen) == state.observation(seen)


def test_a_variant_without_world_sampling_is_refused_by_name():
    base = games.variant_info("maniglia-3")
    game = games.Game(dataclasses.replace(base, worlds=None), {})
    with pytest.raises(ValueError, match="no world sampling for variant maniglia-3"):
        games.WorldSampler(game, game.new_game(1).observation(0))
