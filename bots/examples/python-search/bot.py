"""Example search bot: samples worlds with the mounted engine and searches them.

Everything it uses is mounted in the sandbox: the SDK (``bots.sdk``, with its
tracked state) and the pure engines (``games``, with ``games.sampling`` and
``games.search``). Each decision it draws worlds consistent with what its
seat has seen (never the real hidden cards: the platform does not send them),
tries every legal label in each world with quick playouts and plays the best.

Run it locally against the built-ins (sandboxed, as uploaded bots are):

    python manage.py match manni-basic bots/examples/python-search builtin:greedy builtin:greedy
"""

from __future__ import annotations

import sys

from bots.sdk import TrackingBot, run
from games.search import Playout, choose

#: Playouts per decision; the clock below stops earlier if moves must be quick.
ITERATIONS = 300
#: Share of the per-move limit (``move_limit_ms`` of ``act``) the search may spend.
TIME_SHARE = 0.4


class SearchBot(TrackingBot):
    name = "python-search"

    def start(self, hello):
        super().start(hello)
        self.move_ms = (hello.get("time_control") or {}).get("move_ms", 1000)
        self.rng.seed(f"python-search/{hello.get('seat', 0)}")

    def decide(self, tracker, legal):
        if len(legal) == 1:
            return legal[0]
        result = choose(
            lambda: tracker.sample(self.rng),
            tracker.seat,
            legal,
            self.rng,
            iterations=ITERATIONS,
            time_ms=max(5.0, self.move_ms * TIME_SHARE),
            policy=Playout(tracker.game, tracker.observation),
        )
        print(
            f"{result.label}: {result.worlds} worlds, {result.playouts} playouts",
            file=sys.stderr,
        )
        return result.label


if __name__ == "__main__":
    run(SearchBot())
