"""The installation's standing open ladders: somewhere to play every variant.

One running ladder per registered variant (``games.variants()``), owned by the
platform (no creator: staff run it) and open to every signed-in author: any user
enters a bot of theirs that plays the variant (``services.entry_create``; the entry
counts against their ``ladder_entries`` allowance). House bots (built-in ``random``
and ``greedy`` rows without an owner) fill the seats of one table, two to five of
them as the variant seats, so a ladder plays from the start and a newcomer's bot
always has someone to meet. A partnership variant's ladder rotates partners: an
entry is one bot, partnered by whoever a batch seats opposite it.

A ladder is keyed by its variant (``Competition.standing``; before there was one
for every variant it was the game family, "manni", "maniglia" or "money", which
migration 0019 turned into the variant those ladders play). Each family's base or
usual game keeps the family's name: the Open Manni ladder plays ``manni-basic``
(RULES.md section 2), the Open Maniglia ladder ``maniglia-4-partners`` (Maniglia as
usually played, RULES.md 6.2), the Open Money ladder ``money-jordan`` (the base rules
Egypt and Syria amend, RULES.md 5); the other variants' ladders say which game they
are (:data:`GAME_NAMES`).

A match is the fewest whole rotations of the seats that make at least
:data:`MIN_GAMES` games (matches are duplicate: every deal is played once from each
seat, so the luck of the cards cancels): two deals at two or three seats, where one
rotation is only two or three games, and one deal from every seat at four (4 games)
or five (5).

They are made and started by ``tournaments.services.ladders``.
"""

from __future__ import annotations

from dataclasses import dataclass

import games
from tournaments.models import Competition

Status = Competition.Status
#: Statuses of a standing ladder that has not ended.
OPEN = (Status.DRAFT, Status.RUNNING, Status.PAUSED)
#: The least number of games in a standing ladder's match.
MIN_GAMES = 4
#: The game each variant's ladder is named after ("Open <game> ladder"), in the order
#: the ladders are listed: family by family, the base or usual game first. A variant
#: registered without a name here still gets its ladder, named by its id, listed last.
GAME_NAMES = {
    "manni-basic": "Manni",
    "manni-hornafjordur": "Hornafjarðar Manni",
    "laugavatnsmanni": "Laugavatnsmanni",
    "maniglia-4-partners": "Maniglia",
    "maniglia-3": "3-handed Maniglia",
    "maniglia-4": "4-handed Maniglia",
    "maniglia-5": "5-handed Maniglia",
    "money-jordan": "Money",
    "money-egypt": "Egyptian Money",
    "money-syria": "Syrian Money",
}


@dataclass(frozen=True)
class StandingLadder:
    """What ``ladders ensure`` makes for one variant."""

    variant: str
    family: str
    name: str
    players: int
    games_per_match: int


def standing_ladder_specs() -> tuple[StandingLadder, ...]:
    """One :class:`StandingLadder` per registered variant, in :data:`GAME_NAMES` order."""
    order = {variant: i for i, variant in enumerate(GAME_NAMES)}
    out = []
    for variant in sorted(games.variants(), key=lambda v: (order.get(v, len(order)), v)):
        info = games.variant_info(variant)
        rotations = -(-MIN_GAMES // info.players)  # ceiling division
        out.append(
            StandingLadder(
                variant=variant,
                family=info.family,
                name=f"Open {GAME_NAMES.get(variant, variant)} ladder",
                players=info.players,
                games_per_match=rotations * info.players,
            )
        )
    return tuple(out)


STANDING_LADDERS = standing_ladder_specs()


def variants_in_ladder_order() -> list[str]:
    """The registered variants as the ladders list them: family by family, the base or
    usual game first (:data:`GAME_NAMES`)."""
    return [spec.variant for spec in STANDING_LADDERS]


def standing_ladders() -> list[Competition]:
    """The standing ladders that have not ended, in :data:`STANDING_LADDERS` order."""
    found = {
        c.standing: c for c in Competition.objects.filter(status__in=OPEN).exclude(standing="")
    }
    return [found[s.variant] for s in STANDING_LADDERS if s.variant in found]
