"""The recipe's policy: a linear score over features of each legal label.

For every decision each legal label gets a short feature vector (below); the policy
plays the label whose ``weights[phase] . features`` is highest. One feature is
whether the label is the rule-based ``greedy``'s choice (``bots.builtin.greedy``,
mounted in the sandbox), so a policy with weight on it alone plays as greedy does,
and what training learns is when, and towards what, to leave it. Phases without
weights in the file are played by greedy's rules.

Weights come from ``train.py`` beside this file (imitation of the search player
``ismcts``); the file is plain JSON::

    {"format": "cardroom-linear-1",
     "variants": {"maniglia-3": {"auction": [w0, w1, ...]}, "money-jordan": {...}}}

Standard library and the mounted packages only (``games``, ``bots.sdk``,
``bots.builtin``).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import games
from bots.builtin.greedy import GreedyBot
from bots.builtin.greedy import maniglia as rules
from bots.sdk import Bot
from games.search import value_of

FORMAT = "cardroom-linear-1"

#: The features of a label, by family and phase (their names, in order).
FEATURES: dict[str, list[str]] = {
    "maniglia/auction": [
        "greedy", "bid", "above_estimate", "jump", "estimate", "first_bid", "passed",
        "score_gap", "sevens", "aces", "trump_length",
    ],
    "maniglia/play": ["greedy", "points", "trump"],
    "money/purchase": [
        "greedy", "foreseen", "rollout", "spent", "change", "exchange", "ground", "opponent",
    ],
    "money/change": [
        "greedy", "foreseen", "rollout", "spent", "change", "exchange", "ground", "opponent",
    ],
}  # fmt: skip


class RecipeError(ValueError):
    """A weights file that cannot be read or does not fit the game."""


def load_weights(path: str | Path) -> dict[str, dict[str, list[float]]]:
    """The weights of a ``cardroom-linear-1`` file, checked against :data:`FEATURES`."""
    name = Path(path).name
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise RecipeError(f"cannot read the weights file {name}: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RecipeError(f"{name} is not a {FORMAT} file (its 'format' entry)")
    variants = data.get("variants")
    if not isinstance(variants, dict):
        raise RecipeError(f"{name} has no 'variants' table")
    for variant, phases in variants.items():
        family = games.variant_info(variant).family
        for phase, weights in phases.items():
            expected = FEATURES.get(f"{family}/{phase}")
            if expected is None or len(weights) != len(expected):
                raise RecipeError(
                    f"{name}: {variant} {phase} has {len(weights)} weights, the recipe "
                    f"has {len(expected or [])} features for it"
                )
    return variants


def maniglia_auction(obs: dict[str, Any], label: str, greedy: str) -> list[float]:
    hand, players = obs["hand"], obs["players"]
    trump = rules.best_suit(hand)
    estimate = rules.estimate_points(hand, trump, players)
    if not label.startswith("bid "):
        return [float(label == greedy)] + [0.0] * 10
    amount, top = int(label[4:]), max(obs["max_bid"], 1)
    mine = obs["scores"][obs["seat"]]
    others = max(s for k, s in enumerate(obs["scores"]) if k != obs["seat"])
    return [
        float(label == greedy),
        1.0,
        (amount - estimate) / 10,
        (amount - obs["min_bid"]) / 10,
        estimate / top,
        float(obs["high_bid"] is None),
        len(obs["passed"]) / players,
        (mine - others) / max(obs["target"] or top, 1),
        sum(c[0] == "7" for c in hand) / 4,
        sum(c[0] == "A" for c in hand) / 4,
        sum(c[1] == trump for c in hand) / max(len(hand), 1),
    ]


def maniglia_play(obs: dict[str, Any], label: str, greedy: str) -> list[float]:
    card = label[5:]
    return [float(label == greedy), rules.points(card) / 5, float(card[1] == obs["trump"])]


#: Actions a Money rollout plays after the label (each the first legal one: ``turn``,
#: the first purchase plan, no change), as the search's playouts mostly do.
ROLLOUT = 40


def rollout_value(world: games.State, label: str, seat: int) -> float:
    """The seat's wealth lead (``games.search.value_of``) after ``label`` and a rollout."""
    child = world.clone()
    child.apply(label)
    for _ in range(ROLLOUT):
        if child.is_over():
            break
        child.apply_id(child.legal_ids()[0])
    return value_of(child, seat)


