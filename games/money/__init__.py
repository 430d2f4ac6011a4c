"""The Money family: money-jordan, money-egypt and money-syria.

Two-player games of luck and small trades: each player turns the top card of
a face-down stack of numerals onto a shared pile and captures it with a
match; picture cards are money that buys numerals when a stack runs out.
Rules in ``RULES.md`` section 5, notes in ``docs/games/money.md``.
"""

from typing import Any

from games.core import Game, Option, Variant, parse_bool, parse_int
from games.money.sampling import MoneyWorlds
from games.money.state import EgyptState, JordanState, SyriaState
from games.registry import register

MAX_PLAYS = 10_000  # LIMIT-1

_CAPTURE = Option(
    "money.capture",
    "auto",
    ("auto", "choice"),
    doc="MONEY-JO-7: every match captures (auto) or the player who matched answers "
    "capture/decline (choice).",
)
_JOKERS = Option(
    "money.jokers",
    False,
    parse=parse_bool("money.jokers"),
    doc="MONEY-JO-17: two jokers join the numerals; a joker matches only the other joker.",
)
_MAX_PLAYS = Option(
    "money.max_plays",
    MAX_PLAYS,
    parse=parse_int("money.max_plays", 1, 10_000_000),
    doc="LIMIT-1: the game ends after this many card plays; higher wealth wins.",
)

JORDAN_OPTIONS = (_CAPTURE, _JOKERS, _MAX_PLAYS)
EGYPT_OPTIONS = (
    _JOKERS,
    Option(
        "money.eg_values",
        "5-10-15",
        ("5-10-15", "10-15-20"),
        doc="MONEY-EG-5: Q-K-J worth 5-10-15 or 10-15-20.",
    ),
    Option(
        "money.eg_aces_money",
        False,
        parse=parse_bool("money.eg_aces_money"),
        doc="MONEY-EG-6: aces are money worth 30; banks of 8, stacks of 18.",
    ),
    Option(
        "money.eg_seven_diamonds",
        False,
        parse=parse_bool("money.eg_seven_diamonds"),
        doc="MONEY-EG-7: the 7 of diamonds captures any pile holding a numeral.",
    ),
    _MAX_PLAYS,
)
SYRIA_OPTIONS = (_CAPTURE, _MAX_PLAYS)


def worlds(game: Game, observation: dict[str, Any], previous: MoneyWorlds | None) -> MoneyWorlds:
    """Sampled worlds (``Variant.worlds``): a later decision of the same game starts
    from the deck found consistent for the earlier one."""
    return MoneyWorlds(game, observation, previous.deck if previous is not None else None)


#: An action id indexes the action table of the game's money system
#: (``games.money.plans.ActionTable``), so the id space depends on the options
#: that change the money: each variant states the largest table any of its
#: configurations has. Jordan: 190. Egypt: 190 (5-10-15), 177 (10-15-20), 898 and
#: 896 with aces as money. Syria: 591.
NUM_DISTINCT_ACTIONS = {"money-jordan": 190, "money-egypt": 898, "money-syria": 591}

register(
    Variant(
        id="money-jordan",
        family="money",
        players=2,
        pack="french",
        dealer_rotation="alternate",  # COMMON-2: one deal per game
        num_distinct_actions=NUM_DISTINCT_ACTIONS["money-jordan"],
        worlds=worlds,
        options=JORDAN_OPTIONS,
        state_class=JordanState,
        summary="40 numerals in two face-down stacks, K/J/Q money buys numerals; match to capture.",
    )
)
register(
    Variant(
        id="money-egypt",
        family="money",
        players=2,
        pack="french",
        dealer_rotation="alternate",  # COMMON-2: one deal per game
        num_distinct_actions=NUM_DISTINCT_ACTIONS["money-egypt"],
        worlds=worlds,
        options=EGYPT_OPTIONS,
        state_class=EgyptState,
        fixed={"money.capture": "auto"},
        summary="Jordan with automatic capture, purchases at the start of any turn, Q<K<J.",
    )
)
register(
    Variant(
        id="money-syria",
        family="money",
        players=2,
        pack="french",
        dealer_rotation="alternate",  # COMMON-2: one deal per game
        num_distinct_actions=NUM_DISTINCT_ACTIONS["money-syria"],
        worlds=worlds,
        options=SYRIA_OPTIONS,
        state_class=SyriaState,
        fixed={"money.jokers": "money"},
        summary="54 cards, jokers are money worth 5, ground purchases take the top of the pile.",
    )
)
