"""Think times that carry information: a bot's timing fingerprint, and whether two bots share one.

Two copies of one program can find each other at a table by a *beacon*: each waits a
set time on some of its first decisions, and reads the others' waits from the clock
(``tests/bots/hostile/colluder.py`` waits 8 ms on its first six decisions after each
``hello``). Nothing in the game explains such a wait; the decision's index since the
``hello`` does.

**What is compared.** Each ``hello`` starts a *process* (one a rotation of a duplicate
match, PROTOCOL.md; one a match otherwise) that plays one or more games. In a process
of two games or more, a bot's k-th decision of the first game (the first after the
``hello``) is compared with its k-th decision of the second: the same bot, on the same
machine, minutes apart, at the same place in a game (its k-th decision: the bidding,
the first tricks), on another deal. Only the *sign* is kept (slower, faster or tied,
in whole charged milliseconds): a machine twice as fast, or a loaded host that slows
the whole process, changes no sign. The first decision (``SKIP``) is left out: any
program may do lazy work there (imports, tables built on first use). Decisions
``SKIP`` to ``WINDOW - 1`` are compared.

If a bot's think times carry nothing about the index since the ``hello``, the two
games of a process are exchangeable: swapping them flips every sign. So for any fixed
weights ``w`` the *vote* of a process, ``sign(sum_k w_k * sign_k)``, is as likely +1 as
-1, and the votes of independent processes make an exact sign test; ties drop out.

**A bot's profile** (:class:`Profile`): per index k, how many processes had it slower
and faster in the first game; its *shape* is ``(slower - faster) / (slower + faster)``
per index, centred (its mean over the window taken away). Centring leaves out what
slows a whole first game alike (a warm cache for the second game, a loaded host): only
a *pattern* over the indices counts, and a beacon is one.

**Two bots alike** (:func:`alike`): a's processes vote with the weights of b's shape,
and b's with a's; each side's one-sided sign test gives a z = (2 * for - votes) /
sqrt(votes), and the pair's z is the smaller (an intersection-union test: each must
show the other's pattern, so the pair's p is at most the chance that an honest bot
shows a pattern it has never seen). The weights of one side come from the other's
decisions only, so under the null the test is exact whatever they are. Two honest
programs have no pattern (a shape of noise), and their votes split; two copies with a
beacon have the same pattern, and vote for it almost every process.

**One bot's beacon** (:func:`beacon`): its processes vote with its own window all
weighted alike (was the first game slower?): a structure check, not a fingerprint (a
cold cache shows as well), for reading beside the profile.

Pure: no framework; deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

#: Decisions of each seat kept per game (the first ones of the game).
WINDOW = 12
#: The first decisions after a ``hello`` left out (lazy work any program may do).
SKIP = 1
#: Fewest processes of a bot (pairs of games compared) before it is tested at all.
MIN_PROCESSES = 8
#: A profile keeps a bot's latest processes, at most this many: enough for a p far below
#: any threshold (2 ** -64), what it plays now (not a version long replaced), and a
#: look whose cost does not grow with a ladder's age.
MAX_PROCESSES = 64

#: One process of one bot: its first ``WINDOW`` charged ms of the first game after the
#: ``hello``, and of the second game.
Process = tuple[Sequence[int], Sequence[int]]


def seat_times(traces: Iterable[dict], seats: int) -> list[list[int]]:
    """The first :data:`WINDOW` charged milliseconds of each seat of a game, from its
    decision traces (``bots.referee.traces``) in order; what a game record keeps
    (``GameRecord.think_ms``)."""
    kept: list[list[int]] = [[] for _ in range(seats)]
    for trace in traces:
        seat, charged = trace.get("seat"), trace.get("charged_ms")
        if not isinstance(seat, int) or not 0 <= seat < seats or charged is None:
            continue  # a trace of an older or foreign shape: no time to keep
        row = kept[seat]
        if len(row) < WINDOW:
            row.append(int(charged))
    return kept


def match_processes(
    games: Sequence[tuple[Sequence[Hashable], Sequence[Sequence[int]]]],
    spans: Iterable[tuple[int, int]],
) -> dict[Hashable, list[Process]]:
    """Each entry's processes of one match: ``games`` gives per game (in the match's
    order) the entry at each seat and :func:`seat_times`; ``spans`` the ``(first, end)``
    games each ``hello`` started (``bots.referee.schedule.rotations``). A span of one
    game has nothing to compare."""
    found: dict[Hashable, list[Process]] = {}
    for first, end in spans:
        if end - first < 2 or end > len(games):
            continue
        (entries, times), (_, later) = games[first], games[first + 1]
        for seat, entry in enumerate(entries):
            if seat < len(times) and seat < len(later):
                found.setdefault(entry, []).append((times[seat], later[seat]))
    return found


def signs(process: Process) -> tuple[int, ...]:
    """Per index ``SKIP`` .. ``WINDOW - 1``: +1 where the first game's decision was
    charged more than the second's, -1 less, 0 tied or missing."""
    first, second = process
    return tuple(
        (first[k] > second[k]) - (first[k] < second[k]) if k < len(first) and k < len(second) else 0
        for k in range(SKIP, WINDOW)
    )


