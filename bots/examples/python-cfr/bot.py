"""A tabular policy as a bot: the MCCFR solution of the one-deal maniglia-4.

``solve.py`` beside it writes ``policy.json.gz`` (information state to action
probabilities, ``bots.sdk.policy.save_tabular``); this bot draws each decision from
its state's row (``TabularBot``). The archive uploaded is this folder: ``bot.py``,
``bot.json`` and ``policy.json.gz``.
"""

from __future__ import annotations

from bots.sdk import run
from bots.sdk.policy import policy_bot

if __name__ == "__main__":
    run(policy_bot(__file__, "policy.json.gz"))
