"""Example bot using the SDK: follows with the cheapest card that beats the led suit's best.

It knows nothing of trumps or contracts: a starting point, not a strong player.

Run it locally against the built-ins:

    python manage.py match manni-basic bots/examples/python builtin:random builtin:random
"""

from __future__ import annotations

from bots.sdk import Bot, run

RANKS = "23456789TJQKA"


def strength(label: str) -> int:
    """Rank of the card in a ``play``/``discard`` label (other labels rank 0)."""
    parts = label.split()
    if len(parts) == 2 and len(parts[1]) == 2 and parts[1][0] in RANKS:
        return RANKS.index(parts[1][0])
    return 0


class CheapWinner(Bot):
    name = "cheap-winner"

    def act(self, observation, legal):
        plays = [label for label in legal if label.startswith("play ")]
        if not plays:
            return legal[0]  # keep, draw, pass...: the first legal label
        trick = observation.get("trick") or []
        if not trick:
            return max(plays, key=strength)  # lead the strongest card
        led = trick[0][1][1]
        best = max(strength("play " + card) for _, card in trick if card[1] == led)
        winners = [p for p in plays if p[-1] == led and strength(p) > best]
        return min(winners or plays, key=strength)


if __name__ == "__main__":
    run(CheapWinner())
