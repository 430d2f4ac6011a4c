"""Tie-breaks: the chain of steps that orders a standings table, and what each step decided.

A *chain* is a tuple of steps, applied in order. The first step orders every
entry; each later step orders only the entries still level on every step
before it. Entries that no step separates share a rank (1, 2, 2, 4: shown
"2="), and keep the order they were given in (their seed order).

Steps (higher is better for each value given):

- ``points``: match points (pairwise, :mod:`tournaments.ratings.standings`).
- ``head_to_head``: pairwise points scored against the *other entries still
  level with it* (a mini-league among the tied), from the table results.
- ``sonneborn_berger``: over every opponent met, pairwise points scored
  against it at that table times the opponent's points.
- ``buchholz``, ``median_buchholz``: the opponents' points (Swiss).
- ``score``: the duplicate score, the entry's total game score over its
  matches: with every deal played once per seat rotation, the cards even out
  and the total measures play.
- ``rating``: the displayed rating ``mu - 3 sigma`` to two decimals, as
  shown (the last resort: it also counts whom the entry beat).
- ``placement``: a knockout's placement (champion, runner-up, round of
  elimination); ``values`` gives minus the placement rank.

:data:`CHAINS` says which chain each format uses. Every row says which step
put it below the row above (``separated_by``); None for the first row and for
a row sharing its rank with the row above. Pure code: no Django.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from tournaments.ratings.standings import HeadToHeadTable, TableResult, head_to_head, pair_score

Entry = Hashable

#: What each step is called on the site, in the docs and in the downloads.
STEP_LABELS = {
    "points": "points",
    "head_to_head": "head-to-head",
    "sonneborn_berger": "Sonneborn-Berger",
    "buchholz": "Buchholz",
    "median_buchholz": "median Buchholz",
    "score": "duplicate score",
    "rating": "rating",
    "placement": "placement",
}
#: Longer words for a chain's description (``describe_chain``).
STEP_WORDS = {
    **STEP_LABELS,
    "head_to_head": "head-to-head among the tied",
    "score": "duplicate score (total game score)",
    "rating": "rating (mu - 3 sigma, to two decimals)",
    "placement": "placement (champion, runner-up, then round of elimination)",
}
STEPS = frozenset(STEP_LABELS)

ROUND_ROBIN = ("points", "head_to_head", "sonneborn_berger", "rating")
ROUND_ROBIN_DUPLICATE = ("points", "head_to_head", "score", "rating")
SWISS = ("points", "buchholz", "sonneborn_berger", "head_to_head", "rating")
KNOCKOUT = ("placement",)
LADDER = ("rating", "points")

#: The chain of each competition format (``Competition.Format`` values); a round robin
#: of duplicate matches has :data:`ROUND_ROBIN_DUPLICATE`.
CHAINS: dict[str, tuple[str, ...]] = {
    "round-robin": ROUND_ROBIN,
    "double-round-robin": ROUND_ROBIN,
    "swiss": SWISS,
    "single-elimination": KNOCKOUT,
    "double-elimination": KNOCKOUT,
    "ladder": LADDER,
}

#: Values closer than this are level (sums of halves are exact; products and scores
#: are not always).
EPSILON = 1e-9


def chain_for(format_: str, *, duplicate: bool) -> tuple[str, ...]:
    """The chain of ``format_`` (a ``Competition.Format`` value); ``ValueError`` if unknown."""
    if format_ not in CHAINS:
        raise ValueError(f"no tie-break chain for format {format_!r}")
    chain = CHAINS[format_]
    return ROUND_ROBIN_DUPLICATE if duplicate and chain == ROUND_ROBIN else chain


def describe_chain(chain: Sequence[str]) -> str:
    """``("points", "head_to_head")`` -> "points, then head-to-head among the tied"."""
    return ", then ".join(STEP_WORDS[step] for step in chain)


@dataclass(frozen=True)
class Placed:
    """One row of an ordered table: its ``rank`` (1 = top, shared ranks repeat), whether
    the rank is ``shared`` with another row, the step that put it below the row above
    (``separated_by``), and its ``head_to_head`` score among those it was level with when
    that step was applied (0 if it never was)."""

    entry: Entry
    rank: int
    shared: bool
    separated_by: str | None
    head_to_head: float = 0.0


@dataclass
class _Block:
    entries: list[Entry]
    separated_by: str | None
    h2h: dict[Entry, float] = field(default_factory=dict)


def order(
    entries: Sequence[Entry],
    chain: Sequence[str],
    values: Mapping[str, Mapping[Entry, float]],
    results: Iterable[TableResult] = (),
) -> list[Placed]:
    """Order ``entries`` by ``chain``: best first, ties shared (module docstring).

    ``values`` maps every step of the chain but ``head_to_head`` to each entry's value
    (higher is better; a missing entry counts 0); ``results`` are the finished tables
    ``head_to_head`` reads. ``entries`` is the order kept among shared rows. Raises
    ``ValueError`` for an unknown step or a step without values.
    """
    for step in chain:
        if step not in STEPS:
            raise ValueError(f"unknown tie-break step {step!r}; choose from {sorted(STEPS)}")
        if step != "head_to_head" and step not in values:
            raise ValueError(f"no values given for the tie-break step {step!r}")
    table = head_to_head(results if "head_to_head" in chain else ())
    h2h: dict[Entry, float] = {}
    blocks = [_Block(list(entries), None)]
    for step in chain:
        split: list[_Block] = []
        for block in blocks:
            if len(block.entries) == 1:
                split.append(block)
                continue
            if step == "head_to_head":
                value = _mini_league(block.entries, table)
                h2h.update(value)
            else:
                value = {e: values[step].get(e, 0.0) for e in block.entries}
            split.extend(_split(block, value, step))
        blocks = split
    placed: list[Placed] = []
    for block in blocks:
        rank = len(placed) + 1
        for i, e in enumerate(block.entries):
            placed.append(
                Placed(
                    entry=e,
                    rank=rank,
                    shared=len(block.entries) > 1,
                    separated_by=block.separated_by if i == 0 else None,
                    head_to_head=h2h.get(e, 0.0),
                )
            )
    return placed


def _mini_league(group: list[Entry], table: HeadToHeadTable) -> dict[Entry, float]:
    """Each entry's pairwise points against the other entries of ``group``."""
    return {e: float(sum(table.get(e, o).score for o in group if o != e)) for e in group}


def _split(block: _Block, value: Mapping[Entry, float], step: str) -> list[_Block]:
    """``block`` sorted by ``value`` (best first, stable) and cut where the value changes;
    the first part keeps the block's own separation, the others were separated by ``step``."""
    ranked = sorted(block.entries, key=lambda e: -value[e])
    parts = [_Block([ranked[0]], block.separated_by)]
    for before, e in itertools.pairwise(ranked):
        if value[before] - value[e] > EPSILON:
            parts.append(_Block([e], step))
        else:
            parts[-1].entries.append(e)
    return parts


def sonneborn_berger(
    results: Iterable[TableResult], points: Mapping[Entry, float]
) -> dict[Entry, float]:
    """Per entry: the sum over opponents met (once per table) of the pairwise points scored
    against that opponent there times the opponent's ``points``."""
    out: dict[Entry, float] = {}
    for result in results:
        for e in result.entries():
            for o in result.opponents(e):
                out[e] = out.get(e, 0.0) + pair_score(result, e, o) * points.get(o, 0.0)
    return out
