"""The replay viewer's data: a stored game rebuilt step by step, shaped for drawing.

A step is an action and the position it led to, as a spectator sees it:
``view`` holds the public observation fields (no hand, no seat's own history)
and ``table`` the same position arranged for the card table that
``web/static/dashboard/replay.js`` draws: the seats, the cards in the middle, the
game's facts, the bids, the scores and the move in words. The full view adds
every seat's private cards; :func:`full_view_allowed` says who may see it.

The texts of a table are *parts*, which the page draws in order:

- a string or a number: text; ``None``: a dash;
- a list: its parts one after the other;
- ``{"seat": n}``: the name of the bot at seat n;
- ``{"cards": [label, ...]}``: cards face up, in the game's pack;
- ``{"backs": n}``: n cards face down;
- ``{"money": [[letter, value], ...]}``: Money's money cards;
- ``{"suit": letter}``: a suit sign of the game's pack;
- ``{"items": [...]}`` and ``{"fields": [[key, ...], ...]}``: a list and a
  mapping of anything else, for the fields no table knows (so nothing is hidden).

Modules: ``steps`` (the steps, their views and the full view's private cards),
``common`` (what every family's table shares: parts, seats, tricks, words), one
module per family (``manni``, ``maniglia``, ``money``: the table shapers) and
``access`` (who sees every hand, and which bot sits at each seat).
"""

from tournaments.watching.replay.access import REFUSED, full_view_allowed, seat_names
from tournaments.watching.replay.steps import (
    PACKS,
    hand_label,
    public_view,
    replay_meta,
    replay_steps,
)

__all__ = [
    "PACKS",
    "REFUSED",
    "full_view_allowed",
    "hand_label",
    "public_view",
    "replay_meta",
    "replay_steps",
    "seat_names",
]
