"""Built-in bots: trusted, in-process, available for every registered variant.

``make("random", seed=7)`` builds one; ``names()`` lists them. Which they are is the
table below (a new built-in is one more row; its module registers nothing on import).
Built-ins see exactly what an uploaded bot sees (the observation and the legal labels).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from bots.builtin.greedy import GreedyBot
from bots.builtin.ismcts import STRENGTHS, IsmctsBot
from bots.builtin.random_bot import RandomBot
from bots.sdk import Bot

#: Every built-in, by name: the platform keeps a bot of each (``names()``).
_FACTORIES: dict[str, Callable[[int], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "ismcts": IsmctsBot,
}

#: Named strengths of a built-in (``ismcts-quick``, ``ismcts-strong``): played where a
#: strength is asked for by name (challenges, ``manage.py match``), but not among
#: :func:`names`, the players the platform keeps a bot of each.
_STRENGTHS: dict[str, Callable[[int], Bot]] = {
    name: partial(IsmctsBot, **budget) for name, budget in STRENGTHS.items()
}


def register(name: str, factory: Callable[[int], Bot]) -> None:
    """Add a built-in at run time (a test's own player); ``ValueError`` for a taken name."""
    if name in _FACTORIES:
        raise ValueError(f"built-in bot {name!r} registered twice")
    _FACTORIES[name] = factory


def unregister(name: str) -> None:
    """Remove a built-in added by :func:`register` (a test's own player, after the test)."""
    _FACTORIES.pop(name, None)


def names() -> list[str]:
    return sorted(_FACTORIES)


def strengths() -> list[str]:
    """The named strengths of the built-ins (see :data:`_STRENGTHS`)."""
    return sorted(_STRENGTHS)


def make(name: str, *, seed: int = 0) -> Bot:
    """A fresh built-in bot (a name of :func:`names` or :func:`strengths`); ``ValueError``
    naming the known ones for an unknown name."""
    factory = _FACTORIES.get(name) or _STRENGTHS.get(name)
    if factory is None:
        known = ", ".join([*names(), *strengths()])
        raise ValueError(f"unknown built-in bot {name!r} (known: {known})")
    return factory(seed)
