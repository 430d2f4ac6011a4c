"""A sandboxed bot that thinks with the mounted engine (``import games``).

On ``hello`` it loads its variant with the hello's options. On each ``act`` it
checks the referee's observation against its own copy of the engine: the
same variant, the same keys as the engine's own observation, and it plays a
private game of the variant to the same number of decisions and replays its
record, which must give back the same observation. Each check is written to
stderr as one JSON line (the referee keeps the log); then it plays the last
legal label.
"""

import json
import sys

import games
from bots.sdk import Bot, run


def report(**fields):
    sys.stderr.write(json.dumps(fields) + "\n")
    sys.stderr.flush()


class EngineBot(Bot):
    name = "engine"

    def start(self, hello):
        self.game = games.load(hello["variant"], **hello["options"])
        self.seat = hello["seat"]
        self.decisions = 0
        report(
            kind="hello",
            module=games.__file__,
            variant=self.game.id,
            players=self.game.num_players,
            hello_players=hello["players"],
        )

    def act(self, observation, legal):
        self.decisions += 1
        own = self.game.new_game(self.decisions)
        for _ in range(self.decisions):
            if own.is_over():
                break
            own.apply(own.legal_actions()[-1])
        seat = own.current_player() if own.current_player() is not None else 0
        replayed = games.replay(json.loads(json.dumps(own.record())))
        report(
            kind="act",
            variant=observation["variant"] == self.game.id,
            seat=observation["seat"] == self.seat,
            same_keys=sorted(observation) == sorted(own.observation(seat)),
            replayed=replayed.observation(seat) == own.observation(seat),
        )
        return legal[-1]


if __name__ == "__main__":
    run(EngineBot())
