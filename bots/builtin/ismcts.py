"""``ismcts``: a search player for every variant (determinised Monte Carlo).

Each decision it samples worlds consistent with what its seat has seen
(``games.sampling`` through the SDK's tracker: its own cards, the public
history, voids, counts; never the true hidden cards), tries every legal label
in each world with random playouts (``games.search``) and plays the label with
the best mean value. Like every built-in it sees only the observation and the
legal labels. The budget is ``iterations`` playouts per decision (default
:data:`DEFAULT_ITERATIONS`), optionally cut by ``time_ms``; with the iteration
budget alone it is deterministic under its seed.
"""

from __future__ import annotations

from typing import Any

from bots.builtin import register
from bots.builtin.greedy import GreedyBot
from bots.sdk.tracking import GameTracker, TrackingBot
from games.sampling import SamplingError
from games.search import Playout, check_budget, choose

DEFAULT_ITERATIONS = 240
#: How many standard errors the search must win by to overrule the rule-based choice.
DEFAULT_Z = 2.0
#: Decisions left to the rule-based player: the Maniglia auction, where the
#: playouts' defence is too weak to price a contract.
RULE_PHASES = ("auction",)


class IsmctsBot(TrackingBot):
    """Determinised search over sampled worlds; ``seed`` fixes every choice."""

    name = "ismcts"

    def __init__(
        self,
        seed: int = 0,
        *,
        iterations: int = DEFAULT_ITERATIONS,
        time_ms: float | None = None,
        z: float = DEFAULT_Z,
    ) -> None:
        check_budget(iterations, time_ms)
        super().__init__(seed)
        self.iterations = iterations
        self.time_ms = time_ms
        self.z = z
        self.last = None  # the last SearchResult, for tests and logs

    def start(self, hello: dict[str, Any]) -> None:
        super().start(hello)
        self.rng.seed(f"ismcts/{self.seed}/{hello.get('seat', 0)}")
        self.rules = GreedyBot(self.seed)
        self.rules.start(hello)

    def game_over(self, result: dict[str, Any]) -> None:
        self.rules.game_over(result)

    def decide(self, tracker: GameTracker, legal: list[str]) -> str:
        if len(legal) == 1:
            return legal[0]
        default = self.rules.act(tracker.observation, legal)
        if tracker.observation.get("phase") in RULE_PHASES:
            return default
        try:
            result = choose(
                lambda: tracker.sample(self.rng),
                tracker.seat,
                legal,
                self.rng,
                iterations=self.iterations,
                time_ms=self.time_ms,
                policy=Playout(tracker.game, tracker.observation),
            )
        except SamplingError:
            # An observation the sampler cannot explain must never cost a forfeit
            # (FORFEIT-1): the rule-based choice is always legal.
            self.last = None
            return default
        self.last = result
        # The rule-based choice stands unless the search finds a clearly better one
        # in the same worlds (paired difference above Z standard errors).
        return result.label if result.better_than(default, self.z) else default


register("ismcts", IsmctsBot)
