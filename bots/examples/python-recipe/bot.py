"""The recipe's bot: a linear policy over features of each legal label (recipe.py),
weights from train.py beside it (imitation of ismcts), in maniglia-3 and money-jordan.

The archive uploaded is this folder: ``bot.py``, ``bot.json``, ``recipe.py`` and
``weights.json``. Try it locally:

    python manage.py match maniglia-3 bots/examples/python-recipe \
        builtin:greedy builtin:greedy --games 6 --duplicate
"""

from __future__ import annotations

from bots.sdk import run
from bots.sdk.policy import policy_bot

if __name__ == "__main__":
    run(policy_bot(__file__, "recipe:RecipePolicy"))
