"""Independent hidden-card oracles for the conformance suite, one per game family.

An oracle rebuilds, from the decks the test itself chose and the actions
applied, which cards each seat may legitimately see (cards it has held and
cards shown face up). It never asks the engine. Each family module exports:

- ``CASES``: ``(variant_id, options)`` pairs the conformance suite runs,
  covering every variant and every non-default option value;
- ``TOKEN``: a compiled regex matching card tokens in ``json.dumps(observation)``;
- ``pack(variant_id, options) -> list[str]``: the cards one deck holds;
- ``MAX_DECKS``: how many decks to hand to ``new_game`` (at least the deal cap);
- ``Oracle(variant_id, options, dealer, decks)`` with ``advance(seat, label)``
  after every applied action and ``visible(seat) -> set[str]``.
"""

from tests.games.oracles import maniglia, manni, money

FAMILIES = {"manni": manni, "maniglia": maniglia, "money": money}
