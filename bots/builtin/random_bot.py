"""``random``: a uniformly random legal action, reproducible from its seed."""

from __future__ import annotations

from typing import Any

from bots.sdk import Bot
from games.rng import Stream


class RandomBot(Bot):
    """Picks uniformly among the legal labels; the same seed and seat give the same choices."""

    name = "random"
    needs_observation = False

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.stream = Stream(seed, "bot/random/0")

    def start(self, hello: dict[str, Any]) -> None:
        self.stream = Stream(self.seed, f"bot/random/{hello.get('seat', 0)}")

    def act(self, observation: dict[str, Any] | None, legal: list[str]) -> str:
        return legal[self.stream.below(len(legal))]
