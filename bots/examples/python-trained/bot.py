"""A trained policy as a bot: maniglia-3, weights from train.py beside it.

The policy maps the observation vector of docs/training.md to a score per action id
and plays the best-scored legal label (``bots.sdk.policy.PolicyBot``). It loads
``weights.npz`` from its own directory, so the archive uploaded is this folder:
``bot.py``, ``bot.json`` and ``weights.npz``. Try it locally:

    python manage.py match maniglia-3 bots/examples/python-trained \
        builtin:random builtin:random --games 6 --duplicate
"""

from __future__ import annotations

import os

# numpy's linear algebra would start a thread per core; a bot gets one core.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from bots.sdk import run
from bots.sdk.policy import PolicyBot

if __name__ == "__main__":
    run(PolicyBot.beside(__file__, "weights.npz"))
