"""The player at a seat: how every match fills its seats, whoever plays it.

A competition's match (``tournaments.services.play``), a version test's deal
(``tournaments.worker.version_test_slices``), a validation match (``bots.validation``) and the
commands' matches (``manage.py match``, ``manage.py sprt``: ``bots.referee.specs``) all
take their players from :func:`seat_player`: a built-in runs in-process, seeded from the
match's seed and its seat (:func:`player_seed`); a bot program runs from its path,
sandboxed unless told otherwise. Pure: no Django.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from bots import builtin as builtins
from bots.referee.players import InProcessPlayer, Player, ProcessPlayer

#: A player seed keeps 56 bits, as a match seed does (``tournaments.integrity.deals.SEED_BYTES``).
#: Never change it: a stored match's built-in moves follow from it and are re-checked.
PLAYER_SEED_BYTES = 7


def player_seed(match_seed: int, seat: int) -> int:
    """The seed of the built-in bot at ``seat`` of a match (as secret as the match seed)."""
    digest = hashlib.sha256(f"cardroom-player:{match_seed}:{seat}".encode()).digest()
    return int.from_bytes(digest[:PLAYER_SEED_BYTES], "big")


def seat_player(
    *,
    builtin: str | None = None,
    path: str | Path | None = None,
    seed: int,
    seat: int,
    name: str | None = None,
    sandboxed: bool = True,
    limits: Any = None,
    stderr_archive_bytes: int = 0,
) -> Player:
    """The player at ``seat`` of a match of seed ``seed``: exactly one of

    - ``builtin``, the name of a built-in bot (``bots.builtin``), played in-process and
      seeded with :func:`player_seed` of ``seed`` and ``seat``;
    - ``path``, a bot program (a directory or file ``ProcessPlayer.from_path`` takes),
      run sandboxed unless ``sandboxed`` is false, under ``limits`` if given
      (``bots.sandbox.Limits``; else the sandbox's defaults), keeping its whole stderr
      compressed up to ``stderr_archive_bytes`` (``ProcessPlayer.full_stderr``; 0: not).

    ``name`` names the player (default: the built-in's own name, the path's last part).
    Raises ``ValueError`` naming the problem for an unknown built-in, a path that is not a
    runnable bot, or not exactly one of ``builtin`` and ``path``.
    """
    if (builtin is None) == (path is None):
        raise ValueError(f"a seat takes a built-in or a path, not {builtin=!r} and {path=!r}")
    if builtin is not None:
        bot = builtins.make(builtin, seed=player_seed(seed, seat))
        player = InProcessPlayer(bot, name=name)
        player.paced = False  # the platform's own: nothing to hide in its think time
        return player
    player = ProcessPlayer.from_path(
        path, limits=limits, sandboxed=sandboxed, stderr_archive_bytes=stderr_archive_bytes
    )
    if name is not None:
        player.name = name
    return player
