"""A view of a trick-taking state's history that a family brings up to date deal by
deal as the history grows (:class:`PublicHistory`, what ``games.tricks.TrickState``
builds its public history with; ``games.tricks`` re-exports it)."""

from __future__ import annotations

from typing import Any


class PublicHistory:
    """One view of a state's history, brought up to date by :meth:`spans`.

    ``owner`` is the state's history list the view follows (a clone, whose
    history is a copy, makes its own view); ``deals`` holds what the family
    builds per deal, ``final`` what it builds once a deal is over.
    """

    __slots__ = ("deals", "final", "owner", "seen")

    def __init__(self, owner: list[int]) -> None:
        self.owner = owner
        self.deals: list[Any] = []
        self.final: list[Any] = []
        self.seen = 0  # history entries already in ``deals``

    def spans(self, starts: list[int]) -> list[tuple[int, int, int]]:
        """The entries not seen yet, per deal: ``(deal index, start, end)`` of ``owner``.

        ``starts`` is the state's ``deal_starts``. Every deal ``deals`` has no
        entry for yet comes back too (its span may be empty); the family
        appends its container for it, then extends it with ``owner[start:end]``.
        The view counts them all as seen.
        """
        length, known, seen = len(self.owner), len(self.deals), self.seen
        if seen == length and known == len(starts):
            return []
        out = []
        last = len(starts) - 1
        for index in range(max(known - 1, 0), last + 1):
            end = starts[index + 1] if index < last else length
            begin = max(seen, starts[index])
            if index >= known or begin < end:
                out.append((index, begin, end))
        self.seen = length
        return out
