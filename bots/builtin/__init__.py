"""Built-in bots: trusted, in-process, available for every registered variant.

``make("random", seed=7)`` builds one; ``NAMES`` lists them. Built-ins see
exactly what an uploaded bot sees (the observation and the legal labels).
"""

from __future__ import annotations

from collections.abc import Callable

from bots.builtin.random_bot import RandomBot
from bots.sdk import Bot

_FACTORIES: dict[str, Callable[[int], Bot]] = {
    "random": RandomBot,
}


def register(name: str, factory: Callable[[int], Bot]) -> None:
    if name in _FACTORIES:
        raise ValueError(f"built-in bot {name!r} registered twice")
    _FACTORIES[name] = factory


def names() -> list[str]:
    return sorted(_FACTORIES)


def make(name: str, *, seed: int = 0) -> Bot:
    """A fresh built-in bot; ``ValueError`` naming the known ones for an unknown name."""
    try:
        factory = _FACTORIES[name]
    except KeyError:
        raise ValueError(f"unknown built-in bot {name!r} (known: {', '.join(names())})") from None
    return factory(seed)


# Registration of the rule-based players (they import this module's register()).
from bots.builtin import greedy  # noqa: E402, F401  isort: skip
from bots.builtin import ismcts  # noqa: E402, F401  isort: skip