def money_features(
    obs: dict[str, Any], label: str, greedy: str, player: Any, world: games.State
) -> list[float]:
    values, words = obs["money_values"], label.split()

    def worth(letters: str) -> float:
        return sum(values[x] for x in letters.split("+")) / 20 if letters != "none" else 0.0

    spent = change = 0.0
    if words[0] == "buy":
        spent = worth(words[1])
        change = worth(words[5]) if len(words) > 5 else 0.0
    elif words[0] == "change":
        change = worth(words[1])
    plays = words[0] in ("buy", "change", "turn")
    foreseen = player.score(label, obs) / 10 if plays else 0.0
    rollout = rollout_value(world, label, obs["seat"]) / 100
    return [
        float(label == greedy),
        foreseen,
        rollout,
        spent,
        change,
        float(words[0] == "exchange"),
        float("ground" in words),
        float(words[0] == "buy" and words[3] == "opponent"),
    ]


class Features:
    """The feature vectors of one seat's decisions, with greedy's rules beside them."""

    def __init__(self) -> None:
        self.rules = GreedyBot()
        self.family = ""
        self.rng = random.Random(0)

    def start(self, hello: dict[str, Any]) -> None:
        self.rules.start(hello)
        self.rng.seed(f"recipe/{hello.get('seat', 0)}")
        self.game = games.load(hello["variant"], **dict(hello.get("options") or {}))
        self.family = games.variant_info(hello["variant"]).family

    def game_over(self, result: dict[str, Any]) -> None:
        self.rules.game_over(result)

    def world(self, obs: dict[str, Any]) -> games.State:
        """A full state consistent with ``obs`` (in Money the stacks' order is known from
        the history once the dealt cards are turned, so it is mostly the true one)."""
        return games.sample_world(self.game, obs, self.rng)

    def greedy(self, obs: dict[str, Any], legal: list[str]) -> str:
        return self.rules.act(obs, legal)

    def of(
        self, obs: dict[str, Any], legal: list[str], greedy: str
    ) -> tuple[str, list[list[float]]]:
        """The key of the decision (``family/phase``) and each legal label's features."""
        key = f"{self.family}/{obs.get('phase')}"
        if key == "maniglia/auction":
            return key, [maniglia_auction(obs, label, greedy) for label in legal]
        if key == "maniglia/play":
            return key, [maniglia_play(obs, label, greedy) for label in legal]
        if self.family == "money" and key in FEATURES:
            player, world = self.rules.strategy, self.world(obs)
            return key, [money_features(obs, label, greedy, player, world) for label in legal]
        return key, []


class RecipeBot(Bot):
    """Plays the legal label of highest score; greedy's choice where no weights apply."""

    name = "recipe"

    def __init__(self, weights: str | Path) -> None:
        self.path = Path(weights)
        self.weights = load_weights(self.path)
        self.features = Features()
        self.phases: dict[str, list[float]] = {}

    @classmethod
    def beside(cls, script: str, filename: str) -> RecipeBot:
        return cls(Path(script).resolve().parent / filename)

    def start(self, hello: dict[str, Any]) -> None:
        variant = hello.get("variant")
        if variant not in self.weights:
            message = (
                f"{self.path.name} does not fit {variant}: it holds weights for "
                f"{', '.join(sorted(self.weights))}"
            )
            print(message, file=sys.stderr, flush=True)
            raise RecipeError(message)
        self.features.start(hello)
        self.phases = self.weights[variant]

    def game_over(self, result: dict[str, Any]) -> None:
        self.features.game_over(result)

    def act(self, observation: dict[str, Any] | None, legal: list[str]) -> str:
        if len(legal) == 1 or observation is None:
            return legal[0]
        greedy = self.features.greedy(observation, legal)
        weights = self.phases.get(str(observation.get("phase")))
        if weights is None:
            return greedy
        try:
            _, rows = self.features.of(observation, legal, greedy)
        except ValueError:  # no world explains the observation: never forfeit for it
            return greedy
        if not rows:
            return greedy
        scores = [sum(w * x for w, x in zip(weights, row, strict=True)) for row in rows]
        return legal[max(range(len(legal)), key=scores.__getitem__)]


class RecipePolicy:
    """The recipe as a callable policy (``recipe:RecipePolicy`` for
    ``bots.sdk.policy.policy_bot``): the weights are ``weights.json`` beside this module."""

    def __init__(self) -> None:
        self.bot = RecipeBot(Path(__file__).resolve().parent / "weights.json")

    def start(self, hello: dict[str, Any]) -> None:
        self.bot.start(hello)

    def game_over(self, result: dict[str, Any]) -> None:
        self.bot.game_over(result)

    def __call__(self, observation: dict[str, Any] | None, legal: list[str]) -> str:
        return self.bot.act(observation, legal)
