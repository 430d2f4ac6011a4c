"""``greedy``: a rule-based player for every registered variant.

It reads only what any bot receives (the observation and the legal labels),
so it plays the same in-process or as a separate program speaking the
protocol. ``start()`` picks the family strategy from ``hello["variant"]``:

- :mod:`bots.builtin.greedy.manni` for manni-basic, manni-hornafjordur and
  laugavatnsmanni;
- :mod:`bots.builtin.greedy.maniglia` for the four Maniglia variants;
- :mod:`bots.builtin.greedy.money` for money-jordan, -egypt and -syria.

Every choice is a deterministic function of its inputs (ties go to the
first label in the legal list), so the same game gives the same actions.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import games
from bots.builtin.greedy import maniglia, manni, money
from bots.sdk import Bot

Strategy = Callable[[dict[str, Any], list[str]], str]


def strategy_for(variant: str, options: dict[str, Any]) -> Strategy:
    """A fresh family strategy for one game of ``variant``; ``ValueError`` for an unknown one."""
    try:
        family = games.variant_info(variant).family
    except ValueError:
        family = None
    if family == "maniglia":
        return partial(maniglia.act, options=options)
    if family == "money":
        return money.MoneyPlayer(variant)
    if family == "manni":
        return partial(manni.act, options=options)
    raise ValueError(f"greedy has no strategy for variant {variant!r}")


class GreedyBot(Bot):
    """Rule-based player; ``seed`` is accepted for the factory signature only."""

    name = "greedy"
    needs_observation = True

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.variant = ""
        self.options: dict[str, Any] = {}
        self.strategy: Strategy | None = None

    def start(self, hello: dict[str, Any]) -> None:
        self.variant = hello.get("variant", "")
        self.options = dict(hello.get("options") or {})
        self.strategy = strategy_for(self.variant, self.options)

    def game_over(self, result: dict[str, Any]) -> None:
        """A fresh strategy for the next game: some follow one game's history."""
        if self.variant:
            self.strategy = strategy_for(self.variant, self.options)

    def act(self, observation: dict[str, Any] | None, legal: list[str]) -> str:
        if len(legal) == 1 or observation is None:
            return legal[0]
        if self.strategy is None:
            self.strategy = strategy_for(observation.get("variant", ""), self.options)
        label = self.strategy(observation, legal)
        # A strategy bug must never cost a forfeit (FORFEIT-1).
        return label if label in legal else legal[0]
