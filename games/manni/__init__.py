"""The Manni family: manni-basic, manni-hornafjordur and laugavatnsmanni.

Three-player plain-trick games with a "Manni" (a stock) and running scores;
rules in ``docs/RULES.md`` sections 2-4, notes in ``docs/games/manni.md``.
"""

from games.core import Variant
from games.manni import basic, hornafjordur, laugavatn
from games.manni.sampling import deal_plans
from games.manni.state import LABELS
from games.registry import register
from games.sampling import trick_worlds

#: One action-id table for the family: ids index ``LABELS``.
NUM_DISTINCT_ACTIONS = len(LABELS)
#: Sampled worlds (``Variant.worlds``): one deal plan per deal of the observation.
WORLDS = trick_worlds(deal_plans)

register(
    Variant(
        id="manni-basic",
        family="manni",
        players=3,
        pack="french",
        dealer_rotation="left",  # COMMON-2
        num_distinct_actions=NUM_DISTINCT_ACTIONS,
        worlds=WORLDS,
        options=basic.OPTIONS,
        state_class=basic.ManniBasicState,
        summary="48 cards, 12 each and a 12-card Manni; trump by deal number; first to 10.",
    )
)
register(
    Variant(
        id="manni-hornafjordur",
        family="manni",
        players=3,
        pack="french",
        dealer_rotation="left",  # COMMON-2
        num_distinct_actions=NUM_DISTINCT_ACTIONS,
        worlds=WORLDS,
        options=hornafjordur.OPTIONS,
        state_class=hornafjordur.HornState,
        summary="52 cards, a 16-card Manni, the cut card sets Nullo, suit or no-trump.",
    )
)
register(
    Variant(
        id="laugavatnsmanni",
        family="manni",
        players=3,
        pack="french",
        dealer_rotation="left",  # COMMON-2
        num_distinct_actions=NUM_DISTINCT_ACTIONS,
        worlds=WORLDS,
        options=laugavatn.OPTIONS,
        state_class=laugavatn.LaugState,
        summary="52 cards, 16 each, announced contracts and great calls, 18 deals.",
    )
)