@dataclass(frozen=True)
class Profile:
    """A bot's think-time profile (module docstring): the signs of each process."""

    processes: tuple[tuple[int, ...], ...]

    @classmethod
    def of(cls, processes: Iterable[Process]) -> Profile:
        """The profile of ``processes`` (oldest first): the latest
        :data:`MAX_PROCESSES` of them."""
        return cls(tuple(signs(p) for p in list(processes)[-MAX_PROCESSES:]))

    @property
    def decisions(self) -> int:
        """Decisions compared (pairs not tied)."""
        return sum(1 for row in self.processes for s in row if s)

    def counts(self) -> list[tuple[int, int]]:
        """(slower, faster) per index of the window."""
        return [
            (sum(row[i] > 0 for row in self.processes), sum(row[i] < 0 for row in self.processes))
            for i in range(WINDOW - SKIP)
        ]

    def shape(self) -> list[float]:
        """The balance of each index, centred over the window (module docstring)."""
        raw = [(s - f) / (s + f) if s + f else 0.0 for s, f in self.counts()]
        mean = sum(raw) / len(raw)
        return [r - mean for r in raw]


@dataclass(frozen=True)
class SignTest:
    """Votes of processes: how many voted for the pattern, of how many not tied."""

    votes_for: int
    votes: int

    @property
    def z(self) -> float:
        """The sign test's z, (2 * for - votes) / sqrt(votes); 0 with no vote."""
        return (2 * self.votes_for - self.votes) / math.sqrt(self.votes) if self.votes else 0.0

    @property
    def p(self) -> float:
        """Exact one-sided p: at least ``votes_for`` of ``votes`` fair coins (1.0 with no
        vote)."""
        n = self.votes
        return sum(math.comb(n, i) for i in range(self.votes_for, n + 1)) / 2**n


def votes(profile: Profile, weights: Sequence[float]) -> SignTest:
    """Each process of ``profile`` votes ``sign(sum_k weights_k * sign_k)``."""
    tally = [sum(w * s for w, s in zip(weights, row, strict=True)) for row in profile.processes]
    voted = [t for t in tally if abs(t) > 1e-12]
    return SignTest(sum(t > 0 for t in voted), len(voted))


def beacon(profile: Profile) -> SignTest:
    """Whether the bot's first game after a ``hello`` is slower over the window than its
    second (module docstring): a structure check, not a fingerprint."""
    return votes(profile, [1.0] * (WINDOW - SKIP))


@dataclass(frozen=True)
class Alike:
    """Two profiles compared (:func:`alike`): each side's votes for the other's shape."""

    a: SignTest
    b: SignTest

    @property
    def z(self) -> float:
        return min(self.a.z, self.b.z)

    @property
    def p(self) -> float:
        """The larger of the two sides' exact p (intersection-union)."""
        return max(self.a.p, self.b.p)

    @property
    def tested(self) -> bool:
        """Whether both sides voted at :data:`MIN_PROCESSES` processes or more."""
        return min(self.a.votes, self.b.votes) >= MIN_PROCESSES


def alike(a: Profile, b: Profile) -> Alike:
    """Whether the two bots share a think-time pattern (module docstring)."""
    return Alike(votes(a, b.shape()), votes(b, a.shape()))


#: A bot's own processes show a pattern (:func:`patterned`) at this p or below.
PATTERN_P = 0.01


def patterned(profile: Profile) -> bool:
    """Whether ``profile``'s processes show a pattern of their own: the odd ones vote
    with the shape of the even ones, and the even with the odd's (a split half, so each
    side's test is exact under the null as :func:`alike`'s is), at :data:`PATTERN_P` or
    below on both sides. A bot without one cannot share one: what is worth comparing."""
    even = Profile(profile.processes[0::2])
    odd = Profile(profile.processes[1::2])
    result = alike(even, odd)
    return min(result.a.votes, result.b.votes) >= MIN_PROCESSES // 2 and result.p <= PATTERN_P


def evidence(result: Alike) -> str:
    """The comparison in words, for a link or a note."""
    return (
        f"first game after hello vs second, decisions {SKIP + 1}-{WINDOW}: "
        f"{result.a.votes_for} of {result.a.votes} processes of one and "
        f"{result.b.votes_for} of {result.b.votes} of the other follow the other's pattern "
        f"(p {result.p:.2g})"
    )
