"""Hostile helper: the logic two sybil accounts share, kept out of their entry files.

Two accounts (``alice.py``, ``bob.py``) each upload a short entry file that only
imports this module: no two entry files are copies, and the owners are not linked,
so the one-bot-per-owner rule does not keep them apart. What they do together is
the colluder's (``tests/bots/hostile/colluder.py``): a timing beacon to find each
other, then soft play for each other. Only the collusion report and its watch
(docs/fair-play.md) see them.
"""

from __future__ import annotations

from tests.bots.hostile.colluder import Colluder


class Sybil(Colluder):
    name = "sybil"


def make(seed: int = 0) -> Sybil:
    """The shared player, as each sybil's entry file builds it."""
    return Sybil(seed)
