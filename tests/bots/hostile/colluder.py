"""Hostile bot: copies that find each other by a timing beacon and play for each other.

The greedy Manni player, plus two things a colluding author would add:

- **A beacon.** On its first :data:`BEACON` actions after each hello a copy waits
  :data:`STEP_MS` before answering. Every copy also measures the wall time between
  its own turns and reads from the public history who acted in between: for each
  other seat it predicts the gap were that seat a copy (a step for each of its
  first actions) and keeps the seat whose predictions fit (or none, if "no copy"
  fits best; a hypothesis must fit twice as well as the next). An honest
  opponent answers in well under a step.
- **Soft play for the partner** (Manni trick play, outside Nullo): when the
  partner is sure to win the trick (the copy plays last, or the partner's card
  is the highest left in its suit), a copy throws its lowest card instead of
  overtaking, keeping its high cards for the tricks the outsider could take.

``collude=False`` (the hello option ``"collude": false`` for the program, or
``--honest``) is the honest twin: the same beacon and waits, the greedy moves
always, for comparing on the same deals (``python -m bench.collusion``).

Run as a program (``python colluder.py [--honest]``) or used in-process.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from typing import Any

from bots.builtin.greedy import GreedyBot
from bots.builtin.greedy import manni as greedy_manni
from bots.builtin.greedy.tricks import is_master, played_this_deal, winning_card
from bots.sdk import run

#: Decisions per hello that carry the beacon.
BEACON = 6
#: One step of the beacon, in milliseconds.
STEP_MS = 8.0


def unseen_of(observation: dict[str, Any]) -> set[str]:
    """The cards neither in hand, put out of play nor played this deal."""
    known = set(observation["hand"]).union(
        observation.get("out_of_play") or (), played_this_deal(observation["history"])
    )
    return set(greedy_manni.pack_of(observation)).difference(known)


class Colluder(GreedyBot):
    name = "colluder"

    def __init__(self, seed: int = 0, *, collude: bool = True, step_ms: float = STEP_MS) -> None:
        super().__init__(seed)
        self.collude = collude
        self.step_ms = step_ms
        self.reset(0, 3)

    def reset(self, seat: int, players: int) -> None:
        self.seat, self.players = seat, players
        self.actions: Counter[int] = Counter()  # per seat, actions seen since hello
        self.processed = 0  # actions of this game's history already counted
        self.last_answer: float | None = None
        self.errors = [0.0] * (players + 1)  # squared misfit per hypothesis; [-1]: none
        self.evidence = 0
        self.partner: int | None = None

    def start(self, hello: dict[str, Any]) -> None:
        super().start(hello)
        self.reset(int(hello.get("seat", 0)), int(hello.get("players", 3)))
        if (hello.get("options") or {}).get("collude") is False:
            self.collude = False

    def game_over(self, result: dict[str, Any]) -> None:
        super().game_over(result)
        self.processed = 0

    def act(self, observation: dict[str, Any] | None, legal: list[str]) -> str:
        arrived = time.perf_counter()
        actors = self.new_actors(observation)
        if self.last_answer is not None and self.partner is None:
            self.listen((arrived - self.last_answer) * 1000, actors)
        label = self.choose(observation, legal)
        if self.actions[self.seat] < BEACON:
            time.sleep(self.step_ms / 1000)
        self.last_answer = time.perf_counter()
        return label

    def new_actors(self, observation: dict[str, Any] | None) -> list[tuple[int, int]]:
        """(seat, its action number since hello) of every action since the last look."""
        seats = [s for deal in (observation or {}).get("history") or () for s in deal["seats"]]
        out = []
        for seat in seats[self.processed :]:
            out.append((seat, self.actions[seat]))
            self.actions[seat] += 1
        self.processed = len(seats)
        return out

    def listen(self, gap_ms: float, actors: list[tuple[int, int]]) -> None:
        """Score each hypothesis (seat s is a copy, or no seat is) by how well it
        predicts ``gap_ms``; name the partner once one fits clearly."""
        predicted = [0.0] * (self.players + 1)
        for seat, number in actors:
            if seat != self.seat and number < BEACON:
                predicted[seat] += self.step_ms
        if len(set(predicted)) == 1:
            return  # every hypothesis predicts the same: nothing learnt
        for h, value in enumerate(predicted):
            self.errors[h] += (gap_ms - value) ** 2
        self.evidence += 1
        if self.evidence >= 3:
            best, second = sorted(range(self.players + 1), key=lambda h: self.errors[h])[:2]
            clear = self.errors[best] < 0.5 * self.errors[second]
            if best < self.players and best != self.seat and clear:
                self.partner = best

    def choose(self, observation: dict[str, Any] | None, legal: list[str]) -> str:
        greedy = super().act(observation, legal)
        if not (self.collude and self.partner is not None and observation):
            return greedy
        if observation.get("phase") != "play" or greedy_manni.is_nullo(observation):
            return greedy
        trick = observation.get("trick") or []
        if not trick or len(legal) == 1:
            return greedy
        ranks = greedy_manni.rank_table(observation, self.options)
        cards = [card for _, card in trick]
        best = winning_card(cards, observation.get("trump"), ranks)
        winner = next(seat for seat, card in trick if card == best)
        if winner != self.partner:
            return greedy
        last = len(trick) == self.players - 1
        if not last and not is_master(best, unseen_of(observation), ranks):
            return greedy  # the outsider may still overtake: help to hold the trick
        mine = [label[5:] for label in legal]
        return "play " + greedy_manni.lowest_discard(mine, observation.get("trump"), ranks)


if __name__ == "__main__":
    run(Colluder(collude="--honest" not in sys.argv[1:]))
