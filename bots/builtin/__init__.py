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


#: Named strengths of a built-in (``ismcts-quick``, ``ismcts-strong``): played where a
#: strength is asked for by name (challenges, ``manage.py match``), but not among
#: :func:`names`, the players the platform keeps a bot of each.
_STRENGTHS: dict[str, Callable[[int], Bot]] = {}


def register(name: str, factory: Callable[[int], Bot]) -> None:
    if name in _FACTORIES:
        raise ValueError(f"built-in bot {name!r} registered twice")
    _FACTORIES[name] = factory


def register_strength(name: str, factory: Callable[[int], Bot]) -> None:
    if name in _FACTORIES or name in _STRENGTHS:
        raise ValueError(f"built-in bot {name!r} registered twice")
    _STRENGTHS[name] = factory


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


# Registration of the rule-based players (they import this module's register()).
from bots.builtin import greedy  # noqa: E402, F401  isort: skip
from bots.builtin import ismcts  # noqa: E402, F401  isort: skip
