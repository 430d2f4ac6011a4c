"""The Maniglia family: maniglia-3, maniglia-4, maniglia-5 and maniglia-4-partners.

Latin-pack trick games where a player must beat the card winning the trick
when an opponent holds it; rules in ``docs/RULES.md`` section 6, notes in
``docs/games/maniglia.md``.
"""

from games.core import Variant
from games.maniglia import auction, partners
from games.maniglia.sampling import deal_plans
from games.maniglia.state import LABELS
from games.registry import register
from games.sampling import trick_worlds

#: One action-id table for the family: ids index ``LABELS``.
NUM_DISTINCT_ACTIONS = len(LABELS)
#: Sampled worlds (``Variant.worlds``): one deal plan per deal of the observation.
WORLDS = trick_worlds(deal_plans)

register(
    Variant(
        id="maniglia-3",
        family="maniglia",
        players=3,
        pack="latin",
        dealer_rotation="right",  # MANIGLIA-GEN-3
        num_distinct_actions=NUM_DISTINCT_ACTIONS,
        worlds=WORLDS,
        options=auction.options_for(3),
        state_class=auction.Maniglia3State,
        summary="36 Latin cards, 12 each, auction for trump, declarer alone; first to 72.",
    )
)
register(
    Variant(
        id="maniglia-4",
        family="maniglia",
        players=4,
        pack="latin",
        dealer_rotation="right",  # MANIGLIA-GEN-3
        num_distinct_actions=NUM_DISTINCT_ACTIONS,
        worlds=WORLDS,
        options=auction.options_for(4),
        state_class=auction.Maniglia4State,
        summary="40 Latin cards, 10 each, auction for trump, declarer alone; first to 70.",
    )
)
register(
    Variant(
        id="maniglia-5",
        family="maniglia",
        players=5,
        pack="latin",
        dealer_rotation="right",  # MANIGLIA-GEN-3
        num_distinct_actions=NUM_DISTINCT_ACTIONS,
        worlds=WORLDS,
        options=auction.options_for(5),
        state_class=auction.Maniglia5State,
        summary="40 Latin cards, 8 each, auction for trump, declarer alone; first to 68.",
    )
)
register(
    Variant(
        id="maniglia-4-partners",
        family="maniglia",
        players=4,
        pack="latin",
        dealer_rotation="right",  # MANIGLIA-GEN-3
        num_distinct_actions=NUM_DISTINCT_ACTIONS,
        worlds=WORLDS,
        teams=partners.TEAMS,  # MANIGLIA-4P-1
        options=partners.OPTIONS,
        state_class=partners.PartnersState,
        summary="40 Latin cards, 10 each, teams 0+2 and 1+3, turned-up trump; first to 35.",
    )
)
