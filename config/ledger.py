"""Where the ledger of worker seconds lives in Redis and how fast it forgets: shared by
the fair share's turns (``config.fairshare``, which charges and reads it) and the lanes'
slots (``config.slots``, whose script reads it to tell a heavy owner from a light one).
"""

from __future__ import annotations

#: One hash: tenant -> "usage:timestamp" (usage in seconds, as of timestamp).
LEDGER_KEY = "cardroom:fairshare:ledger"
#: Usage halves in this many seconds: the ledger measures the last several minutes.
HALF_LIFE_S = 300.0
