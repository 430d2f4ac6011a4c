"""Single and double elimination brackets.

A :class:`Bracket` is a fixed graph of nodes (tables). Each node takes its
``table_size`` participants from sources: a seed number, or the entry that
finished in a given place at an earlier node. Results come in as a mapping
from node id to :class:`TableResult`; everything else (who plays where next,
byes, the champion) is derived from them, so a bracket is checked and
replayed from its results alone.

Seeding: entries in seed order (seed 1 first), or sorted by rating, highest
first (ties keep the given order). Slots follow standard bracket seeding,
built from the final backwards: every table of a round is split into the
tables of the round before, its seeds dealt to those tables in a snake, and
the new seeds dealt to the tables from the weakest table upwards. For two
seats this is the usual 1-8, 4-5, 2-7, 3-6.

Byes: with ``n`` entries the first round holds full tables and bye tables
of exactly ``advance`` entries (the strongest seeds), who all go through.
That needs ``n - tables * advance`` to be a multiple of ``table_size -
advance`` and ``table_size`` to be a multiple of ``advance``; impossible
counts raise ``ValueError`` (with two seats every count works).

Advancing: the top ``advance`` finishers of each table go on; ties at the
cut are broken by seed. Double elimination (two seats) has a winners'
bracket, a losers' bracket fed with the winners' bracket losers (in
alternating order, delaying rematches), and a grand final; if the losers'
bracket champion wins it, a reset final ("GF2") is played, so nobody leaves
before a second loss.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tournaments.formats.common import Entry, Round, Table, check_entries, check_table_size
from tournaments.ratings.standings import TableResult


@dataclass(frozen=True)
class Source:
    """Where a participant comes from: ``seed`` (1-based) or ``place`` at ``node``."""

    seed: int = 0
    node: str = ""
    place: int = 0


@dataclass(frozen=True)
class Node:
    """One table of the bracket, played in schedule round ``round``."""

    id: str
    round: int
    sources: tuple[Source, ...]
    reset_of: str = ""  # a reset final: played only if the second side won ``reset_of``


@dataclass(frozen=True)
class NodeState:
    """A node under some results: participants (None = empty), finishing order if settled."""

    participants: tuple[Entry | None, ...] | None
    order: tuple[Entry | None, ...] | None
    played: bool


@dataclass(frozen=True)
class Placement:
    """An entry's place in a bracket: ``rank`` (ties share) and where it went out.

    ``eliminated_round`` / ``eliminated_at``: the schedule round and node id of its
    last table if it is out (the final for the runner-up), None while it is still in
    and for the champion.
    """

    entry: Entry
    rank: int
    eliminated_round: int | None = None
    eliminated_at: str | None = None


def seed_order(
    entries: Sequence[Entry], ratings: Mapping[Entry, float] | None = None
) -> list[Entry]:
    """Entries in seed order: as given, or by ``ratings`` descending (stable)."""
    items = check_entries(entries, minimum=1, what="a bracket")
    if ratings is None:
        return items
    missing = [e for e in items if e not in ratings]
    if missing:
        raise ValueError(f"no rating for entries {missing}")
    return sorted(items, key=lambda e: -ratings[e])


def _rounds_needed(n: int, k: int, a: int) -> int:
    if k % a or not 1 <= a < k:
        raise ValueError(f"advance must be in 1..{k - 1} and divide table_size {k}, got {a}")
    if n < k:
        raise ValueError(f"{n} entries are fewer than a table needs ({k})")
    rounds, tables = 1, 1
    while tables * a <= n:
        if n <= tables * k and (n - tables * a) % (k - a) == 0 and (rounds == 1) == (n == k):
            return rounds
        rounds, tables = rounds + 1, tables * (k // a)
    raise ValueError(
        f"cannot seat {n} entries in a {k}-seat bracket where {a} advance per table: "
        f"first-round byes need (entries - tables * {a}) divisible by {k - a}"
    )


def layout(n: int, k: int = 2, a: int = 1) -> list[list[int | None]]:
    """First-round tables as seed numbers (1-based, None = empty seat), standard seeding."""
    rounds = _rounds_needed(n, k, a)
    tables: list[list[int]] = [list(range(1, k + 1))]
    for level in range(rounds - 1):
        groups = k // a
        prev: list[list[int]] = []
        for table in tables:
            split: list[list[int]] = [[] for _ in range(groups)]
            for i, s in enumerate(sorted(table)):
                lap, pos = divmod(i, groups)
                split[pos if lap % 2 == 0 else groups - 1 - pos].append(s)
            prev.extend(split)
        slots = len(tables) * k
        weakest_first = sorted(range(len(prev)), key=lambda i: -min(prev[i]))
        last = level == rounds - 2
        byes = (len(prev) * k - n) // (k - a) if last else 0
        real = weakest_first[: len(prev) - byes]
        new = iter(range(slots + 1, slots + len(prev) * (k - a) + 1))
        for _ in range(k - a):
            for i in real:
                prev[i].append(next(new))
        for i in weakest_first[len(prev) - byes :]:
            prev[i].extend(next(new) for _ in range(k - a))
        tables = prev
    return [[s if s <= n else None for s in table] for table in tables]


class Bracket:
    """A bracket over seeded entries; query it with the results so far."""

    def __init__(
        self, seeds: Sequence[Entry], nodes: Sequence[Node], table_size: int, advance: int
    ) -> None:
        self.seeds = tuple(seeds)
        self.nodes = tuple(nodes)
        self.table_size = table_size
        self.advance = advance
        self.by_id = {node.id: node for node in self.nodes}
        self._seed_index = {e: i for i, e in enumerate(self.seeds)}

    @property
    def rounds(self) -> int:
        """The number of schedule rounds (the last holds the final or the reset final)."""
        return max(node.round for node in self.nodes)

    def _order(self, node: Node, table: Table, result: TableResult) -> tuple[Entry, ...]:
        if sorted(map(self._seed_index.get, result.table)) != sorted(
            map(self._seed_index.get, table)
        ) or len(result.table) != len(table):
            raise ValueError(f"result for {node.id} has {result.table}, expected {table}")
        ranks = {e: result.entry_rank(e) for e in table}
        return tuple(sorted(table, key=lambda e: (ranks[e], self._seed_index[e])))

    def states(self, results: Mapping[str, TableResult]) -> dict[str, NodeState]:
        """Every node's state under ``results``; ``ValueError`` if they are inconsistent."""
        unknown = set(results) - set(self.by_id)
        if unknown:
            raise ValueError(f"results for unknown nodes {sorted(unknown)}")
        out: dict[str, NodeState] = {}
        for node in self.nodes:
            people: list[Entry | None] = []
            for src in node.sources:
                if src.node:
                    order = out[src.node].order
                    if order is None:
                        break
                    people.append(order[src.place - 1] if src.place <= len(order) else None)
                else:
                    people.append(self.seeds[src.seed - 1] if src.seed <= len(self.seeds) else None)
            else:
                out[node.id] = self._settle(node, people, results, out)
                continue
            if node.id in results:
                raise ValueError(f"result for {node.id} before its participants are known")
            out[node.id] = NodeState(None, None, False)
        return out

    def _settle(
        self,
        node: Node,
        people: list[Entry | None],
        results: Mapping[str, TableResult],
        out: dict[str, NodeState],
    ) -> NodeState:
        present = tuple(p for p in people if p is not None)
        if node.reset_of:
            first = out[node.reset_of]
            upset = (
                first.played
                and first.order is not None
                and first.participants is not None
                and first.order[0] == first.participants[1]
            )
            if not upset:
                present = ()
        if len(present) == self.table_size:
            if node.id not in results:
                return NodeState(tuple(people), None, False)
            return NodeState(tuple(people), self._order(node, present, results[node.id]), True)
        if node.id in results:
            raise ValueError(f"result for {node.id}, which is not played (participants {present})")
        if len(present) > self.advance and not node.reset_of:
            raise ValueError(f"inconsistent bracket: {node.id} has {len(present)} participants")
        return NodeState(tuple(people), present, False)

    def ready(self, results: Mapping[str, TableResult]) -> list[tuple[str, Table]]:
        """Tables that can be played now: ``(node id, table in seat order)``."""
        states = self.states(results)
        return [
            (node.id, tuple(p for p in states[node.id].participants or () if p is not None))
            for node in self.nodes
            if states[node.id].order is None and states[node.id].participants is not None
        ]

    def round(self, number: int, results: Mapping[str, TableResult]) -> Round:
        """Schedule round ``number``: its playable tables and entries passing without play.

        Raises ``ValueError`` if the round's participants are not all known yet.
        """
        states = self.states(results)
        tables: list[Table] = []
        byes: list[Entry] = []
        for node in self.nodes:
            if node.round != number:
                continue
            state = states[node.id]
            if state.participants is None:
                raise ValueError(f"round {number} is not ready: {node.id} waits for results")
            present = tuple(p for p in state.participants if p is not None)
            if len(present) == self.table_size:
                tables.append(present)
            elif not node.reset_of:
                byes.extend(present)
        return Round(tables=tables, byes=byes)

    def placements(self, results: Mapping[str, TableResult]) -> list[Placement]:
        """Every seeded entry's place under ``results``, best first (ties share a rank).

        Once the champion is known: the final table (the reset final if it was played,
        else the final) by its match ranks, so the champion is first and the runner-up
        second; then everyone else by the schedule round of the table where they were
        knocked out, later rounds first, those out in the same round sharing a rank.
        Before the end, the entries still in come first: by the number of tables they
        lost and stayed in (in double elimination, the unbeaten ahead of those in the
        losers' bracket), those with as many sharing a rank. Within a rank the order is
        the seed order. Raises ``ValueError`` for inconsistent results.
        """
        states = self.states(results)
        final = self._final_table(states, results)
        out_at: dict[Entry, Node] = {}
        losses: dict[Entry, int] = {}
        referenced = {(s.node, s.place) for node in self.nodes for s in node.sources if s.node}
        for node in self.nodes:
            state = states[node.id]
            if not state.played or state.order is None:
                continue
            for place, entry in enumerate(state.order, start=1):
                if entry is None:
                    continue
                if (node.id, place) not in referenced:
                    out_at[entry] = node
                elif place > self.advance:  # beaten, on into the losers' bracket
                    losses[entry] = losses.get(entry, 0) + 1
        keys: dict[Entry, tuple[int, ...]] = {}
        for entry in self.seeds:
            if final is not None and entry in final:
                keys[entry] = (0, final[entry])
            elif entry in out_at:
                keys[entry] = (1, -out_at[entry].round)
            else:  # still in: the unbeaten first, then those in the losers' bracket
                keys[entry] = (0, 0, losses.get(entry, 0))
        ordered = sorted(self.seeds, key=lambda e: (keys[e], self._seed_index[e]))
        final_node = self.by_id[self._final_id(states)] if final is not None else None
        rows: list[Placement] = []
        for position, entry in enumerate(ordered, start=1):
            rank = rows[-1].rank if rows and keys[rows[-1].entry] == keys[entry] else position
            node = out_at.get(entry)
            if final is not None and entry in final:
                node = None if final[entry] == 1 else final_node
            rows.append(
                Placement(
                    entry,
                    rank,
                    eliminated_round=None if node is None else node.round,
                    eliminated_at=None if node is None else node.id,
                )
            )
        return rows

    def _final_id(self, states: Mapping[str, NodeState]) -> str:
        last = self.nodes[-1]
        if last.reset_of and not states[last.id].played:
            return last.reset_of
        return last.id

    def _final_table(
        self, states: Mapping[str, NodeState], results: Mapping[str, TableResult]
    ) -> dict[Entry, int] | None:
        """Match rank of each entry at the deciding final once the champion is known."""
        if self.champion(results) is None:
            return None
        node_id = self._final_id(states)
        if node_id not in results:  # a final of fewer than a table: its entries went through
            return {e: 1 for e in states[node_id].order or () if e is not None}
        result = results[node_id]
        return {e: result.entry_rank(e) for e in result.entries()}

    def champion(self, results: Mapping[str, TableResult]) -> Entry | None:
        """The winner once the last node is settled, else None."""
        states = self.states(results)
        last = self.nodes[-1]
        if last.reset_of:
            reset = states[last.id]
            if reset.order is None:
                return None
            if reset.played:
                return reset.order[0]
            last = self.by_id[last.reset_of]
        order = states[last.id].order
        return order[0] if order else None


def single_elimination(
    entries: Sequence[Entry],
    table_size: int = 2,
    *,
    advance: int = 1,
    ratings: Mapping[Entry, float] | None = None,
) -> Bracket:
    """A single elimination bracket; the top ``advance`` of each table go on.

    Node ids are ``"R{round}-{index}"``. Raises ``ValueError`` for a bad
    table size or advance, too few entries or an impossible bye layout.
    """
    seeds = seed_order(entries, ratings)
    k = check_table_size(table_size)
    first = layout(len(seeds), k, advance)
    nodes = [
        Node(f"R1-{i}", 1, tuple(Source(seed=s if s else len(seeds) + 1) for s in table))
        for i, table in enumerate(first)
    ]
    previous, r = [node.id for node in nodes], 1
    while len(previous) > 1:
        r += 1
        per = k // advance
        current = []
        for i in range(len(previous) // per):
            feeders = previous[i * per : (i + 1) * per]
            sources = tuple(Source(node=f, place=p) for f in feeders for p in range(1, advance + 1))
            nodes.append(Node(f"R{r}-{i}", r, sources))
            current.append(f"R{r}-{i}")
        previous = current
    return Bracket(seeds, nodes, k, advance)


def _schedule(nodes: list[Node]) -> list[Node]:
    """Set each node's round to one after its latest source node."""
    rounds: dict[str, int] = {}
    out = []
    for node in nodes:
        r = 1 + max((rounds[s.node] for s in node.sources if s.node), default=0)
        rounds[node.id] = r
        out.append(Node(node.id, r, node.sources, node.reset_of))
    return sorted(out, key=lambda node: node.round)


def double_elimination(
    entries: Sequence[Entry],
    *,
    ratings: Mapping[Entry, float] | None = None,
    reset: bool = True,
) -> Bracket:
    """A two-seat double elimination bracket.

    Node ids: ``"W{r}-{i}"`` (winners' bracket), ``"L{r}-{i}"`` (losers'
    bracket), ``"GF"`` and, with ``reset``, ``"GF2"``. Raises ``ValueError``
    for fewer than two entries.
    """
    seeds = seed_order(entries, ratings)
    first = layout(len(seeds), 2, 1)
    size = 2 * len(first)
    m = size.bit_length() - 1
    win, lose = Source, Source
    nodes = [
        Node(f"W1-{i}", 0, tuple(Source(seed=s if s else len(seeds) + 1) for s in t))
        for i, t in enumerate(first)
    ]
    for j in range(2, m + 1):
        for i in range(size >> j):
            srcs = (
                win(node=f"W{j - 1}-{2 * i}", place=1),
                win(node=f"W{j - 1}-{2 * i + 1}", place=1),
            )
            nodes.append(Node(f"W{j}-{i}", 0, srcs))
    if m >= 2:
        for i in range(size >> 2):
            srcs = (lose(node=f"W1-{2 * i}", place=2), lose(node=f"W1-{2 * i + 1}", place=2))
            nodes.append(Node(f"L1-{i}", 0, srcs))
    for j in range(2, m + 1):
        count = size >> j
        for i in range(count):
            dropped = count - 1 - i if j % 2 == 0 else i
            srcs = (win(node=f"L{2 * j - 3}-{i}", place=1), lose(node=f"W{j}-{dropped}", place=2))
            nodes.append(Node(f"L{2 * j - 2}-{i}", 0, srcs))
        if j < m:
            for i in range(count // 2):
                srcs = (
                    win(node=f"L{2 * j - 2}-{2 * i}", place=1),
                    win(node=f"L{2 * j - 2}-{2 * i + 1}", place=1),
                )
                nodes.append(Node(f"L{2 * j - 1}-{i}", 0, srcs))
    lb_champion = lose(node="W1-0", place=2) if m == 1 else win(node=f"L{2 * m - 2}-0", place=1)
    nodes.append(Node("GF", 0, (win(node=f"W{m}-0", place=1), lb_champion)))
    if reset:
        nodes.append(
            Node("GF2", 0, (win(node="GF", place=1), win(node="GF", place=2)), reset_of="GF")
        )
    return Bracket(seeds, _schedule(nodes), 2, 1)
